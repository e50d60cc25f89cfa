/**
 * Clock: the one source of time for core. Every timer in core goes through a Clock so that
 * tests can drive time with FakeClock (deterministic, no sleeps) and production uses realClock.
 *
 * Guarantees:
 * - `sleep(ms, signal)` settles exactly once: resolves after `ms`, or rejects with the signal's
 *   reason as soon as the signal aborts. The timer and the abort listener are both released in
 *   either case, so no sleep outlives its signal (no timer leak, unlike Go's time.After in a loop).
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since an arbitrary fixed origin; monotonic. */
  now(): number;
  /** Calls fn once after ms unless cancelled. */
  setTimer(ms: number, fn: () => void): TimerHandle;
  /** Resolves after ms; rejects with signal.reason when aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  if (r instanceof Error) return r;
  const e = new Error(typeof r === 'string' ? r : 'aborted');
  e.name = 'AbortError';
  return e;
}

function sleepWith(clock: Pick<Clock, 'setTimer'>, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      timer.cancel();
      reject(abortReason(signal!));
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const realClock: Clock = {
  now: () => performance.now(),
  setTimer(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(t) };
  },
  sleep(ms, signal) {
    return sleepWith(realClock, ms, signal);
  },
};

interface FakeTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * FakeClock: time moves only when a test calls advance()/runAll(). Timers due at the same
 * instant fire in the order they were set. Microtasks queued by a timer callback run before
 * the next timer fires (advance awaits a macrotask-free flush between timers).
 */
export class FakeClock implements Clock {
  private t = 0;
  private seq = 0;
  private timers: FakeTimer[] = [];

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const timer: FakeTimer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }

  /** Number of live (not cancelled, not fired) timers: lets tests prove nothing leaks. */
  pendingTimers(): number {
    this.timers = this.timers.filter((x) => !x.cancelled);
    return this.timers.length;
  }

  /** Moves time forward by ms, firing every timer that falls due, in order. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await flushMicrotasks();
      this.timers = this.timers.filter((x) => !x.cancelled);
      let next: FakeTimer | undefined;
      for (const x of this.timers) {
        if (x.at <= end && (!next || x.at < next.at || (x.at === next.at && x.seq < next.seq))) next = x;
      }
      if (!next) break;
      this.timers.splice(this.timers.indexOf(next), 1);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = end;
    await flushMicrotasks();
  }
}

/** Lets pending promise callbacks run (several rounds, since callbacks chain further promises). */
export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}
