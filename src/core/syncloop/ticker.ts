import type { Clock, TimerHandle } from '../clock';
import { Channel } from './channel';

/**
 * Ticker: Go's time.Ticker on a Clock. Its channel holds one tick; a tick that finds the previous one
 * still unread is dropped, so a slow loop sees "at least one tick since you last looked", never a
 * backlog. Ticks are scheduled on the grid start + k * period, so they do not drift with load.
 * stop() cancels the pending timer (no timer outlives the ticker).
 */
export class Ticker {
  readonly C: Channel<number>;
  private timer: TimerHandle | undefined;
  private next: number;
  private stopped = false;
  dropped = 0;

  constructor(
    private readonly clock: Clock,
    readonly periodMs: number,
    name = 'ticker',
  ) {
    if (!(periodMs > 0)) throw new RangeError(`period must be > 0, got ${periodMs}`);
    this.C = new Channel<number>(1, name);
    this.next = clock.now() + periodMs;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimer(this.next - this.clock.now(), () => {
      const now = this.clock.now();
      if (!this.C.trySend(now)) this.dropped++;
      // Skip grid points already in the past (a stalled clock or a long synchronous handler).
      do this.next += this.periodMs;
      while (this.next <= now);
      this.schedule();
    });
  }
}
