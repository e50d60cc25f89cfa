import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock } from '../../src/core/clock';
import { PodWorkers, type PodSyncer, type SyncContext } from '../../src/core/syncloop/podworkers';
import { WorkQueue } from '../../src/core/syncloop/workqueue';
import type { KubeObject } from '../../src/core/syncloop/types';

const drain = async () => {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
};

function obj(key: string, rv: number, uid = `uid-${key}`, deleting = false): KubeObject {
  return { metadata: { name: key, namespace: 'ns', uid, resourceVersion: String(rv), ...(deleting ? { deletionTimestamp: 't' } : {}) } };
}

/** A syncer that takes `delay()` ms of fake time per sync, fails when `fail()` says so, and records everything. */
class FakeSyncer implements PodSyncer {
  inFlight = new Map<string, number>();
  maxInFlightPerKey = 0;
  lastSynced = new Map<string, string>();
  calls: string[] = [];
  aborted: string[] = [];
  gone = new Set<string>();
  constructor(
    private clock: FakeClock,
    public delay: () => number = () => 0,
    public fail: () => boolean = () => false,
  ) {}
  private async run(kind: string, ctx: SyncContext): Promise<void> {
    const n = (this.inFlight.get(ctx.key) ?? 0) + 1;
    this.inFlight.set(ctx.key, n);
    this.maxInFlightPerKey = Math.max(this.maxInFlightPerKey, n);
    this.calls.push(`${kind}:${ctx.key}:${ctx.obj.metadata.resourceVersion}`);
    try {
      const d = this.delay();
      if (d > 0) await this.clock.sleep(d, ctx.signal);
      if (ctx.signal.aborted) this.aborted.push(ctx.key);
      if (this.fail()) throw new Error('sync failed');
    } catch (e) {
      if (ctx.signal.aborted && !this.aborted.includes(ctx.key)) this.aborted.push(ctx.key);
      throw e;
    } finally {
      this.inFlight.set(ctx.key, this.inFlight.get(ctx.key)! - 1);
    }
  }
  async syncPod(ctx: SyncContext) {
    await this.run('sync', ctx);
    this.lastSynced.set(ctx.key, ctx.obj.metadata.resourceVersion!);
  }
  async syncTerminatingPod(ctx: SyncContext) {
    await this.run('terminating', ctx);
    return this.gone.has(ctx.key);
  }
  async syncTerminatedPod(ctx: SyncContext) {
    await this.run('terminated', ctx);
  }
}

function setup(opts: { delay?: () => number; fail?: () => boolean; random?: () => number } = {}) {
  const clock = new FakeClock();
  const syncer = new FakeSyncer(clock, opts.delay, opts.fail);
  const queue = new WorkQueue(clock);
  const workers = new PodWorkers(syncer, queue, clock, { random: opts.random ?? (() => 0.5) });
  return { clock, syncer, queue, workers };
}

