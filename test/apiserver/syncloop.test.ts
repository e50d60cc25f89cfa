/**
 * The sync loop against a real kube-apiserver.
 *
 * 1. The study guide's probe-me pod, created with the guide's own kubectl command. There is no
 *    kubelet, so the test plays pair-worker's kubelet through the API (Node registration, pod
 *    status through the status subresource, the probe Events, the grace-0 delete that ends a
 *    graceful deletion). The timeline must show the same sources, operations and handlers as the
 *    same scenario on the demo cluster with its kubelet simulation, which this test also runs.
 * 2. A watch the server closes (a rolling restart: the old apiserver ends its watches cleanly) is
 *    resumed from the last resourceVersion, without a relist.
 * 3. A watch whose resourceVersion was compacted away meanwhile gets the server's 410 and relists.
 *
 * The pods watch cache is off (--watch-cache-sizes=pods#0): pods watches are served by etcd, so a
 * resumed watch depends only on etcd's history (a fresh apiserver's watch cache would answer
 * "too old resource version" to any resourceVersion older than its own start) and a 410 comes
 * exactly from a compaction.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/core/kube/client';
import { ClusterSync } from '../../src/core/syncloop/sources/cluster';
import type { Reflector } from '../../src/core/syncloop/sources/reflector';
import { TimelineStore } from '../../src/core/timeline/store';
import type { SyncIterationEvent } from '../../src/core/timeline/events';
import { startKubelet } from '../../src/demo/kubelet';
import { startTestCluster } from '../integration/demo-support';
import { runKubectl } from '../support/kubectl';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { kubeTimestamp, ScriptedKubelet, type ContainerState } from './kubelet';
import { Api } from './support';
import { eventually } from '../support/eventually';

const IMAGE = 'registry.k8s.io/e2e-test-images/agnhost:2.47';
const OVERRIDES =
  '{"spec":{"nodeName":"pair-worker","containers":[{"name":"probe-me","image":"registry.k8s.io/e2e-test-images/agnhost:2.47","args":["netexec","--http-port=8080"],"livenessProbe":{"httpGet":{"path":"/healthz","port":8081},"periodSeconds":5,"failureThreshold":2}}]}}';
const RUN_PROBE_ME = ['-n', 'default', 'run', 'probe-me', `--image=${IMAGE}`, `--overrides=${OVERRIDES}`];
const DELETE_PROBE_ME = ['-n', 'default', 'delete', 'pod', 'probe-me', '--now'];
const KEY = 'default/probe-me';

const ADD_LINE = 'SyncLoop ADD source="api" pods=["default/probe-me"] handler="HandlePodAdditions"';
const REMOVE_LINE = 'SyncLoop REMOVE source="api" pods=["default/probe-me"] handler="HandlePodRemoves"';
const PROBE_LINE = 'SyncLoop (probe) probe="liveness" status="unhealthy" pod="default/probe-me" handler="HandlePodSyncs"';
const plegLine = (type: string) =>
  new RegExp(`^SyncLoop \\(PLEG\\): event for pod pod="default/probe-me" event=\\{"ID":"[^"]+","Type":"${type}","Data":"[^"]+"\\} handler="HandlePodSyncs"$`);

interface Running {
  sync: ClusterSync;
  timeline: TimelineStore;
  lines: string[];
  client: KubeClient;
  stop(): Promise<void>;
}

async function startSync(kubeconfig: string): Promise<Running> {
  const client = await KubeClient.fromKubeconfig({ kubeconfig });
  const timeline = new TimelineStore(20_000);
  const lines: string[] = [];
  const sync = new ClusterSync({ client, timeline, logger: { info: (l) => lines.push(l), error: (l) => lines.push(`E ${l}`) } });
  const ac = new AbortController();
  const running = sync.run(ac.signal);
  await eventually(() => sync.allSourcesReady(), { description: 'every source listed', timeoutMs: 20_000 });
  return {
    sync,
    timeline,
    lines,
    client,
    async stop() {
      ac.abort();
      await running;
      client.close();
    },
  };
}

const iterations = (r: Running) => (r.timeline.toArray() as SyncIterationEvent[]).filter((e) => e.kind === 'iteration');
/**
 * What the timeline shows for the pod: "source op handler outcome", as a set. PLEG ContainerRemoved
 * is left out: it names the pod only when the PLEG's relist sees the pod gone before the config
 * REMOVE is handled, a race either way on both clusters (and it is never handled, as upstream).
 * Pod-worker marks and RECONCILE outcomes are left out too: they follow how a kubelet batches its
 * status writes (the scripted one writes each change alone, the simulation one per turn), and
 * whether a write changed readiness decides a RECONCILE's sync.
 */
