// The demo scheduler with node capacity and an autoscaler (KubeletOptions.capacity), on a fake
// clock: a pod that finds every node full is Unschedulable with kube-scheduler's FailedScheduling,
// a node is added, the pod is bound to it; the start-up model reads the wait as its scheduling
// phase and leaves it out of the kubelet's SLI, as the kubelet does.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import type { DemoObject } from '../../src/demo/store';
import { startKubelet } from '../../src/demo/kubelet';
import { startupReport } from '../../src/core/startup/report';
import { kubeletStore, WALL } from './kubelet-helpers';

/** Unbound one-container pods in `default`, for the scheduler to place. */
function createPods(store: ReturnType<typeof kubeletStore>, names: string[]): void {
  for (const name of names)
    store.create('', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: { containers: [{ name: 'app', image: 'img:1' }] },
    } as DemoObject);
}

describe('kubelet simulation: FailedScheduling until a node is added', () => {
  it('binds the pod that found no room once the autoscaler adds a node', async () => {
    const clock = new FakeClock();
    const store = kubeletStore(clock);
    const kubelet = startKubelet(store, { clock, wallStart: WALL, nodes: 1, capacity: { podsPerNode: 2, addNodeAfterMs: 5000 } });
    createPods(store, ['a', 'b', 'c']);
    await clock.advance(1000);
    const pod = (n: string) => store.get('', 'pods', 'default', n)! as any;
    assert.equal(pod('c').spec.nodeName, undefined);
    const cond = pod('c').status.conditions.find((c: any) => c.type === 'PodScheduled');
    assert.deepEqual([cond.status, cond.reason], ['False', 'Unschedulable']);
    const failed = store.list('', 'events', 'default').items.filter((e: any) => e.reason === 'FailedScheduling') as any[];
    assert.deepEqual(
      failed.map((e) => [e.involvedObject.name, e.message, e.source.component]),
      [
        [
          'c',
          '0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
          'default-scheduler',
        ],
      ],
    );
    await clock.advance(5000);
    assert.equal(pod('c').spec.nodeName, 'demo-node-2');
    assert.ok(store.get('', 'nodes', undefined, 'demo-node-2'));
    await clock.advance(3000);
    const groups = startupReport(store.list('', 'pods', 'default').items as never, store.list('', 'events', 'default').items as never);
    const c = groups[0]!.pods.find((p) => p.name === 'c')!;
    const sched = c.phases[0]!;
    assert.equal(sched.name, 'scheduling');
    assert.equal(sched.ms, 5000);
    assert.deepEqual(
      sched.retries.map((r) => r.reason),
      ['FailedScheduling'],
    );
    assert.equal(c.sli.excluded, 'unschedulable');
    assert.equal(groups[0]!.pods[0]!.name, 'c', 'the pod that waited for a node is the slowest');
    kubelet.stop();
    assert.deepEqual(kubelet.stats(), { workers: 0, pendingTimers: 0 });
  });

  it('without a capacity, every pod is bound at once (as before)', async () => {
    const clock = new FakeClock();
    const store = kubeletStore(clock);
    const kubelet = startKubelet(store, { clock, wallStart: WALL, nodes: 1 });
    createPods(store, ['a', 'b', 'c']);
    await clock.advance(10);
    assert.deepEqual(
      ['a', 'b', 'c'].map((n) => (store.get('', 'pods', 'default', n)!.spec as any).nodeName),
      ['demo-node-1', 'demo-node-1', 'demo-node-1'],
    );
    kubelet.stop();
  });
});
