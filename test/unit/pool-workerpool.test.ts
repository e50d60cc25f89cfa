import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { FakeClock, flushMicrotasks } from '../../src/core/clock';
import { PoolClosedError, TaskTimeoutError, WorkerPool, type PoolResult } from '../../src/core/pool';

/** A task body that takes `ms` of fake time and honours its signal. */
const sleeper = (clock: FakeClock) => async (ms: number, ctx: { signal: AbortSignal }) => {
  await clock.sleep(ms, ctx.signal);
  return ms;
};

async function advanceUntil(clock: FakeClock, cond: () => boolean, step = 1, max = 1_000_000): Promise<void> {
  for (let i = 0; i < max && !cond(); i++) await clock.advance(step);
  assert.ok(cond(), 'condition never became true');
}

describe('WorkerPool: configuration', () => {
  it('accepts integer concurrency 1..32, defaults to 4, queue is 2 x concurrency', () => {
    const run = async () => 0;
    assert.equal(new WorkerPool({ run }).concurrency, 4);
    assert.equal(new WorkerPool({ run }).queueSize, 8);
    assert.equal(new WorkerPool({ run, concurrency: 1 }).concurrency, 1);
    assert.equal(new WorkerPool({ run, concurrency: 32 }).queueSize, 64);
  });

  it('rejects concurrency outside 1..32 with a clear RangeError', () => {
    for (const bad of [0, 33, -1, 1.5, Number.NaN, Infinity]) {
      assert.throws(
        () => new WorkerPool({ run: async () => 0, concurrency: bad }),
        (e: unknown) => {
          assert.ok(e instanceof RangeError);
          assert.match((e as Error).message, /concurrency must be an integer from 1 to 32/);
          return true;
        },
      );
    }
  });
});

describe('WorkerPool: submission never drops (kyverno#17053)', () => {
  it('accepts far more tasks than 2 x Concurrency submitted in a tight loop, one result each', async () => {
    const clock = new FakeClock();
    const pool = new WorkerPool<number, number>({ concurrency: 2, clock, run: sleeper(clock) });
    const n = 1000;
    // The upstream failure case: every task submitted at once, without awaiting, before any worker ran.
    const accepted = Array.from({ length: n }, (_, i) => pool.submit((i % 7) + 1));
    const closed = pool.close();
    const ids: number[] = [];
    const consumer = (async () => {
      for await (const r of pool.results()) {
        assert.equal(r.status, 'ok');
        ids.push(r.taskId);
      }
    })();
    let done = false;
    closed.then(() => (done = true));
    await advanceUntil(clock, () => done, 5);
    await consumer;
    const acceptedIds = await Promise.all(accepted);
    assert.deepEqual(
      [...acceptedIds].sort((a, b) => a - b),
      [...ids].sort((a, b) => a - b),
    );
    assert.equal(new Set(ids).size, n);
    assert.deepEqual(await closed, { submitted: n, ok: n, error: 0, cancelled: 0, aborted: false, detached: 0 });
    assert.equal(clock.pendingTimers(), 0);
  });

  it('applies backpressure: a submit waits while Concurrency are running and 2 x Concurrency are queued', async () => {
    const clock = new FakeClock();
    const pool = new WorkerPool<number, number>({ concurrency: 1, clock, run: sleeper(clock) });
    const states: string[] = [];
    const subs = [10, 10, 10, 10].map((ms, i) => pool.submit(ms).then(() => states.push(`accepted ${i}`)));
    await flushMicrotasks();
    // 1 running + 2 queued = 3 accepted; the fourth waits for room.
    assert.deepEqual(states, ['accepted 0', 'accepted 1', 'accepted 2']);
    assert.deepEqual(pool.stats(), { queued: 2, running: 1, waitingSubmitters: 1, state: 'open' });
    await clock.advance(10);
    assert.deepEqual(states, ['accepted 0', 'accepted 1', 'accepted 2', 'accepted 3']);
    await Promise.all(subs);
    const summary = pool.close();
    await clock.advance(30);
    assert.equal((await summary).ok, 4);
  });

  it('rejects loudly (PoolClosedError) after close, and rejects waiting submitters on abort', async () => {
    const clock = new FakeClock();
    const pool = new WorkerPool<number, number>({ concurrency: 1, clock, run: sleeper(clock) });
    const first = [pool.submit(5), pool.submit(5), pool.submit(5)];
    const waiting = pool.submit(5);
    pool.abort(new Error('stop'));
    await assert.rejects(waiting, (e: unknown) => e instanceof PoolClosedError && e.state === 'aborted');
    await Promise.all(first); // these were accepted: they get 'cancelled' results, not rejections
    await assert.rejects(pool.submit(1), (e: unknown) => e instanceof PoolClosedError);
    const s = await pool.done;
    assert.deepEqual({ submitted: s.submitted, cancelled: s.cancelled, ok: s.ok }, { submitted: 3, cancelled: 3, ok: 0 });

    const p2 = new WorkerPool<number, number>({ concurrency: 1, clock, run: sleeper(clock) });
    await p2.close();
    await assert.rejects(p2.submit(1), (e: unknown) => e instanceof PoolClosedError && e.state === 'closed');
  });

  it('close() drains submitters that were already waiting for room', async () => {
    const clock = new FakeClock();
    const pool = new WorkerPool<number, number>({ concurrency: 1, clock, run: sleeper(clock) });
    const subs = Array.from({ length: 10 }, () => pool.submit(1));
    const closing = pool.close();
    await advanceUntil(clock, () => pool.isClosed);
    await Promise.all(subs);
    assert.equal((await closing).ok, 10);
  });
});

