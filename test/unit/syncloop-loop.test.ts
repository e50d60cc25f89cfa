import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { TimelineStore } from '../../src/core/timeline/store';
import type { SyncIterationEvent } from '../../src/core/timeline/events';
import { SyncLoop, type SyncLoopOptions } from '../../src/core/syncloop/syncloop';
import { syncLoop } from '../../src/core/syncloop/loop';
import { PlegRelister } from '../../src/core/syncloop/pleg/relister';
import type { ObjectView } from '../../src/core/syncloop/state/view';
import type { ContainerStatus, Pod } from '../../src/core/syncloop/types';

const drain = async () => {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
};

function harness(opts: Partial<SyncLoopOptions> & { clock?: FakeClock } = {}) {
  const clock = opts.clock ?? new FakeClock();
  const timeline = new TimelineStore(10_000);
  const lines: string[] = [];
  const kl = new SyncLoop({
    clock,
    timeline,
    sources: ['api'],
    random: () => 0,
    logger: { info: (l) => lines.push(l), error: (l) => lines.push(`E ${l}`) },
    ...opts,
  });
  const ac = new AbortController();
  const done = syncLoop(kl, ac.signal);
  const iterations = () => timeline.toArray() as SyncIterationEvent[];
  const stop = async () => {
    ac.abort();
    await done;
  };
  return { clock, timeline, lines, kl, ac, done, iterations, stop };
}

function probeMe(uid: string, status: Pod['status'], extra: { deleting?: boolean; rv?: string } = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'probe-me',
      namespace: 'default',
      uid,
      resourceVersion: extra.rv ?? '1',
      creationTimestamp: '2026-01-01T00:00:00Z',
      ...(extra.deleting ? { deletionTimestamp: '2026-01-01T00:05:00Z', deletionGracePeriodSeconds: 30 } : {}),
    },
    spec: { nodeName: 'pair-worker', containers: [{ name: 'probe-me', image: 'registry.k8s.io/e2e-test-images/agnhost:2.47', livenessProbe: { httpGet: { path: '/healthz', port: 8081 } } }] },
    status,
  };
}
const running = (restarts: number, id: string): ContainerStatus => ({
  name: 'probe-me',
  ready: true,
  started: true,
  restartCount: restarts,
  containerID: `containerd://${id}`,
  state: { running: { startedAt: '2026-01-01T00:00:01Z' } },
  ...(restarts > 0 ? { lastState: { terminated: { exitCode: 2, reason: 'Error', containerID: `containerd://prev${restarts}` } } } : {}),
});

