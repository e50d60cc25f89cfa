/**
 * The shared test helper `eventually` (test/support/eventually.ts): it resolves with the first
 * truthy value, treats a throw as "not yet", fails at its deadline naming what it waited for and the
 * last failure, and stops at once when its signal aborts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, EventuallyTimeoutError } from '../support/eventually';

describe('eventually', () => {
  it('resolves with the first truthy value, checking until the state is reached', async () => {
    let n = 0;
    const v = await eventually(() => (++n >= 5 ? { n } : undefined), { description: 'five checks' });
    assert.deepEqual(v, { n: 5 });
    assert.equal(n, 5, 'no check after the one that succeeded');
  });

  it('treats a throwing check as not yet, and ends once it stops throwing', async () => {
    let n = 0;
    const v = await eventually(
      async () => {
        n++;
        assert.ok(n >= 3, `only ${n} checks`);
        return true;
      },
      { description: 'the assertion to hold' },
    );
    assert.equal(v, true);
    assert.equal(n, 3);
  });

  it('fails at its deadline with the description and the last thrown failure', async () => {
    let n = 0;
    const err = await eventually(
      () => {
        throw new Error(`still nothing (${++n})`);
      },
      { description: 'the pod Running', timeoutMs: 40 },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof EventuallyTimeoutError, String(err));
    assert.match(err.message, /waiting for the pod Running/);
    assert.match(err.message, new RegExp(`last failure: still nothing \\(${n}\\)$`), 'the last failure, not the first');
    assert.equal(err.checks, n);
    assert.ok(n >= 2, 'checked more than once before giving up');
  });

  it('names the last falsy value returned when the check never throws', async () => {
    const err = await eventually(() => 0, { description: 'a count above zero', timeoutMs: 20 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof EventuallyTimeoutError);
    assert.match(err.message, /last failure: the check returned 0$/);
  });

  it('stops at once with the reason when its signal aborts, and never checks again', async () => {
    const ac = new AbortController();
    let n = 0;
    const p = eventually(
      () => {
        if (++n === 3) ac.abort(new Error('test over'));
        return false;
      },
      { description: 'never', timeoutMs: 60_000, signal: ac.signal },
    );
    await assert.rejects(p, /test over/);
    assert.equal(n, 3);
    const pre = AbortSignal.abort(new Error('already'));
    await assert.rejects(
      eventually(() => true, { description: 'x', signal: pre }),
      /already/,
    );
  });

  it('never overlaps two checks', async () => {
    let inFlight = 0;
    let most = 0;
    let n = 0;
    await eventually(
      async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise<void>((r) => setImmediate(r)); // a check that takes a turn of the event loop
        inFlight--;
        return ++n >= 4;
      },
      { description: 'four checks' },
    );
    assert.equal(most, 1);
  });
});
