// The start-up model on real-shaped pods and Events (the kubelet's and the scheduler's messages as
// v1.36 writes them): each pod's phases with the field or Event bounding each, the kubelet's SLI
// by its own rules, and the report's grouping and order.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseGoDuration } from '../../src/core/startup/goDuration';
import { parsePulled } from '../../src/core/startup/podEvents';
import { podStartup, type PodLike } from '../../src/core/startup/podStartup';
import { startupReport } from '../../src/core/startup/report';
import { formatStartup } from '../../src/core/startup/text';
import type { EventLike } from '../../src/core/startup/podEvents';

const T0 = Date.parse('2026-12-07T10:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString().replace('.000Z', 'Z');

function pod(
  name: string,
  opts: {
    uid?: string;
    rs?: string;
    hash?: string;
    job?: string;
    ready?: number;
    started?: number;
    restarts?: number;
    volumes?: Record<string, unknown>[];
    init?: { startedAt: number; finishedAt: number };
  } = {},
): PodLike {
  const conditions = [
    { type: 'PodScheduled', status: 'True', lastTransitionTime: at(2) },
    { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: at(3) },
    { type: 'Initialized', status: 'True', lastTransitionTime: at(opts.init ? opts.init.finishedAt : 3) },
    ...(opts.ready !== undefined
      ? [{ type: 'Ready', status: 'True', lastTransitionTime: at(opts.ready) }]
      : [{ type: 'Ready', status: 'False', lastTransitionTime: at(3) }]),
  ];
  return {
    metadata: {
      name,
      namespace: 'shop',
      uid: opts.uid ?? `uid-${name}`,
      creationTimestamp: at(0),
      labels: opts.hash ? { 'pod-template-hash': opts.hash } : {},
      ownerReferences: opts.rs
        ? [{ kind: 'ReplicaSet', name: opts.rs, controller: true }]
        : opts.job
          ? [{ kind: 'Job', name: opts.job, controller: true }]
          : [],
    },
    spec: {
      nodeName: 'node-1',
      containers: [{ name: 'web' }],
      ...(opts.init ? { initContainers: [{ name: 'migrate' }] } : {}),
      ...(opts.volumes ? { volumes: opts.volumes } : {}),
    },
    status: {
      phase: 'Running',
      conditions,
      containerStatuses: [
        {
          name: 'web',
          restartCount: opts.restarts ?? 0,
          state: opts.started !== undefined ? { running: { startedAt: at(opts.started) } } : { waiting: { reason: 'ContainerCreating' } },
        },
      ],
      ...(opts.init
        ? { initContainerStatuses: [{ name: 'migrate', state: { terminated: { startedAt: at(opts.init.startedAt), finishedAt: at(opts.init.finishedAt) } } }] }
        : {}),
    },
  };
}

let n = 0;
function event(
  p: PodLike,
  reason: string,
  message: string,
  first: number,
  o: { last?: number; count?: number; container?: string; init?: boolean; type?: string; component?: string } = {},
): EventLike {
  const c = o.container === undefined ? 'web' : o.container;
  return {
    metadata: { name: `${p.metadata!.name}.${(++n).toString(16).padStart(16, '0')}`, namespace: 'shop' },
    involvedObject: {
      kind: 'Pod',
      name: p.metadata!.name!,
      namespace: 'shop',
      uid: p.metadata!.uid!,
      ...(c ? { fieldPath: `spec.${o.init ? 'initContainers' : 'containers'}{${c}}` } : {}),
    },
    reason,
    message,
    type: o.type ?? 'Normal',
    count: o.count ?? 1,
    firstTimestamp: at(first),
    lastTimestamp: at(o.last ?? first),
    eventTime: null,
  };
}

/** The Events a v1.36 scheduler and kubelet write for a pod that pulls nginx:1.28 in `pull` seconds. */
function kubeletEvents(p: PodLike, pull: { start: number; end: number; in: string; waiting: string }, started: number): EventLike[] {
  return [
    event(p, 'Scheduled', `Successfully assigned shop/${p.metadata!.name} to node-1`, 2, { container: '' }),
    event(p, 'Pulling', 'Pulling image "nginx:1.28"', pull.start),
    event(p, 'Pulled', `Successfully pulled image "nginx:1.28" in ${pull.in} (${pull.waiting} including waiting). Image size: 72099410 bytes.`, pull.end),
    event(p, 'Created', 'Created container: web', started),
    event(p, 'Started', 'Started container web', started),
  ];
}

describe('Go durations as the kubelet writes them', () => {
  it('reads time.Duration.String() forms', () => {
    assert.equal(parseGoDuration('1m28s'), 88_000);
    assert.equal(parseGoDuration('1m28.512s'), 88_512);
    assert.equal(parseGoDuration('700ms'), 700);
    assert.equal(parseGoDuration('2h0m0s'), 7_200_000);
    assert.equal(parseGoDuration('1.5µs'), 0.0015);
    assert.equal(parseGoDuration('0s'), 0);
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration('12'), undefined);
    assert.equal(parseGoDuration('1m28x'), undefined);
  });

  it('reads every Pulled message format since v1.20', () => {
    assert.deepEqual(
      parsePulled(
        'Successfully pulled image "registry.k8s.io/e2e-test-images/agnhost:2.53" in 1m28.4s (2m3.1s including waiting). Image size: 51304925 bytes.',
      ),
      {
        image: 'registry.k8s.io/e2e-test-images/agnhost:2.53',
        pulled: true,
        pullMs: 88_400,
        withWaitingMs: 123_100,
        sizeBytes: 51304925,
      },
    );
    assert.deepEqual(parsePulled('Successfully pulled image "nginx" in 3.2s (3.2s including waiting)'), {
      image: 'nginx',
      pulled: true,
      pullMs: 3200,
      withWaitingMs: 3200,
    });
    assert.deepEqual(parsePulled('Successfully pulled image "nginx" in 3.204512s'), { image: 'nginx', pulled: true, pullMs: 3204.512 });
    assert.deepEqual(parsePulled('Container image "nginx:1.28" already present on machine'), { image: 'nginx:1.28', pulled: false });
    assert.deepEqual(parsePulled('Container image "nginx:1.28" already present on machine and can be accessed by the pod'), {
      image: 'nginx:1.28',
      pulled: false,
    });
    assert.equal(parsePulled('Pulling image "nginx"'), undefined);
  });
});