describe('podWorkers properties (fake clock, random schedules)', () => {
  const opsArb = fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 700 })), { minLength: 1, maxLength: 60 });
  const delaysArb = fc.array(fc.integer({ min: 0, max: 900 }), { minLength: 1, maxLength: 20 });

  it('never two syncs of one key at once; syncs of a key only move forward; the last update is the one synced', async () => {
    await fc.assert(
      fc.asyncProperty(opsArb, delaysArb, async (ops, delays) => {
        let di = 0;
        const { clock, syncer, workers } = setup({ delay: () => delays[di++ % delays.length]! });
        const last = new Map<string, number>();
        let rv = 0;
        for (const [k, dt] of ops) {
          const key = `k${k}`;
          last.set(key, ++rv);
          workers.UpdatePod({ updateType: 'update', key, obj: obj(key, rv) });
          assert.ok(workers.pendingCount <= 5);
          await clock.advance(dt);
        }
        await clock.advance(60 * 900);
        await drain();
        assert.equal(syncer.maxInFlightPerKey, 1);
        const seen = new Map<string, number>();
        for (const c of syncer.calls) {
          const [, key, v] = c.split(':');
          assert.ok(Number(v) > (seen.get(key!) ?? 0), `${key} synced ${v} after a newer version`);
          seen.set(key!, Number(v));
        }
        for (const [key, v] of last) assert.equal(syncer.lastSynced.get(key), String(v), `last update of ${key} synced`);
        assert.ok(workers.idle);
      }),
      { numRuns: 80 },
    );
  });

  it('with failing syncs and the sync tick re-dispatching due keys: no key is lost, all converge, queue and slots stay bounded', async () => {
    await fc.assert(
      fc.asyncProperty(opsArb, delaysArb, fc.array(fc.boolean(), { minLength: 1, maxLength: 20 }), async (ops, delays, failures) => {
        let di = 0;
        let fi = 0;
        let failing = true;
        const { clock, syncer, queue, workers } = setup({
          delay: () => delays[di++ % delays.length]!,
          fail: () => failing && failures[fi++ % failures.length]!,
        });
        const desired = new Map<string, KubeObject>();
        let rv = 0;
        // The kubelet's half of the contract: each sync tick re-dispatches due keys with the latest object.
        const tick = () => {
          for (const k of queue.getWork()) if (desired.has(k)) workers.UpdatePod({ updateType: 'sync', key: k, obj: desired.get(k)! });
        };
        let nextTick = 1000;
        const advanceTo = async (t: number) => {
          while (nextTick <= t) {
            await clock.advance(nextTick - clock.now());
            tick();
            nextTick += 1000;
          }
          await clock.advance(t - clock.now());
        };
        for (const [k, dt] of ops) {
          const key = `k${k}`;
          const o = obj(key, ++rv);
          desired.set(key, o);
          workers.UpdatePod({ updateType: 'update', key, obj: o });
          assert.ok(workers.pendingCount <= 5);
          assert.ok(queue.size <= 5);
          await advanceTo(clock.now() + dt);
        }
        failing = false;
        await advanceTo(clock.now() + 130_000); // beyond backoff (15 s max) and resync (90 s max)
        await drain();

        assert.equal(syncer.maxInFlightPerKey, 1);
        for (const [key, o] of desired) {
          assert.equal(syncer.lastSynced.get(key), o.metadata.resourceVersion, `last update of ${key} synced`);
          assert.ok(queue.has(key), `${key} is on the work queue`);
        }
        assert.equal(workers.pendingCount, 0);
        assert.equal(workers.inFlightCount, 0);
      }),
      { numRuns: 60 },
    );
  });

  it('a newer update replaces the pending one: a slow sync delays only its own key', async () => {
    const { clock, syncer, workers } = setup({ delay: () => 1000 });
    workers.UpdatePod({ updateType: 'create', key: 'slow', obj: obj('slow', 1) });
    await clock.advance(0);
    for (let rv = 2; rv <= 10; rv++) workers.UpdatePod({ updateType: 'update', key: 'slow', obj: obj('slow', rv) });
    workers.UpdatePod({ updateType: 'create', key: 'other', obj: obj('other', 1) });
    assert.equal(workers.pendingCount, 2);
    await clock.advance(1000);
    assert.deepEqual(syncer.calls, ['sync:slow:1', 'sync:other:1', 'sync:slow:10']);
    await clock.advance(1000);
    await drain();
    assert.equal(syncer.lastSynced.get('slow'), '10');
    assert.equal(syncer.lastSynced.get('other'), '1');
  });

  it('work queue deadlines: resync 60 s +0..50 %, error backoff 10 s +0..50 %, phase transition now', async () => {
    let fail = false;
    const { clock, queue, workers, syncer } = setup({ fail: () => fail, random: () => 1 });
    workers.UpdatePod({ updateType: 'create', key: 'a', obj: obj('a', 1) });
    await drain();
    assert.equal(queue.deadline('a'), 90_000);
    fail = true;
    workers.UpdatePod({ updateType: 'update', key: 'a', obj: obj('a', 2) });
    await drain();
    assert.equal(queue.deadline('a'), 15_000);
    fail = false;
    syncer.gone.add('a');
    workers.UpdatePod({ updateType: 'kill', key: 'a' });
    await drain();
    // terminating (gone) -> terminated -> finished: the transition re-queued at +0
    assert.equal(queue.deadline('a'), clock.now());
    assert.equal(workers.isFinished('a'), true);
  });
});

