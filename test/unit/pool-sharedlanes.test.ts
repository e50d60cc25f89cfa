import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock, flushMicrotasks } from '../../src/core/clock';
import { SharedLanes, WorkerPool, type LaneMember, type PoolResult } from '../../src/core/pool';

/** A pool of `lanes` workers on the shared budget whose tasks take `ms` of fake time; it records how many run at once. */
function member(
  clock: FakeClock,
  shared: SharedLanes,
  name: string,
  lanes: number,
  watch: { now: number; max: number; total: () => number; maxTotal: number },
  joined?: LaneMember,
) {
  const results: PoolResult<number, number>[] = [];
  const starts: number[] = [];
  const pool = new WorkerPool<number, number>({
    concurrency: lanes,
    clock,
    lanes: { shared, name, ...(joined ? { member: joined } : {}) },
    onResult: (r) => results.push(r),
    run: async (ms, ctx) => {
      starts.push(clock.now());
      watch.now++;
      watch.max = Math.max(watch.max, watch.now);
      watch.maxTotal = Math.max(watch.maxTotal, watch.total());
      try {
        await clock.sleep(ms, ctx.signal);
        return ms;
      } finally {
        watch.now--;
      }
    },
  });
  return { pool, results, starts, watch };
}

/** Submits without awaiting room; a submission refused by an abort is expected here. */
const fire = (pool: WorkerPool<number, number>, ms: number) => void pool.submit(ms).catch(() => undefined);

async function advanceUntil(clock: FakeClock, cond: () => boolean, step = 1, max = 1_000_000): Promise<void> {
  for (let i = 0; i < max && !cond(); i++) await clock.advance(step);
  assert.ok(cond(), 'condition never became true');
}

