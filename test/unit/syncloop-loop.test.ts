import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { TimelineStore } from '../../src/core/timeline/store';
import type { SyncIterationEvent } from '../../src/core/timeline/events';
import { SyncLoop, type SyncLoopOptions } from '../../src/core/syncloop/syncloop';
import { activeDeadlinePassed } from '../../src/core/syncloop/podstatus';
import fc from 'fast-check';
import { syncLoop } from '../../src/core/syncloop/loop';
import { PlegRelister } from '../../src/core/syncloop/pleg/relister';
import type { ObjectView } from '../../src/core/rows/objectView';
import { PODS } from '../../src/core/kube/objects/objectKey';
import { type ContainerStatus, type Pod } from '../../src/core/kube/objects/pod';
import { PodCache } from '../../src/core/syncloop/pleg/podcache';
import { ProbeInference } from '../../src/core/syncloop/prober/infer';
import { ConfigSink, EventsSink } from '../../src/core/syncloop/sources/sinks';
import { TimeSlicer } from '../../src/core/slice';

/** Never parks: the real thread's time slices would make these FakeClock tests depend on the machine's load. */
const unsliced = new TimeSlicer(Infinity);

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
    slicer: unsliced, // the FakeClock decides when work runs, not how busy the machine is
    ...opts,
  });
  const ac = new AbortController();
  const done = syncLoop(kl, ac.signal);
  const all = () => timeline.toArray() as SyncIterationEvent[];
  /** The loop's iterations (without the pod workers' own marks). */
  const iterations = () => all().filter((e) => e.source !== 'podworker');
  const workerMarks = () => all().filter((e) => e.source === 'podworker');
  const stop = async () => {
    ac.abort();
    await done;
  };
  return { clock, timeline, lines, kl, ac, done, all, iterations, workerMarks, stop };
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
    spec: {
      nodeName: 'pair-worker',
      containers: [
        {
          name: 'probe-me',
          image: 'registry.k8s.io/e2e-test-images/agnhost:2.47',
          livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, periodSeconds: 5, failureThreshold: 2 },
        },
      ],
    },
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

