/**
 * `kubectl logs` (v1.34) against the demo cluster over a real socket: what the simulated
 * containers write (an echo script, a `while true` counter, agnhost netexec, nginx), read with
 * --tail, --timestamps, --since, --limit-bytes, --previous and -f; the study guide's probe-me
 * pod before and after its liveness restart; and one read through @kubernetes/client-node.
 * The kubelet runs ten times faster than real time; a pod "started an hour ago" is written to the
 * store with that status, so the kubelet adopts it and its log spans that hour.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { kubeTimestamp } from '../../src/demo/kubelet/eventRecorder';
import { STORY_NAMESPACE } from '../../src/demo/story';
import type { DemoObject } from '../../src/demo/store';
import { eventually } from '../support/eventually';
import { startTestCluster, type TestCluster } from './demo-support';

const NETEXEC_LINES =
  /^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d Started HTTP server on port 8080\n\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d Started UDP server on port {2}8081\n$/;

function shPod(name: string, script: string, restartPolicy = 'Always'): DemoObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { restartPolicy, containers: [{ name, image: 'busybox:1.36', command: ['sh', '-c', script] }] },
  };
}

/** A pod whose status says its container started at `startedAt` (the kubelet adopts it as running). */
function runningSince(pod: DemoObject, startedAt: string): DemoObject {
  const c = (pod.spec as any).containers[0];
  return {
    ...pod,
    spec: { ...(pod.spec as object), nodeName: 'demo-node-1' },
    status: {
      phase: 'Running',
      podIP: '10.244.0.200',
      hostIP: '172.18.0.2',
      startTime: startedAt,
      conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: startedAt }],
      containerStatuses: [
        {
          name: c.name,
          image: c.image,
          imageID: `docker.io/library/${c.image}@sha256:${'0'.repeat(64)}`,
          containerID: `containerd://${'a'.repeat(64)}`,
          ready: true,
          started: true,
          restartCount: 0,
          state: { running: { startedAt } },
        },
      ],
    },
  };
}