describe('SharedLanes: several pools on one budget of lanes', () => {
  it('never runs more than the budget at once across pools, and every task gets its one result', async () => {
    const clock = new FakeClock();
    const shared = new SharedLanes(5);
    const watches: { now: number; max: number; total: () => number; maxTotal: number }[] = [];
    const total = () => watches.reduce((n, w) => n + w.now, 0);
    const ms = [];
    for (let i = 0; i < 3; i++) {
      const w = { now: 0, max: 0, total, maxTotal: 0 };
      watches.push(w);
      ms.push(member(clock, shared, `c${i}`, 4, w));
    }
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 50) + 1;
    const subs = ms.map(async (m) => {
      for (let i = 0; i < 60; i++) await m.pool.submit(rnd());
      return m.pool.close();
    });
    let done = false;
    void Promise.all(subs).then(() => (done = true));
    await advanceUntil(clock, () => done);
    for (const m of ms) assert.equal(m.results.length, 60);
    for (const m of ms) assert.ok(m.results.every((r) => r.status === 'ok'));
    assert.ok(Math.max(...watches.map((w) => w.maxTotal)) <= 5, 'never more than 5 lists at once');
    assert.equal(Math.max(...watches.map((w) => w.maxTotal)), 5, 'the budget is used');
    assert.equal(shared.inUse, 0, 'every seat given back');
  });

  it("keeps a lane for a joined pool that holds none: a huge cluster does not delay a small one's first list", async () => {
    const clock = new FakeClock();
    const shared = new SharedLanes(4);
    const total = () => big.watch.now + small.watch.now;
    const big = member(clock, shared, 'big', 8, { now: 0, max: 0, total, maxTotal: 0 });
    const small = member(clock, shared, 'small', 4, { now: 0, max: 0, total, maxTotal: 0 });
    // The big cluster floods its pool with long lists while the small one is still discovering.
    for (let i = 0; i < 16; i++) fire(big.pool, 10_000);
    await flushMicrotasks();
    assert.equal(big.watch.now, 3, 'the big cluster holds 3 of 4 lanes: one stays for the small one');
    await clock.advance(50); // "discovery"
    fire(small.pool, 5);
    await flushMicrotasks();
    assert.equal(small.starts.length, 1, 'the small cluster starts its first list at once');
    assert.equal(small.starts[0], 50);
    void big.pool.abort();
    void small.pool.close();
    await advanceUntil(clock, () => big.pool.isClosed && small.pool.isClosed);
    assert.equal(shared.inUse, 0);
  });

  it('shares max-min fairly when both want every lane, and a freed seat goes to the one holding fewer', async () => {
    const clock = new FakeClock();
    const shared = new SharedLanes(6);
    const total = () => a.watch.now + b.watch.now;
    const a = member(clock, shared, 'a', 8, { now: 0, max: 0, total, maxTotal: 0 });
    const b = member(clock, shared, 'b', 8, { now: 0, max: 0, total, maxTotal: 0 });
    for (let i = 0; i < 40; i++) fire(a.pool, 10);
    await flushMicrotasks();
    assert.equal(a.watch.now, 5);
    for (let i = 0; i < 40; i++) fire(b.pool, 10);
    await flushMicrotasks();
    assert.equal(b.watch.now, 1, 'b takes the lane kept for it');
    // As a's lists finish, the freed seats go to b until both hold 3.
    await clock.advance(10);
    await flushMicrotasks();
    assert.deepEqual([a.watch.now, b.watch.now], [3, 3]);
    await clock.advance(10);
    await flushMicrotasks();
    assert.deepEqual([a.watch.now, b.watch.now], [3, 3]);
    void a.pool.abort();
    void b.pool.abort();
    await advanceUntil(clock, () => a.pool.isClosed && b.pool.isClosed);
    assert.equal(shared.inUse, 0);
  });

  it('a pool that is aborted or closed leaves: its seats and its reservation go to the others', async () => {
    const clock = new FakeClock();
    const shared = new SharedLanes(2);
    const total = () => a.watch.now + b.watch.now;
    const a = member(clock, shared, 'a', 4, { now: 0, max: 0, total, maxTotal: 0 });
    const b = member(clock, shared, 'b', 4, { now: 0, max: 0, total, maxTotal: 0 });
    for (let i = 0; i < 4; i++) fire(a.pool, 1_000_000);
    await flushMicrotasks();
    assert.equal(a.watch.now, 1, 'one lane kept for b');
    void b.pool.close(); // b had nothing to do: it leaves
    await flushMicrotasks();
    assert.equal(a.watch.now, 2, 'b gone, a may use both lanes');
    void a.pool.abort();
    await advanceUntil(clock, () => a.pool.isClosed);
    assert.equal(shared.inUse, 0);
    assert.equal(a.results.filter((r) => r.status === 'cancelled').length, 4);
  });

  it('a provisional member (a cluster not heard from) holds one seat outside the budget until confirmed', async () => {
    const clock = new FakeClock();
    const shared = new SharedLanes(4);
    const total = () => a.watch.now + b.watch.now;
    const a = member(clock, shared, 'a', 8, { now: 0, max: 0, total, maxTotal: 0 });
    const silent = shared.join('silent', undefined, { provisional: true });
    const b = member(clock, shared, 'silent', 8, { now: 0, max: 0, total, maxTotal: 0 }, silent);
    for (let i = 0; i < 20; i++) fire(b.pool, 1_000); // its lists wait on a server that does not answer
    await flushMicrotasks();
    assert.equal(b.watch.now, 1, 'one seat, however many lists wait');
    for (let i = 0; i < 40; i++) fire(a.pool, 10);
    await flushMicrotasks();
    assert.equal(a.watch.now, 4, 'the other cluster has the whole budget: nothing kept or taken for the silent one');
    assert.equal(shared.inUse, 4);
    await clock.advance(10);
    await flushMicrotasks();
    assert.deepEqual([a.watch.now, b.watch.now], [4, 1], 'freed seats stay with the cluster that answers');
    // The silent cluster answers: its seat now counts, and freed seats go to it until both hold 2.
    silent.confirm();
    await flushMicrotasks();
    assert.equal(shared.inUse, 5, 'over by the seat it held, for now');
    for (let i = 0; i < 3; i++) {
      await clock.advance(10);
      await flushMicrotasks();
      assert.ok(a.watch.now + b.watch.now <= 5);
    }
    assert.deepEqual([a.watch.now, b.watch.now], [2, 2], 'max-min fair once confirmed');
    assert.equal(shared.inUse, 4);
    void a.pool.abort();
    void b.pool.abort();
    await advanceUntil(clock, () => a.pool.isClosed && b.pool.isClosed);
    assert.equal(shared.inUse, 0);
    assert.equal(shared.members, 0);
  });

  it('a provisional member that leaves unconfirmed gives back nothing of the budget', async () => {
    const shared = new SharedLanes(2);
    const m = shared.join('silent', undefined, { provisional: true });
    assert.equal(m.tryTake(), true);
    assert.equal(m.tryTake(), false);
    assert.equal(shared.inUse, 0);
    const o = shared.join('other');
    assert.equal(o.tryTake(), true);
    assert.equal(o.tryTake(), true, 'no seat kept for a provisional member');
    m.leave();
    assert.equal(shared.inUse, 2);
    o.give();
    o.give();
    assert.equal(shared.inUse, 0);
  });

  it('rejects a budget that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) assert.throws(() => new SharedLanes(bad), /shared lanes must be an integer >= 1/);
  });
});
