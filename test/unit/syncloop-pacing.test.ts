/**
 * What paces the kubelet's syncs and orders its causes, as ours: the pod cache the pod workers wait
 * on (GetNewerThan), killPod's one long call, the PLEG's per-pod observations against its periodic
 * relist, and the rendezvous send that puts a status write's causes before its echo.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock } from '../../src/core/clock';
import { Channel } from '../../src/core/syncloop/channel';
import { PodCache } from '../../src/core/syncloop/pleg/podcache';
import { GenericPLEG } from '../../src/core/syncloop/pleg/generic';
import { PodWorkers, effectiveGracePeriod, type PodSyncer, type SyncContext } from '../../src/core/syncloop/podworkers';
import { WorkQueue } from '../../src/core/syncloop/workqueue';
import { TimeSlicer } from '../../src/core/slice';
import { ModelSyncer, TERMINATION_REPORT_SLACK_MS } from '../../src/core/syncloop/sync';
import { DesiredStateOfWorld } from '../../src/core/syncloop/state/desired';
import { ActualStateOfWorld } from '../../src/core/syncloop/state/actual';
import { ProbeResultsCache } from '../../src/core/syncloop/state/probes';
import type { ContainerStatus, Pod } from '../../src/core/kube/objects/pod';
import type { StoredObject } from '../../src/core/kube/objects/types';

const drain = async () => {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
};
const unsliced = new TimeSlicer(Infinity);

function obj(key: string, rv: number, uid = `uid-${key}`): StoredObject {
  return { metadata: { name: key, namespace: 'ns', uid, resourceVersion: String(rv) } };
}

/** Records every sync as "key:rv@time"; never more than one in flight per key, or it says so. */
class RecordingSyncer implements PodSyncer {
  syncs: string[] = [];
  overlap = false;
  private busy = new Set<string>();
  constructor(private readonly clock: FakeClock) {}
  private async run(ctx: SyncContext): Promise<void> {
    if (this.busy.has(ctx.key)) this.overlap = true;
    this.busy.add(ctx.key);
    this.syncs.push(`${ctx.key}:${ctx.obj.metadata.resourceVersion}@${this.clock.now()}`);
    await Promise.resolve();
    this.busy.delete(ctx.key);
  }
  async syncPod(ctx: SyncContext) {
    await this.run(ctx);
  }
  async syncTerminatingPod(ctx: SyncContext) {
    await this.run(ctx);
    return true;
  }
  async syncTerminatedPod(ctx: SyncContext) {
    await this.run(ctx);
  }
}

describe('PodCache (upstream container cache GetNewerThan)', () => {
  it('releases a waiter on the first news strictly newer than its last sync: the pod observed, or a relist that started later', async () => {
    const cache = new PodCache();
    const order: string[] = [];
    void cache.getNewerThan('a', 10).then(() => order.push('a'));
    void cache.getNewerThan('b', 10).then(() => order.push('b'));
    cache.set('a', 10); // not newer: still waiting
    cache.updateTime(9);
    await drain();
    assert.deepEqual(order, []);
    cache.set('a', 11);
    await drain();
    assert.deepEqual(order, ['a']);
    cache.updateTime(12); // a relist that started after b's last sync: every pod is known as of then
    await drain();
    assert.deepEqual(order, ['a', 'b']);
    assert.equal(cache.waiting, 0);
    await cache.getNewerThan('c', 5); // already newer: at once
  });

  it('an aborted or cancelled wait rejects and leaves nothing behind', async () => {
    const cache = new PodCache();
    const ac = new AbortController();
    const p = cache.getNewerThan('a', 1, ac.signal);
    const w = cache.wait('b', 1);
    assert.equal(cache.waiting, 2);
    ac.abort(new Error('terminating'));
    w.cancel(new Error('stopped'));
    await assert.rejects(p, /terminating/);
    await assert.rejects(w.done, /stopped/);
    assert.equal(cache.waiting, 0);
  });
});