describe("syncLoopIteration: the study guide scenario, one handler per case, in the kubelet's order", () => {
  it("config ADD, then each status write's causes (PLEG, probe) before its RECONCILE echo; one liveness failure per threshold crossing; a graceful delete blocked in killPod until the containers stop; REMOVE; housekeeping cleanup", async () => {
    const clock = new FakeClock();
    // The PLEG relists the store the api source's watch keeps; its pod cache paces the workers.
    let relister!: PlegRelister;
    const podCache = new PodCache();
    const h = harness({ clock, podCache });
    const { kl, lines } = h;
    relister = new PlegRelister(() => kl.podConfig.storage.sourceValues('api') as Iterable<Pod>, clock, kl.channels.pleg, 1000, 180_000, unsliced, podCache);
    const probes = new ProbeInference();
    const ac = new AbortController();
    const sink = new ConfigSink(kl, kl.podConfig, 'api', PODS, probes, ac.signal, undefined, relister);
    const events = new EventsSink(kl, probes, ac.signal);
    // The relist every second: it finds nothing the watch changes did not already say, and moves the
    // pod cache's time on (what a worker that synced less than a second ago waits for).
    const relisting = relister.run(ac.signal);
    const changes: [string, string | undefined, string | undefined][] = [];
    kl.actual.subscribe((key, o, n) => changes.push([key, o?.status, n?.status]));
    /** A step of the story: time moves (a relist happens every second), then the loop settles. */
    const step = async (ms = 1000) => {
      await clock.advance(ms);
      await drain();
    };
    /** The pod's iterations so far, as "source op outcome" in timeline order. */
    const story = () =>
      h
        .all()
        .filter((e) => e.key === 'default/probe-me')
        .map((e) => `${e.source} ${e.op} ${e.outcome}${e.inferred ? ' inferred' : ''}`);

    // The api source lists (empty), then the pod is created.
    await sink.replace([]);
    const created = probeMe('pm-1', {
      phase: 'Pending',
      containerStatuses: [{ name: 'probe-me', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }],
    });
    await sink.apply('ADDED', created);
    await step();
    assert.ok(lines.includes('SyncLoop ADD source="api" pods=["default/probe-me"] handler="HandlePodAdditions"'));
    assert.equal(kl.actual.get('default/probe-me')?.status, 'ContainerCreating');
    assert.deepEqual(story(), ['config ADD ok', 'podworker syncing ok']);

    // The container starts. The kubelet's PLEG saw it before the kubelet wrote the status: the
    // ContainerStarted and its sync come first, the status write's echo (RECONCILE, no sync) last.
    const up = probeMe('pm-1', { phase: 'Running', containerStatuses: [running(0, 'c0')] }, { rv: '2' });
    await sink.apply('MODIFIED', up);
    await step();
    assert.ok(
      lines.includes(
        'SyncLoop (PLEG): event for pod pod="default/probe-me" event={"ID":"pm-1","Type":"ContainerStarted","Data":"c0"} handler="HandlePodSyncs"',
      ),
    );
    assert.deepEqual(story().slice(2), [
      'pleg ContainerStarted ok',
      'podworker syncing ok', // the PLEG event's sync: the pod cache has news of the pod, no wait
      'probe liveness skipped', // the new container's initial liveness result (Success): not a sync, as upstream
      'config RECONCILE skipped',
    ]);
    assert.deepEqual(pick(kl.actual.get('default/probe-me')!), { status: 'Running', ready: '1/1', restarts: 0 });

    // Nothing listens on 8081: two Unhealthy attempts (failureThreshold 2), the prober's Failure, the kill.
    const ev = (count: number, reason: string, message: string) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `probe-me.${reason}`, namespace: 'default', uid: `ev-${reason}`, resourceVersion: String(10 + count) },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'probe-me', uid: 'pm-1', fieldPath: 'spec.containers{probe-me}' },
      reason,
      message,
      count,
      lastTimestamp: new Date(Date.parse('2026-01-01T00:00:05Z') + count * 5000).toISOString(),
    });
    await events.replace([]);
    const failed = 'Liveness probe failed: Get "http://10.0.0.7:8081/healthz": dial tcp 10.0.0.7:8081: connect: connection refused';
    await events.apply('ADDED', ev(1, 'Unhealthy', failed));
    await step();
    assert.equal(lines.filter((l) => l.startsWith('SyncLoop (probe)')).length, 0, 'one failed attempt is not a result');
    await events.apply('MODIFIED', ev(2, 'Unhealthy', failed));
    await step();
    assert.deepEqual(
      lines.filter((l) => l.startsWith('SyncLoop (probe)')),
      ['SyncLoop (probe) probe="liveness" status="unhealthy" pod="default/probe-me" handler="HandlePodSyncs"'],
    );
    const probeIt = h.iterations().find((e) => e.source === 'probe' && e.op === 'liveness' && e.outcome === 'ok')!;
    assert.equal(probeIt.inferred, true, 'counted from Events: marked inferred on the timeline');
    assert.equal(probeIt.uid, 'pm-1');
    assert.deepEqual(kl.actual.get('default/probe-me')!.probes, { 'probe-me': { liveness: 'Failure' } });
    await events.apply('ADDED', ev(1, 'Killing', 'Container probe-me failed liveness probe, will be restarted'));
    await step();

    // The kubelet restarts it: ContainerDied (exit 137) and ContainerStarted, each with its sync,
    // then the status write that reports both; its RECONCILE needs no readiness reconciling.
    const restarted = probeMe(
      'pm-1',
      {
        phase: 'Running',
        containerStatuses: [{ ...running(1, 'c1'), lastState: { terminated: { exitCode: 137, reason: 'Error', containerID: 'containerd://c0' } } }],
      },
      { rv: '3' },
    );
    const before = story().length;
    await sink.apply('MODIFIED', restarted);
    await step(1000); // the worker synced less than a second ago: its next sync waits for news (it has some)
    assert.deepEqual(story().slice(before), [
      'pleg ContainerDied ok',
      'pleg ContainerStarted ok', // taken while the worker began the sync the first one asked for
      'podworker syncing ok',
      'probe liveness skipped', // the new container's initial liveness result
      'config RECONCILE skipped',
      'podworker syncing ok', // the second event's sync, after the PLEG's next relist (the pod cache)
    ]);
    const paced = h.workerMarks().at(-1)!;
    assert.ok(paced.worker!.waitedMs! > 0, 'the second sync waited for the pod cache');
    assert.match(paced.message!, /waited \d+ ms for the pod cache/);
    const plegIts = h.iterations().filter((e) => e.source === 'pleg');
    assert.equal(plegIts[1]!.message, 'probe-me: exitCode=137 reason="Error" cause=Killed', 'the PLEG names why it died');
    assert.equal(plegIts[1]!.container, 'probe-me', 'the restart mark names the container whose previous logs it opens');
    assert.deepEqual(pick(kl.actual.get('default/probe-me')!), { status: 'Running', ready: '1/1', restarts: 1 });
    assert.equal(kl.actual.get('default/probe-me')!.probes, undefined, "ContainerDied dropped the dead container's Failure");

    // kubectl delete: DELETE -> HandlePodUpdates; the worker goes terminating and, after the PLEG's
    // next relist, blocks in killPod until the containers are reported stopped.
    const deleting = probeMe('pm-1', restarted.status, { deleting: true, rv: '4' });
    await sink.apply('MODIFIED', deleting);
    await step(10);
    assert.ok(lines.includes('SyncLoop DELETE source="api" pods=["default/probe-me"] handler="HandlePodUpdates"'));
    assert.equal(kl.podWorkers.state('pm-1'), 'terminating');
    assert.equal(kl.actual.get('default/probe-me')?.status, 'Terminating');
    await step(3000); // after the relist it waited for, the worker is in killPod
    assert.equal(kl.podWorkers.snapshot('pm-1')!.inFlight, true, 'killPod waits for the containers to stop');
    const killStarted = clock.now();
    // The containers stop: the kubelet's PLEG, its sync (queued behind killPod), then the status write.
    const stopped = probeMe(
      'pm-1',
      {
        phase: 'Running',
        containerStatuses: [{ ...running(1, 'c1'), ready: false, state: { terminated: { exitCode: 0, reason: 'Completed', containerID: 'containerd://c1' } } }],
      },
      { deleting: true, rv: '5' },
    );
    await sink.apply('MODIFIED', stopped);
    await step(10);
    assert.equal(kl.podWorkers.state('pm-1'), 'terminated', 'killPod returned once the containers were reported stopped');
    assert.equal(kl.podWorkers.isFinished('pm-1'), false, 'SyncTerminatedPod waits for the next relist (upstream: "~1s of latency")');
    await step();
    assert.equal(kl.podWorkers.isFinished('pm-1'), true);
    assert.ok(kl.actual.get('default/probe-me'), 'still shown: the API object is not deleted yet');
    const terminatingMark = h.workerMarks().find((e) => e.worker?.state === 'terminated' && e.handler === 'SyncTerminatingPod')!;
    assert.ok(terminatingMark.durationMs >= clock.now() - killStarted - 20, `killPod was one long call (${terminatingMark.durationMs} ms)`);
    assert.equal(terminatingMark.worker!.gracePeriodSeconds, 30);
    // The kubelet's final delete: REMOVE; the finished worker has nothing left to do, the row goes.
    await sink.apply('DELETED', stopped);
    await step();
    assert.ok(lines.includes('SyncLoop REMOVE source="api" pods=["default/probe-me"] handler="HandlePodRemoves"'));
    assert.equal(kl.actual.get('default/probe-me'), undefined);

    // Housekeeping forgets the finished worker.
    await clock.advance(2000);
    await drain();
    const hk = h.iterations().filter((e) => e.source === 'housekeeping' && e.outcome === 'ok' && e.key);
    assert.equal(hk.length, 1);
    assert.equal(hk[0]!.key, 'default/probe-me');
    assert.match(hk[0]!.message!, /forgotten=\["default\/probe-me"\]/);
    assert.ok(lines.includes('SyncLoop (housekeeping) handler="HandlePodCleanups"'));
    assert.equal(kl.podWorkers.size, 0);
    assert.equal(podCache.waiting, 0, 'no worker left waiting on the pod cache');

    assert.deepEqual(
      changes.map(([, o, n]) => `${o} -> ${n}`).filter((c, i, a) => i === 0 || c !== a[i - 1] || !c.startsWith('Running -> Running')),
      [
        'undefined -> ContainerCreating',
        'ContainerCreating -> Running',
        'Running -> Running',
        'Running -> Terminating',
        'Terminating -> Terminating',
        'Terminating -> undefined',
      ].filter(Boolean),
    );
    ac.abort();
    await relisting;
    await h.stop();
    assert.equal(clock.pendingTimers(), 0);
  });
});

