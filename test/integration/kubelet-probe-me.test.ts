/**
 * The study guide's probe-me pod through the real API: created with the guide's own
 * `kubectl run ... --overrides=...` command, watched with @kubernetes/client-node while the kubelet
 * simulation (ten times faster than real time) fails its liveness probe: Unhealthy and Killing
 * Events arrive, restartCount goes up, and kubectl shows CrashLoopBackOff; deletion stops it all.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { startKubelet, type Kubelet } from '../../src/demo/kubelet';
import { startTestCluster, type TestCluster } from './demo-support';

const OVERRIDES =
  '{"spec":{"nodeName":"pair-worker","containers":[{"name":"probe-me","image":"registry.k8s.io/e2e-test-images/agnhost:2.47","args":["netexec","--http-port=8080"],"livenessProbe":{"httpGet":{"path":"/healthz","port":8081},"periodSeconds":5,"failureThreshold":2}}]}}';

interface Seen {
  type: string;
  obj: any;
  at: number;
}

async function watch(kc: KubeConfig, path: string, query: Record<string, string>) {
  const seen: Seen[] = [];
  const waiters: { pred: () => boolean; resolve: () => void }[] = [];
  const ctl = await new Watch(kc).watch(
    path,
    query,
    (type, obj) => {
      seen.push({ type, obj, at: Date.now() });
      for (const w of [...waiters]) if (w.pred()) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
    },
    () => {},
  );
  return {
    seen,
    until(pred: () => boolean, what: string, ms = 15_000): Promise<void> {
      if (pred()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${what}: not seen in ${ms} ms`)), ms);
        waiters.push({ pred, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    stop: () => ctl.abort(),
  };
}

describe('kubelet simulation through the API: the study guide probe-me pod', () => {
  let t: TestCluster;
  let kubelet: Kubelet;
  const errors: unknown[] = [];
  before(async () => {
    // TLS (client-node's Watch refuses plain HTTP) with a token (kubectl prompts for a password over
    // https when the kubeconfig user has no credentials).
    t = await startTestCluster({ kubelet: false, tls: true, token: 'probe-me-token' });
    kubelet = startKubelet(t.cluster.store, { speed: 10, onError: (e) => errors.push(e) });
  });
  after(async () => {
    kubelet.stop();
    await t.close();
  });

  it('fails its liveness probe on schedule, restarts, and ends in CrashLoopBackOff', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(t.cluster.kubeconfig());
    const events = await watch(kc, '/api/v1/namespaces/default/events', {});
    const pods = await watch(kc, '/api/v1/namespaces/default/pods', { fieldSelector: 'metadata.name=probe-me' });
    const started = Date.now();
    await t.kubectlOk(['-n', 'default', 'run', 'probe-me', '--image=registry.k8s.io/e2e-test-images/agnhost:2.47', `--overrides=${OVERRIDES}`]);

    const reasons = () => events.seen.filter((e) => e.obj.involvedObject?.name === 'probe-me').map((e) => e.obj);
    const restarts = () => Math.max(0, ...pods.seen.map((e) => e.obj.status?.containerStatuses?.[0]?.restartCount ?? 0));
    await events.until(() => reasons().some((e) => e.reason === 'Started'), 'Started');
    await events.until(() => reasons().some((e) => e.reason === 'Unhealthy'), 'Unhealthy');
    await events.until(() => reasons().some((e) => e.reason === 'Killing'), 'Killing');
    // What the client had seen of the Unhealthy Event when the first Killing arrived.
    const killingIndex = events.seen.findIndex((e) => e.obj.reason === 'Killing');
    const unhealthyCountAtKill = Math.max(
      0,
      ...events.seen
        .slice(0, killingIndex)
        .filter((e) => e.obj.reason === 'Unhealthy')
        .map((e) => e.obj.count ?? 1),
    );
    const unhealthyAt = (events.seen.find((e) => e.obj.reason === 'Unhealthy')!.at - started) * 10;
    await pods.until(() => restarts() >= 1, 'restartCount 1');
    await pods.until(() => pods.seen.some((e) => e.obj.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff'), 'CrashLoopBackOff');
    events.stop();
    pods.stop();

    // The exact schedule (first failure at 5 s, Killing at 10 s) is pinned on a fake clock in
    // test/unit/kubelet-probes.test.ts; through real sockets on a shared machine the wall-clock
    // figures drift, so here: no failure before the first period, and no Killing before the
    // failureThreshold (2) failures were reported.
    assert.ok(unhealthyAt >= 4000, `first Unhealthy at ${unhealthyAt} simulated ms, before the first 5 s period`);
    assert.ok(unhealthyCountAtKill >= 2, `Killing came after ${unhealthyCountAtKill} Unhealthy report(s), threshold is 2`);
    const unhealthy = reasons().find((e) => e.reason === 'Unhealthy');
    assert.match(
      unhealthy.message,
      /^Liveness probe failed: Get "http:\/\/10\.244\.\d+\.\d+:8081\/healthz": dial tcp 10\.244\.\d+\.\d+:8081: connect: connection refused$/,
    );
    assert.equal(unhealthy.type, 'Warning');
    assert.equal(unhealthy.source.component, 'kubelet');
    assert.equal(reasons().find((e) => e.reason === 'Killing').message, 'Container probe-me failed liveness probe, will be restarted');
    assert.ok(
      reasons().some((e) => e.reason === 'Unhealthy' && e.count >= 2),
      'repeats raise the Event count',
    );

    const pod = JSON.parse(await t.kubectlOk(['-n', 'default', 'get', 'pod', 'probe-me', '-o', 'json']));
    assert.equal(pod.spec.nodeName, 'pair-worker');
    assert.ok(pod.status.containerStatuses[0].restartCount >= 1);
    // agnhost handles SIGTERM: the kubelet's kill ends it at once, exit 0 (as the lab's real kubelet shows).
    assert.equal(pod.status.containerStatuses[0].lastState.terminated.exitCode, 0);
    assert.equal(pod.status.containerStatuses[0].lastState.terminated.reason, 'Completed');
    const table = await t.kubectlOk(['-n', 'default', 'get', 'pod', 'probe-me']);
    assert.match(table, /probe-me\s+0\/1\s+(CrashLoopBackOff|Running)\s+[1-9]/, table);
    const node = await t.kubectlOk(['get', 'node', 'pair-worker']);
    assert.match(node, /pair-worker\s+Ready/);

    await t.kubectlOk(['-n', 'default', 'delete', 'pod', 'probe-me', '--now']);
    assert.deepEqual(kubelet.stats(), { workers: 0, pendingTimers: 0 });
    assert.deepEqual(errors, []);
  });
});
