import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock, flushMicrotasks } from '../../src/core/clock';
import { PoolClosedError, TaskTimeoutError, WorkerPool, type PoolResult } from '../../src/core/pool';

interface Spec {
  latency: number; // fake ms
  fail: boolean;
  stubborn: boolean; // ignores its signal (settles only when the test releases it)
  stepped: boolean; // sleeps in steps of STEP ms, reporting progress after each (a list receiving pages)
}

/** Progress step of a stepped task: shorter than the 15 ms task timeout, so it never times out. */
const STEP = 5;

const taskArb = fc.record({
  latency: fc.integer({ min: 0, max: 20 }),
  fail: fc.boolean(),
  stubborn: fc.constantFrom(false, false, false, false, false, false, false, false, false, true),
  stepped: fc.constantFrom(false, false, false, true),
});

const scenarioArb = fc.record({
  concurrency: fc.integer({ min: 1, max: 32 }),
  tasks: fc.array(taskArb, { minLength: 0, maxLength: 5000, size: 'max' }),
  cancelAt: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: undefined }),
  cancelVia: fc.constantFrom('caller', 'pool'),
  submitStyle: fc.constantFrom('all-at-once', 'one-by-one'),
  delivery: fc.constantFrom('stream', 'callback'),
  consumerDelay: fc.integer({ min: 0, max: 5 }),
  taskTimeoutMs: fc.constantFrom(0, 0, 15),
  step: fc.integer({ min: 1, max: 40 }),
});

