/**
 * eventually: the one way a test waits for a state it cannot be told about. Every tier uses it
 * (unit, integration, apiserver, e2e); a test never sleeps for a fixed time instead.
 *
 * Guarantees:
 * - `check` is called at once, then again after each short pause until it returns a truthy value,
 *   which eventually resolves with. A check that throws or returns a falsy value counts as "not
 *   yet", so both forms work: a predicate (`() => map.get(k)`) and an assertion that ends in
 *   `return true` (the wait ends once the assertion stops throwing).
 * - The pause between checks starts at 1 ms and doubles up to `maxIntervalMs` (default 25 ms), so a
 *   state reached at once is seen at once and a slow one costs few checks. The pause is only the
 *   pacing of the checks: what the test waits for is always the state.
 * - Bounded: after `timeoutMs` (default 10 s) it rejects with an Error that names `description`, the
 *   time waited, the number of checks and the last failure (the last thrown error's message or the
 *   last falsy value returned), so a failure reads as the missing thing, not as a bare timeout.
 * - `signal` aborts the wait at once with the signal's reason; no timer outlives the wait.
 * - A check in flight is never overlapped by another one (checks run one after another).
 */
import { setTimeout as delay } from 'node:timers/promises';

export interface EventuallyOptions {
  /** What is being waited for, as a reader of the failure should see it ("the pod Running in the tree"). */
  description: string;
  /** Deadline for the whole wait, ms (default 10 000). */
  timeoutMs?: number;
  /** Aborts the wait with the signal's reason. */
  signal?: AbortSignal;
  /** Upper bound of the pause between two checks, ms (default 25). */
  maxIntervalMs?: number;
}

/** Thrown when the deadline passes; `lastFailure` is what the last check said. */
export class EventuallyTimeoutError extends Error {
  constructor(
    readonly description: string,
    readonly waitedMs: number,
    readonly checks: number,
    readonly lastFailure: string,
  ) {
    super(`timed out after ${waitedMs} ms (${checks} checks) waiting for ${description}; last failure: ${lastFailure}`);
    this.name = 'EventuallyTimeoutError';
  }
}

function describeFailure(v: unknown): string {
  if (v instanceof Error) return v.message;
  if (v === undefined) return 'the check returned undefined';
  try {
    return `the check returned ${JSON.stringify(v)}`;
  } catch {
    return `the check returned ${String(v)}`;
  }
}

function abortError(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : Object.assign(new Error(typeof r === 'string' ? r : 'aborted'), { name: 'AbortError' });
}

/** Waits until `check` returns a truthy value (resolved with it) or stops throwing; see the guarantees above. */
export async function eventually<T>(check: () => T | Promise<T>, opts: EventuallyOptions): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxInterval = opts.maxIntervalMs ?? 25;
  const start = performance.now();
  let checks = 0;
  let last: unknown;
  let pause = 1;
  for (;;) {
    if (opts.signal?.aborted) throw abortError(opts.signal);
    checks++;
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (err) {
      last = err;
    }
    if (opts.signal?.aborted) throw abortError(opts.signal);
    const left = timeoutMs - (performance.now() - start);
    if (left <= 0) throw new EventuallyTimeoutError(opts.description, Math.round(performance.now() - start), checks, describeFailure(last));
    try {
      await delay(Math.min(pause, left), undefined, opts.signal ? { signal: opts.signal } : undefined);
    } catch {
      throw abortError(opts.signal!);
    }
    pause = Math.min(pause * 2, maxInterval);
  }
}
