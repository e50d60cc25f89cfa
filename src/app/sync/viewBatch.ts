/**
 * ViewBatch: the sync loop's actualStateOfWorld changes into the ResourceModel once per frame-sized
 * window instead of one by one: under churn a pod's view often changes several times in a few
 * milliseconds (its update, then its worker's sync), and the model, the tree and the status bar
 * need only the last. No 'vscode' import; time through a Clock (tests use FakeClock).
 *
 * Guarantees:
 * - Every pushed change is applied within `windowMs` (or at flush()), the last view of each key
 *   winning, keys in the order of their latest change.
 * - At most one timer is pending; dispose() cancels it; nothing is applied after dispose().
 * - An `apply` that throws loses only its own key's change, never the rest of the batch.
 */
import type { Clock, TimerHandle } from '../../core/clock';
import type { ObjectView } from '../../core/syncloop/state/view';

export const VIEW_BATCH_MS = 16;

export class ViewBatch {
  private pending = new Map<string, ObjectView | undefined>();
  private timer: TimerHandle | undefined;
  private disposed = false;

  constructor(
    private readonly apply: (key: string, view: ObjectView | undefined) => void,
    private readonly clock: Clock,
    readonly windowMs = VIEW_BATCH_MS,
  ) {}

  /** How many keys wait for the next flush. */
  get size(): number {
    return this.pending.size;
  }

  push(key: string, view: ObjectView | undefined): void {
    if (this.disposed) return;
    this.pending.delete(key); // re-inserted last: the order of the latest changes
    this.pending.set(key, view);
    this.timer ??= this.clock.setTimer(this.windowMs, () => this.flush());
  }

  flush(): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.disposed || this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    for (const [key, view] of batch) {
      try {
        this.apply(key, view);
      } catch {
        // the model's failure on one key is its own
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.pending.clear();
  }
}