describe('pod lifecycle as upstream', () => {
  const job = (uid: string, phase: string, state: ContainerStatus['state'], rv: string): Pod => ({
    ...probeMe(uid, { phase, containerStatuses: [{ name: 'probe-me', ready: false, restartCount: 0, containerID: `containerd://${uid}-c`, state }] }, { rv }),
    metadata: { ...probeMe(uid, {}).metadata, name: 'job', resourceVersion: rv },
  });

  it('a pod that reaches Succeeded (a finished Job) leaves syncing: terminating -> terminated, and stays shown until deleted', async () => {
    const h = harness();
    const { kl } = h;
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [job('j1', 'Running', { running: {} }, '1')] });
    await drain();
    assert.equal(kl.podWorkers.state('j1'), 'syncing');
    const done = job('j1', 'Succeeded', { terminated: { exitCode: 0, reason: 'Completed', containerID: 'containerd://j1-c' } }, '2');
    await kl.podConfig.merge('api', { op: 'UPDATE', source: 'api', pods: [done] });
    await kl.channels.pleg.send({ id: 'j1', type: 'ContainerDied', data: 'j1-c' });
    await drain();
    assert.equal(kl.podWorkers.state('j1'), 'terminated');
    assert.equal(kl.podWorkers.snapshot('j1')!.terminal, true);
    assert.equal(kl.actual.get('default/job')?.status, 'Completed');
    assert.match(h.iterations().find((e) => e.source === 'pleg')!.message!, /cause=Completed/);
    // Housekeeping keeps the finished worker of a pod that is still desired, and syncs nothing for it.
    await h.clock.advance(2000);
    await drain();
    assert.equal(kl.podWorkers.size, 1);
    // Its worker takes no more updates; the row still follows the object (a label change, rv 3).
    const syncs = kl.podWorkers.stats.syncs;
    const relabelled = { ...done, metadata: { ...done.metadata, resourceVersion: '3', labels: { done: 'yes' } } };
    await kl.podConfig.merge('api', { op: 'UPDATE', source: 'api', pods: [relabelled] });
    await drain();
    assert.equal(kl.podWorkers.stats.syncs, syncs, 'no sync of a finished worker');
    assert.equal(kl.actual.get('default/job')?.resourceVersion, '3');
    await kl.podConfig.merge('api', { op: 'REMOVE', source: 'api', pods: [relabelled] });
    await drain();
    assert.equal(kl.actual.get('default/job'), undefined);
    await h.stop();
  });

  it('a pod first seen already Succeeded starts terminated (no teardown) and is shown as it ended, until deleted', async () => {
    const h = harness();
    const { kl } = h;
    const done = job('j0', 'Succeeded', { terminated: { exitCode: 0, reason: 'Completed', containerID: 'containerd://j0-c' } }, '5');
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [done] });
    await drain();
    assert.equal(kl.podWorkers.state('j0'), 'terminated');
    assert.deepEqual(
      h.workerMarks().map((e) => `${e.op} ${e.handler}`),
      ['terminated SyncTerminatedPod'],
      'nothing to stop: SyncTerminatedPod alone',
    );
    assert.equal(kl.actual.get('default/job')?.status, 'Completed');
    // A view lost meanwhile (a relist's replace) comes back at the next housekeeping, worker or not.
    kl.actual.delete('default/job', 'j0');
    await h.clock.advance(2000);
    await drain();
    assert.equal(kl.actual.get('default/job')?.resourceVersion, '5');
    await kl.podConfig.merge('api', { op: 'REMOVE', source: 'api', pods: [done] });
    await drain();
    assert.equal(kl.actual.get('default/job'), undefined);
    await h.stop();
  });

  it('a force delete (gone while running): terminated is marked inferred, the workstation never saw the containers stop', async () => {
    const h = harness();
    const { kl } = h;
    const p = probeMe('f1', { phase: 'Running', containerStatuses: [running(0, 'f')] });
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [p] });
    await drain();
    await kl.podConfig.merge('api', { op: 'REMOVE', source: 'api', pods: [p] });
    await drain();
    const marks = h.workerMarks().filter((e) => e.uid === 'f1');
    const term = marks.find((e) => e.op === 'kill' || (e.worker!.state === 'terminated' && e.handler === 'SyncTerminatingPod'))!;
    assert.equal(term.inferred, true, JSON.stringify(marks));
    assert.equal(kl.actual.get('default/probe-me'), undefined);
    assert.equal(kl.podWorkers.isFinished('f1'), true);
    await h.stop();
  });

  it('a pod recreated under the same name is a second worker with its own UID on the timeline', async () => {
    const h = harness();
    const { kl } = h;
    const old = probeMe('gen-1', { phase: 'Running', containerStatuses: [running(0, 'o')] });
    const fresh = probeMe('gen-2', { phase: 'Pending' }, { rv: '7' });
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [old] });
    await drain();
    await kl.channels.liveness.send({ probe: 'liveness', result: 'Failure', podUID: 'gen-1', containerId: 'o' });
    await drain();
    assert.deepEqual(kl.actual.get('default/probe-me')!.probes, { 'probe-me': { liveness: 'Failure' } });
    // A StatefulSet pod deleted and recreated: the watch says DELETED then ADDED.
    await kl.podConfig.merge('api', { op: 'REMOVE', source: 'api', pods: [old] });
    await kl.podConfig.merge('api', { op: 'ADD', source: 'api', pods: [fresh] });
    await drain();
    assert.deepEqual(kl.podWorkers.uidsOf('default/probe-me').sort(), ['gen-1', 'gen-2']);
    assert.equal(kl.podWorkers.state('gen-2'), 'syncing');
    assert.equal(kl.actual.get('default/probe-me')!.uid, 'gen-2');
    assert.equal(kl.actual.get('default/probe-me')!.probes, undefined, "the new incarnation does not inherit the old one's probe results");
    const uids = new Set(h.workerMarks().map((e) => e.uid));
    assert.deepEqual([...uids].sort(), ['gen-1', 'gen-2']);
    const configUids = h
      .iterations()
      .filter((e) => e.source === 'config')
      .map((e) => `${e.op}:${e.uid}`);
    assert.deepEqual(configUids, ['ADD:gen-1', 'REMOVE:gen-1', 'ADD:gen-2']);
    await h.clock.advance(2000);
    await drain();
    assert.deepEqual(kl.podWorkers.uidsOf('default/probe-me'), ['gen-2'], 'housekeeping forgot the old incarnation');
    await h.stop();
  });

  it("a new incarnation never inherits the old one's probe results, even when the old one's DELETED was missed", async () => {
    const h = harness();
    const { kl } = h;
    const old = probeMe('gen-1', { phase: 'Running', containerStatuses: [running(0, 'o')] });
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [old] });
    await drain();
    await kl.channels.readiness.send({ probe: 'readiness', result: 'Failure', podUID: 'gen-1', containerId: 'o' });
    await drain();
    assert.deepEqual(kl.actual.get('default/probe-me')!.probes, { 'probe-me': { readiness: 'Failure' } });
    // The watch dropped the DELETED; the new pod's ADDED arrives.
    await kl.podConfig.merge('api', {
      op: 'ADD',
      source: 'api',
      pods: [probeMe('gen-2', { phase: 'Running', containerStatuses: [running(0, 'n')] }, { rv: '9' })],
    });
    await drain();
    assert.equal(kl.actual.get('default/probe-me')!.uid, 'gen-2');
    assert.equal(kl.actual.get('default/probe-me')!.probes, undefined);
    // Housekeeping terminates the orphaned old worker and drops its results.
    await h.clock.advance(2000);
    await drain();
    assert.deepEqual([...kl.probeResults.keys()], []);
    assert.equal(kl.actual.get('default/probe-me')!.uid, 'gen-2', "the old worker's termination leaves the new view alone");
    await h.stop();
  });

  it("a RECONCILE is synced only when a readiness gate makes the Ready condition wrong (NeedToReconcilePodReadiness); the kubelet's own writes are not", async () => {
    const h = harness();
    const { kl } = h;
    const GATE = 'example.com/load-balancer';
    type Cond = { type: string; status: string; message?: string };
    const p = (uid: string, ready: boolean, rv: string, conditions: Cond[], gated: boolean) => {
      const pod = probeMe(uid, { phase: 'Running', conditions, containerStatuses: [{ ...running(0, uid), ready }] }, { rv });
      pod.metadata.name = uid;
      if (gated) pod.spec!.readinessGates = [{ conditionType: GATE }];
      return pod;
    };
    const readyTrue = { type: 'Ready', status: 'True' };
    await kl.podConfig.merge('api', {
      op: 'SET',
      source: 'api',
      pods: [p('plain', true, '1', [readyTrue], false), p('gated', true, '1', [readyTrue], true)],
    });
    await drain();
    // Without gates nothing is reconciled, whatever changed: the kubelet's status writes coming back.
    await kl.podConfig.merge('api', { op: 'UPDATE', source: 'api', pods: [p('plain', false, '2', [{ type: 'Ready', status: 'False' }], false)] });
    await drain();
    // With a gate whose condition is missing, a Ready=True condition is not what the kubelet would make.
    await kl.podConfig.merge('api', {
      op: 'UPDATE',
      source: 'api',
      pods: [p('gated', true, '2', [readyTrue, { type: 'PodScheduled', status: 'True' }], true)],
    });
    await drain();
    // The controller sets the gate; the kubelet's Ready=True is right now: nothing to reconcile.
    await kl.podConfig.merge('api', { op: 'UPDATE', source: 'api', pods: [p('gated', true, '3', [readyTrue, { type: GATE, status: 'True' }], true)] });
    await drain();
    const rec = h
      .iterations()
      .filter((e) => e.op === 'RECONCILE')
      .map((e) => `${e.key} ${e.outcome}`);
    assert.deepEqual(rec, ['default/plain skipped', 'default/gated ok', 'default/gated skipped']);
    assert.equal(kl.actual.get('default/plain')!.ready, '0/1', 'the row still follows the API without a sync');
    assert.ok(h.lines.includes('SyncLoop RECONCILE source="api" pods=["default/gated"] handler="HandlePodReconcile"'));
    await h.stop();
  });

  it('the sync tick also syncs pods past spec.activeDeadlineSeconds (the activeDeadlineHandler)', async () => {
    let wall = Date.parse('2026-01-01T00:00:00Z');
    const h = harness({ wallNow: () => wall });
    const { kl } = h;
    const p = probeMe('d1', { phase: 'Running', startTime: '2026-01-01T00:00:00Z', containerStatuses: [running(0, 'd')] });
    (p.spec as Record<string, unknown>).activeDeadlineSeconds = 5;
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [p] });
    await drain();
    await h.clock.advance(1000);
    await drain();
    assert.equal(h.iterations().filter((e) => e.source === 'sync' && e.outcome === 'ok').length, 0);
    wall += 6000;
    await h.clock.advance(1000);
    await drain();
    const tick = h.iterations().filter((e) => e.source === 'sync' && e.outcome === 'ok')[0]!;
    assert.equal(tick.key, 'default/probe-me');
    assert.match(tick.message!, /activeDeadlineSeconds exceeded/);
    await h.stop();
  });

  it("the sync tick's pods from its indexes equal upstream's walk of every pod, for any pods, deadlines, updates and due keys", () => {
    const PODS = { group: '', version: 'v1', resource: 'pods' };
    const CMS = { group: '', version: 'v1', resource: 'configmaps' };
    // [name 0-11, kind 0 pod / 1 configmap / 2 removed, deadline seconds (0: none), started s ago, terminal, due]
    const entry = fc.tuple(fc.nat(11), fc.nat(2), fc.constantFrom(0, 0, 5, 60), fc.nat(120), fc.boolean(), fc.boolean());
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 60 }), (ops) => {
        const wall = Date.parse('2026-01-01T01:00:00Z');
        const h = harness({ wallNow: () => wall });
        const { kl } = h;
        const { desired, workQueue } = kl;
        for (const [n, kind, ads, ago, terminal, due] of ops) {
          const key = `default/p${n}`;
          const uid = `uid-${n}`;
          if (kind === 2) {
            desired.remove(key);
            continue;
          }
          const obj = {
            apiVersion: 'v1',
            kind: kind === 0 ? 'Pod' : 'ConfigMap',
            metadata: { name: `p${n}`, namespace: 'default', uid },
            spec: ads ? { activeDeadlineSeconds: ads } : {},
            status: { phase: terminal ? 'Failed' : 'Running', startTime: new Date(wall - ago * 1000).toISOString() },
          };
          desired.set({ key, obj, source: 'api', resource: kind === 0 ? PODS : CMS });
          if (due) workQueue.enqueue(uid, 0);
        }
        // Upstream's getPodsToSync: every pod, due or past its deadline.
        const dueNow = new Set(
          [...desired.pods()].map((d) => d.obj.metadata.uid).filter((u) => workQueue.deadline(u) !== undefined && workQueue.deadline(u)! <= h.clock.now()),
        );
        const want = { keys: [] as string[], deadlineExceeded: [] as string[] };
        for (const d of desired.pods()) {
          if (dueNow.has(d.obj.metadata.uid)) want.keys.push(d.key);
          else if (activeDeadlinePassed(d.obj as Pod, wall)) {
            want.keys.push(d.key);
            want.deadlineExceeded.push(d.key);
          }
        }
        const got = kl.podsToSync();
        assert.deepEqual([...got.keys].sort(), want.keys.sort());
        assert.deepEqual([...got.deadlineExceeded].sort(), want.deadlineExceeded.sort());
      }),
      { numRuns: 300, seed: 5 },
    );
  });

  it('non-pod kinds are kept by their own informer: logged as OnAdd/OnUpdate/OnDelete, never HandlePodAdditions', async () => {
    const h = harness({ sources: ['api', 'api:configmaps'] });
    const { kl } = h;
    const cm = (rv: string, data: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: 'default', uid: 'cm1', resourceVersion: rv },
      data: { k: data },
    });
    const resource = { group: '', resource: 'configmaps' };
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [] });
    await kl.podConfig.merge('api:configmaps', { op: 'SET', source: 'api:configmaps', resource, pods: [cm('1', 'a')] });
    await kl.podConfig.merge('api:configmaps', { op: 'UPDATE', source: 'api:configmaps', resource, pods: [cm('2', 'b')] });
    await drain();
    assert.equal(kl.actual.get('configmaps:default/cfg')!.resourceVersion, '2');
    await kl.podConfig.merge('api:configmaps', { op: 'REMOVE', source: 'api:configmaps', resource, pods: [cm('2', 'b')] });
    await drain();
    assert.equal(kl.actual.get('configmaps:default/cfg'), undefined);
    const inf = h
      .iterations()
      .filter((e) => e.key === 'configmaps:default/cfg')
      .map((e) => `${e.source} ${e.op} ${e.handler}`);
    assert.deepEqual(inf, ['informer ADD OnAdd', 'informer UPDATE OnUpdate', 'informer REMOVE OnDelete']);
    assert.ok(h.lines.includes('Informer OnAdd resource="configmaps" source="api:configmaps" objects=["configmaps:default/cfg"]'));
    assert.ok(!h.lines.some((l) => l.includes('configmaps') && l.includes('HandlePod')));
    assert.equal(kl.podWorkers.size, 0, 'no pod worker for a ConfigMap');
    await h.stop();
  });

  it('a non-pod kind never enters configCh: its informer keeps the model even while the loop does not run', async () => {
    const kl = new SyncLoop({ clock: new FakeClock(), sources: ['api:configmaps'] });
    const resource = { group: '', resource: 'configmaps' };
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default', uid: 'cm1', resourceVersion: '1' }, data: {} };
    await kl.podConfig.merge('api:configmaps', { op: 'SET', source: 'api:configmaps', resource, pods: [cm] });
    assert.equal(kl.channels.config.length, 0, 'nothing on configCh');
    assert.equal(kl.actual.get('configmaps:default/cfg')?.uid, 'cm1');
    assert.equal(kl.allSourcesReady(), true);
    // A pod does go through configCh (and waits there, as nothing runs the loop).
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [probeMe('p1', { phase: 'Pending' })] });
    assert.equal(kl.channels.config.length, 1);
    assert.equal(kl.actual.get('default/probe-me'), undefined);
  });
});