describe('pod workers paced by the pod cache', () => {
  function setup() {
    const clock = new FakeClock();
    const cache = new PodCache();
    const syncer = new RecordingSyncer(clock);
    const workers = new PodWorkers(syncer, new WorkQueue(clock), clock, { random: () => 0, slicer: unsliced, podCache: cache });
    return { clock, cache, syncer, workers };
  }

  it('the first sync runs at once; later ones wait for news of the pod, and the updates meanwhile coalesce in the pending slot', async () => {
    const { clock, cache, syncer, workers } = setup();
    workers.UpdatePod({ updateType: 'create', key: 'a', obj: obj('a', 1) });
    await drain();
    assert.deepEqual(syncer.syncs, ['a:1@0']);
    await clock.advance(100);
    // A burst coalesces in the slot before the worker takes it; as upstream, it then waits for the
    // pod cache with the update it took, and what comes meanwhile coalesces in the slot again.
    for (let rv = 2; rv <= 5; rv++) workers.UpdatePod({ updateType: 'update', key: 'a', obj: obj('a', rv) });
    await drain();
    assert.deepEqual(syncer.syncs, ['a:1@0'], 'waiting for the PLEG');
    assert.equal(cache.waiting, 1);
    workers.UpdatePod({ updateType: 'update', key: 'a', obj: obj('a', 6) });
    workers.UpdatePod({ updateType: 'update', key: 'a', obj: obj('a', 7) });
    assert.equal(workers.snapshot('uid-a')!.coalesced, 1, 'rv 6 replaced in the slot by rv 7');
    await clock.advance(900);
    cache.updateTime(1000); // the relist that started at 1000 ms finished
    await drain();
    assert.deepEqual(syncer.syncs, ['a:1@0', 'a:5@1000']);
    await clock.advance(1000);
    cache.updateTime(2000);
    await drain();
    assert.deepEqual(syncer.syncs, ['a:1@0', 'a:5@1000', 'a:7@2000'], 'at most one sync per relist; six updates, two syncs');
    assert.equal(workers.snapshot('uid-a')!.pending, false);
  });

  it('news of this pod releases its worker at once; news of another pod does not', async () => {
    const { clock, cache, syncer, workers } = setup();
    workers.UpdatePod({ updateType: 'create', key: 'a', obj: obj('a', 1) });
    workers.UpdatePod({ updateType: 'create', key: 'b', obj: obj('b', 1) });
    await drain();
    await clock.advance(10);
    workers.UpdatePod({ updateType: 'sync', key: 'a', obj: obj('a', 2) });
    workers.UpdatePod({ updateType: 'sync', key: 'b', obj: obj('b', 2) });
    cache.set('uid-a', clock.now()); // a's containers were seen changing (its PLEG event's cause)
    await drain();
    assert.deepEqual(syncer.syncs.slice(2), ['a:2@10']);
    assert.equal(cache.waiting, 1, 'b still waits for the relist');
  });

  it('termination cancels a worker waiting for the pod cache; stop() leaves no waiter', async () => {
    const { clock, cache, syncer, workers } = setup();
    workers.UpdatePod({ updateType: 'create', key: 'a', obj: obj('a', 1) });
    await drain();
    await clock.advance(10);
    workers.UpdatePod({ updateType: 'update', key: 'a', obj: obj('a', 2) });
    await drain();
    assert.equal(cache.waiting, 1);
    workers.UpdatePod({ updateType: 'kill', key: 'a' });
    await drain();
    // The cancelled wait gave way to the kill, which waits for the PLEG in turn (upstream: every sync but the first).
    assert.equal(workers.state('uid-a'), 'terminating');
    assert.equal(cache.waiting, 1);
    assert.deepEqual(syncer.syncs, ['a:1@0']);
    workers.stop();
    await drain();
    assert.equal(cache.waiting, 0);
  });

  it('property: whatever the updates, relists and news, a key never syncs twice at once, only moves forward, and ends on its last update', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ t: fc.constant('update' as const), key: fc.constantFrom('a', 'b', 'c') }),
            fc.record({ t: fc.constantFrom('relist' as const, 'tick' as const), key: fc.constant('') }),
            fc.record({ t: fc.constant('news' as const), key: fc.constantFrom('a', 'b', 'c') }),
          ),
          { maxLength: 60 },
        ),
        async (ops) => {
          const { clock, cache, syncer, workers } = setup();
          const last = new Map<string, number>();
          let rv = 0;
          for (const op of ops) {
            if (op.t === 'update') {
              rv++;
              last.set(op.key, rv);
              workers.UpdatePod({ updateType: 'update', key: op.key, obj: obj(op.key, rv) });
            } else if (op.t === 'relist') cache.updateTime(clock.now());
            else if (op.t === 'news') cache.set(`uid-${op.key}`, clock.now());
            else await clock.advance(100);
            await drain();
          }
          // The PLEG goes on relisting: every worker reaches its last update (one sync per relist at most).
          for (let i = 0; i < 4; i++) {
            await clock.advance(1000);
            cache.updateTime(clock.now());
            await drain();
          }
          assert.equal(syncer.overlap, false);
          for (const [key, v] of last) {
            const mine = syncer.syncs.filter((s) => s.startsWith(`${key}:`)).map((s) => Number(s.split(':')[1]!.split('@')[0]));
            assert.deepEqual(
              mine,
              [...mine].sort((x, y) => x - y),
              `${key} only moves forward`,
            );
            assert.equal(mine.at(-1), v, `${key} ends on its last update`);
          }
          workers.stop();
          await drain();
          assert.equal(cache.waiting, 0);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('effectiveGracePeriod (upstream calculateEffectiveGracePeriod)', () => {
  const pod = (deletion?: number, spec?: number): StoredObject =>
    ({
      metadata: { name: 'p', uid: 'u', ...(deletion !== undefined ? { deletionGracePeriodSeconds: deletion } : {}) },
      ...(spec !== undefined ? { spec: { terminationGracePeriodSeconds: spec } } : {}),
    }) as StoredObject;
  it("the API's deletion grace wins when shorter; else the spec's; never under 1 s", () => {
    assert.equal(effectiveGracePeriod(undefined, pod(undefined, 45)), 45, "a terminal pod's teardown: the spec's grace");
    assert.equal(effectiveGracePeriod(undefined, pod(30, 45)), 30);
    assert.equal(effectiveGracePeriod(30, pod(60, 45)), 30, 'never longer');
    assert.equal(effectiveGracePeriod(30, pod(0, 45)), 1, 'a force delete: 1 s, not 0');
    assert.equal(effectiveGracePeriod(undefined, pod()), 1);
  });
});

describe('killPod: syncTerminatingPod is one call that blocks until the containers stop', () => {
  const cs = (state: ContainerStatus['state']): ContainerStatus => ({ name: 'c', ready: false, restartCount: 0, containerID: 'containerd://c1', state });
  const pod = (rv: string, state: ContainerStatus['state']): Pod => ({
    metadata: { name: 'p', namespace: 'ns', uid: 'u1', resourceVersion: rv, deletionTimestamp: 't', deletionGracePeriodSeconds: 30 },
    spec: { containers: [{ name: 'c' }] },
    status: { phase: 'Running', containerStatuses: [cs(state)] },
  });
  function setup() {
    const clock = new FakeClock();
    const cache = new PodCache();
    const desired = new DesiredStateOfWorld();
    const syncer = new ModelSyncer(desired, new ActualStateOfWorld(), new ProbeResultsCache(), clock, cache);
    const running = pod('1', { running: {} });
    desired.set({ key: 'ns/p', obj: running, source: 'api' });
    cache.observe(running);
    const ctx = (grace: number, signal = new AbortController().signal): SyncContext => ({
      key: 'ns/p',
      uid: 'u1',
      obj: running,
      updateType: 'kill',
      signal,
      gracePeriodSeconds: grace,
    });
    return { clock, cache, desired, syncer, ctx };
  }

  it('returns done once the kubelet reports the containers stopped, however long that takes within the grace period', async () => {
    const { clock, cache, syncer, ctx } = setup();
    let result: unknown;
    const call = syncer.syncTerminatingPod(ctx(30)).then((r) => (result = r));
    await clock.advance(20_000);
    await drain();
    assert.equal(result, undefined, 'still in killPod after 20 s of a 30 s grace period');
    const stopped = pod('2', { terminated: { exitCode: 137, containerID: 'containerd://c1' } });
    cache.observe(stopped);
    cache.set('u1', clock.now());
    await call;
    assert.deepEqual(result, { done: true });
    assert.equal(cache.waiting, 0);
  });

  it('not reported stopped within the grace period and the slack: an error (the worker retries after its backoff)', async () => {
    const { clock, syncer, ctx } = setup();
    let err: unknown;
    const call = syncer.syncTerminatingPod(ctx(3)).catch((e) => (err = e));
    await clock.advance(3000 + TERMINATION_REPORT_SLACK_MS + 10);
    await call;
    assert.match(String(err), /containers not seen stopping within the grace period \(3s\)/);
    assert.equal(clock.pendingTimers(), 0);
  });

  it('a pod gone from the API ends it: done, inferred when it was last seen running', async () => {
    const { clock, cache, desired, syncer, ctx } = setup();
    const call = syncer.syncTerminatingPod(ctx(30));
    await clock.advance(1000);
    desired.remove('ns/p', 'u1');
    cache.updateTime(clock.now()); // the next relist wakes it: the pod is gone
    assert.deepEqual(await call, { done: true, inferred: true });
    assert.equal(clock.pendingTimers(), 0);
  });

  it('an abort (a shorter grace period, a stop) ends the wait at once and leaves nothing behind', async () => {
    const { clock, cache, syncer, ctx } = setup();
    const ac = new AbortController();
    const call = syncer.syncTerminatingPod(ctx(30, ac.signal));
    await clock.advance(1000);
    ac.abort(new Error('grace period shortened'));
    await assert.rejects(call, /shortened/);
    assert.equal(cache.waiting, 0);
    assert.equal(clock.pendingTimers(), 0);
  });
});

describe('GenericPLEG: a watch change observed ahead of the periodic relist', () => {
  const p = (uid: string, rv: string, statuses: ContainerStatus[]): Pod => ({
    metadata: { name: uid, namespace: 'ns', uid, resourceVersion: rv },
    status: { containerStatuses: statuses },
  });
  const run = (id: string): ContainerStatus => ({ name: 'c', ready: true, restartCount: 0, containerID: `containerd://${id}`, state: { running: {} } });
  const dead = (id: string): ContainerStatus => ({
    name: 'c',
    ready: false,
    restartCount: 0,
    containerID: `containerd://${id}`,
    state: { terminated: { exitCode: 1 } },
  });

  it('a relist that still reads the replaced version reports nothing, and nothing twice once the store catches up', () => {
    const pleg = new GenericPLEG();
    const v1 = p('a', '1', [run('c1')]);
    assert.deepEqual(
      pleg.relist([v1]).events.map((e) => e.type),
      ['ContainerStarted'],
    );
    const v2 = p('a', '2', [dead('c1')]);
    assert.deepEqual(
      pleg.observePod(v2).map((e) => `${e.type}:${e.data}`),
      ['ContainerDied:c1'],
    );
    assert.deepEqual(pleg.relist([v1]).events, [], 'the store still holds v1: not a restart');
    assert.deepEqual(pleg.relist([v2]).events, [], 'caught up: already reported');
  });

  it('a pod gone: its running containers die and go, once; the relist that still finds it in the store says nothing', () => {
    const pleg = new GenericPLEG();
    const v1 = p('a', '1', [run('c1')]);
    pleg.relist([v1]);
    assert.deepEqual(
      pleg.observeGone('a').map((e) => e.type),
      ['ContainerDied', 'ContainerRemoved'],
    );
    assert.deepEqual(pleg.observeGone('a'), []);
    assert.deepEqual(pleg.relist([v1]).events, [], 'the removal is not merged yet');
    assert.deepEqual(pleg.relist([]).events, [], 'merged: the tombstone goes quietly');
    assert.equal(pleg.podCount, 0);
  });
});

describe('Channel.sendReceived: a rendezvous', () => {
  it('resolves only once a receiver took the value; rejects on abort (the value may still be taken) and on close', async () => {
    const ch = new Channel<number>(4);
    let done = false;
    const p = ch.sendReceived(1).then(() => (done = true));
    await drain();
    assert.equal(done, false, 'buffered is not received');
    assert.equal(ch.tryRecv().value, 1);
    await p;
    const ac = new AbortController();
    const q = ch.sendReceived(2, ac.signal);
    await drain(); // buffered, waiting for a receiver
    ac.abort(new Error('stopped'));
    await assert.rejects(q, /stopped/);
    const r = ch.sendReceived(3);
    await drain();
    ch.close();
    await assert.rejects(r, /closed/);
  });
});
