/**
 * Real kubelets against a real control plane: two hollow-kubelet nodes (./hollowkubelet.ts) with
 * kube-controller-manager and kube-scheduler. Each scenario is a pod whose behaviour comes from
 * the real kubelet - its prober, pod workers, PLEG, back-offs, Events - over the fake runtime's
 * containers, which do what their specs say (or what the control endpoint injects). The scenarios
 * run concurrently (their pods are independent); the log check runs after all of them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { startControllerManagerAndScheduler, type Components } from '../../lab/components';
import { startHollowKubelets, type HollowKubelets } from '../../lab/hollowkubelet';
import { Api } from './support';
import { eventually } from '../support/eventually';

const NODES = ['hk-a', 'hk-b'];
const NS = 'default';
const AGNHOST = 'registry.k8s.io/e2e-test-images/agnhost:2.47';
const PODS = `/api/v1/namespaces/${NS}/pods`;

let cp: ControlPlane;
let components: Components | undefined;
let kubelets: HollowKubelets | undefined;
let api: Api;

/** Creates a pod: `spec` is merged over one container named after the pod. */
async function createPod(name: string, container: Record<string, unknown>, spec: Record<string, unknown> = {}): Promise<void> {
  await api.must('POST', PODS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name, ...container }], ...spec },
  });
}

const getPod = (name: string): Promise<any> => api.must('GET', `${PODS}/${name}`);

/** The kubelet's Events about a pod (source component "kubelet"). */
async function kubeletEvents(pod: string): Promise<{ reason: string; message: string; type: string }[]> {
  const list = await api.must('GET', `/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name=${pod}`);
  return (list.items as any[]).filter((e) => e.source?.component === 'kubelet');
}

async function waitForEvent(pod: string, reason: string, message: RegExp, timeoutMs = 30_000): Promise<void> {
  await eventually(
    async () => {
      const events = await kubeletEvents(pod);
      if (events.some((e) => e.reason === reason && message.test(e.message))) return true;
      throw new Error(`events so far: ${events.map((e) => `${e.reason}: ${e.message}`).join(' | ')}`);
    },
    { description: `a kubelet Event ${reason} /${message.source}/ for ${pod}`, timeoutMs, maxIntervalMs: 250 },
  );
}

async function waitForPod<T>(name: string, what: string, check: (pod: any) => T, timeoutMs = 30_000): Promise<NonNullable<T>> {
  return eventually(
    async () => {
      const pod = await getPod(name);
      const v = check(pod);
      if (!v) throw new Error(`status: ${JSON.stringify(pod.status)}`);
      return v;
    },
    { description: `${name}: ${what}`, timeoutMs, maxIntervalMs: 250 },
  );
}

const status0 = (pod: any) => pod.status?.containerStatuses?.[0];