const shapes = (r: Running) =>
  new Set(
    iterations(r)
      .filter((e) => e.key.split(',').includes(KEY) && e.op !== 'ContainerRemoved' && e.source !== 'podworker' && e.op !== 'RECONCILE')
      .map((e) => `${e.source} ${e.op} ${e.handler} ${e.outcome}`),
  );
const count = (r: Running, line: string | RegExp) => r.lines.filter((l) => (typeof line === 'string' ? l === line : line.test(l))).length;

/** The assertions both clusters must pass: the guide's Expect, seen in the timeline and the log. */
function assertProbeMeSeen(r: Running, where: string): void {
  const mine = iterations(r).filter((e) => e.key.split(',').includes(KEY));
  const has = (source: string, op: string, handler: string) =>
    mine.some((e) => e.source === source && e.op === op && e.handler === handler && e.outcome === 'ok');
  assert.ok(has('config', 'ADD', 'HandlePodAdditions'), `${where}: config ADD`);
  assert.ok(has('pleg', 'ContainerStarted', 'HandlePodSyncs'), `${where}: PLEG ContainerStarted`);
  assert.ok(has('pleg', 'ContainerDied', 'HandlePodSyncs'), `${where}: PLEG ContainerDied`);
  // One liveness result per threshold crossing: one per container the kubelet killed (the last one may be on its way).
  const results = mine.filter((e) => e.source === 'probe' && e.op === 'liveness' && e.handler === 'HandlePodSyncs').length;
  const restarts = mine.filter((e) => e.source === 'pleg' && e.op === 'ContainerDied').length;
  assert.ok(results >= 1 && results <= restarts + 1, `${where}: ${results} liveness results for ${restarts} container deaths`);
  assert.ok(has('config', 'REMOVE', 'HandlePodRemoves'), `${where}: config REMOVE`);
  assert.ok(r.lines.includes(ADD_LINE) && r.lines.includes(REMOVE_LINE), `${where}: ADD and REMOVE log lines`);
  assert.equal(count(r, PROBE_LINE), results, `${where}: one log line per liveness result`);
  assert.ok(
    r.lines.some((l) => l.startsWith('SyncLoop (housekeeping) end') && l.includes('forgotten=["default/probe-me"]')),
    `${where}: housekeeping forgot the pod`,
  );
  assert.equal(r.sync.workerCount, 0, `${where}: no pod worker left`);
  assert.deepEqual(
    r.lines.filter((l) => l.startsWith('E ')),
    [],
    `${where}: no errors`,
  );
}

