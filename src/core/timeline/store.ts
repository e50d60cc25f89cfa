import type { TimelineEvent } from './events';

/**
 * TimelineStore: a bounded ring of timeline events with subscribers.
 *
 * Guarantees:
 * - Memory is bounded: at most `capacity` events are held; the oldest are dropped first and
 *   counted in `dropped`, so a reader knows the history is partial rather than silently short.
 * - Every subscriber sees every event appended after it subscribed, in append order.
 * - A throwing subscriber cannot break the emitter or other subscribers.
 */
export class TimelineStore {
  private buf: (TimelineEvent | undefined)[];
  private start = 0;
  private size = 0;
  private listeners = new Set<(e: TimelineEvent) => void>();
  dropped = 0;

  constructor(readonly capacity = 100_000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.buf = new Array(capacity);
  }

  append(e: TimelineEvent): void {
    if (this.size < this.capacity) {
      this.buf[(this.start + this.size) % this.capacity] = e;
      this.size++;
    } else {
      this.buf[this.start] = e;
      this.start = (this.start + 1) % this.capacity;
      this.dropped++;
    }
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // a subscriber's failure is its own; the timeline goes on
      }
    }
  }

  get length(): number {
    return this.size;
  }

  /** The `index`th event held (0 = the oldest), without copying the ring; undefined out of range. */
  at(index: number): TimelineEvent | undefined {
    return Number.isInteger(index) && index >= 0 && index < this.size ? this.buf[(this.start + index) % this.capacity] : undefined;
  }

  /** Events in append order (oldest first). */
  toArray(): TimelineEvent[] {
    const out: TimelineEvent[] = new Array(this.size);
    for (let i = 0; i < this.size; i++) out[i] = this.at(i)!;
    return out;
  }

  /** Whether any event held satisfies `pred` (oldest first; stops at the first). */
  some(pred: (e: TimelineEvent) => boolean): boolean {
    for (let i = 0; i < this.size; i++) if (pred(this.at(i)!)) return true;
    return false;
  }

  subscribe(fn: (e: TimelineEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  clear(): void {
    this.buf = new Array(this.capacity);
    this.start = 0;
    this.size = 0;
    this.dropped = 0;
  }
}