describe('syncLoopIteration: the study guide scenario, one handler per case', () => {
  it('config ADD, PLEG ContainerStarted, liveness failures as probe syncs, restarts, deletion and housekeeping cleanup', async () => {
    const h = harness();
    const { kl, clock, lines } = h;
    const changes: [string, string | undefined, string | undefined][] = [];
    kl.actual.subscribe((key, o, n) => changes.push([key, o?.status, n?.status]));
    // The PLEG relists the store the api source's watch keeps: no list of its own.
    const relister = new PlegRelister(() => kl.podConfig.storage.sourceValues('api') as Iterable<Pod>, clock, kl.channels.pleg);

    // The api source lists (empty), then the pod is created.
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [] });
    const created = probeMe('pm-1', { phase: 'Pending', containerStatuses: [{ name: 'probe-me', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] });
    await kl.podConfig.merge('api', { op: 'ADD', source: 'api', pods: [created] });
    await drain();
    assert.ok(lines.includes('SyncLoop ADD source="api" pods=["default/probe-me"] handler="HandlePodAdditions"'));
    assert.equal(kl.actual.get('default/probe-me')?.status, 'ContainerCreating');

    // The container starts: status changes (RECONCILE) and the PLEG relist sees it running.
    const up = probeMe('pm-1', { phase: 'Running', containerStatuses: [running(0, 'c0')] }, { rv: '2' });
    await kl.podConfig.merge('api', { op: 'UPDATE', source: 'api', pods: [up] });
    assert.ok(relister.relistOnce());
    await drain();
    assert.ok(lines.includes('SyncLoop RECONCILE source="api" pods=["default/probe-me"] handler="HandlePodReconcile"'));
    assert.ok(lines.includes('SyncLoop (PLEG): event for pod pod="default/probe-me" event={"ID":"pm-1","Type":"ContainerStarted","Data":"c0"} handler="HandlePodSyncs"'));
    assert.deepEqual(pick(kl.actual.get('default/probe-me')!), { status: 'Running', ready: '1/1', restarts: 0 });

    // Liveness fails (inferred from Unhealthy events), twice: each failure is a probe sync.
    for (let i = 0; i < 2; i++) {
      await kl.channels.liveness.send({ probe: 'liveness', result: 'Failure', podUID: 'pm-1', containerId: 'c0', message: 'Liveness probe failed: connection refused' });
    }
    await drain();
    const probeLines = lines.filter((l) => l.startsWith('SyncLoop (probe)'));
    assert.deepEqual(probeLines, Array(2).fill('SyncLoop (probe) probe="liveness" status="unhealthy" pod="default/probe-me" handler="HandlePodSyncs"'));
    assert.deepEqual(kl.actual.get('default/probe-me')!.probes, { 'probe-me': { liveness: 'Failure' } });

    // The kubelet restarts it: the restart count shows, PLEG sees one container die and one start.
    const restarted = probeMe('pm-1', { phase: 'Running', containerStatuses: [{ ...running(1, 'c1'), lastState: { terminated: { exitCode: 2, reason: 'Error', containerID: 'containerd://c0' } } }] }, { rv: '3' });
    await kl.podConfig.merge('api', { op: 'UPDATE', source: 'api', pods: [restarted] });
    assert.ok(relister.relistOnce());
    await drain();
    assert.deepEqual(pick(kl.actual.get('default/probe-me')!), { status: 'Running', ready: '1/1', restarts: 1 });
    const pleg = h.iterations().filter((e) => e.source === 'pleg').map((e) => `${e.op}:${e.handler}`);
    assert.deepEqual(pleg, ['ContainerStarted:HandlePodSyncs', 'ContainerDied:HandlePodSyncs', 'ContainerStarted:HandlePodSyncs']);
    // ContainerDied cleaned up the dead container's probe results
    assert.equal(kl.actual.get('default/probe-me')!.probes, undefined);

    // kubectl delete: graceful deletion (DELETE -> HandlePodUpdates), then the object is gone (REMOVE).
    const deleting = probeMe('pm-1', restarted.status, { deleting: true, rv: '4' });
    await kl.podConfig.merge('api', { op: 'UPDATE', source: 'api', pods: [deleting] });
    await drain();
    assert.ok(lines.includes('SyncLoop DELETE source="api" pods=["default/probe-me"] handler="HandlePodUpdates"'));
    assert.equal(kl.actual.get('default/probe-me')?.status, 'Terminating');
    await kl.podConfig.merge('api', { op: 'REMOVE', source: 'api', pods: [deleting] });
    await drain();
    assert.ok(lines.includes('SyncLoop REMOVE source="api" pods=["default/probe-me"] handler="HandlePodRemoves"'));
    assert.equal(kl.actual.get('default/probe-me'), undefined);
    assert.equal(kl.podWorkers.isFinished('default/probe-me'), true);

    // Housekeeping forgets the finished worker.
    await clock.advance(2000);
    await drain();
    const hk = h.iterations().filter((e) => e.source === 'housekeeping' && e.outcome === 'ok');
    assert.equal(hk.length, 1);
    assert.equal(hk[0]!.key, 'default/probe-me');
    assert.match(hk[0]!.message!, /forgotten=\["default\/probe-me"\]/);
    assert.ok(lines.includes('SyncLoop (housekeeping) handler="HandlePodCleanups"'));
    assert.equal(kl.podWorkers.size, 0);

    assert.deepEqual(changes, [
      ['default/probe-me', undefined, 'ContainerCreating'],
      ['default/probe-me', 'ContainerCreating', 'Running'],
      ['default/probe-me', 'Running', 'Running'], // liveness result recorded
      ['default/probe-me', 'Running', 'Running'], // restart count 1 (RECONCILE)
      ['default/probe-me', 'Running', 'Running'], // PLEG ContainerDied cleaned up the dead container's probe results
      ['default/probe-me', 'Running', 'Terminating'],
      ['default/probe-me', 'Terminating', undefined],
    ]);
    await h.stop();
    assert.equal(clock.pendingTimers(), 0);
  });
});

function pick(v: ObjectView) {
  return { status: v.status, ready: v.ready, restarts: v.restarts };
}

