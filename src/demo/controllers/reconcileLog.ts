/**
 * The last reconciles of the controllers, for a client in another process (`GET /_demo/reconciles`):
 * an extension connected to `npm run demo`'s cluster cannot see its controllers otherwise.
 *
 * Guarantees: bounded (the last `capacity` records; older ones are dropped and `dropped` counts
 * them); every record gets the next sequence number, so `after(seq)` returns each record once to a
 * client that passes the last seq it saw; a record's `at` is its start in wall-clock ms (the process's
 * monotonic clock is meaningless elsewhere).
 */
import type { ReconcileRecord } from './observe';

export interface LoggedReconcile extends ReconcileRecord {
  seq: number;
  /** Start, wall-clock ms since the epoch. */
  at: number;
}

export class ReconcileLog {
  private readonly ring: LoggedReconcile[] = [];
  private seq = 0;
  dropped = 0;

  constructor(
    readonly capacity = 2000,
    /** Wall-clock ms of a controllers' clock reading (default: the real clock, performance.now()). */
    private readonly wallOf: (t: number) => number = (t) => Date.now() - (performance.now() - t),
  ) {}

  push(r: ReconcileRecord): void {
    this.ring.push({ ...r, seq: ++this.seq, at: this.wallOf(r.t) });
    if (this.ring.length > this.capacity) {
      this.ring.shift();
      this.dropped++;
    }
  }

  /** Records with seq > after, oldest first, at most `limit`; `last` is the newest seq there is. */
  after(after: number, limit = 1000): { last: number; records: LoggedReconcile[] } {
    const first = this.ring.findIndex((r) => r.seq > after);
    return { last: this.seq, records: first < 0 ? [] : this.ring.slice(first, first + limit) };
  }
}
