/**
 * Paced: the latest of a stream of values, delivered at most once per `gapMs`. A load's progress
 * changes with every finished task (about 90 a load of a kind cluster, in 3 s); each delivery is a
 * redraw of the progress notification and the status bar in the workbench, whose renderer shares
 * the machine with the load (measured in code-server, 100k demo cluster: ~0.2 s of the renderer's
 * JavaScript for the notification alone). No 'vscode' import; time through a Clock.
 *
 * Guarantees:
 * - The first value goes out at once; later ones at most one per `gapMs`, each delivery the latest
 *   value pushed (values in between are skipped, never reordered).
 * - A value pushed is delivered within `gapMs`, or by flush(), which delivers what is pending now.
 * - After dispose() nothing is delivered and no timer is left.
 * The tree's RefreshGate paces its firings with it (merging nodes where this keeps the latest value).
 */
import type { Clock, TimerHandle } from '../core/clock';

export const PROGRESS_GAP_MS = 250;

export class Paced<T> {
  private last = -Infinity;
  private timer: TimerHandle | undefined;
  private pending: { value: T } | undefined;
  private disposed = false;

  constructor(
    private readonly deliver: (value: T) => void,
    private readonly clock: Clock,
    private gapMs = PROGRESS_GAP_MS,
  ) {}

  get gap(): number {
    return this.gapMs;
  }

  /** The spacing from the next delivery on (a delivery already due keeps its time). */
  setGap(ms: number): void {
    this.gapMs = ms;
  }

  push(value: T): void {
    if (this.disposed) return;
    this.pending = { value };
    const wait = this.last + this.gapMs - this.clock.now();
    if (wait <= 0) this.flush();
    else this.timer ??= this.clock.setTimer(wait, () => this.flush());
  }

  flush(): void {
    this.timer?.cancel();
    this.timer = undefined;
    const p = this.pending;
    this.pending = undefined;
    if (this.disposed || !p) return;
    this.last = this.clock.now();
    this.deliver(p.value);
  }

  dispose(): void {
    this.disposed = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.pending = undefined;
  }
}
