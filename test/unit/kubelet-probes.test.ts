// The kubelet simulation's probes, driven by a fake clock: the study guide's probe-me pod fails its
// liveness probe on schedule and ends in CrashLoopBackOff; good probes cost nothing; readiness and
// startup probes gate what they should; a deleted pod leaves no timer behind.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import type { DemoObject } from '../../src/demo/store';
import { startKubelet } from '../../src/demo/kubelet';
import { kubeletStore, WALL } from './kubelet-helpers';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function harness(opts: { speed?: number } = {}) {
  const clock = new FakeClock();
  const store = kubeletStore(clock, VERBS);
  const errors: unknown[] = [];
  const kubelet = startKubelet(store, { clock, wallStart: WALL, onError: (e) => errors.push(e), ...opts });
  const pod = (name: string) => store.get('', 'pods', 'default', name)!;
  const status = (name: string) => pod(name).status as any;
  const cs = (name: string, i = 0) => status(name).containerStatuses[i];
  const events = (name: string, reason?: string) =>
    store.list('', 'events', 'default').items.filter((e: any) => e.involvedObject.name === name && (reason === undefined || e.reason === reason)) as any[];
  const create = (obj: Partial<DemoObject> & { metadata: { name: string } }) =>
    store.create('', 'pods', { apiVersion: 'v1', kind: 'Pod', ...obj, metadata: { namespace: 'default', ...obj.metadata } } as DemoObject);
  const condition = (name: string, type: string) => status(name).conditions.find((c: any) => c.type === type)?.status;
  return { clock, store, kubelet, errors, pod, status, cs, events, create, condition, at: (ms: number) => clock.advance(ms - clock.now()) };
}

/** The pod `kubectl run probe-me ... --overrides=...` creates in the study guide. */
const probeMe = {
  metadata: { name: 'probe-me', labels: { run: 'probe-me' } },
  spec: {
    nodeName: 'pair-worker',
    restartPolicy: 'Always',
    containers: [
      {
        name: 'probe-me',
        image: 'registry.k8s.io/e2e-test-images/agnhost:2.47',
        args: ['netexec', '--http-port=8080'],
        livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, periodSeconds: 5, failureThreshold: 2 },
      },
    ],
  },
};

