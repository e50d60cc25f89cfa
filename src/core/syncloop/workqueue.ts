import type { Clock } from '../clock';

/**
 * WorkQueue: upstream pkg/kubelet/util/queue — a map of key -> deadline. The pod workers enqueue a
 * key after every sync (resync interval, error backoff, or now on a phase transition); each sync
 * tick takes every key whose deadline has passed.
 *
 * Guarantees:
 * - At most one entry per key: enqueue overwrites, so the queue never holds more live entries than
 *   there are keys (memory bounded by the key set, whatever the update rate: superseded deadlines
 *   are dropped when they come up, and all of them once they outnumber the live ones).
 * - getWork returns each due key exactly once, earliest deadline first, and removes it; its cost is
 *   the due keys (a heap of deadlines), not every key queued. Upstream walks the whole map each
 *   tick, which is nothing for a node's hundred pods and was ~20 ms a second at 100,000.
 */
export class WorkQueue {
  /** key -> its deadline: the truth. */
  private readonly queue = new Map<string, number>();
  /** Deadlines as a binary min-heap (parallel arrays); an entry whose key now has another deadline, or none, is stale. */
  private heapAt: number[] = [];
  private heapKey: string[] = [];

  constructor(private readonly clock: Clock) {}

  /** Inserts key due `delayMs` from now, replacing any earlier deadline. */
  enqueue(key: string, delayMs: number): void {
    const at = this.clock.now() + Math.max(0, delayMs);
    if (this.queue.get(key) === at) return;
    this.queue.set(key, at);
    this.push(at, key);
    if (this.heapAt.length > 2 * this.queue.size + 1024) this.rebuild();
  }

  /** Dequeues and returns every key whose deadline is now or past. */
  getWork(): string[] {
    const now = this.clock.now();
    const items: string[] = [];
    while (this.heapAt.length > 0 && this.heapAt[0]! <= now) {
      const at = this.heapAt[0]!;
      const key = this.heapKey[0]!;
      this.pop();
      if (this.queue.get(key) !== at) continue; // superseded or forgotten
      this.queue.delete(key);
      items.push(key);
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

  private push(at: number, key: string): void {
    const a = this.heapAt;
    const k = this.heapKey;
    let i = a.length;
    a.push(at);
    k.push(key);
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (a[up]! <= at) break;
      a[i] = a[up]!;
      k[i] = k[up]!;
      i = up;
    }
    a[i] = at;
    k[i] = key;
  }

  private pop(): void {
    const a = this.heapAt;
    const k = this.heapKey;
    const lastAt = a.pop()!;
    const lastKey = k.pop()!;
    const n = a.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && a[c + 1]! < a[c]!) c++;
      if (a[c]! >= lastAt) break;
      a[i] = a[c]!;
      k[i] = k[c]!;
      i = c;
    }
    a[i] = lastAt;
    k[i] = lastKey;
  }

  /** The heap again from the live deadlines alone. */
  private rebuild(): void {
    this.heapAt = [];
    this.heapKey = [];
    for (const [key, at] of this.queue) this.push(at, key);
  }
}

/** wait.Jitter: duration + random * maxFactor * duration (so 0..+maxFactor above the base). */
export function jitter(durationMs: number, maxFactor: number, random: () => number = Math.random): number {
  const f = maxFactor > 0 ? maxFactor : 1;
  return durationMs + random() * f * durationMs;
}
