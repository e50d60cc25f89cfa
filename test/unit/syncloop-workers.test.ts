import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock } from '../../src/core/clock';
import { PodWorkers, type PodSyncer, type SyncContext } from '../../src/core/syncloop/podworkers';
import { WorkQueue } from '../../src/core/syncloop/workqueue';
import { TimeSlicer } from '../../src/core/slice';
import type { StoredObject } from '../../src/core/kube/objects/types';

const drain = async () => {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
};

function obj(key: string, rv: number, uid = `uid-${key}`, deleting = false): StoredObject {
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

// Fake time moves with microtasks only here, so the workers' time slices (real time, macrotask
// turns) are off (a slice that never ends) except where a test parks them on purpose.
const unsliced = new TimeSlicer(Infinity);

function setup(opts: { delay?: () => number; fail?: () => boolean; random?: () => number; slicer?: TimeSlicer } = {}) {
  const clock = new FakeClock();
  const syncer = new FakeSyncer(clock, opts.delay, opts.fail);
  const queue = new WorkQueue(clock);
  const workers = new PodWorkers(syncer, queue, clock, { random: opts.random ?? (() => 0.5), slicer: opts.slicer ?? unsliced });
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

  it('workers parked for a slice of the thread at every sync lose no update: each key syncs its last object', async () => {
    const slicer = new TimeSlicer(0); // every sync but a stretch's first waits for a turn
    const { syncer, workers } = setup({ slicer });
    const last = new Map<string, number>();
    for (let round = 1; round <= 3; round++) {
      for (let k = 0; k < 200; k++) {
        workers.UpdatePod({ updateType: 'update', key: `k${k}`, obj: obj(`k${k}`, round) });
        last.set(`k${k}`, round);
      }
      await Promise.resolve();
    }
    assert.ok(slicer.waiting > 0, 'workers parked');
    for (let i = 0; i < 10_000 && !(workers.idle && slicer.waiting === 0); i++) await new Promise<void>((r) => setImmediate(r));
    assert.equal(slicer.waiting, 0);
    assert.ok(workers.idle);
    assert.equal(syncer.maxInFlightPerKey, 1);
    for (const [key, rv] of last) assert.equal(syncer.lastSynced.get(key), String(rv), `last update of ${key} synced`);
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
        const desired = new Map<string, StoredObject>();
        let rv = 0;
        // The kubelet's half of the contract: each sync tick re-dispatches due pods (by UID) with the latest object.
        const tick = () => {
          const due = new Set(queue.getWork());
          for (const [k, o] of desired) if (due.has(o.metadata.uid)) workers.UpdatePod({ updateType: 'sync', key: k, obj: o });
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
          assert.ok(queue.has(o.metadata.uid), `${key} is on the work queue`);
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
    assert.equal(queue.deadline('uid-a'), 90_000, 'the work queue is keyed by UID');
    fail = true;
    workers.UpdatePod({ updateType: 'update', key: 'a', obj: obj('a', 2) });
    await drain();
    assert.equal(queue.deadline('uid-a'), 15_000);
    fail = false;
    syncer.gone.add('a');
    workers.UpdatePod({ updateType: 'kill', key: 'a' });
    await clock.advance(0);
    // terminating (gone) -> terminated: the transition queued at +0; finished: off the queue
    assert.equal(workers.isFinished('uid-a'), true);
    assert.equal(queue.has('uid-a'), false);
    assert.deepEqual(syncer.calls.slice(-2), ['terminating:a:2', 'terminated:a:2']);
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
    assert.equal(workers.state('uid-a'), 'terminating');
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
    assert.equal(workers.state('uid-a'), 'terminating');
    syncer.gone.add('a');
    workers.UpdatePod({ updateType: 'kill', key: 'a' });
    await drain();
    assert.deepEqual(syncer.calls, ['sync:a:1', 'terminating:a:2', 'terminating:a:2', 'terminated:a:2']);
    assert.equal(workers.isFinished('uid-a'), true);
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
    assert.deepEqual(known.get('uid-a'), { key: 'a', state: 'terminating', orphan: true, hasConfig: true });
    await drain();
    assert.equal(workers.isFinished('uid-a'), true);
    workers.SyncKnownPods(new Map());
    assert.equal(workers.size, 0);
  });

  it('two incarnations of one name are two workers (keyed by UID): the old one terminates while the new one syncs', async () => {
    const { clock, syncer, workers } = setup({ delay: () => 100 });
    workers.UpdatePod({ updateType: 'create', key: 'a', obj: obj('a', 1, 'old') });
    await clock.advance(10);
    // A force delete and a new pod under the same name (a StatefulSet pod recreated).
    workers.UpdatePod({ updateType: 'create', key: 'a', obj: obj('a', 2, 'new') });
    workers.UpdatePod({ updateType: 'update', key: 'a', obj: obj('a', 3, 'new') });
    syncer.gone.add('a');
    workers.UpdatePod({ updateType: 'kill', key: 'a', obj: obj('a', 1, 'old') });
    for (let i = 0; i < 10; i++) await clock.advance(100);
    await drain();
    assert.equal(workers.state('new'), 'syncing');
    assert.equal(workers.isFinished('old'), true);
    assert.deepEqual(workers.uidsOf('a').sort(), ['new', 'old']);
    // The new one did not wait for the old one: its sync ran while the old one was still terminating.
    assert.ok(syncer.calls.indexOf('sync:a:3') < syncer.calls.indexOf('terminated:a:1'), syncer.calls.join(' '));
    assert.equal(syncer.lastSynced.get('a'), '3');
    // A stale kill naming only the key reaches the live incarnation, never a finished one.
    assert.equal(workers.snapshot('new')!.coalesced, 0);
  });

  it("housekeeping keeps a worker that holds an update but has not run yet (parked for a slice): it runs it, as the kubelet's goroutine would have at once", async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let parked = true;
    const { syncer, workers } = setup({ slicer: { due: () => (parked ? gate : undefined) } as unknown as TimeSlicer });
    // Rejected at admission (Failed, nothing ran), then deleted and removed within a millisecond.
    const rejected = { ...obj('rej', 2, 'uid-rej', true), status: { phase: 'Failed' } } as StoredObject;
    workers.UpdatePod({ updateType: 'update', key: 'rej', obj: rejected });
    workers.UpdatePod({ updateType: 'kill', key: 'rej', obj: rejected });
    await drain();
    assert.deepEqual(syncer.calls, [], 'the worker waits for its slice');
    assert.equal(workers.SyncKnownPods(new Map()).size, 1, 'housekeeping with nothing desired keeps it');
    parked = false;
    open();
    await drain();
    assert.deepEqual(syncer.calls, ['terminated:rej:2'], 'it ran SyncTerminatedPod');
    assert.equal(workers.isFinished('uid-rej'), true);
    assert.equal(workers.SyncKnownPods(new Map()).size, 0, 'then the next housekeeping forgets it');
  });

  it('the single pending slot: updates replaced before a sync took it are counted as coalesced', async () => {
    const records: { coalesced: number; work: string }[] = [];
    const clock = new FakeClock();
    const syncer = new FakeSyncer(clock, () => 1000);
    const workers = new PodWorkers(syncer, new WorkQueue(clock), clock, {
      random: () => 0,
      slicer: unsliced,
      onSynced: (r) => records.push({ coalesced: r.coalesced, work: r.work }),
    });
    workers.UpdatePod({ updateType: 'create', key: 'a', obj: obj('a', 1) });
    await clock.advance(0);
    for (let rv = 2; rv <= 5; rv++) workers.UpdatePod({ updateType: 'update', key: 'a', obj: obj('a', rv) });
    assert.equal(workers.snapshot('uid-a')!.coalesced, 3, 'rv 2..4 were replaced by rv 5');
    await clock.advance(1000);
    await clock.advance(1000);
    assert.deepEqual(records, [
      { coalesced: 0, work: 'syncing' },
      { coalesced: 3, work: 'syncing' },
    ]);
    assert.equal(workers.snapshot('uid-a')!.nextDueAt, 2000 + 60_000);
  });

  it('a terminal phase (syncPod says isTerminal) goes terminating -> terminated without any deletion, and stays until the object is gone', async () => {
    const clock = new FakeClock();
    const syncer = new FakeSyncer(clock);
    let terminal = false;
    const orig = syncer.syncPod.bind(syncer);
    (syncer as PodSyncer).syncPod = async (ctx) => {
      await orig(ctx);
      return terminal;
    };
    syncer.gone.add('job');
    const workers = new PodWorkers(syncer, new WorkQueue(clock), clock, { random: () => 0, slicer: unsliced });
    workers.UpdatePod({ updateType: 'create', key: 'job', obj: obj('job', 1, 'j1') });
    await drain();
    terminal = true;
    workers.UpdatePod({ updateType: 'sync', key: 'job', obj: obj('job', 2, 'j1') });
    await drain();
    assert.deepEqual(syncer.calls, ['sync:job:1', 'sync:job:2', 'terminating:job:2', 'terminated:job:2']);
    const snap = workers.snapshot('j1')!;
    assert.equal(snap.state, 'terminated');
    assert.equal(snap.terminal, true);
    assert.equal(snap.deleted, false, 'nothing deleted it');
    // Still desired: housekeeping keeps the finished worker; once not desired it is forgotten.
    assert.equal(workers.SyncKnownPods(new Map([['j1', 'job']])).size, 1);
    assert.equal(workers.SyncKnownPods(new Map()).size, 0);
  });

  it('a shorter grace period cancels the running termination and restarts it with the shorter one', async () => {
    const clock = new FakeClock();
    const syncer = new FakeSyncer(clock, () => 5000);
    const graces: (number | undefined)[] = [];
    const orig = syncer.syncTerminatingPod.bind(syncer);
    syncer.syncTerminatingPod = async (ctx) => {
      graces.push(ctx.gracePeriodSeconds);
      return orig(ctx);
    };
    const workers = new PodWorkers(syncer, new WorkQueue(clock), clock, { random: () => 0, slicer: unsliced });
    const deleting = (rv: number, grace: number): StoredObject => ({
      metadata: { ...obj('a', rv).metadata, deletionTimestamp: 't', deletionGracePeriodSeconds: grace },
    });
    workers.UpdatePod({ updateType: 'update', key: 'a', obj: deleting(1, 30) });
    await clock.advance(100);
    workers.UpdatePod({ updateType: 'update', key: 'a', obj: deleting(2, 45) });
    await clock.advance(100);
    assert.deepEqual(syncer.aborted, [], 'a longer grace period changes nothing');
    workers.UpdatePod({ updateType: 'update', key: 'a', obj: deleting(3, 0) });
    await clock.advance(0);
    assert.deepEqual(syncer.aborted, ['a'], 'kubectl delete --grace-period=0 --force cut the 30 s one short');
    assert.equal(workers.snapshot('uid-a')!.gracePeriodSeconds, 1, 'never under 1 s (upstream calculateEffectiveGracePeriod)');
    assert.deepEqual(graces, [30, 1]);
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

describe('WorkQueue (a heap of deadlines)', () => {
  it('for any enqueues, forgets and ticks: getWork returns exactly the keys a walk of the map would, earliest first, each once', async () => {
    // op: [kind 0 enqueue / 1 forget / 2 tick, key, delay or time to advance]
    const ops = fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 300 })), { maxLength: 400 });
    await fc.assert(
      fc.asyncProperty(ops, async (list) => {
        const clock = new FakeClock();
        const q = new WorkQueue(clock);
        const model = new Map<string, number>();
        for (const [kind, k, n] of list) {
          const key = `uid-${k}`;
          if (kind === 0) {
            q.enqueue(key, n);
            model.set(key, clock.now() + n);
          } else if (kind === 1) {
            q.forget(key);
            model.delete(key);
          } else {
            await clock.advance(n);
            const want = [...model].filter(([, at]) => at <= clock.now());
            for (const [key] of want) model.delete(key);
            const got = q.getWork();
            assert.deepEqual([...got].sort(), want.map(([key]) => key).sort());
            const ats = want.sort((a, b) => a[1] - b[1]).map(([, at]) => at);
            assert.deepEqual(
              got.map((key) => want.find(([k2]) => k2 === key)![1]),
              ats,
              'earliest deadline first',
            );
          }
          assert.equal(q.size, model.size);
          for (const [key, at] of model) assert.equal(q.deadline(key), at);
        }
      }),
      { numRuns: 300, seed: 21 },
    );
  });

  it('superseded deadlines do not pile up: a key re-enqueued a million times holds the heap near its live size', () => {
    const clock = new FakeClock();
    const q = new WorkQueue(clock);
    for (let i = 0; i < 1_000_000; i++) q.enqueue(`uid-${i % 10}`, 1000 + (i % 997));
    const heap = (q as unknown as { heapAt: number[] }).heapAt.length;
    assert.ok(heap <= 2 * 10 + 1024 + 1, `heap ${heap}`);
    assert.equal(q.size, 10);
  });
});