describe('kubelet simulation: probes', () => {
  it('probe-me fails its liveness probe on schedule: Unhealthy at 5 s, Killing at 10 s, restart, then CrashLoopBackOff', async () => {
    const h = harness();
    h.create(probeMe);
    await h.at(2000);
    assert.ok(h.store.get('', 'nodes', undefined, 'pair-worker'), 'the node the pod names registers');
    assert.equal(h.status('probe-me').phase, 'Running');
    assert.equal(h.cs('probe-me').restartCount, 0);
    assert.ok(h.cs('probe-me').state.running);
    assert.deepEqual(
      h.events('probe-me').map((e) => e.reason),
      ['Pulling', 'Pulled', 'Created', 'Started'],
    );
    const ip = h.status('probe-me').podIP;
    assert.match(ip, /^10\.244\.\d+\.\d+$/);

    await h.at(4900);
    assert.equal(h.events('probe-me', 'Unhealthy').length, 0);
    await h.at(5100);
    const [unhealthy] = h.events('probe-me', 'Unhealthy');
    assert.equal(unhealthy.type, 'Warning');
    assert.equal(unhealthy.message, `Liveness probe failed: Get "http://${ip}:8081/healthz": dial tcp ${ip}:8081: connect: connection refused`);
    assert.equal(unhealthy.count, 1);
    assert.equal(unhealthy.involvedObject.fieldPath, 'spec.containers{probe-me}');
    assert.deepEqual(unhealthy.source, { component: 'kubelet', host: 'pair-worker' });
    assert.equal(h.events('probe-me', 'Killing').length, 0);

    await h.at(10_100);
    assert.equal(h.events('probe-me', 'Unhealthy')[0].count, 2, 'a repeat increments count on the same Event');
    const [killing] = h.events('probe-me', 'Killing');
    assert.equal(killing.message, 'Container probe-me failed liveness probe, will be restarted');
    const firstID = h.cs('probe-me').containerID;

    await h.at(11_000);
    let c = h.cs('probe-me');
    assert.equal(c.restartCount, 1);
    assert.ok(c.state.running);
    // agnhost netexec handles SIGTERM: the kill ends it at once, exit 0 (as on the lab's real kubelet).
    assert.deepEqual(pickExit(c.lastState.terminated), { exitCode: 0, reason: 'Completed' });
    assert.equal(c.lastState.terminated.containerID, firstID);
    assert.notEqual(c.containerID, firstID);
    assert.match(h.events('probe-me', 'Pulled').at(-1).message, /already present on machine/);

    // Second failure: the first restart was immediate, now the 10 s back-off applies.
    await h.at(21_000);
    c = h.cs('probe-me');
    assert.equal(c.restartCount, 1);
    assert.equal(c.state.waiting.reason, 'CrashLoopBackOff');
    const uid = h.pod('probe-me').metadata.uid;
    assert.equal(c.state.waiting.message, `back-off 10s restarting failed container=probe-me pod=probe-me_default(${uid})`);
    assert.equal(c.ready, false);
    assert.equal(h.status('probe-me').phase, 'Running');
    assert.equal(h.condition('probe-me', 'Ready'), 'False');
    const [backoff] = h.events('probe-me', 'BackOff');
    assert.equal(backoff.message, `Back-off restarting failed container probe-me in pod probe-me_default(${uid})`);

    await h.at(31_000);
    assert.equal(h.cs('probe-me').restartCount, 2);
    assert.ok(h.cs('probe-me').state.running);
    await h.at(41_000);
    assert.equal(h.cs('probe-me').state.waiting.message.startsWith('back-off 20s '), true, 'the back-off doubles');
    await h.at(61_000);
    assert.equal(h.cs('probe-me').restartCount, 3);
    assert.equal(h.events('probe-me', 'Killing')[0].count, 3);
    assert.deepEqual(h.errors, []);
    h.kubelet.stop();
    assert.equal(h.clock.pendingTimers(), 0);
  });

  it('the back-off doubles up to 5 minutes', async () => {
    const h = harness();
    h.create(probeMe);
    const delays = new Set<string>();
    for (let t = 0; t < 40 * 60_000; t += 10_000) {
      await h.at(t);
      const w = h.cs('probe-me').state.waiting;
      if (w?.reason === 'CrashLoopBackOff') delays.add(w.message.split(' ')[1]);
    }
    assert.deepEqual([...delays], ['10s', '20s', '40s', '1m20s', '2m40s', '5m0s']);
    h.kubelet.stop();
  });

  it('a pod with a good liveness probe stays Running with 0 restarts and costs no timers', async () => {
    const h = harness();
    h.create({
      metadata: { name: 'good' },
      spec: {
        containers: [
          {
            name: 'web',
            image: 'registry.k8s.io/e2e-test-images/agnhost:2.47',
            args: ['netexec', '--http-port=8080'],
            livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5, failureThreshold: 2 },
            readinessProbe: { tcpSocket: { port: 8080 } },
          },
        ],
      },
    });
    await h.at(120_000);
    assert.equal(h.status('good').phase, 'Running');
    assert.equal(h.cs('good').restartCount, 0);
    assert.equal(h.cs('good').ready, true);
    assert.equal(h.condition('good', 'Ready'), 'True');
    assert.equal(h.events('good', 'Unhealthy').length, 0);
    assert.equal(h.events('good', 'Scheduled').length, 1, 'an unassigned pod is scheduled first');
    assert.match((h.pod('good').spec as any).nodeName, /^demo-node-\d$/);
    assert.equal(h.kubelet.stats().pendingTimers, 0);
    assert.equal(h.clock.pendingTimers(), 0);
    h.kubelet.stop();
  });

  it('readiness: a failing probe keeps the pod unready; a probe that starts failing flips ready and the Ready condition', async () => {
    const h = harness();
    h.create({
      metadata: { name: 'never-ready' },
      spec: {
        containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }], readinessProbe: { tcpSocket: { port: 9999 }, periodSeconds: 5 } }],
      },
    });
    h.create({
      metadata: { name: 'flips' },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'busybox:1.36',
            command: ['/bin/sh', '-c', 'touch /tmp/ready; sleep 30; rm -f /tmp/ready; sleep 3600'],
            readinessProbe: { exec: { command: ['cat', '/tmp/ready'] }, periodSeconds: 5, failureThreshold: 1 },
          },
        ],
      },
    });
    await h.at(20_000);
    assert.equal(h.cs('never-ready').ready, false);
    assert.equal(h.condition('never-ready', 'Ready'), 'False');
    assert.equal(h.condition('never-ready', 'ContainersReady'), 'False');
    const ip = h.status('never-ready').podIP;
    assert.equal(h.events('never-ready', 'Unhealthy')[0].message, `Readiness probe failed: dial tcp ${ip}:9999: connect: connection refused`);
    assert.equal(h.cs('flips').ready, true);
    assert.equal(h.condition('flips', 'Ready'), 'True');
    await h.at(45_000);
    assert.equal(h.cs('flips').ready, false);
    assert.equal(h.condition('flips', 'Ready'), 'False');
    assert.equal(h.events('flips', 'Unhealthy')[0].message, "Readiness probe failed: cat: can't open '/tmp/ready': No such file or directory");
    assert.equal(h.cs('flips').restartCount, 0, 'readiness never restarts a container');
    h.kubelet.stop();
    assert.equal(h.clock.pendingTimers(), 0);
  });

  it('the docs liveness-exec example restarts once /tmp/healthy is gone', async () => {
    const h = harness();
    h.create({
      metadata: { name: 'liveness-exec' },
      spec: {
        containers: [
          {
            name: 'liveness',
            image: 'registry.k8s.io/busybox',
            args: ['/bin/sh', '-c', 'touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600'],
            livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] }, initialDelaySeconds: 5, periodSeconds: 5 },
          },
        ],
      },
    });
    await h.at(30_000);
    assert.equal(h.events('liveness-exec', 'Unhealthy').length, 0);
    await h.at(60_000);
    assert.equal(h.events('liveness-exec', 'Unhealthy')[0].message, "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory");
    assert.equal(h.events('liveness-exec', 'Killing')[0].message, 'Container liveness failed liveness probe, will be restarted');
    // A shell script as PID 1 ignores SIGTERM: the kill waits out the 30 s grace period, then SIGKILL
    // (as the lab's real kubelet shows: its sync blocked in killContainer for 30 s).
    assert.equal(h.cs('liveness-exec').restartCount, 0, 'still being killed');
    await h.at(90_000);
    assert.equal(h.cs('liveness-exec').restartCount, 1);
    assert.deepEqual(pickExit(h.cs('liveness-exec').lastState.terminated), { exitCode: 137, reason: 'Error' });
    h.kubelet.stop();
  });

  it('a startup probe gates liveness and readiness until it succeeds, and kills the container when it keeps failing', async () => {
    const h = harness();
    h.create({
      metadata: { name: 'slow-start' },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'nginx:1.27',
            ports: [{ containerPort: 80 }],
            startupProbe: { httpGet: { path: '/', port: 80 }, initialDelaySeconds: 15, periodSeconds: 10 },
            readinessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 10 },
            livenessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 10 },
          },
        ],
      },
    });
    h.create({
      metadata: { name: 'never-starts' },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'nginx:1.27',
            startupProbe: { tcpSocket: { port: 8443 }, periodSeconds: 10, failureThreshold: 3 },
            livenessProbe: { tcpSocket: { port: 8443 } },
          },
        ],
      },
    });
    await h.at(12_000);
    assert.equal(h.cs('slow-start').started, false);
    assert.equal(h.cs('slow-start').ready, false);
    await h.at(21_000);
    assert.equal(h.cs('slow-start').started, true, 'started after the first startup probe past its initial delay (tick at 20 s)');
    assert.equal(h.cs('slow-start').ready, true, 'readiness is probed as soon as the container has started');
    await h.at(31_000);
    assert.equal(h.cs('never-starts').started, false);
    assert.equal(h.events('never-starts', 'Unhealthy').length, 1);
    assert.equal(h.events('never-starts', 'Unhealthy')[0].count, 3);
    assert.match(h.events('never-starts', 'Unhealthy')[0].message, /^Startup probe failed: dial tcp .*:8443: connect: connection refused$/);
    assert.equal(h.events('never-starts', 'Killing')[0].message, 'Container app failed startup probe, will be restarted');
    assert.ok(!h.events('never-starts', 'Unhealthy').some((e) => e.message.startsWith('Liveness')), 'liveness never ran before startup succeeded');
    await h.at(32_000);
    assert.equal(h.cs('never-starts').restartCount, 1);
    h.kubelet.stop();
  });

  it('deleting a pod mid-probe leaves no pending timers and no errors', async () => {
    const h = harness();
    h.create(probeMe);
    await h.at(7_000);
    assert.ok(h.kubelet.stats().pendingTimers > 0);
    h.store.delete('', 'pods', 'default', 'probe-me');
    await h.at(7_001);
    assert.deepEqual(h.kubelet.stats(), { workers: 0, pendingTimers: 0 });
    assert.equal(h.clock.pendingTimers(), 0);
    await h.at(60_000);
    assert.equal(h.events('probe-me', 'Killing').length, 0);
    assert.deepEqual(h.errors, []);
    h.kubelet.stop();
  });

  it('a deletionTimestamp stops the containers, then the kubelet removes the pod', async () => {
    const h = harness();
    h.create(probeMe);
    await h.at(3_000);
    const p = h.pod('probe-me');
    h.store.update('', 'pods', { ...p, metadata: { ...p.metadata, deletionTimestamp: new Date(WALL + 3000).toISOString(), deletionGracePeriodSeconds: 30 } });
    await h.at(3_100);
    assert.equal(h.events('probe-me', 'Killing')[0].message, 'Stopping container probe-me');
    await h.at(5_000);
    assert.equal(h.store.get('', 'pods', 'default', 'probe-me'), undefined);
    assert.equal(h.clock.pendingTimers(), 0);
    assert.deepEqual(h.errors, []);
    h.kubelet.stop();
  });

  it('stop() cancels everything, including crash-looping pods waiting out their back-off', async () => {
    const h = harness();
    h.create(probeMe);
    h.create({ metadata: { name: 'crasher' }, spec: { containers: [{ name: 'c', image: 'busybox:1.36', command: ['false'] }] } });
    await h.at(25_000);
    assert.equal(h.cs('crasher').state.waiting?.reason, 'CrashLoopBackOff');
    assert.equal(h.cs('crasher').lastState.terminated.exitCode, 1);
    assert.ok(h.clock.pendingTimers() > 0);
    h.kubelet.stop();
    assert.equal(h.clock.pendingTimers(), 0);
    const rv = h.store.currentRV;
    await h.at(600_000);
    assert.equal(h.store.currentRV, rv, 'nothing is written after stop()');
  });
});

function pickExit(t: { exitCode: number; reason?: string }): { exitCode: number; reason?: string } {
  return { exitCode: t.exitCode, reason: t.reason };
}