describe('one pod: phases and the bound of each', () => {
  it('attributes every bound to its status field or Event, in SyncPod order', () => {
    const p = pod('web-1', { started: 95, ready: 97 });
    const s = podStartup(p, kubeletEvents(p, { start: 3, end: 94, in: '1m28s', waiting: '1m31s' }, 95));
    assert.deepEqual(
      s.phases.map((ph) => [ph.name, ph.ms]),
      [
        ['scheduling', 2000],
        ['sandbox', 1000],
        ['imagePull', 91_000],
        ['start', 1000],
        ['readiness', 2000],
      ],
    );
    assert.equal(s.complete, true);
    assert.equal(s.totalMs, 97_000);
    const bounds = [s.phases[0]!.from, ...s.phases.map((ph) => ph.to)];
    assert.deepEqual(
      bounds.map((b) => [b.name, b.how, b.source.replace(/ shop\/\S+ /, ' EVENT ')]),
      [
        ['created', 'observed', 'metadata.creationTimestamp'],
        ['scheduled', 'observed', 'status.conditions[PodScheduled].lastTransitionTime'],
        ['sandboxReady', 'observed', 'status.conditions[PodReadyToStartContainers].lastTransitionTime'],
        ['imagesPulled', 'observed', 'Event Pulled EVENT firstTimestamp'],
        ['started', 'observed', 'status.containerStatuses[web].state.running.startedAt'],
        ['ready', 'observed', 'status.conditions[Ready].lastTransitionTime'],
      ],
    );
    assert.deepEqual(
      s.phases[2]!.pulls!.map((x) => [x.image, x.pulled, x.pullMs, x.withWaitingMs]),
      [['nginx:1.28', true, 88_000, 91_000]],
    );
  });

  it('the kubelet SLI: running minus created, less the pull from Pulling to Pulled ("including waiting")', () => {
    const p = pod('web-1', { started: 95, ready: 97 });
    const s = podStartup(p, kubeletEvents(p, { start: 3, end: 94, in: '1m28s', waiting: '1m31s' }, 95));
    assert.deepEqual(s.sli, { pullMs: 91_000, initMs: 0, e2eMs: 95_000, ms: 4000 });
  });

  it('counts overlapping pulls once and subtracts the init containers run time', () => {
    const p = pod('two', { started: 40, ready: 41, init: { startedAt: 5, finishedAt: 12 } });
    (p.spec!.containers as { name: string }[]).push({ name: 'side' });
    p.status!.containerStatuses!.push({ name: 'side', restartCount: 0, state: { running: { startedAt: at(39) } } });
    const events = [
      event(p, 'Pulled', 'Successfully pulled image "a" in 10s (10s including waiting). Image size: 1 bytes.', 30),
      event(p, 'Pulled', 'Successfully pulled image "b" in 4s (15s including waiting). Image size: 1 bytes.', 35, { container: 'side' }),
    ];
    const s = podStartup(p, events);
    // [20,30] and [20,35] overlap: 15 s of pulling, not 25.
    assert.equal(s.sli.pullMs, 15_000);
    assert.equal(s.sli.initMs, 7000);
    assert.equal(s.sli.ms, 40_000 - 15_000 - 7000);
    assert.equal(s.phases.find((ph) => ph.name === 'init')!.to.source, 'status.conditions[Initialized].lastTransitionTime');
  });

  it('FailedScheduling while a node is added: the retries are the phase, and the SLI excludes the pod', () => {
    const p = pod('late', { started: 70, ready: 71 });
    p.status!.conditions![0]!.lastTransitionTime = at(60);
    p.status!.conditions![1]!.lastTransitionTime = at(61);
    const events = [
      event(
        p,
        'FailedScheduling',
        '0/3 nodes are available: 3 Too many pods. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
        0,
        {
          last: 30,
          count: 3,
          container: '',
          type: 'Warning',
        },
      ),
      event(p, 'Scheduled', 'Successfully assigned shop/late to node-4', 60, { container: '' }),
      event(p, 'Pulled', 'Container image "nginx:1.28" already present on machine', 62),
    ];
    const s = podStartup(p, events);
    const sched = s.phases[0]!;
    assert.equal(sched.ms, 60_000);
    assert.deepEqual(
      sched.retries.map((r) => [r.reason, r.count]),
      [['FailedScheduling', 3]],
    );
    assert.equal(s.sli.excluded, 'unschedulable');
    assert.equal(s.sli.ms, undefined);
    assert.equal(s.phases.find((ph) => ph.name === 'imagePull')!.pulls![0]!.pulled, false);
  });

  it('sandbox retries and pull failures are counted in their phases', () => {
    const p = pod('flaky', { started: 50, ready: 50 });
    const events = [
      event(p, 'FailedCreatePodSandBox', 'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox', 2, {
        last: 3,
        count: 2,
        container: '',
        type: 'Warning',
      }),
      event(p, 'Pulling', 'Pulling image "nginx:1.28"', 4, { last: 30, count: 2 }),
      event(p, 'Failed', 'Failed to pull image "nginx:1.28": rpc error: code = Unavailable desc = connection reset by peer', 9, { type: 'Warning' }),
      event(p, 'Failed', 'Error: ErrImagePull', 9, { type: 'Warning' }),
      event(p, 'BackOff', 'Back-off pulling image "nginx:1.28"', 10, { last: 20, count: 2 }),
      event(p, 'Failed', 'Error: ImagePullBackOff', 10, { last: 20, count: 2, type: 'Warning' }),
      event(p, 'Pulled', 'Successfully pulled image "nginx:1.28" in 5s (5s including waiting). Image size: 3 bytes.', 35),
    ];
    const s = podStartup(p, events);
    assert.deepEqual(
      s.phases.find((ph) => ph.name === 'sandbox')!.retries.map((r) => [r.reason, r.count]),
      [['FailedCreatePodSandBox', 2]],
    );
    assert.deepEqual(
      s.phases.find((ph) => ph.name === 'imagePull')!.retries.map((r) => [r.reason, r.count]),
      [
        ['Failed', 1],
        ['Failed', 1],
        ['BackOff', 2],
        ['Failed', 2],
      ],
    );
    assert.equal(s.phases.find((ph) => ph.name === 'imagePull')!.ms, 32_000);
  });

  it('marks what nothing shows unknown, and what is implied inferred, never guessing a time', () => {
    const p = pod('bare', { started: 9 });
    p.status!.conditions = p.status!.conditions!.filter((c) => c.type !== 'PodReadyToStartContainers');
    // Pulled Event expired (an hour's TTL): only Pulling is left.
    const s = podStartup(p, [event(p, 'Pulling', 'Pulling image "nginx:1.28"', 4)]);
    const b = (name: string) => [s.phases[0]!.from, ...s.phases.map((ph) => ph.to)].find((x) => x.name === name)!;
    assert.equal(b('sandboxReady').how, 'inferred');
    assert.match(b('sandboxReady').source, /^Event Pulling shop\/bare\.\S+ firstTimestamp$/);
    assert.equal(b('imagesPulled').how, 'unknown');
    assert.equal(b('imagesPulled').at, undefined);
    assert.equal(b('ready').how, 'unknown');
    assert.equal(s.complete, false);
    assert.equal(s.phases.find((ph) => ph.name === 'imagePull')!.ms, undefined);
    assert.equal(s.totalMs, 9000, 'the total of a pod not Ready ends at its start');
  });

  it('a restarted container: its first start is its Started Event, not the restart in the status', () => {
    const p = pod('crashy', { started: 300, ready: 301, restarts: 3 });
    const s = podStartup(p, [event(p, 'Started', 'Started container web', 8, { last: 290, count: 4 })]);
    const started = s.phases.find((ph) => ph.name === 'start')!.to;
    assert.equal(started.at, T0 + 8000);
    assert.match(started.source, /^Event Started \S+ firstTimestamp$/);
  });

  it("a restarted container's later Pulled Events do not move its start-up; liveness failures are not readiness's", () => {
    const p = pod('probe-me', { started: 300, ready: 301, restarts: 2 });
    const s = podStartup(p, [
      event(p, 'Pulled', 'Successfully pulled image "agnhost:2.47" in 5s (5s including waiting). Image size: 1 bytes.', 8),
      event(p, 'Started', 'Started container web', 9, { last: 290, count: 3 }),
      event(p, 'Pulled', 'Container image "agnhost:2.47" already present on machine', 40, { last: 290, count: 2 }),
      event(p, 'Unhealthy', 'Liveness probe failed: HTTP probe failed with statuscode: 500', 20, { last: 280, count: 6, type: 'Warning' }),
    ]);
    const pull = s.phases.find((ph) => ph.name === 'imagePull')!;
    assert.equal(pull.to.at, T0 + 8000);
    assert.equal(s.phases.find((ph) => ph.name === 'start')!.ms, 1000);
    assert.deepEqual(s.phases.find((ph) => ph.name === 'readiness')!.retries, []);
  });

  it("a finished Job's pod has no readiness phase, and is complete without one", () => {
    const p = pod('report-x', { job: 'report' });
    p.status!.phase = 'Succeeded';
    p.status!.containerStatuses![0]!.state = { terminated: { startedAt: at(7), finishedAt: at(9) } };
    const s = podStartup(p, [event(p, 'Pulled', 'Container image "busybox:1.36" already present on machine', 6)]);
    assert.deepEqual(
      s.phases.map((ph) => ph.name),
      ['scheduling', 'sandbox', 'imagePull', 'start'],
    );
    assert.equal(s.complete, true);
    assert.equal(s.totalMs, 7000);
    assert.equal(s.phases[3]!.to.source, 'status.containerStatuses[web].state.terminated.startedAt');
  });

  it('a stateful pod is excluded from the SLI, as the kubelet excludes it', () => {
    const p = pod('db-0', {
      started: 5,
      ready: 6,
      volumes: [
        { name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } },
        { name: 'cfg', configMap: { name: 'x' } },
      ],
    });
    assert.equal(podStartup(p, []).sli.excluded, 'stateful');
    const q = pod('web-2', {
      started: 5,
      ready: 6,
      volumes: [
        { name: 'tok', projected: { sources: [] } },
        { name: 'tmp', emptyDir: {} },
      ],
    });
    assert.equal(podStartup(q, []).sli.excluded, undefined);
  });
});

