/**
 * ViewBatch: the sync loop's actualStateOfWorld changes into the ResourceModel once per frame-sized
 * window instead of one by one: under churn a pod's view often changes several times in a few
 * milliseconds (its update, then its worker's sync), and the model, the tree and the status bar
 * need only the last. No 'vscode' import; time through a Clock (tests use FakeClock).
 *
 * Guarantees:
 * - Every pushed change is applied within `windowMs` (or at flush()), the last view of each key
 *   winning, keys in the order of their latest change; except that a window's batch larger than
 *   one slice of the thread (a first list's 50,000 views) is applied in slices of `sliceMs`, one
 *   timer turn apart, so the host's event loop is never held longer (flush() applies all at once).
 * - At most one timer is pending; dispose() cancels it; nothing is applied after dispose().
 * - An `apply` that throws loses only its own key's change, never the rest of the batch.
 */
import type { Clock, TimerHandle } from '../../core/clock';
import { SLICE_MS } from '../../core/slice';
import type { ObjectView } from '../../core/rows/objectView';

export const VIEW_BATCH_MS = 16;

export class ViewBatch {
  private pending = new Map<string, ObjectView | undefined>();
  private timer: TimerHandle | undefined;
  private disposed = false;

  constructor(
    private readonly apply: (key: string, view: ObjectView | undefined) => void,
    private readonly clock: Clock,
    readonly windowMs = VIEW_BATCH_MS,
    readonly sliceMs = SLICE_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** How many keys wait for the next flush. */
  get size(): number {
    return this.pending.size;
  }

  push(key: string, view: ObjectView | undefined): void {
    if (this.disposed) return;
    this.pending.delete(key); // re-inserted last: the order of the latest changes
    this.pending.set(key, view);
    this.timer ??= this.clock.setTimer(this.windowMs, () => this.drain());
  }

  /** Applies everything pending now. */
  flush(): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.disposed || this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    for (const [key, view] of batch) this.applyOne(key, view);
  }

  /** The timer's flush: oldest changes first, until the slice is spent; the rest on the next turn. */
  private drain(): void {
    this.timer = undefined;
    if (this.disposed) return;
    const until = this.now() + this.sliceMs;
    let n = 0;
    for (const [key, view] of this.pending) {
      // A key pushed meanwhile is re-inserted last (push), so what is left keeps its order.
      this.pending.delete(key);
      this.applyOne(key, view);
      if (++n % 64 === 0 && this.now() >= until) break;
    }
    if (this.pending.size > 0) this.timer ??= this.clock.setTimer(0, () => this.drain());
  }

  private applyOne(key: string, view: ObjectView | undefined): void {
    try {
      this.apply(key, view);
    } catch {
      // the model's failure on one key is its own
    }
  }

  dispose(): void {
    this.disposed = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.pending.clear();
  }
}