describe('WorkerPool: cancellation and close', () => {
  it('abort reaches every running task through its signal and settles as cancelled', async () => {
    const clock = new FakeClock();
    const seen: AbortSignal[] = [];
    const pool = new WorkerPool<number, number>({
      concurrency: 3,
      clock,
      run: (ms, ctx) => {
        seen.push(ctx.signal);
        return clock.sleep(ms, ctx.signal).then(() => ms);
      },
    });
    for (let i = 0; i < 9; i++) await pool.submit(1_000_000);
    assert.equal(seen.length, 3);
    const results: PoolResult<number, number>[] = [];
    const consumer = (async () => {
      for await (const r of pool.results()) results.push(r);
    })();
    const reason = new Error('user cancelled');
    const done = pool.abort(reason);
    await flushMicrotasks();
    assert.ok(seen.every((s) => s.aborted && s.reason === reason));
    const s = await done;
    await consumer;
    assert.equal(s.cancelled, 9);
    assert.equal(results.length, 9);
    assert.equal(results.filter((r) => r.workerId === -1).length, 6, 'queued tasks are cancelled without running');
    assert.equal(clock.pendingTimers(), 0);
  });

  it('the caller signal aborts the pool, and its listener is removed at close', async () => {
    const clock = new FakeClock();
    const caller = new AbortController();
    const pool = new WorkerPool<number, number>({ concurrency: 2, clock, signal: caller.signal, run: sleeper(clock) });
    assert.equal(getEventListeners(caller.signal, 'abort').length, 1);
    await pool.submit(100);
    caller.abort(new Error('ctrl-c'));
    const s = await pool.done;
    assert.equal(s.aborted, true);
    assert.equal(s.cancelled, 1);
    assert.equal(getEventListeners(caller.signal, 'abort').length, 0);

    const c2 = new AbortController();
    const p2 = new WorkerPool<number, number>({ concurrency: 2, clock, signal: c2.signal, run: sleeper(clock) });
    await p2.close();
    assert.equal(getEventListeners(c2.signal, 'abort').length, 0);
  });

  it('close() is idempotent and completes as soon as the mid-task workers finish', async () => {
    const clock = new FakeClock();
    const pool = new WorkerPool<number, number>({ concurrency: 4, clock, run: sleeper(clock) });
    for (let i = 0; i < 4; i++) await pool.submit(50);
    const a = pool.close();
    const b = pool.close();
    assert.equal(a, b);
    let closed = false;
    a.then(() => (closed = true));
    await clock.advance(49);
    assert.equal(closed, false);
    await clock.advance(1);
    assert.equal(closed, true);
    assert.equal(pool.close(), a);
    assert.equal(pool.abort(), a, 'abort after close is a no-op returning the same settlement');
  });

  it('a task that ignores its signal is given up on after abortGraceMs; its late outcome is ignored', async () => {
    const clock = new FakeClock();
    let release!: () => void;
    const stubborn = new Promise<number>((r) => (release = () => r(1)));
    const results: PoolResult<string, number>[] = [];
    const pool = new WorkerPool<string, number>({ concurrency: 1, clock, abortGraceMs: 100, run: () => stubborn, onResult: (r) => results.push(r) });
    await pool.submit('x');
    const done = pool.abort();
    let closed = false;
    done.then(() => (closed = true));
    await clock.advance(99);
    assert.equal(closed, false);
    await clock.advance(1);
    assert.equal(closed, true);
    assert.equal((await done).detached, 1);
    release();
    await flushMicrotasks();
    assert.equal(results.length, 1, 'exactly one result, even though the task settled later');
    assert.equal(results[0].status, 'cancelled');
    assert.equal(clock.pendingTimers(), 0);
  });

  it('a per-task deadline aborts the task with TaskTimeoutError and frees the worker', async () => {
    const clock = new FakeClock();
    const results: PoolResult<number, number>[] = [];
    const pool = new WorkerPool<number, number>({ concurrency: 1, clock, taskTimeoutMs: 100, run: sleeper(clock), onResult: (r) => results.push(r) });
    await pool.submit(1000);
    await pool.submit(10);
    const done = pool.close();
    await clock.advance(110);
    await done;
    assert.equal(results[0].status, 'error');
    assert.ok(results[0].status === 'error' && results[0].error instanceof TaskTimeoutError);
    assert.equal(results[0].durationMs, 100);
    assert.equal(results[1].status, 'ok');
    assert.equal(results[1].workerId, 0);
    assert.equal(clock.pendingTimers(), 0);
  });

  it('the deadline counts progress: a task reporting progress outlives the timeout, and times out once it stalls', async () => {
    const clock = new FakeClock();
    const results: PoolResult<string, string>[] = [];
    const pool = new WorkerPool<string, string>({
      concurrency: 2,
      clock,
      taskTimeoutMs: 100,
      onResult: (r) => results.push(r),
      run: async (kind, ctx) => {
        // 20 pages, 60 ms apart: 1,200 ms in all, never 100 ms without progress.
        for (let i = 0; i < 20; i++) {
          await clock.sleep(60, ctx.signal);
          ctx.progress();
        }
        if (kind === 'stalls') await clock.sleep(10_000, ctx.signal); // then nothing more arrives
        return kind;
      },
    });
    await pool.submit('keeps-going');
    await pool.submit('stalls');
    const done = pool.close();
    await advanceUntil(clock, () => results.length === 2, 10);
    await done;
    const by = new Map(results.map((r) => [r.task, r]));
    assert.equal(by.get('keeps-going')!.status, 'ok');
    assert.equal(by.get('keeps-going')!.durationMs, 1200);
    const stalled = by.get('stalls')!;
    assert.ok(stalled.status === 'error' && stalled.error instanceof TaskTimeoutError && stalled.error.madeProgress);
    assert.match((stalled as { error: Error }).error.message, /no progress for 100 ms/);
    assert.equal(stalled.endedAt, 1300, 'timed out 100 ms after its last progress, not 100 ms after its start');
    assert.equal(clock.pendingTimers(), 0);
  });

  it('records worker id, start/end and duration on every result', async () => {
    const clock = new FakeClock();
    const results: PoolResult<number, number>[] = [];
    const pool = new WorkerPool<number, number>({ concurrency: 2, clock, run: sleeper(clock), onResult: (r) => results.push(r) });
    await pool.submit(30);
    await pool.submit(10);
    await pool.submit(5);
    const done = pool.close();
    await clock.advance(40);
    await done;
    const byId = new Map(results.map((r) => [r.taskId, r]));
    assert.deepEqual([byId.get(0)!.workerId, byId.get(0)!.startedAt, byId.get(0)!.endedAt, byId.get(0)!.durationMs], [0, 0, 30, 30]);
    assert.deepEqual([byId.get(1)!.workerId, byId.get(1)!.startedAt, byId.get(1)!.endedAt], [1, 0, 10]);
    assert.deepEqual([byId.get(2)!.workerId, byId.get(2)!.startedAt, byId.get(2)!.endedAt], [1, 10, 15]);
  });

  it('a throwing task (sync or async) is an error result, and a throwing onResult does not stop the pool', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const pool = new WorkerPool<number, number>({
      concurrency: 2,
      clock,
      run: (n) => {
        if (n === 0) throw new Error('sync boom');
        if (n === 1) return Promise.reject(new Error('async boom'));
        return Promise.resolve(n);
      },
      onResult: () => {
        calls++;
        throw new Error('consumer bug');
      },
    });
    for (const n of [0, 1, 2, 3]) await pool.submit(n);
    const s = await pool.close();
    assert.equal(calls, 4);
    assert.deepEqual([s.ok, s.error], [2, 2]);
    assert.match(String((s.callbackError as Error).message), /consumer bug/);
    assert.throws(() => pool.results(), /onResult/);
  });

  it('results consumed slowly never hold up the workers or close()', async () => {
    const clock = new FakeClock();
    const pool = new WorkerPool<number, number>({ concurrency: 2, clock, run: sleeper(clock) });
    const feeder = (async () => {
      for (let i = 0; i < 200; i++) await pool.submit(1);
      return pool.close();
    })();
    await advanceUntil(clock, () => pool.isClosed);
    await feeder;
    // Nobody has read a single result yet, and the pool is closed.
    let n = 0;
    for await (const r of pool.results()) {
      await clock.advance(1000); // a very slow consumer
      n += r.status === 'ok' ? 1 : 0;
    }
    assert.equal(n, 200);
  });
});