function pick(v: ObjectView) {
  return { status: v.status, ready: v.ready, restarts: v.restarts };
}

describe('syncLoopIteration cases', () => {
  it('emits exactly one timeline event per iteration, with source, op, key, handler, duration, outcome', async () => {
    const h = harness();
    const { kl } = h;
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [probeMe('u', { phase: 'Pending' })] });
    await kl.channels.pleg.send({ id: 'nobody', type: 'ContainerStarted', data: 'x' });
    await kl.channels.readiness.send({ probe: 'readiness', result: 'Success', podUID: 'u', containerId: 'probe-me' });
    await kl.channels.startup.send({ probe: 'startup', result: 'Failure', podUID: 'u', containerId: 'probe-me' });
    await kl.channels.liveness.send({ probe: 'liveness', result: 'Success', podUID: 'u', containerId: 'probe-me' });
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
    await kl.channels.readiness.send({ probe: 'readiness', result: 'Failure', podUID: 'u', containerId: 'probe-me' });
    await drain();
    assert.ok(h.lines.includes('SyncLoop (probe) probe="readiness" status="not ready" pod="default/probe-me" handler="HandlePodSyncs"'));
    assert.ok(h.lines.some((l) => l.startsWith('SyncLoop (PLEG): pod does not exist, ignore irrelevant event')));
    assert.deepEqual(kl.actual.get('default/probe-me')!.probes, { 'probe-me': { readiness: 'Failure', startup: 'Failure' } }, 'the latest readiness result');
    for (const e of h.iterations()) assert.equal(typeof e.durationMs, 'number');
    await h.stop();
  });

  it('SET on configCh is an error: snapshot not supported', async () => {
    const h = harness();
    const { kl } = h;
    await kl.channels.config.send({ op: 'SET', source: 'api', pods: [] });
    await drain();
    const e = h.iterations()[0]!;
    assert.deepEqual([e.op, e.outcome, e.message, e.handler], ['SET', 'error', 'snapshot not supported', 'none']);
    assert.ok(h.lines.includes('E Kubelet does not support snapshot update source="api"'));
    await h.stop();
  });

  it('the sync tick syncs keys whose work-queue deadline passed', async () => {
    const h = harness({ resyncIntervalMs: 3000 });
    const { kl } = h;
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [probeMe('u', { phase: 'Pending' })] });
    await drain();
    await h.clock.advance(3000);
    await drain();
    const ticks = h.iterations().filter((e) => e.source === 'sync');
    assert.deepEqual(
      ticks.map((e) => [e.key, e.outcome]),
      [
        ['', 'skipped'],
        ['', 'skipped'],
        ['default/probe-me', 'ok'],
      ],
    );
    assert.ok(h.lines.includes('SyncLoop (SYNC) pods total=1 pods=["default/probe-me"] handler="HandlePodSyncs"'));
    await h.stop();
  });

  it('a tick with more due pods than one step (the resyncs a minute after a large start) syncs every one, in slices', async () => {
    const h = harness({ resyncIntervalMs: 3000 });
    const { kl } = h;
    const pods = Array.from({ length: 700 }, (_, i) => {
      const p = probeMe(`u${i}`, { phase: 'Pending' });
      p.metadata.name = `p${i}`;
      return p;
    });
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods });
    // Slices are cut by real time (slice.ts, 8 ms): a loaded machine makes more of them, so wait for
    // states, not for a number of turns (one drain and 20 failed on a loaded machine: pods whose
    // first sync came late were not due at the tick). First every pod's first sync:
    const firstSynced = () => new Set(h.workerMarks().map((e) => e.key)).size;
    for (let i = 0; i < 5000 && firstSynced() < 700; i++) await drain();
    assert.equal(firstSynced(), 700);
    const syncedBefore = h.workerMarks().length;
    await h.clock.advance(3000);
    // then the tick and every pod resynced.
    const resyncedKeys = () =>
      new Set(
        h
          .workerMarks()
          .slice(syncedBefore)
          .map((e) => e.key),
      );
    const ticks = () => h.iterations().filter((e) => e.source === 'sync' && e.outcome === 'ok');
    for (let i = 0; i < 5000 && (ticks().length === 0 || resyncedKeys().size < 700); i++) await drain();
    assert.equal(ticks().length, 1);
    assert.ok(h.lines.some((l) => l.startsWith('SyncLoop (SYNC) pods total=700 ')));
    // Every due pod went to its worker and was synced once more.
    assert.equal(resyncedKeys().size, 700);
    await h.stop();
  });

  it('housekeeping is skipped until every source has listed and been handled', async () => {
    const h = harness({ sources: ['api', 'api:deployments.apps'] });
    const { kl } = h;
    await h.clock.advance(2000);
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [] });
    await h.clock.advance(2000);
    await kl.podConfig.merge('api:deployments.apps', {
      op: 'SET',
      source: 'api:deployments.apps',
      pods: [],
      resource: { group: 'apps', resource: 'deployments' },
    });
    await h.clock.advance(2000);
    await drain();
    const hk = h
      .iterations()
      .filter((e) => e.source === 'housekeeping')
      .map((e) => e.outcome);
    assert.deepEqual(hk, ['skipped', 'skipped', 'ok']);
    assert.equal(h.lines.filter((l) => l === "SyncLoop (housekeeping, skipped): sources aren't ready yet").length, 2);
    await h.stop();
  });

  it("housekeeping runs at the configured period (the extension's kubeloop.housekeepingPeriodSeconds)", async () => {
    const h = harness({ sources: ['api'], housekeepingPeriodMs: 5000 });
    const { kl } = h;
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [] });
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
    const { kl } = h;
    const a = probeMe('ua', { phase: 'Running', containerStatuses: [running(0, 'a')] });
    const b = { ...probeMe('ub', { phase: 'Pending' }), metadata: { ...probeMe('ub', {}).metadata, name: 'b' } };
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [a, b] });
    await drain();
    assert.equal(kl.actual.size, 2);
    // A REMOVE that never reached the loop, and an ADD whose work was dropped:
    kl.desired.remove('default/probe-me');
    const c = { ...b, metadata: { ...b.metadata, name: 'c', uid: 'uc' } };
    kl.desired.set({ key: 'default/c', obj: c, source: 'api' });
    kl.actual.set({ key: 'default/ghost', uid: 'g', kind: 'Pod', name: 'ghost', status: 'Running', deleting: false });
    await h.clock.advance(2000);
    await drain();
    const first = h.iterations().find((e) => e.source === 'housekeeping')!;
    assert.match(first.message!, /removed=\["default\/ghost"\]/);
    assert.match(first.message!, /terminating=\["default\/probe-me"\]/);
    assert.match(first.message!, /readded=\["default\/c"\]/);
    assert.deepEqual([...kl.actual.keys()].sort(), ['default/b', 'default/c']);
    // idempotent: the next pass only forgets the finished worker, then nothing
    await h.clock.advance(2000);
    await h.clock.advance(2000);
    await drain();
    const later = h
      .iterations()
      .filter((e) => e.source === 'housekeeping')
      .slice(1)
      .map((e) => e.message ?? '');
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
    const { kl } = h;
    await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [] });
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
    const { kl } = h;
    kl.channels.config.close();
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
        return failing ? new Error('PLEG is not healthy: pleg was last seen active 3m0.5s ago; threshold is 3m0s') : undefined;
      },
    });
    await drain();
    for (let i = 0; i < 12; i++) await h.clock.advance(5000);
    const gaps = checks.slice(1, 11).map((t, i) => t - checks[i]!);
    assert.deepEqual(gaps, [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000]);
    assert.ok(h.lines.includes('E Skipping pod synchronization err="PLEG is not healthy: pleg was last seen active 3m0.5s ago; threshold is 3m0s"'));
    // no iteration ran: each skip is one mark saying so
    assert.ok(h.iterations().length > 0);
    assert.ok(h.iterations().every((e) => e.source === 'sync' && e.op === 'skipped' && e.outcome === 'error' && /PLEG is not healthy/.test(e.message ?? '')));
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
