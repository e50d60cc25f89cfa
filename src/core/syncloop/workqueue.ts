import type { Clock } from '../clock';

/**
 * WorkQueue: upstream pkg/kubelet/util/queue — a map of key -> deadline. The pod workers enqueue a
 * key after every sync (resync interval, error backoff, or now on a phase transition); each sync
 * tick takes every key whose deadline has passed.
 *
 * Guarantees:
 * - At most one entry per key: enqueue overwrites, so the queue never holds more entries than there
 *   are keys (memory bounded by the key set, whatever the update rate).
 * - getWork returns each due key exactly once and removes it.
 */
export class WorkQueue {
  private readonly queue = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** Inserts key due `delayMs` from now, replacing any earlier deadline. */
  enqueue(key: string, delayMs: number): void {
    this.queue.set(key, this.clock.now() + Math.max(0, delayMs));
  }

  /** Dequeues and returns every key whose deadline is now or past. */
  getWork(): string[] {
    const now = this.clock.now();
    const items: string[] = [];
    for (const [k, at] of this.queue) {
      if (at <= now) {
        items.push(k);
        this.queue.delete(k);
      }
    }
    return items;
  }

  /** Forgets a key whose worker was purged (it can never be synced again under this key's history). */
  forget(key: string): void {
    this.queue.delete(key);
  }

  has(key: string): boolean {
    return this.queue.has(key);
  }

  /** The deadline of a key, for tests and the timeline. */
  deadline(key: string): number | undefined {
    return this.queue.get(key);
  }

  get size(): number {
    return this.queue.size;
  }
}

/** wait.Jitter: duration + random * maxFactor * duration (so 0..+maxFactor above the base). */
export function jitter(durationMs: number, maxFactor: number, random: () => number = Math.random): number {
  const f = maxFactor > 0 ? maxFactor : 1;
  return durationMs + random() * f * durationMs;
}
