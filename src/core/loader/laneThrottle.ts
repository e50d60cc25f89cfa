/**
 * LaneThrottle: how many of the pool's lanes may start a list now, shrunk when the server answers
 * 429 and grown back while it does not (AIMD: additive increase, multiplicative decrease).
 *
 * A 429 from API Priority and Fairness means the user's queues at its level are full: retrying
 * each request after its Retry-After (the transport does) keeps the same number of lists asking.
 * client-go's backoff manager slows every request to a host that failed; here the load halves the
 * lists it runs at once, as TCP halves its window, so the queues drain.
 *
 * Guarantees:
 * - At most `lanes` lists hold a turn at once (a list that started before a halving finishes;
 *   only new turns wait). `lanes` never goes below 1 nor above the pool's size.
 * - A storm of 429s (every lane throttled at once) halves once per HALVE_GUARD_MS, not per answer.
 * - Each RECOVER_MS without a 429 (and not before the last Retry-After has passed) gives one lane
 *   back, until the pool's size. Timers are the Clock's; close() cancels them.
 * - acquire() rejects with the signal's reason on abort, and an aborted waiter takes no turn.
 */
import { abortReason, type Clock, type TimerHandle } from '../clock';

/** Within this long of a halving, further 429s are the same congestion (the lists in flight then). */
export const HALVE_GUARD_MS = 1_000;
/** One lane comes back per this long without a 429. */
export const RECOVER_MS = 2_000;

export class LaneThrottle {
  private allowed: number;
  private running = 0;
  private readonly waiters: { resolve: () => void; waiting?: () => void }[] = [];
  private halvedAt = -Infinity;
  private timer: TimerHandle | undefined;
  /** The fewest lanes the load was held to (the pool's size if never throttled). */
  lowest: number;
  /** Halvings so far. */
  halvings = 0;

  constructor(
    readonly max: number,
    private readonly clock: Clock,
  ) {
    this.allowed = max;
    this.lowest = max;
  }

  get lanes(): number {
    return this.allowed;
  }

  /** Resolves when the caller may start a list; `waiting` is called whenever another list ends and this one still waits. */
  acquire(signal: AbortSignal, waiting?: () => void): Promise<void> {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    if (this.running < this.allowed && this.waiters.length === 0) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const w = {
        resolve: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        waiting,
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(abortReason(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(w);
    });
  }

  release(): void {
    this.running--;
    this.admit();
    for (const w of this.waiters) w.waiting?.();
  }

  /** The server answered 429; `retryAfterMs`: what it asked to wait (0 if nothing). */
  throttled(retryAfterMs: number): void {
    const now = this.clock.now();
    if (now - this.halvedAt >= HALVE_GUARD_MS && this.allowed > 1) {
      this.allowed = Math.max(1, Math.floor(this.allowed / 2));
      this.lowest = Math.min(this.lowest, this.allowed);
      this.halvings++;
      this.halvedAt = now;
    }
    this.scheduleRecovery(Math.max(RECOVER_MS, retryAfterMs));
  }

  close(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private scheduleRecovery(ms: number): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.allowed >= this.max) return;
    this.timer = this.clock.setTimer(ms, () => {
      this.timer = undefined;
      this.allowed++;
      this.admit();
      this.scheduleRecovery(RECOVER_MS);
    });
  }

  private admit(): void {
    while (this.running < this.allowed && this.waiters.length > 0) {
      this.running++;
      this.waiters.shift()!.resolve();
    }
  }
}