describe('hollow kubelet (real kubelet, fake runtime)', { timeout: 600_000 }, () => {
  before(async () => {
    cp = await startControlPlane();
    api = Api.admin(cp);
    components = await startControllerManagerAndScheduler(cp);
    kubelets = await startHollowKubelets(cp, { nodes: NODES });
  });

  after(async () => {
    await kubelets?.stop();
    await components?.stop();
    api?.close();
    await cp?.stop();
  });

  it('registers every node Ready with a loopback InternalIP', async () => {
    for (const name of NODES) {
      const node = await api.must('GET', `/api/v1/nodes/${name}`);
      assert.equal(node.status.conditions.find((c: any) => c.type === 'Ready')?.status, 'True', `${name} Ready`);
      assert.deepEqual(
        node.status.addresses.find((a: any) => a.type === 'InternalIP'),
        { type: 'InternalIP', address: '127.0.0.1' },
      );
    }
  });

  describe('scenarios', { concurrency: true }, () => {
    it('schedules a pod and runs it with its own loopback pod IP', async () => {
      // A node selector, not a nodeName: the scheduler places it (on hk-a, which the fault test leaves alone).
      await createPod('plain', { image: AGNHOST, args: ['netexec', '--http-port=8080'] }, { nodeSelector: { 'kubernetes.io/hostname': 'hk-a' } });
      const pod = await waitForPod('plain', 'Running', (p) => p.status?.phase === 'Running' && p);
      assert.equal(pod.spec.nodeName, 'hk-a');
      assert.match(pod.status.podIP, /^127\.\d+\.\d+\.\d+$/);
      assert.notEqual(pod.status.podIP, '127.0.0.1');
      assert.equal(pod.status.hostIP, '127.0.0.1');
      await waitForEvent('plain', 'Started', /^Container started$/);
    });

    it("fails the study guide's probe-me liveness probe for real: Unhealthy, Killing, restarts", async () => {
      // The guide's pod (test/apiserver/syncloop.test.ts), pinned to hk-a for the log check below.
      await createPod(
        'probe-me',
        {
          image: AGNHOST,
          args: ['netexec', '--http-port=8080'],
          livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, periodSeconds: 5, failureThreshold: 2 },
        },
        { nodeName: 'hk-a' },
      );
      const pod = await waitForPod('probe-me', 'Running', (p) => p.status?.phase === 'Running' && p);
      const ip = pod.status.podIP.replace(/\./g, '\\.');
      await waitForEvent(
        'probe-me',
        'Unhealthy',
        new RegExp(`^Liveness probe failed: Get "http://${ip}:8081/healthz": dial tcp ${ip}:8081: connect: connection refused$`),
      );
      await waitForEvent('probe-me', 'Killing', /^Container probe-me failed liveness probe, will be restarted$/);
      await waitForPod('probe-me', 'restartCount >= 2', (p) => status0(p)?.restartCount >= 2, 90_000);
    });

    it('passes an httpGet readiness probe on the port netexec serves', async () => {
      await createPod(
        'ready-me',
        { image: AGNHOST, args: ['netexec', '--http-port=8080'], readinessProbe: { httpGet: { path: '/', port: 8080 }, periodSeconds: 1 } },
        { nodeName: 'hk-a' },
      );
      await waitForPod('ready-me', 'Ready', (p) => p.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'));
      assert.equal((await kubeletEvents('ready-me')).filter((e) => e.reason === 'Unhealthy').length, 0, 'no failed probe');
    });

    it('ends a restartPolicy Never pod whose script exits 3 Failed with exit code 3', async () => {
      await createPod('exit-3', { image: 'busybox', command: ['sh', '-c', 'sleep 1; exit 3'] }, { restartPolicy: 'Never', nodeName: 'hk-a' });
      const pod = await waitForPod('exit-3', 'Failed', (p) => p.status?.phase === 'Failed' && p);
      assert.equal(status0(pod).state.terminated.exitCode, 3);
      assert.equal(status0(pod).state.terminated.reason, 'Error');
    });

    it('puts a crash-looping container into CrashLoopBackOff', async () => {
      // A 1.36 kubelet requeues a backed-off pod for the back-off's end, so with nothing else to
      // sync it, the status shows waiting CrashLoopBackOff only in the write that starts the
      // restart, milliseconds before "running": a watch sees it, polling rarely does.
      const ac = new AbortController();
      const waiting: string[] = [];
      const watching = api
        .watch(`${PODS}?watch=1&fieldSelector=metadata.name=crasher`, ac.signal, (_type, pod) => {
          const w = status0(pod)?.state?.waiting;
          if (w) waiting.push(`${w.reason}: ${w.message ?? ''}`);
        })
        .catch(() => undefined);
      try {
        await createPod('crasher', { image: 'busybox', command: ['sh', '-c', 'sleep 1; exit 1'] }, { nodeName: 'hk-a' });
        await waitForEvent('crasher', 'BackOff', /^Back-off restarting failed container crasher in pod crasher_default\(/);
        await eventually(() => waiting.some((w) => /^CrashLoopBackOff: back-off \d+s restarting failed container=crasher /.test(w)), {
          description: 'a waiting CrashLoopBackOff state in a watch event of crasher',
          timeoutMs: 60_000,
          maxIntervalMs: 250,
        });
      } finally {
        ac.abort();
        await watching;
      }
      const pod = await getPod('crasher');
      assert.equal(status0(pod).lastState.terminated.exitCode, 1);
      // CrashLoopBackOff is reported from the second exit on (the first restart is not backed off):
      // by then one restart at least is counted; how many more depends on when the watch saw it.
      assert.ok(status0(pod).restartCount >= 1, JSON.stringify(status0(pod)));
    });

    it('reports an injected exit 137 OOMKilled as lastState.terminated', async () => {
      await createPod('oom-me', { image: AGNHOST, args: ['netexec', '--http-port=8080'] }, { nodeName: 'hk-a' });
      await waitForPod('oom-me', 'Running', (p) => p.status?.phase === 'Running');
      await kubelets!.node('hk-a').exit(NS, 'oom-me', 'oom-me', 137, 'OOMKilled');
      const pod = await waitForPod('oom-me', 'lastState.terminated', (p) => status0(p)?.lastState?.terminated && p);
      assert.equal(status0(pod).lastState.terminated.reason, 'OOMKilled');
      assert.equal(status0(pod).lastState.terminated.exitCode, 137);
      await waitForPod('oom-me', 'running again', (p) => status0(p)?.state?.running && status0(p).restartCount === 1);
      const runtime = await kubelets!.node('hk-a').containers();
      const exited = runtime.filter((c) => c.pod === 'oom-me' && c.state === 'exited');
      assert.equal(exited.length, 1);
      assert.equal(exited[0]!.reason, 'OOMKilled');
    });

    it('turns an injected PullImage fault into ErrImagePull, then runs the pod', async () => {
      // hk-b runs nothing else: no other pod's pull can use the fault up.
      const hk = kubelets!.node('hk-b');
      await hk.fault('PullImage', 1, 'registry says no');
      assert.deepEqual(await hk.faults(), { PullImage: { count: 1, message: 'registry says no' } });
      await createPod('pull-me', { image: 'busybox:1.36', imagePullPolicy: 'Always', command: ['sleep', '3600'] }, { nodeName: 'hk-b' });
      await waitForEvent('pull-me', 'Failed', /^Failed to pull image "busybox:1\.36": .*registry says no$/);
      await waitForEvent('pull-me', 'Failed', /^Error: ErrImagePull$/);
      await waitForPod('pull-me', 'Running after the back-off', (p) => p.status?.phase === 'Running', 60_000);
      assert.deepEqual(await hk.faults(), {});
    });

    it('keeps a pod whose script ignores SIGTERM Terminating for its 10 s grace period', async () => {
      await createPod('graceful', { image: 'busybox', command: ['sh', '-c', 'sleep 3600'] }, { nodeName: 'hk-a' });
      await waitForPod('graceful', 'Running', (p) => p.status?.phase === 'Running');
      const t0 = Date.now();
      await api.must('DELETE', `${PODS}/graceful`, { gracePeriodSeconds: 10 });
      await waitForEvent('graceful', 'Killing', /^Stopping container graceful$/);
      await eventually(async () => (await api.request('GET', `${PODS}/graceful`)).status === 404, {
        description: 'graceful gone from the API',
        timeoutMs: 40_000,
        maxIntervalMs: 100,
      });
      const took = Date.now() - t0;
      assert.ok(took >= 9_500 && took < 16_000, `Terminating for ${took} ms, want about 10 s`);
    });
  });

  it("logs the sync loop's ADD, PLEG, probe, DELETE and REMOVE lines at -v=4", () => {
    const log = kubelets!.node('hk-a').log();
    for (const line of [
      /"SyncLoop ADD" source="api" pods=\[[^\]]*"default\/probe-me"/,
      /"SyncLoop \(PLEG\): event for pod" pod="default\/probe-me" event=\{"ID":"[^"]+","Type":"ContainerDied"/,
      /"SyncLoop \(probe\)" probe="liveness" status="unhealthy" pod="default\/probe-me"/,
      /"SyncLoop DELETE" source="api" pods=\[[^\]]*"default\/graceful"/,
      /"SyncLoop REMOVE" source="api" pods=\[[^\]]*"default\/graceful"/,
    ]) {
      assert.match(log, line, `hk-a's log has ${line.source}`);
    }
  });

  it('launches a kubelet again on a fresh port when its port was taken before it bound it, its failed log kept beside', async () => {
    // A port freePorts() handed out, then taken by someone else before the kubelet's bind: the
    // kubelet exits 1 ("address already in use"), as it did once in CI (the start failed).
    const squatter = net.createServer();
    await new Promise<void>((resolve, reject) => {
      squatter.once('error', reject);
      squatter.listen(0, '127.0.0.1', resolve);
    });
    const taken = (squatter.address() as net.AddressInfo).port;
    let raced: HollowKubelets | undefined;
    try {
      raced = await startHollowKubelets(cp, { nodes: ['hk-race'], kubeletPorts: [taken] });
      const k = raced.node('hk-race');
      assert.match(fs.readFileSync(`${k.logPath}.port-race-1`, 'utf8'), /address already in use/, 'the first launch died on the taken port');
      assert.doesNotMatch(k.log(), /address already in use/, 'the log the differential reads is the running launch alone');
      const node = await api.must('GET', '/api/v1/nodes/hk-race');
      assert.equal(node.status.conditions.find((c: any) => c.type === 'Ready')?.status, 'True');
      const port = node.status.daemonEndpoints.kubeletEndpoint.Port;
      assert.ok(port > 0 && port !== taken, `the kubelet serves on a fresh port (${port}), not the taken ${taken}`);
    } finally {
      await raced?.stop();
      squatter.close();
      await api.request('DELETE', '/api/v1/nodes/hk-race');
    }
  });
});