describe('syncLoopIteration cases', () => {
  it('emits exactly one timeline event per iteration, with source, op, key, handler, duration, outcome', async () => {
    const h = harness();
    await h.kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [probeMe('u', { phase: 'Pending' })] });
    await h.kl.channels.pleg.send({ id: 'nobody', type: 'ContainerStarted', data: 'x' });
    await h.kl.channels.readiness.send({ probe: 'readiness', result: 'Success', podUID: 'u', containerId: 'probe-me' });
    await h.kl.channels.startup.send({ probe: 'startup', result: 'Failure', podUID: 'u', containerId: 'probe-me' });
    await h.kl.channels.liveness.send({ probe: 'liveness', result: 'Success', podUID: 'u', containerId: 'probe-me' });
    await drain();
    const ev = h.iterations().map((e) => [e.source, e.op, e.key, e.handler, e.outcome]);
    assert.deepEqual(ev, [
      ['config', 'ADD', 'default/probe-me', 'HandlePodAdditions', 'ok'],
      ['pleg', 'ContainerStarted', '', 'none', 'skipped'],
      ['probe', 'readiness', 'default/probe-me', 'HandlePodSyncs', 'ok'],
      ['probe', 'startup', 'default/probe-me', 'HandlePodSyncs', 'ok'],
      ['probe', 'liveness', 'default/probe-me', 'none', 'skipped'],
    ]);
    assert.ok(h.lines.includes('SyncLoop (probe) probe="readiness" status="ready" pod="default/probe-me" handler="HandlePodSyncs"'));
    assert.ok(h.lines.includes('SyncLoop (probe) probe="startup" status="unhealthy" pod="default/probe-me" handler="HandlePodSyncs"'));
    assert.ok(h.lines.some((l) => l.startsWith('SyncLoop (PLEG): pod does not exist, ignore irrelevant event')));
    assert.deepEqual(h.kl.actual.get('default/probe-me')!.probes, { 'probe-me': { readiness: 'Success', startup: 'Failure' } });
    for (const e of h.iterations()) assert.equal(typeof e.durationMs, 'number');
    await h.stop();
  });

  it('SET on configCh is an error: snapshot not supported', async () => {
    const h = harness();
    await h.kl.channels.config.send({ op: 'SET', source: 'api', pods: [] });
    await drain();
    const e = h.iterations()[0]!;
    assert.deepEqual([e.op, e.outcome, e.message, e.handler], ['SET', 'error', 'snapshot not supported', 'none']);
    assert.ok(h.lines.includes('E Kubelet does not support snapshot update source="api"'));
    await h.stop();
  });

  it('the sync tick syncs keys whose work-queue deadline passed', async () => {
    const h = harness({ resyncIntervalMs: 3000 });
    await h.kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [probeMe('u', { phase: 'Pending' })] });
    await drain();
    await h.clock.advance(3000);
    await drain();
    const ticks = h.iterations().filter((e) => e.source === 'sync');
    assert.deepEqual(ticks.map((e) => [e.key, e.outcome]), [['', 'skipped'], ['', 'skipped'], ['default/probe-me', 'ok']]);
    assert.ok(h.lines.includes('SyncLoop (SYNC) pods total=1 pods=["default/probe-me"] handler="HandlePodSyncs"'));
    await h.stop();
  });

  it('housekeeping is skipped until every source has listed and been handled', async () => {
    const h = harness({ sources: ['api', 'api:deployments.apps'] });
    await h.clock.advance(2000);
    await h.kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [] });
    await h.clock.advance(2000);
    await h.kl.podConfig.merge('api:deployments.apps', { op: 'SET', source: 'api:deployments.apps', pods: [], resource: { group: 'apps', resource: 'deployments' } });
    await h.clock.advance(2000);
    await drain();
    const hk = h.iterations().filter((e) => e.source === 'housekeeping').map((e) => e.outcome);
    assert.deepEqual(hk, ['skipped', 'skipped', 'ok']);
    assert.equal(h.lines.filter((l) => l === "SyncLoop (housekeeping, skipped): sources aren't ready yet").length, 2);
    await h.stop();
  });

  it('housekeeping runs at the configured period (the extension\'s kubeloop.housekeepingPeriodSeconds)', async () => {
    const h = harness({ sources: ['api'], housekeepingPeriodMs: 5000 });
    await h.kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [] });
    await h.clock.advance(14_999);
    await drain();
    assert.equal(h.iterations().filter((e) => e.source === 'housekeeping').length, 2, 'ticks at 5 s and 10 s, not every 2 s');
    await h.clock.advance(1);
    await drain();
    assert.equal(h.iterations().filter((e) => e.source === 'housekeeping').length, 3, 'the third tick at 15 s');
    await h.stop();
  });

  it('housekeeping repairs missed events: removes what is no longer desired, re-adds dropped work', async () => {
    const h = harness();
    const a = probeMe('ua', { phase: 'Running', containerStatuses: [running(0, 'a')] });
    const b = { ...probeMe('ub', { phase: 'Pending' }), metadata: { ...probeMe('ub', {}).metadata, name: 'b' } };
    await h.kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [a, b] });
    await drain();
    assert.equal(h.kl.actual.size, 2);
    // A REMOVE that never reached the loop, and an ADD whose work was dropped:
    h.kl.desired.remove('default/probe-me');
    const c = { ...b, metadata: { ...b.metadata, name: 'c', uid: 'uc' } };
    h.kl.desired.set({ key: 'default/c', obj: c, source: 'api' });
    h.kl.actual.set({ key: 'default/ghost', uid: 'g', kind: 'Pod', name: 'ghost', status: 'Running', deleting: false });
    await h.clock.advance(2000);
    await drain();
    const first = h.iterations().find((e) => e.source === 'housekeeping')!;
    assert.match(first.message!, /removed=\["default\/ghost"\]/);
    assert.match(first.message!, /terminating=\["default\/probe-me"\]/);
    assert.match(first.message!, /readded=\["default\/c"\]/);
    assert.deepEqual([...h.kl.actual.keys()].sort(), ['default/b', 'default/c']);
    // idempotent: the next pass only forgets the finished worker, then nothing
    await h.clock.advance(2000);
    await h.clock.advance(2000);
    await drain();
    const later = h.iterations().filter((e) => e.source === 'housekeeping').slice(1).map((e) => e.message ?? '');
    assert.deepEqual(later, ['forgotten=["default/probe-me"]', '']);
    await h.stop();
  });

  it('housekeeping calls the wiring hook, reports its error, and warns when it takes longer than 1 s', async () => {
    const clock = new FakeClock();
    const h = harness({
      clock,
      onHousekeeping: async (signal) => {
        await clock.sleep(1500, signal);
        throw new Error('watch pods: restart failed');
      },
    });
    await h.kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [] });
    await h.clock.advance(2000);
    await h.clock.advance(1500);
    await drain();
    const e = h.iterations().find((x) => x.source === 'housekeeping')!;
    assert.equal(e.outcome, 'error');
    assert.equal(e.durationMs, 1500);
    assert.match(e.message!, /restart failed/);
    assert.ok(h.lines.some((l) => l.startsWith('E Housekeeping took longer than expected')));
    await h.stop();
  });

  it('a closed configCh ends the loop', async () => {
    const h = harness();
    h.kl.channels.config.close();
    await h.done;
    assert.ok(h.lines.includes('E Update channel is closed, exiting the sync loop'));
    assert.equal(h.clock.pendingTimers(), 0);
  });
});

describe('syncLoop error backoff', () => {
  it('skips iterations while the runtime has errors: 100, 200, 400, ... capped at 5000 ms, reset after a clean check', async () => {
    const checks: number[] = [];
    let failing = true;
    const clock = new FakeClock();
    const h = harness({
      clock,
      runtimeErrors: () => {
        checks.push(clock.now());
        return failing ? new Error('apiserver unreachable') : undefined;
      },
    });
    await drain();
    for (let i = 0; i < 12; i++) await h.clock.advance(5000);
    const gaps = checks.slice(1, 11).map((t, i) => t - checks[i]!);
    assert.deepEqual(gaps, [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000]);
    assert.ok(h.lines.includes('E Skipping pod synchronization err="apiserver unreachable"'));
    assert.equal(h.iterations().length, 0);
    failing = false;
    await h.clock.advance(5000);
    await drain();
    failing = true;
    const n = checks.length;
    await h.clock.advance(1000); // the next tick runs an iteration, then the check fails again
    await drain();
    await h.clock.advance(100);
    assert.equal(checks.at(-1)! - checks[n]!, 100, 'backoff restarts at 100 ms');
    await h.stop();
  });
});
