import type { TimelineEvent } from './events';
import { PackedIterations } from './packedIterations';

/**
 * TimelineStore: a bounded ring of timeline events with subscribers.
 *
 * Guarantees:
 * - Memory is bounded: at most `capacity` events are held; the oldest are dropped first and
 *   counted in `dropped`, so a reader knows the history is partial rather than silently short.
 * - Every subscriber sees every event appended after it subscribed, in append order.
 * - A throwing subscriber cannot break the emitter or other subscribers.
 * - Sync-loop iterations are held packed (packedIterations.ts: typed columns, ~90 bytes instead of
 *   ~210 an event); `at`, `toArray` and `some` give each back as a fresh object deep-equal to the
 *   one appended. Subscribers get the appended object itself. Other events are held as given.
 */
export class TimelineStore {
  /** The event at each slot when it is held as given; undefined where the slot is packed (or empty). */
  private buf: (TimelineEvent | undefined)[];
  private packed: PackedIterations;
  private start = 0;
  private size = 0;
  private listeners = new Set<(e: TimelineEvent) => void>();
  dropped = 0;

  constructor(readonly capacity = 100_000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.buf = [];
    this.packed = new PackedIterations(capacity);
  }

  append(e: TimelineEvent): void {
    let slot: number;
    if (this.size < this.capacity) {
      slot = (this.start + this.size) % this.capacity;
      this.size++;
    } else {
      slot = this.start;
      this.start = (this.start + 1) % this.capacity;
      this.dropped++;
    }
    this.put(slot, e);
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // a subscriber's failure is its own; the timeline goes on
      }
    }
  }

  private put(slot: number, e: TimelineEvent): void {
    const held = e.kind === 'iteration' && this.packed.pack(slot, e) ? undefined : e;
    if (held) this.packed.release(slot);
    // A ring fills its slots in order before it wraps: a new slot is always the next one.
    if (slot === this.buf.length) this.buf.push(held);
    else this.buf[slot] = held;
  }

  get length(): number {
    return this.size;
  }

  /** The `index`th event held (0 = the oldest), without copying the ring; undefined out of range. */
  at(index: number): TimelineEvent | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.size) return undefined;
    const slot = (this.start + index) % this.capacity;
    return this.buf[slot] ?? this.packed.unpack(slot);
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
    this.buf = [];
    this.packed = new PackedIterations(this.capacity);
    this.start = 0;
    this.size = 0;
    this.dropped = 0;
  }
}