describe('kubectl logs on the demo cluster', () => {
  let t: TestCluster;
  const hourAgo = Date.now() - 3_540_000;
  before(async () => {
    t = await startTestCluster({ kubelet: true, kubeletSpeed: 10, controllers: true, story: true });
    t.cluster.store.create('', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default' },
      spec: { containers: [{ name: 'web', image: 'nginx:1.27', readinessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 2 } }] },
    });
    t.cluster.store.create('', 'pods', shPod('echo', 'echo hello; printf "%s world\\n" big; echo oops >&2; sleep 3600', 'Never'));
    // Six ticks so far (0, 600, ..., 3000 s after its start); the next one is a minute away.
    t.cluster.store.create(
      '',
      'pods',
      runningSince(shPod('ticker', 'i=0; while true; do echo "tick $i"; i=$((i+1)); sleep 600; done'), kubeTimestamp(hourAgo)),
    );
  });
  after(async () => {
    await t.close();
  });

  const logs = (...args: string[]) => t.kubectlOk(['logs', ...args]);

  it('prints what an echo script wrote, stdout and stderr, in the order written', async () => {
    const out = await eventually(async () => (await t.kubectl(['logs', 'echo'])).stdout || undefined, {
      description: 'the echo pod to log',
      timeoutMs: 15_000,
    });
    assert.equal(out, 'hello\nbig world\noops\n');
    assert.equal(await logs('echo', '-c', 'echo'), out);
  });

  it('--tail, --timestamps, --limit-bytes', async () => {
    await eventually(async () => (await t.kubectl(['logs', 'echo'])).stdout.includes('oops'), { description: 'the echo pod to log', timeoutMs: 15_000 });
    assert.equal(await logs('echo', '--tail=1'), 'oops\n');
    assert.equal(await logs('echo', '--tail=0'), '');
    assert.equal(await logs('echo', '--limit-bytes=8'), 'hello\nbi');
    const stamped = (await logs('echo', '--timestamps')).split('\n').filter(Boolean);
    assert.equal(stamped.length, 3);
    for (const line of stamped) assert.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z (hello|big world|oops)$/);
  });

  it('an adopted pod has the log its spec wrote since its status says it started; --since and --timestamps read it', async () => {
    assert.equal(await logs('ticker'), ['tick 0', 'tick 1', 'tick 2', 'tick 3', 'tick 4', 'tick 5', ''].join('\n'));
    assert.equal(await logs('ticker', '--since=25m'), 'tick 4\ntick 5\n');
    assert.equal(await logs('ticker', '--tail=1', '--timestamps'), `${kubeTimestamp(hourAgo + 3_000_000)} tick 5\n`);
    assert.equal(await logs('ticker', `--since-time=${kubeTimestamp(hourAgo + 1_200_000)}`), 'tick 2\ntick 3\ntick 4\ntick 5\n');
  });

  it("--previous without a previous instance is the kubelet's 400", async () => {
    const r = await t.kubectl(['logs', 'echo', '--previous']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Error from server \(BadRequest\): previous terminated container "echo" in pod "echo" not found/);
    assert.match((await t.kubectl(['logs', 'echo', '-c', 'nope'])).stderr, /container nope is not valid for pod echo/);
    assert.match((await t.kubectl(['logs', 'nope'])).stderr, /NotFound/);
  });

  it('-f sends a line written after it started, and ends when the container ends', async () => {
    t.cluster.store.create('', 'pods', shPod('follow', 'echo first; sleep 60; echo second', 'Never'));
    await eventually(async () => (await t.kubectl(['logs', 'follow'])).stdout === 'first\n', { description: 'the first line', timeoutMs: 15_000 });
    const f = t.spawnKubectl(['logs', '-f', 'follow']);
    try {
      const before = await f.waitFor(/first\n/);
      assert.equal(before, 'first\n', 'the second line is not written yet');
      await f.waitFor(/second\n/, 20_000);
      await eventually(() => f.child.exitCode !== null, { description: 'kubectl logs -f to exit', timeoutMs: 15_000 });
      assert.equal(f.child.exitCode, 0, f.stderr);
    } finally {
      await f.stop();
    }
    assert.equal(f.stdout, 'first\nsecond\n');
    const pod = t.cluster.store.get('', 'pods', 'default', 'follow')!;
    assert.equal((pod.status as any).containerStatuses[0].state.terminated?.exitCode, 0, 'the stream ended with the container');
    // The container has ended: -f prints its log and returns.
    assert.equal(await logs('-f', 'follow'), 'first\nsecond\n');
  });

  it("the study guide's probe-me logs its netexec lines, and --previous shows them after the liveness restart", async () => {
    const get = () => t.cluster.store.get('', 'pods', STORY_NAMESPACE, 'probe-me');
    // Ten times faster, probe-me is killed about a second after each start, then waits in
    // CrashLoopBackOff: `kubectl logs` reads the running instance, or else the last one that ended.
    await eventually(() => (get()?.status as any)?.containerStatuses?.[0]?.restartCount >= 1, { description: 'probe-me restarted', timeoutMs: 20_000 });
    assert.match(await logs('-n', STORY_NAMESPACE, 'probe-me', '--previous'), NETEXEC_LINES);
    assert.match(await logs('-n', STORY_NAMESPACE, 'probe-me'), NETEXEC_LINES);
  });

  it('nginx pods print the image entry point lines; client-node reads the same log', async () => {
    await eventually(() => (t.cluster.store.get('', 'pods', 'default', 'web')?.status as any)?.containerStatuses?.[0]?.state?.running, {
      description: 'the nginx pod running',
      timeoutMs: 15_000,
    });
    const out = await logs('web');
    assert.match(out, /^\/docker-entrypoint\.sh: \/docker-entrypoint\.d\/ is not empty, will attempt to perform configuration\n/);
    assert.match(out, /\/docker-entrypoint\.sh: Configuration complete; ready for start up\n/);
    assert.match(out, /\[notice\] 1#1: nginx\/1\.2[78]\.\d+\n/);
    const kc = new KubeConfig();
    kc.loadFromString(t.cluster.kubeconfig());
    const core = kc.makeApiClient(CoreV1Api);
    // Start-up lines, then an access-log line per readiness probe (every 2 s simulated): compare the start-up part.
    const startUp = out.slice(0, out.indexOf('start worker process 30\n') + 'start worker process 30\n'.length);
    const viaClient = await core.readNamespacedPodLog({ name: 'web', namespace: 'default', limitBytes: Buffer.byteLength(startUp) });
    assert.equal(viaClient, startUp);
    const tail = await core.readNamespacedPodLog({ name: 'web', namespace: 'default', tailLines: 2 });
    const lines = tail.split('\n');
    assert.equal(lines.length, 3, tail);
    assert.match(lines[1]!, /"GET \/ HTTP\/1\.1" 200 615 "-" "kube-probe\/1\.34" "-"$/, 'the last line: a readiness probe request');
  });
});

describe('follow streams and the server lifetime', () => {
  it("the demo's stop ends an open follow stream", async () => {
    const t = await startTestCluster({ kubelet: true, kubeletSpeed: 10 });
    try {
      t.cluster.store.create('', 'pods', shPod('loop', 'while true; do echo tick; sleep 600; done'));
      await eventually(async () => (await t.kubectl(['logs', 'loop'])).stdout === 'tick\n', { description: 'the first tick', timeoutMs: 15_000 });
      const res = await fetch(`${t.cluster.url}/api/v1/namespaces/default/pods/loop/log?follow=true`);
      assert.equal(res.status, 200);
      const reader = res.body!.getReader();
      assert.equal(new TextDecoder().decode((await reader.read()).value), 'tick\n');
      const ended = reader.read().then(
        (r) => r.done,
        () => true,
      );
      await t.cluster.stop();
      assert.equal(await ended, true);
    } finally {
      await t.close();
    }
  });
});
