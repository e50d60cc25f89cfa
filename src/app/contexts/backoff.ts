/**
 * The retry back-off of a context whose cluster does not answer, in client-go's vocabulary
 * (k8s.io/apimachinery/pkg/util/wait.Backoff: Duration, Factor, Jitter, Cap). No 'vscode' import;
 * every timer goes through a Clock, so tests drive it with FakeClock.
 *
 * Guarantees:
 * - `step()` returns Duration, then Duration x Factor, ... never more than Cap, each stretched by up
 *   to Jitter (a fraction) of itself; `reset()` (the cluster answered) starts over from Duration.
 * - A RetryTimer holds at most one pending retry: scheduling again replaces it, `cancel()` (the
 *   context was removed, or loaded by hand meanwhile) drops it, and a cancelled retry never runs.
 */
import type { Clock, TimerHandle } from '../../core/clock';

export interface BackoffSpec {
  /** The first delay, ms. */
  duration: number;
  /** Each delay is the previous one times this. */
  factor: number;
  /** Up to this fraction of a delay is added at random (0 = none), so clusters retried together spread out. */
  jitter: number;
  /** No delay (before jitter) grows past this, ms. */
  cap: number;
}

/** A context that does not answer is tried again after 5 s, 10 s, 20 s, ... at most every 2 minutes. */
export const CONTEXT_RETRY_BACKOFF: BackoffSpec = { duration: 5_000, factor: 2, jitter: 0.1, cap: 120_000 };

export class Backoff {
  private next: number;

  constructor(
    private readonly spec: BackoffSpec,
    private readonly random: () => number = Math.random,
  ) {
    this.next = spec.duration;
  }

  /** The delay before the next try (ms), and the back-off moves on. */
  step(): number {
    const base = Math.min(this.next, this.spec.cap);
    this.next = Math.min(this.spec.cap, this.next * this.spec.factor);
    return Math.round(base + base * this.spec.jitter * this.random());
  }

  reset(): void {
    this.next = this.spec.duration;
  }
}

export class RetryTimer {
  private pending: { timer: TimerHandle; at: number } | undefined;
  private readonly backoff: Backoff;

  constructor(
    private readonly clock: Clock,
    spec: BackoffSpec,
    private readonly retry: () => void,
    random?: () => number,
  ) {
    this.backoff = new Backoff(spec, random);
  }

  /** Schedules the next try after the back-off's next delay (replacing a pending one); returns the delay. */
  schedule(): number {
    this.cancel();
    const ms = this.backoff.step();
    const entry = {
      at: this.clock.now() + ms,
      timer: this.clock.setTimer(ms, () => {
        if (this.pending !== entry) return;
        this.pending = undefined;
        this.retry();
      }),
    };
    this.pending = entry;
    return ms;
  }

  /** When the pending retry runs (Clock time), if one is pending. */
  get dueAt(): number | undefined {
    return this.pending?.at;
  }

  /** The cluster answered: the next failure waits the first delay again. Drops a pending retry. */
  succeeded(): void {
    this.cancel();
    this.backoff.reset();
  }

  cancel(): void {
    this.pending?.timer.cancel();
    this.pending = undefined;
  }
}