describe('the sync loop against a real kube-apiserver', () => {
  let cp: ControlPlane;
  let api: Api;

  before(async () => {
    cp = await startControlPlane({ extraApiserverArgs: ['--watch-cache-sizes=pods#0'] });
    api = Api.admin(cp);
  });
  after(async () => {
    api?.close();
    await cp?.stop();
  });

  it('probe-me: config ADD, PLEG ContainerStarted, liveness syncs, restarts, DELETE/REMOVE, housekeeping, as on the demo cluster', async (t) => {
    const kubectl = async (args: string[]) => {
      const r = await runKubectl(args, { kubeconfig: cp.kubeconfigPath });
      assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    // pair-worker's kubelet registers its Node before anything runs there.
    const kubelet = new ScriptedKubelet(api, 'pair-worker');
    await kubelet.register();
    const real = await startSync(cp.kubeconfigPath);
    const restarts: number[] = [];
    real.sync.onViewChange((key, _o, n) => {
      if (key === KEY && n) restarts.push(n.restarts ?? 0);
    });
    try {
      await kubectl(RUN_PROBE_ME);
      await eventually(() => real.lines.includes(ADD_LINE), { description: 'config ADD', timeoutMs: 20_000 });
      const pod = await api.must('GET', '/api/v1/namespaces/default/pods/probe-me');
      assert.equal(pod.spec.nodeName, 'pair-worker');
      assert.equal(pod.status.phase, 'Pending');

      // The kubelet admits the pod, starts its container.
      const startTime = kubeTimestamp();
      const c: ContainerState = {
        name: 'probe-me',
        image: IMAGE,
        state: { waiting: { reason: 'ContainerCreating' } },
        ready: false,
        started: false,
        restartCount: 0,
      };
      await kubelet.writeStatus('default', 'probe-me', [c], startTime);
      await kubelet.event(pod, 'probe-me', 'Normal', 'Pulled', `Container image "${IMAGE}" already present on machine`);
      Object.assign(c, { id: kubelet.newContainerId(), state: { running: { startedAt: kubeTimestamp() } }, started: true, ready: true });
      const firstStart = c.state;
      await kubelet.writeStatus('default', 'probe-me', [c], startTime);
      await kubelet.event(pod, 'probe-me', 'Normal', 'Created', 'Created container: probe-me');
      await kubelet.event(pod, 'probe-me', 'Normal', 'Started', 'Started container probe-me');
      await eventually(() => count(real, plegLine('ContainerStarted')) >= 1, { description: 'PLEG ContainerStarted', timeoutMs: 20_000 });

      // Nothing listens on 8081: the liveness probe fails twice (failureThreshold 2), then the kill.
      // The prober's result changes once, at the second failure: one liveness result, not one per Event.
      const failed = `Liveness probe failed: Get "http://${kubelet.podIP}:8081/healthz": dial tcp ${kubelet.podIP}:8081: connect: connection refused`;
      const progress = () => real.sync.probes.progress(pod.metadata.uid).find((p) => p.probe === 'liveness');
      await kubelet.event(pod, 'probe-me', 'Warning', 'Unhealthy', failed);
      await eventually(() => progress()?.failures === 1, { description: 'failure 1 of failureThreshold 2 seen', timeoutMs: 20_000 });
      assert.equal(count(real, PROBE_LINE), 0, 'one failed attempt is not a result');
      const repeat = await kubelet.event(pod, 'probe-me', 'Warning', 'Unhealthy', failed);
      assert.equal(repeat.count, 2, 'a repeat raises the Event count');
      await eventually(() => count(real, PROBE_LINE) >= 1, { description: 'the liveness result at the threshold', timeoutMs: 20_000 });
      const killing = await kubelet.event(pod, 'probe-me', 'Normal', 'Killing', 'Container probe-me failed liveness probe, will be restarted');
      await eventually(() => real.sync.probes.knowsEvent(killing.metadata.uid), { description: 'the Killing Event seen', timeoutMs: 20_000 });
      assert.equal(count(real, PROBE_LINE), 1, 'the Killing Event adds no second result');
      const dead = {
        terminated: {
          exitCode: 137,
          reason: 'Error',
          startedAt: (firstStart as { running: { startedAt: string } }).running.startedAt,
          finishedAt: kubeTimestamp(),
          containerID: c.id,
        },
      };
      Object.assign(c, { state: dead, ready: false, started: false });
      await kubelet.writeStatus('default', 'probe-me', [c], startTime);
      await eventually(() => count(real, plegLine('ContainerDied')) >= 1, { description: 'PLEG ContainerDied', timeoutMs: 20_000 });
      // Restarted: the dead container moves to lastState, a new one runs.
      Object.assign(c, {
        lastState: dead,
        id: kubelet.newContainerId(),
        state: { running: { startedAt: kubeTimestamp() } },
        started: true,
        ready: true,
        restartCount: 1,
      });
      await kubelet.writeStatus('default', 'probe-me', [c], startTime);
      await eventually(() => (real.sync.view(KEY)?.restarts ?? 0) >= 1, { description: 'a restart in the model', timeoutMs: 20_000 });
      await eventually(() => count(real, plegLine('ContainerStarted')) >= 2, { description: 'PLEG ContainerStarted for the new container', timeoutMs: 20_000 });
      assert.equal(count(real, PROBE_LINE), 1, 'the exit code 137 after a Killing Event is the same kill, not a second result');
      assert.match(iterations(real).find((e) => e.source === 'pleg' && e.op === 'ContainerDied')!.message!, /exitCode=137 .*cause=Killed/);
      const view = real.sync.view(KEY)!;
      assert.equal(view.kind, 'Pod');
      assert.equal(view.ready, '1/1');
      assert.equal(view.status, 'Running');

      // kubectl delete --now: a 1 s graceful deletion that only the kubelet can finish.
      const deleting = runKubectl(DELETE_PROBE_ME, { kubeconfig: cp.kubeconfigPath });
      const marked = await eventually(
        async () => {
          const p = await api.must('GET', '/api/v1/namespaces/default/pods/probe-me');
          return p.metadata.deletionTimestamp ? p : undefined;
        },
        { description: 'the deletion timestamp', timeoutMs: 20_000 },
      );
      assert.equal(marked.metadata.deletionGracePeriodSeconds, 1);
      await kubelet.event(pod, 'probe-me', 'Normal', 'Killing', 'Stopping container probe-me');
      Object.assign(c, {
        state: {
          terminated: {
            exitCode: 0,
            reason: 'Completed',
            startedAt: (c.state as { running: { startedAt: string } }).running.startedAt,
            finishedAt: kubeTimestamp(),
            containerID: c.id,
          },
        },
        ready: false,
        started: false,
      });
      await kubelet.writeStatus('default', 'probe-me', [c], startTime, 'Succeeded');
      await kubelet.confirmDeletion('default', 'probe-me', pod.metadata.uid);
      const deleted = await deleting;
      assert.equal(deleted.code, 0, `kubectl delete: ${deleted.code} ${deleted.stdout} ${deleted.stderr}`);
      assert.match(deleted.stdout, /pod "probe-me" deleted/);
      await eventually(() => real.lines.includes(REMOVE_LINE), { description: 'config REMOVE', timeoutMs: 20_000 });
      await eventually(() => real.sync.view(KEY) === undefined, { description: 'gone from the model', timeoutMs: 20_000 });
      await eventually(() => real.lines.some((l) => l.startsWith('SyncLoop (housekeeping) end') && l.includes('forgotten=["default/probe-me"]')), {
        description: 'housekeeping cleanup',
        timeoutMs: 8_000,
      });
      assert.ok(Math.max(...restarts) >= 1);
      assertProbeMeSeen(real, 'real server');
    } finally {
      await real.stop();
    }

    // The same scenario on the demo cluster, its kubelet simulation at ten times real speed.
    const demo = await startTestCluster({ kubelet: false });
    const sim = startKubelet(demo.cluster.store, { speed: 10 });
    const onDemo = await startSync(demo.kubeconfig);
    try {
      await demo.kubectlOk(RUN_PROBE_ME);
      await eventually(() => (onDemo.sync.view(KEY)?.restarts ?? 0) >= 1 && count(onDemo, PROBE_LINE) >= 1, {
        description: 'the demo pod restarted after its liveness failure',
        timeoutMs: 30_000,
      });
      await eventually(() => count(onDemo, plegLine('ContainerDied')) >= 1, { description: 'PLEG ContainerDied on the demo', timeoutMs: 20_000 });
      await demo.kubectlOk(DELETE_PROBE_ME);
      await eventually(() => onDemo.lines.some((l) => l.startsWith('SyncLoop (housekeeping) end') && l.includes('forgotten=["default/probe-me"]')), {
        description: 'housekeeping cleanup on the demo',
        timeoutMs: 10_000,
      });
      assertProbeMeSeen(onDemo, 'demo cluster');
    } finally {
      await onDemo.stop();
      sim.stop();
      await demo.close();
    }
    const a = [...shapes(real)].sort();
    const b = [...shapes(onDemo)].sort();
    t.diagnostic(`real server: ${a.join('; ')}`);
    t.diagnostic(`demo cluster: ${b.join('; ')}`);
    assert.deepEqual(a, b, 'the same sources, operations, handlers and outcomes for probe-me on both');
  });

  it('OOMKilled, a completed pod, a force delete and a recreated name, with the test as the kubelet: as the kubelet would see them', async () => {
    const kubelet = new ScriptedKubelet(api, 'truth-worker');
    await kubelet.register();
    const r = await startSync(cp.kubeconfigPath);
    const mine = (key: string) => iterations(r).filter((e) => e.key.split(',').includes(key));
    const create = async (name: string, spec: Record<string, unknown>) =>
      api.must(
        'POST',
        '/api/v1/namespaces/default/pods',
        { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: 'truth-worker', ...spec } },
        [201],
      );
    const runningContainer = (name: string, image: string): ContainerState => ({
      name,
      image,
      id: kubelet.newContainerId(),
      state: { running: { startedAt: kubeTimestamp() } },
      ready: true,
      started: true,
      restartCount: 0,
    });
    try {
      // 1. OOMKilled: a container with a liveness probe killed by the kernel, restarted. No liveness result.
      // (No resources in the spec: the scripted kubelet reports qosClass BestEffort, which the server checks.)
      const hog = await create('memory-demo', { containers: [{ name: 'ctr', image: 'polinux/stress', livenessProbe: { tcpSocket: { port: 8080 } } }] });
      const start = kubeTimestamp();
      const c = runningContainer('ctr', 'polinux/stress');
      await kubelet.writeStatus('default', 'memory-demo', [c], start);
      await eventually(() => r.sync.view('default/memory-demo')?.status === 'Running', { description: 'memory-demo Running', timeoutMs: 20_000 });
      const oom = { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: start, finishedAt: kubeTimestamp(), containerID: c.id } };
      Object.assign(c, { lastState: oom, id: kubelet.newContainerId(), state: { running: { startedAt: kubeTimestamp() } }, restartCount: 1 });
      await kubelet.writeStatus('default', 'memory-demo', [c], start);
      await eventually(() => mine('default/memory-demo').some((e) => e.source === 'pleg' && e.op === 'ContainerDied'), {
        description: 'PLEG ContainerDied',
        timeoutMs: 20_000,
      });
      await eventually(() => (r.sync.view('default/memory-demo')?.restarts ?? 0) === 1, {
        description: 'the restart in the model',
        timeoutMs: 20_000,
      });
      assert.match(mine('default/memory-demo').find((e) => e.source === 'pleg' && e.op === 'ContainerDied')!.message!, /reason="OOMKilled" cause=OOMKilled/);
      assert.deepEqual(
        mine('default/memory-demo').filter((e) => e.source === 'probe' && e.handler === 'HandlePodSyncs'),
        [],
        'an OOMKill is no liveness failure',
      );
      assert.equal(r.sync.probes.managers.liveness.get(c.id!.replace('containerd://', '')), 'Success', 'the new container starts with liveness Success');
      void hog;

      // 2. A completed pod: Succeeded; its worker goes terminating -> terminated, the object stays in the API and the model.
      const job = await create('pi', { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl:5.34' }] });
      const j = runningContainer('pi', 'perl:5.34');
      const jStart = kubeTimestamp();
      await kubelet.writeStatus('default', 'pi', [j], jStart);
      Object.assign(j, {
        state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: jStart, finishedAt: kubeTimestamp(), containerID: j.id } },
        ready: false,
        started: false,
      });
      await kubelet.writeStatus('default', 'pi', [j], jStart, 'Succeeded');
      await eventually(() => r.sync.worker(job.metadata.uid)?.state === 'terminated', { description: 'the completed pod terminated', timeoutMs: 20_000 });
      assert.equal(r.sync.view('default/pi')?.status, 'Completed');
      assert.equal(r.sync.worker(job.metadata.uid)!.deleted, false);
      assert.ok((await api.must('GET', '/api/v1/namespaces/default/pods/pi')).metadata.uid === job.metadata.uid, 'still in the API');

      // 3. A force delete of a running pod, and a new pod under the same name (a StatefulSet's web-0).
      const first = await create('web-0', { containers: [{ name: 'web', image: 'nginx:1.27' }] });
      await kubelet.writeStatus('default', 'web-0', [runningContainer('web', 'nginx:1.27')], kubeTimestamp());
      await eventually(() => r.sync.view('default/web-0')?.status === 'Running', { description: 'web-0 Running', timeoutMs: 20_000 });
      await api.must('DELETE', '/api/v1/namespaces/default/pods/web-0?gracePeriodSeconds=0', undefined, [200]);
      const second = await create('web-0', { containers: [{ name: 'web', image: 'nginx:1.27' }] });
      await kubelet.writeStatus('default', 'web-0', [runningContainer('web', 'nginx:1.27')], kubeTimestamp());
      await eventually(() => r.sync.view('default/web-0')?.uid === second.metadata.uid && r.sync.view('default/web-0')?.status === 'Running', {
        description: 'the second web-0 Running',
        timeoutMs: 20_000,
      });
      await eventually(() => r.sync.worker(first.metadata.uid)?.finished ?? true, {
        description: 'the first web-0 worker finished',
        timeoutMs: 20_000,
      });
      const webMarks = mine('default/web-0').filter((e) => e.source === 'podworker');
      assert.deepEqual([...new Set(webMarks.map((e) => e.uid))].sort(), [first.metadata.uid, second.metadata.uid].sort());
      const inferred = webMarks.filter((e) => e.inferred);
      assert.deepEqual(
        inferred.map((e) => e.uid),
        [first.metadata.uid],
        'only the force-deleted one: its containers were never seen stopping',
      );
      assert.deepEqual(
        mine('default/web-0')
          .filter((e) => e.source === 'config' && e.op === 'ADD')
          .map((e) => e.uid),
        [first.metadata.uid, second.metadata.uid],
      );
      assert.deepEqual(
        r.lines.filter((l) => l.startsWith('E ')),
        [],
      );
    } finally {
      await r.stop();
    }
  });

  /** The pods source's reflector of a running sync loop, settled in a watch (no watch on its way). */
  async function settledPods(r: Running): Promise<Reflector> {
    const pods = r.sync.running.find((x) => x.source === 'api')!.reflector;
    let seen = -1;
    await eventually(
      () => {
        const ok = pods.state === 'watching' && pods.stats.watches === seen;
        seen = pods.stats.watches;
        return ok;
      },
      { description: 'the pods reflector settled in a watch', timeoutMs: 10_000 },
    );
    return pods;
  }

  const podObject = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
  });

  it('v1.36 serves the streaming watch-list: every source syncs by it (no LIST, no fallback), and the PLEG sees pods from the watched store', async () => {
    const r = await startSync(cp.kubeconfigPath);
    try {
      await eventually(() => r.sync.allWatching(), { description: 'every reflector watching', timeoutMs: 20_000 });
      for (const x of r.sync.running) {
        const st = x.reflector.stats;
        assert.deepEqual(
          [st.watchLists, st.watchListFallbacks, st.listRequests],
          [1, 0, 0],
          `${x.reflector.opts.name}: ${r.lines.filter((l) => l.includes('Reflector')).join('\n')}`,
        );
      }
      await api.must('POST', '/api/v1/namespaces/default/pods', podObject('watch-listed'), [201]);
      await eventually(() => r.sync.view('default/watch-listed'), { description: 'a new pod in the model', timeoutMs: 20_000 });
      await eventually(() => r.sync.relister.pleg.podCount > 0 && r.sync.plegHealth().healthy, {
        description: 'the PLEG holds the watched pods',
        timeoutMs: 20_000,
      });
    } finally {
      await r.stop();
    }
  });

  it('a watch the server ends (rolling apiserver restart) is resumed from the last resourceVersion, without a relist', async () => {
    const r = await startSync(cp.kubeconfigPath);
    try {
      const pods = await settledPods(r);
      await api.must('POST', '/api/v1/namespaces/default/pods', podObject('before-restart'), [201]);
      await eventually(() => r.sync.view('default/before-restart'), { description: 'before-restart in the model', timeoutMs: 20_000 });
      const rv = pods.lastResourceVersion;
      const s0 = { ...pods.stats };
      await cp.restartApiserver();
      await api.must('POST', '/api/v1/namespaces/default/pods', podObject('after-restart'), [201]);
      await eventually(() => r.sync.view('default/after-restart'), { description: 'after-restart in the model', timeoutMs: 20_000 });
      assert.ok(pods.stats.watches > s0.watches, 'a new watch was opened');
      assert.deepEqual(
        [pods.stats.lists, pods.stats.expired, pods.stats.errors, pods.stats.relistRequests],
        [s0.lists, s0.expired, s0.errors, s0.relistRequests],
        `no relist: ${r.lines.filter((l) => l.includes('Reflector')).join('\n')}`,
      );
      assert.ok(BigInt(pods.lastResourceVersion) > BigInt(rv), 'the resumed watch delivered the new pod');
      assert.ok(r.lines.includes('SyncLoop ADD source="api" pods=["default/after-restart"] handler="HandlePodAdditions"'));
      assert.deepEqual(
        r.lines.filter((l) => l.startsWith('E ') && l.includes('reflector="api"')),
        [],
      );
    } finally {
      await r.stop();
    }
  });

  it('a watch whose resourceVersion was compacted away gets the real 410 and relists; the model converges', async () => {
    const r = await startSync(cp.kubeconfigPath);
    try {
      await api.must('POST', '/api/v1/namespaces/default/pods', podObject('doomed'), [201]);
      await eventually(() => r.sync.view('default/doomed'), { description: 'doomed in the model', timeoutMs: 20_000 });
      const pods = await settledPods(r);
      const s0 = { ...pods.stats };
      // While the watch runs: a pod deleted the hard way (its last event is the watch's
      // resourceVersion R), two writes elsewhere, and a compaction at the latest revision, so even
      // R + 1, where a resumed watch starts, is gone from etcd's history.
      await api.must('DELETE', '/api/v1/namespaces/default/pods/doomed?gracePeriodSeconds=0', undefined, [200]);
      await eventually(() => !r.sync.view('default/doomed'), { description: 'doomed gone', timeoutMs: 20_000 });
      for (const name of ['moves-the-revision', 'moves-it-again'])
        await api.must('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name } }, [201]);
      const rev = await cp.compactEtcd();
      assert.ok(
        BigInt(pods.lastResourceVersion) + 1n < BigInt(rev),
        `the watch's next revision ${pods.lastResourceVersion} + 1 is older than the compaction (${rev})`,
      );
      // The restart ends the watch; resuming at the compacted resourceVersion is answered 410.
      await cp.restartApiserver();
      await api.must('POST', '/api/v1/namespaces/default/pods', podObject('after-410'), [201]);
      await eventually(() => r.sync.view('default/after-410'), { description: 'after-410 in the model', timeoutMs: 20_000 });
      const story = () => `${JSON.stringify(s0)} -> ${JSON.stringify(pods.stats)}\n${r.lines.filter((l) => l.includes('Reflector')).join('\n')}`;
      assert.equal(pods.stats.expired, s0.expired + 1, `the watch expired once: ${story()}`);
      assert.equal(pods.stats.lists, s0.lists + 1, `and the reflector relisted: ${story()}`);
      assert.equal(pods.stats.errors, s0.errors, story());
      assert.ok(
        r.lines.some((l) => l.startsWith('Reflector watch expired, relisting reflector="api"')),
        story(),
      );
      // The model equals the API afterwards.
      const listed = (await api.list('/api/v1/pods')).items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();
      const modelled = () =>
        [...r.sync.views()]
          .map((v) => v.key)
          .filter((k) => r.sync.view(k)?.kind === 'Pod')
          .sort();
      await eventually(
        () => {
          if (JSON.stringify(modelled()) !== JSON.stringify(listed)) throw new Error(`model: ${modelled().join(' ')}; API: ${listed.join(' ')}`);
          return true;
        },
        { description: 'model = API', timeoutMs: 20_000 },
      );
    } finally {
      await r.stop();
    }
  });
});