describe('WorkerPool: properties', () => {
  it('every accepted task yields exactly one result, nothing is dropped or doubled, the pool always settles, no timer outlives it', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (sc) => {
        const clock = new FakeClock();
        const caller = new AbortController();
        const releases: (() => void)[] = [];
        const results: PoolResult<Spec, number>[] = [];
        const pool = new WorkerPool<Spec, number>({
          concurrency: sc.concurrency,
          clock,
          signal: caller.signal,
          taskTimeoutMs: sc.taskTimeoutMs,
          abortGraceMs: 50,
          run: async (t, ctx) => {
            if (t.stubborn) {
              await new Promise<void>((r) => releases.push(r));
            } else if (t.stepped) {
              for (let left = t.latency; left > 0; left -= STEP) {
                await clock.sleep(Math.min(STEP, left), ctx.signal);
                ctx.progress();
              }
            } else {
              await clock.sleep(t.latency, ctx.signal);
            }
            if (t.fail) throw new Error('list failed');
            return t.latency;
          },
          onResult: sc.delivery === 'callback' ? (r) => results.push(r) : undefined,
        });
        let cancelled = false;
        const cancelTimer =
          sc.cancelAt === undefined
            ? undefined
            : clock.setTimer(sc.cancelAt, () => {
                cancelled = true;
                if (sc.cancelVia === 'caller') caller.abort(new Error('cancel'));
                else pool.abort(new Error('cancel'));
              });

        const accepted: number[] = [];
        let rejected = 0;
        const onReject = (e: unknown) => {
          assert.ok(e instanceof PoolClosedError, `unexpected rejection ${String(e)}`);
          assert.ok(cancelled, 'a submit may only be refused after a cancel');
          rejected++;
        };
        const feeder = (async () => {
          if (sc.submitStyle === 'all-at-once') {
            await Promise.all(sc.tasks.map((t) => pool.submit(t).then((id) => void accepted.push(id), onReject)));
          } else {
            for (const t of sc.tasks) await pool.submit(t).then((id) => void accepted.push(id), onReject);
          }
          await pool.close();
        })();
        const consumer =
          sc.delivery === 'stream'
            ? (async () => {
                for await (const r of pool.results()) {
                  results.push(r);
                  if (sc.consumerDelay) await clock.sleep(sc.consumerDelay);
                }
              })()
            : Promise.resolve();

        let feederDone = false;
        feeder.then(() => (feederDone = true));
        // Drive time until everything settled; stubborn tasks are released late, after the pool
        // would otherwise wait on them, so the grace path and the normal path are both exercised.
        for (let i = 0; !(feederDone && pool.isClosed); i++) {
          await clock.advance(sc.step);
          if (i % 50 === 49) releases.splice(0).forEach((r) => r());
          assert.ok(i < 2_000_000, 'the pool never settled');
        }
        const summary = await pool.done;
        cancelTimer?.cancel();
        // Let a slow stream consumer finish reading what was buffered.
        let consumed = false;
        consumer.then(() => (consumed = true));
        while (!consumed) await clock.advance(sc.consumerDelay || 1);

        assert.equal(accepted.length + rejected, sc.tasks.length);
        assert.equal(results.length, accepted.length, 'one result per accepted task');
        const ids = results.map((r) => r.taskId);
        assert.equal(new Set(ids).size, ids.length, 'no duplicates');
        assert.deepEqual(
          [...ids].sort((a, b) => a - b),
          [...accepted].sort((a, b) => a - b),
        );
        assert.equal(summary.submitted, accepted.length);
        assert.equal(summary.ok + summary.error + summary.cancelled, accepted.length);
        if (!cancelled) assert.equal(summary.cancelled, 0);
        for (const r of results) {
          if (r.status === 'ok') assert.ok(!r.task.fail);
          // The task timeout counts progress: a task that keeps reporting is never timed out, however
          // long it runs; one that reports none is, once it runs past the timeout.
          const timedOut = r.status === 'error' && r.error instanceof TaskTimeoutError;
          if (!r.task.stubborn && r.task.stepped) assert.ok(!timedOut, `a progressing task (${r.task.latency} ms) was timed out`);
          if (!r.task.stubborn && !r.task.stepped && sc.taskTimeoutMs > 0 && r.task.latency > sc.taskTimeoutMs && !cancelled)
            assert.ok(timedOut, 'a silent task past its timeout was not timed out');
          assert.ok(r.workerId >= -1 && r.workerId < sc.concurrency);
          assert.ok(r.endedAt >= r.startedAt);
        }
        assert.equal(clock.pendingTimers(), 0, 'no timer outlives the pool');
        releases.splice(0).forEach((r) => r()); // late settlements of detached tasks are ignored
        await clock.advance(1);
        assert.equal(results.length, accepted.length);
      }),
      { numRuns: 60 },
    );
  });

  it('never runs more than Concurrency tasks at once, and uses every lane when there is enough work', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 32 }), fc.integer({ min: 0, max: 400 }), async (concurrency, n) => {
        const clock = new FakeClock();
        let running = 0;
        let peak = 0;
        const lanes = new Set<number>();
        const pool = new WorkerPool<number, number>({
          concurrency,
          clock,
          run: async (ms, ctx) => {
            running++;
            peak = Math.max(peak, running);
            lanes.add(ctx.workerId);
            await clock.sleep(ms, ctx.signal);
            running--;
            return ms;
          },
          onResult: () => {},
        });
        let submitted = 0;
        const feeder = (async () => {
          for (let i = 0; i < n; i++) {
            await pool.submit(5);
            submitted++;
          }
          await pool.close();
        })();
        // Time stands still until the first min(concurrency, n) tasks are in: all of them are then
        // waiting at once, so every lane must take one (otherwise a worker that finished early could
        // legitimately take the next task, and fewer lanes would be used without any fault).
        for (let i = 0; i < 1000 && submitted < Math.min(concurrency, n); i++) await flushMicrotasks();
        await flushMicrotasks();
        while (!pool.isClosed) await clock.advance(5);
        await feeder;
        assert.ok(peak <= concurrency, `peak ${peak} > concurrency ${concurrency}`);
        assert.equal(lanes.size, Math.min(concurrency, n), 'every lane used when enough tasks wait at once');
      }),
      { numRuns: 40 },
    );
  });
});