describe('podWorkers lifecycle', () => {
  it('only termination cancels an in-flight sync', async () => {
    const { clock, syncer, workers } = setup({ delay: () => 5000 });
    workers.UpdatePod({ updateType: 'create', key: 'a', obj: obj('a', 1) });
    await clock.advance(100);
    workers.UpdatePod({ updateType: 'update', key: 'a', obj: obj('a', 2) });
    await clock.advance(100);
    assert.deepEqual(syncer.aborted, []);
    workers.UpdatePod({ updateType: 'update', key: 'a', obj: obj('a', 3, 'uid-a', true) });
    await clock.advance(0);
    assert.deepEqual(syncer.aborted, ['a']);
    assert.equal(workers.state('a'), 'terminating');
    // the next work for the key is the termination, with the latest object
    assert.equal(syncer.calls.at(-1), 'terminating:a:3');
    assert.equal(syncer.maxInFlightPerKey, 1);
  });

  it('syncing -> terminating -> terminated -> finished -> forgotten by SyncKnownPods; later updates are ignored', async () => {
    const { syncer, workers } = setup();
    workers.UpdatePod({ updateType: 'create', key: 'a', obj: obj('a', 1) });
    await drain();
    workers.UpdatePod({ updateType: 'update', key: 'a', obj: obj('a', 2, 'uid-a', true) });
    await drain();
    assert.equal(workers.state('a'), 'terminating');
    syncer.gone.add('a');
    workers.UpdatePod({ updateType: 'kill', key: 'a' });
    await drain();
    assert.deepEqual(syncer.calls, ['sync:a:1', 'terminating:a:2', 'terminating:a:2', 'terminated:a:2']);
    assert.equal(workers.isFinished('a'), true);
    workers.UpdatePod({ updateType: 'sync', key: 'a', obj: obj('a', 3) });
    await drain();
    assert.equal(syncer.calls.length, 4);
    const forgotten: string[] = [];
    assert.equal(workers.SyncKnownPods(new Map(), forgotten).size, 0);
    assert.deepEqual(forgotten, ['a']);
    assert.equal(workers.size, 0);
  });

  it('housekeeping drives an orphan (no longer desired, removal missed) to termination', async () => {
    const { syncer, workers } = setup();
    workers.UpdatePod({ updateType: 'create', key: 'a', obj: obj('a', 1) });
    await drain();
    syncer.gone.add('a');
    const known = workers.SyncKnownPods(new Map());
    assert.deepEqual(known.get('a'), { state: 'terminating', orphan: true, hasConfig: true });
    await drain();
    assert.equal(workers.isFinished('a'), true);
    workers.SyncKnownPods(new Map());
    assert.equal(workers.size, 0);
  });

  it('a new object under the same name waits for the old one to terminate, then starts', async () => {
    const { syncer, workers } = setup({ delay: () => 100 });
    const { clock } = { clock: (syncer as unknown as { clock: FakeClock }).clock };
    workers.UpdatePod({ updateType: 'create', key: 'a', obj: obj('a', 1, 'old') });
    await clock.advance(10);
    syncer.gone.add('a');
    workers.UpdatePod({ updateType: 'create', key: 'a', obj: obj('a', 2, 'new') });
    workers.UpdatePod({ updateType: 'update', key: 'a', obj: obj('a', 3, 'new') });
    for (let i = 0; i < 10; i++) await clock.advance(100);
    await drain();
    assert.deepEqual(syncer.calls, ['sync:a:1', 'terminating:a:1', 'terminated:a:1', 'sync:a:3']);
    assert.equal(workers.state('a'), 'syncing');
    assert.equal(syncer.maxInFlightPerKey, 1);
  });

  it('a kill for a key never seen does nothing; stop() aborts in-flight syncs', async () => {
    const { clock, syncer, workers } = setup({ delay: () => 1000 });
    workers.UpdatePod({ updateType: 'kill', key: 'ghost' });
    assert.equal(workers.size, 0);
    workers.UpdatePod({ updateType: 'create', key: 'a', obj: obj('a', 1) });
    await clock.advance(10);
    workers.stop();
    await clock.advance(0);
    assert.deepEqual(syncer.aborted, ['a']);
    assert.equal(clock.pendingTimers(), 0);
  });
});