describe('the report', () => {
  it('groups per rollout and Job, slowest pods and groups first, Events matched by uid', () => {
    const fast = pod('shop-7d4b9-a', { rs: 'shop-7d4b9', hash: '7d4b9', started: 5, ready: 6 });
    const slow = pod('shop-7d4b9-b', { rs: 'shop-7d4b9', hash: '7d4b9', started: 50, ready: 52 });
    const job = pod('report-x', { job: 'report', started: 8, ready: 9 });
    const old = pod('shop-7d4b9-a', { uid: 'an-older-pod', rs: 'shop-7d4b9', hash: '7d4b9' });
    const events = [
      ...kubeletEvents(slow, { start: 3, end: 49, in: '40s', waiting: '46s' }, 50),
      event(old, 'Pulled', 'Container image "x" already present on machine', 1),
    ];
    const groups = startupReport([job, fast, slow], events);
    assert.deepEqual(
      groups.map((g) => [g.owner, g.rollout, g.pods.map((p) => p.name)]),
      [
        ['deployment/shop', 'replicaset/shop-7d4b9', ['shop-7d4b9-b', 'shop-7d4b9-a']],
        ['job/report', undefined, ['report-x']],
      ],
    );
    // The older pod's Event (another uid) is not this pod's.
    assert.deepEqual(groups[0]!.pods[1]!.phases.find((p) => p.name === 'imagePull')!.pulls, []);
    assert.deepEqual(
      startupReport([job, fast, slow], events, { target: { kind: 'deployment', name: 'shop' } }).flatMap((g) => g.pods.map((p) => p.name)),
      ['shop-7d4b9-b', 'shop-7d4b9-a'],
    );
    assert.deepEqual(
      startupReport([job, fast, slow], events, { target: { kind: 'pod', name: 'report-x' } }).flatMap((g) => g.pods.map((p) => p.name)),
      ['report-x'],
    );
    assert.deepEqual(startupReport([job, fast, slow], events, { namespace: 'other' }), []);
  });

  it("prints the waterfall with the slowest pod's sources", () => {
    const slow = pod('shop-7d4b9-b', { rs: 'shop-7d4b9', hash: '7d4b9', started: 50, ready: 52 });
    const text = formatStartup(startupReport([slow], kubeletEvents(slow, { start: 3, end: 49, in: '40s', waiting: '46s' }, 50)));
    assert.match(text, /^deployment\/shop \(replicaset\/shop-7d4b9\) in shop: 1 pod, 1 with every phase known$/m);
    assert.match(text, /shop-7d4b9-b\s+52s\s+2s\s+1s\s+46s\s+1s\s+2s\s+4s$/m);
    assert.match(text, /imagesPulled\s+2026-12-07T10:00:49Z\s+Event Pulled shop\/shop-7d4b9-b\.\S+ firstTimestamp/);
    assert.match(text, /pull web: nginx:1.28 pulled in 40s \(46s with waiting\)/);
    assert.match(text, /kubelet SLI: 4s = 50s end to end - 46s pulling - 0ms init/);
  });
});
