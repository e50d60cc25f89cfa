// The kubelet simulation's exits and terminations, driven by a fake clock: OOMKilled containers,
// grace periods honoured (and shortened), and client-go's event correlation (spam filter, aggregation).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import type { DemoObject } from '../../src/demo/store';
import { startKubelet } from '../../src/demo/kubelet';
import { kubeletStore, WALL } from './kubelet-helpers';
import { AGGREGATE_MAX_EVENTS, COMBINED_PREFIX, EventCorrelator, SPAM_BURST, type CorrelatedEvent } from '../../src/demo/kubelet/correlator';
import { parseBytes } from '../../src/demo/kubelet/runtime';

function harness() {
  const clock = new FakeClock();
  const store = kubeletStore(clock);
  const errors: unknown[] = [];
  const kubelet = startKubelet(store, { clock, wallStart: WALL, onError: (e) => errors.push(e), nodes: 1 });
  const pod = (name: string) => store.get('', 'pods', 'default', name);
  const status = (name: string) => pod(name)!.status as any;
  const create = (name: string, spec: Record<string, unknown>) =>
    store.create('', 'pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec } as DemoObject);
  const del = (name: string, grace: number) => {
    const p = pod(name)!;
    store.update('', 'pods', {
      ...p,
      metadata: { ...p.metadata, deletionTimestamp: new Date(WALL + clock.now()).toISOString(), deletionGracePeriodSeconds: grace },
    });
  };
  const events = (name: string) => store.list('', 'events', 'default').items.filter((e: any) => e.involvedObject.name === name) as any[];
  return { clock, store, kubelet, errors, pod, status, create, del, events, at: (ms: number) => clock.advance(ms - clock.now()) };
}

const running = (h: ReturnType<typeof harness>, name: string) => !!h.status(name).containerStatuses[0].state.running;

describe('kubelet simulation: exit codes and reasons', () => {
  it('a memory hog over its limit is OOMKilled (exit 137, reason OOMKilled) and restarts with back-off', async () => {
    const h = harness();
    h.create('memory-demo', {
      containers: [
        {
          name: 'memory-demo-ctr',
          image: 'polinux/stress',
          command: ['stress'],
          args: ['--vm', '1', '--vm-bytes', '250M', '--vm-hang', '1'],
          resources: { requests: { memory: '50Mi' }, limits: { memory: '100Mi' } },
        },
      ],
    });
    await h.at(30_000);
    const c = h.status('memory-demo').containerStatuses[0];
    assert.ok(c.restartCount >= 1, JSON.stringify(c));
    assert.deepEqual([c.lastState.terminated.exitCode, c.lastState.terminated.reason], [137, 'OOMKilled']);
    // Within its limit, the same program just runs.
    h.create('memory-ok', {
      containers: [{ name: 'c', image: 'polinux/stress', command: ['stress'], args: ['--vm-bytes', '50M'], resources: { limits: { memory: '100Mi' } } }],
    });
    await h.at(60_000);
    assert.equal(h.status('memory-ok').containerStatuses[0].restartCount, 0);
    assert.deepEqual(h.errors, []);
    h.kubelet.stop();
  });

  it('quantities: Mi/Gi are binary, M/G decimal; stress sizes are binary', () => {
    assert.equal(parseBytes('100Mi'), 100 * 2 ** 20);
    assert.equal(parseBytes('1G'), 1e9);
    assert.equal(parseBytes('250M', true), 250 * 2 ** 20);
    assert.equal(parseBytes('128974848'), 128974848);
    assert.equal(parseBytes('lots'), undefined);
  });
});

describe('kubelet simulation: grace periods', () => {
  it('a server stops on SIGTERM at once (exit 0); a shell script that ignores SIGTERM runs until the grace period ends (exit 137)', async () => {
    const h = harness();
    h.create('server', {
      terminationGracePeriodSeconds: 10,
      containers: [{ name: 'c', image: 'registry.k8s.io/e2e-test-images/agnhost:2.47', args: ['netexec', '--http-port=8080'] }],
    });
    h.create('script', { terminationGracePeriodSeconds: 10, containers: [{ name: 'c', image: 'busybox:1.36', command: ['sh', '-c', 'sleep 3600'] }] });
    await h.at(3000);
    assert.ok(running(h, 'server') && running(h, 'script'));
    h.del('server', 10);
    h.del('script', 10);
    await h.at(4000);
    assert.equal(h.pod('server'), undefined, 'stopped (exit 0) and deleted by the kubelet');
    assert.ok(running(h, 'script'), 'still running 1 s into a 10 s grace period');
    await h.at(12_900);
    assert.ok(running(h, 'script'), 'still running at 9.9 s');
    const statuses: any[] = [];
    const unsub = h.store.subscribe((e) => {
      if (e.resource === 'pods' && e.object.metadata.name === 'script') statuses.push(e.object.status);
    });
    await h.at(13_100);
    unsub();
    assert.equal(h.pod('script'), undefined, 'SIGKILL at the end of the grace period, then deleted');
    const last = [...statuses].reverse().find((s) => s?.containerStatuses?.[0]?.state?.terminated);
    assert.equal(last.containerStatuses[0].state.terminated.exitCode, 137);
    assert.equal(last.phase, 'Failed');
    assert.deepEqual(h.errors, []);
    h.kubelet.stop();
  });

  it('a shorter grace period (delete --grace-period=0 --force after a plain delete) brings the SIGKILL forward', async () => {
    const h = harness();
    h.create('script', { containers: [{ name: 'c', image: 'busybox:1.36', command: ['sh', '-c', 'sleep 3600'] }] });
    await h.at(3000);
    h.del('script', 30);
    await h.at(5000);
    assert.ok(running(h, 'script'), 'within the default 30 s');
    h.del('script', 0);
    await h.at(5001);
    assert.equal(h.pod('script'), undefined);
    assert.equal(h.clock.pendingTimers(), 0);
    h.kubelet.stop();
  });
});

describe('kubelet simulation: activeDeadlineSeconds', () => {
  it('past the deadline the kubelet fails the pod (DeadlineExceeded) at its next sync, stops its containers within the grace period, and leaves it in the API', async () => {
    const h = harness();
    h.create('deadline', {
      activeDeadlineSeconds: 5,
      terminationGracePeriodSeconds: 2,
      restartPolicy: 'Never',
      containers: [{ name: 'c', image: 'busybox:1.36', command: ['sh', '-c', 'sleep 3600'] }],
    });
    await h.at(5_500);
    assert.equal(h.status('deadline').phase, 'Running', 'not before the deadline and the next sync tick');
    await h.at(7_000);
    const st = h.status('deadline');
    assert.deepEqual([st.phase, st.reason, st.message], ['Failed', 'DeadlineExceeded', 'Pod was active on the node longer than the specified deadline']);
    assert.ok(running(h, 'deadline'), 'its container gets the grace period');
    await h.at(9_100);
    assert.equal(h.status('deadline').containerStatuses[0].state.terminated.exitCode, 137, 'a shell ignores SIGTERM: SIGKILL at the end of the grace period');
    assert.ok(h.pod('deadline'), 'still in the API: nothing deleted it');
    assert.equal(h.clock.pendingTimers(), 0);
    assert.deepEqual(h.errors, []);
    h.kubelet.stop();
  });
});

describe("client-go's EventCorrelator, as the demo kubelet's recorder uses it", () => {
  const ev = (reason: string, message: string): CorrelatedEvent => ({
    source: { component: 'kubelet', host: 'demo-node-1' },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'probe-me', uid: 'u1', apiVersion: 'v1', fieldPath: 'spec.containers{probe-me}' },
    type: 'Warning',
    reason,
    message,
  });

  it('spam filter: a burst of 25 per source and object, then one per 5 minutes', () => {
    const c = new EventCorrelator();
    let accepted = 0;
    for (let i = 0; i < 40; i++) if (!c.correlate(ev('Unhealthy', 'Liveness probe failed: x'), i * 1000).skip) accepted++;
    assert.equal(accepted, SPAM_BURST);
    // The bucket refills continuously at 1/300 per second from the burst's start: the 26th token is
    // whole 300 s after the first event.
    let next = 40;
    while (c.correlate(ev('Unhealthy', 'Liveness probe failed: x'), next * 1000).skip) next++;
    assert.equal(next, 300);
    assert.equal(c.correlate(ev('Unhealthy', 'Liveness probe failed: x'), 301_000).skip, true, 'and then one per 5 minutes');
    const other = { ...ev('Unhealthy', 'x'), involvedObject: { ...ev('Unhealthy', 'x').involvedObject, name: 'other', uid: 'u2' } };
    assert.equal(c.correlate(other, 41_000).skip, false, 'another object has its own bucket');
  });

  it('aggregation: the 10th distinct message of one reason within 10 minutes becomes "(combined from similar events): ..."', () => {
    const c = new EventCorrelator();
    const keys = new Set<string>();
    for (let i = 1; i <= 12; i++) {
      const r = c.correlate(ev('Unhealthy', `Readiness probe failed: status ${i}`), i * 1000);
      assert.equal(r.skip, false);
      if (r.skip) continue;
      keys.add(r.key);
      if (i < AGGREGATE_MAX_EVENTS) assert.equal(r.aggregated, false, `message ${i}`);
      else assert.equal(r.message, `${COMBINED_PREFIX}Readiness probe failed: status ${i}`);
    }
    assert.equal(keys.size, AGGREGATE_MAX_EVENTS, '9 plain Events, then one aggregate Event for all the rest');
    // The same message again is the same Event (the recorder bumps its count).
    const a = c.correlate(ev('Killing', 'same'), 20_000);
    const b = c.correlate(ev('Killing', 'same'), 21_000);
    assert.ok(!a.skip && !b.skip && a.key === b.key);
  });

  it('the recorder writes one Event per key with a rising count, and stops writing when the bucket is empty', async () => {
    const h = harness();
    // probe-me: liveness fails every 5 s, failureThreshold 2: Unhealthy, Unhealthy, Killing, restart, ...
    h.create('probe-me', {
      containers: [
        {
          name: 'probe-me',
          image: 'registry.k8s.io/e2e-test-images/agnhost:2.47',
          args: ['netexec', '--http-port=8080'],
          livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, periodSeconds: 5, failureThreshold: 2 },
        },
      ],
    });
    await h.at(20 * 60_000);
    const unhealthy = h.events('probe-me').filter((e) => e.reason === 'Unhealthy');
    assert.equal(unhealthy.length, 1, 'one Unhealthy Event, its count rising');
    const total = h.events('probe-me').reduce((n, e) => n + e.count, 0);
    assert.ok(total <= SPAM_BURST + Math.ceil((20 * 60) / 300) + 1, `at most the burst plus one per 5 minutes: ${total}`);
    assert.ok(h.status('probe-me').containerStatuses[0].restartCount >= 5, 'the container kept restarting while its Events were dropped');
    h.kubelet.stop();
  });
});
