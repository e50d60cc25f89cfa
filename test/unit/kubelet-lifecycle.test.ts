// The kubelet simulation's pod lifecycle, driven by a fake clock: scheduling, init containers
// first, containers that exit under each restartPolicy, status shapes, and writes only through
// the store (status subresource and Events).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import type { DemoObject } from '../../src/demo/store';
import { startKubelet } from '../../src/demo/kubelet';
import { kubeletStore, WALL } from './kubelet-helpers';

function harness() {
  const clock = new FakeClock();
  const store = kubeletStore(clock);
  const writes: string[] = [];
  store.subscribe((e) => writes.push(`${e.type} ${e.resource}`));
  const errors: unknown[] = [];
  const kubelet = startKubelet(store, { clock, wallStart: WALL, onError: (e) => errors.push(e), nodes: 2 });
  const status = (name: string) => store.get('', 'pods', 'default', name)!.status as any;
  const create = (name: string, spec: Record<string, unknown>) =>
    store.create('', 'pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec } as DemoObject);
  const reasons = (name: string) =>
    store
      .list('', 'events', 'default')
      .items.filter((e: any) => e.involvedObject.name === name)
      .map((e: any) => e.reason);
  return { clock, store, kubelet, writes, errors, status, create, reasons, at: (ms: number) => clock.advance(ms - clock.now()) };
}

describe('kubelet simulation: pod lifecycle', () => {
  it('schedules an unassigned pod, reports ContainerCreating, then Running with a full status', async () => {
    const h = harness();
    h.create('web', { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }], resources: { requests: { cpu: '100m' } } }] });
    await h.at(100);
    assert.deepEqual(
      h.store.list('', 'nodes').items.map((n) => n.metadata.name),
      ['demo-node-1', 'demo-node-2'],
    );
    const pending = h.status('web');
    assert.equal(pending.phase, 'Pending');
    assert.equal(pending.containerStatuses[0].state.waiting.reason, 'ContainerCreating');
    assert.equal(pending.conditions.find((c: any) => c.type === 'PodScheduled').status, 'True');
    assert.equal(pending.podIP, undefined);
    await h.at(2000);
    const s = h.status('web');
    assert.equal(s.phase, 'Running');
    assert.match(s.podIP, /^10\.244\.\d+\.\d+$/);
    assert.match(s.hostIP, /^172\.18\.\d+\.\d+$/);
    assert.equal(s.qosClass, 'Burstable');
    assert.ok(s.startTime);
    const c = s.containerStatuses[0];
    assert.equal(c.image, 'docker.io/library/nginx:latest');
    assert.match(c.imageID, /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    assert.match(c.containerID, /^containerd:\/\/[0-9a-f]{64}$/);
    assert.deepEqual([c.ready, c.started, c.restartCount], [true, true, 0]);
    assert.ok(c.state.running.startedAt);
    assert.deepEqual(c.lastState, {});
    assert.deepEqual(
      s.conditions.map((x: any) => `${x.type}=${x.status}`),
      ['PodReadyToStartContainers=True', 'Initialized=True', 'Ready=True', 'ContainersReady=True', 'PodScheduled=True'],
    );
    assert.deepEqual(h.reasons('web'), ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started']);
    assert.ok(h.writes.every((w) => /^(ADDED|MODIFIED) (pods|events|nodes)$/.test(w)));
    assert.deepEqual(h.errors, []);
    h.kubelet.stop();
  });

  it('runs init containers one by one to completion before the containers', async () => {
    const h = harness();
    h.create('init', {
      nodeName: 'demo-node-1',
      initContainers: [
        { name: 'migrate', image: 'busybox:1.36', command: ['sh', '-c', 'echo migrating; sleep 3'] },
        { name: 'warm', image: 'busybox:1.36', command: ['sh', '-c', 'sleep 2'] },
      ],
      containers: [{ name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }],
    });
    await h.at(2000);
    let s = h.status('init');
    assert.equal(s.phase, 'Pending');
    assert.ok(s.initContainerStatuses[0].state.running);
    assert.equal(s.initContainerStatuses[1].state.waiting.reason, 'PodInitializing');
    assert.equal(s.containerStatuses[0].state.waiting.reason, 'PodInitializing');
    assert.equal(s.conditions.find((c: any) => c.type === 'Initialized').message, 'containers with incomplete status: [migrate warm]');
    await h.at(5000);
    s = h.status('init');
    assert.equal(s.initContainerStatuses[0].state.terminated.reason, 'Completed');
    assert.ok(s.initContainerStatuses[1].state.running);
    await h.at(9000);
    s = h.status('init');
    assert.equal(s.phase, 'Running');
    assert.equal(s.initContainerStatuses[1].state.terminated.exitCode, 0);
    assert.ok(s.containerStatuses[0].state.running);
    h.kubelet.stop();
  });

  it('restartPolicy Never: a job that exits 0 Succeeds, one that runs `false` Fails; OnFailure retries', async () => {
    const h = harness();
    h.create('job-ok', {
      nodeName: 'demo-node-1',
      restartPolicy: 'Never',
      containers: [{ name: 'pi', image: 'perl:5.34', command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)'] }],
    });
    h.create('job-bad', { nodeName: 'demo-node-1', restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.36', command: ['false'] }] });
    h.create('job-retry', {
      nodeName: 'demo-node-1',
      restartPolicy: 'OnFailure',
      containers: [{ name: 'c', image: 'busybox:1.36', command: ['sh', '-c', 'exit 3'] }],
    });
    await h.at(10_000);
    assert.equal(h.status('job-ok').phase, 'Succeeded');
    assert.equal(h.status('job-ok').containerStatuses[0].state.terminated.reason, 'Completed');
    assert.equal(h.status('job-ok').conditions.find((c: any) => c.type === 'Ready').reason, 'PodCompleted');
    assert.equal(h.status('job-bad').phase, 'Failed');
    assert.equal(h.status('job-bad').containerStatuses[0].state.terminated.exitCode, 1);
    assert.equal(h.status('job-retry').phase, 'Running');
    assert.ok(h.status('job-retry').containerStatuses[0].restartCount >= 1);
    assert.equal(h.status('job-retry').containerStatuses[0].lastState.terminated.exitCode, 3);
    h.kubelet.stop();
    assert.equal(h.clock.pendingTimers(), 0);
  });

  it('a container whose command fails under restartPolicy Always crash-loops with a growing back-off', async () => {
    const h = harness();
    h.create('crasher', { nodeName: 'demo-node-2', containers: [{ name: 'c', image: 'busybox:1.36', command: ['sh', '-c', 'echo boom; exit 1'] }] });
    await h.at(60_000);
    const c = h.status('crasher').containerStatuses[0];
    assert.equal(h.status('crasher').phase, 'Running');
    assert.ok(c.restartCount >= 3, `restarts: ${c.restartCount}`);
    assert.equal(c.lastState.terminated.exitCode, 1);
    assert.ok(h.reasons('crasher').includes('BackOff'));
    h.kubelet.stop();
  });

  it('adopts a pod whose status says it is running and keeps crash-looping it from there', async () => {
    const h = harness();
    h.store.create('', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'old', namespace: 'default' },
      spec: {
        nodeName: 'demo-node-1',
        containers: [
          {
            name: 'app',
            image: 'registry.k8s.io/e2e-test-images/agnhost:2.47',
            args: ['netexec'],
            livenessProbe: { tcpSocket: { port: 9000 }, periodSeconds: 5, failureThreshold: 1 },
          },
        ],
      },
      status: {
        phase: 'Running',
        podIP: '10.244.1.77',
        hostIP: '172.18.0.3',
        startTime: '2026-03-01T09:00:00Z',
        containerStatuses: [
          {
            name: 'app',
            ready: true,
            started: true,
            restartCount: 7,
            image: 'registry.k8s.io/e2e-test-images/agnhost:2.47',
            imageID: '',
            containerID: 'containerd://abc',
            state: { running: { startedAt: '2026-03-01T09:59:00Z' } },
            lastState: {},
          },
        ],
      },
    });
    await h.at(6_000);
    assert.ok(h.reasons('old').includes('Killing'));
    await h.at(7_000);
    const c = h.status('old').containerStatuses[0];
    assert.equal(c.restartCount, 8);
    assert.equal(h.status('old').podIP, '10.244.1.77', 'the sandbox (and its IP) survives a container restart');
    h.kubelet.stop();
  });
});
