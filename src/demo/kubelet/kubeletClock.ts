/**
 * The kubelet simulation's view of time. src/demo must not import core, so this is a structural
 * copy of the two members of core's Clock it needs: tests pass core's FakeClock as is.
 *
 * Guarantee: every timer the simulation sets goes through a TimerGroup, and cancelAll() releases
 * all of them, so stop() (or a pod's deletion) leaves no pending timer behind.
 */
export interface KubeletTimer {
  cancel(): void;
}

export interface KubeletClock {
  /** Milliseconds since an arbitrary origin; monotonic. */
  now(): number;
  /** Calls fn once after ms unless cancelled. */
  setTimer(ms: number, fn: () => void): KubeletTimer;
}

export const realKubeletClock: KubeletClock = {
  now: () => performance.now(),
  setTimer(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    // A demo process must be able to exit while a crash-looping pod waits out its back-off.
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
};

/** A set of timers cancelled together; a fired timer leaves the set before its callback runs. */
export class TimerGroup {
  private readonly live = new Set<KubeletTimer>();
  private closed = false;

  constructor(
    private readonly clock: KubeletClock,
    /** Simulated milliseconds per real (clock) millisecond: 10 runs the simulation ten times faster. */
    private readonly speed: number,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** Runs fn after `ms` simulated milliseconds; never after cancelAll(); fn's errors go to onError. */
  after(ms: number, fn: () => void): void {
    if (this.closed) return;
    const handle: KubeletTimer = this.clock.setTimer(Math.max(0, ms) / this.speed, () => {
      this.live.delete(handle);
      if (this.closed) return;
      try {
        fn();
      } catch (e) {
        this.onError(e);
      }
    });
    this.live.add(handle);
  }

  /** Cancels every pending timer; the group stays usable unless close is true. */
  cancelAll(close = false): void {
    for (const t of this.live) t.cancel();
    this.live.clear();
    if (close) this.closed = true;
  }

  get size(): number {
    return this.live.size;
  }
}
