// The kubelet simulation's scheduling filter and admission (a pod's nodeSelector against node
// labels, as default-scheduler and the kubelet's NodeAffinity predicate check it) and readiness
// gates (Ready waits for a condition someone else writes), driven by a fake clock.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import type { DemoObject } from '../../src/demo/store';
import { startKubelet } from '../../src/demo/kubelet';
import { kubeletStore, WALL } from './kubelet-helpers';

function harness() {
  const clock = new FakeClock();
  const store = kubeletStore(clock);
  const errors: unknown[] = [];
  const kubelet = startKubelet(store, { clock, wallStart: WALL, onError: (e) => errors.push(e), nodes: 2 });
  const label = (node: string, labels: Record<string, string>) => {
    const n = store.get('', 'nodes', undefined, node)!;
    store.update('', 'nodes', { ...n, metadata: { ...n.metadata, labels: { ...(n.metadata.labels ?? {}), ...labels } } });
  };
  const pod = (name: string) => store.get('', 'pods', 'default', name)! as DemoObject & { spec: any; status: any };
  const create = (name: string, spec: Record<string, unknown>) =>
    store.create('', 'pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec } as DemoObject);
  const events = (name: string) =>
    store
      .list('', 'events', 'default')
      .items.filter((e: any) => e.involvedObject.name === name)
      .map((e: any) => `${e.type} ${e.reason}: ${e.message}`);
  return { clock, store, kubelet, errors, label, pod, create, events, at: (ms: number) => clock.advance(ms - clock.now()) };
}

const containers = [{ name: 'web', image: 'nginx' }];

describe('kubelet simulation: node selection and admission', () => {
  it('a nodeSelector is honoured when placing: every pod lands on the one node whose labels match', async () => {
    const h = harness();
    await h.at(10);
    h.label('demo-node-2', { disk: 'ssd' });
    for (const n of ['a', 'b', 'c']) h.create(n, { containers, nodeSelector: { disk: 'ssd' } });
    await h.at(3000);
    for (const n of ['a', 'b', 'c']) {
      assert.equal(h.pod(n).spec.nodeName, 'demo-node-2', n);
      assert.equal(h.pod(n).status.phase, 'Running', n);
    }
    assert.deepEqual(h.errors, []);
    h.kubelet.stop();
  });

  it('no node matches: the pod stays Pending and unbound, told once by FailedScheduling', async () => {
    const h = harness();
    h.create('nowhere', { containers, nodeSelector: { disk: 'ssd' } });
    await h.at(1000);
    // Another write to the pod (a label) is handled again, and not told again.
    const p = h.pod('nowhere');
    h.store.update('', 'pods', { ...p, metadata: { ...p.metadata, labels: { touched: 'yes' } } });
    await h.at(2000);
    assert.equal(h.pod('nowhere').spec.nodeName, undefined);
    assert.notEqual(h.pod('nowhere').status?.phase, 'Running');
    assert.deepEqual(h.events('nowhere'), ["Warning FailedScheduling: 0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."]);
    h.kubelet.stop();
  });

  it('a pod bound by hand to a node it does not fit is rejected: Failed, NodeAffinity, a Warning Event, nothing run', async () => {
    const h = harness();
    await h.at(10);
    h.create('misplaced', {
      containers,
      nodeName: 'demo-node-1',
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['eu-1'] }] }],
          },
        },
      },
    });
    await h.at(3000);
    const s = h.pod('misplaced').status;
    assert.equal(s.phase, 'Failed');
    assert.equal(s.reason, 'NodeAffinity');
    assert.equal(s.message, "Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector");
    assert.equal(s.containerStatuses, undefined, 'no container was created');
    assert.deepEqual(h.events('misplaced'), ["Warning NodeAffinity: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"]);
    // The same affinity, once the node has the label, is admitted.
    h.label('demo-node-1', { zone: 'eu-1' });
    h.create('placed', { containers, nodeName: 'demo-node-1', affinity: h.pod('misplaced').spec.affinity });
    await h.at(6000);
    assert.equal(h.pod('placed').status.phase, 'Running');
    assert.deepEqual(h.errors, []);
    h.kubelet.stop();
  });
});

describe('kubelet simulation: readiness gates', () => {
  it('Ready stays False (ReadinessGatesNotReady) until the gate condition is written True by someone else', async () => {
    const h = harness();
    const gate = 'example.com/load-balancer';
    h.create('gated', { containers, readinessGates: [{ conditionType: gate }] });
    await h.at(3000);
    const ready = () => h.pod('gated').status.conditions.find((c: any) => c.type === 'Ready');
    assert.equal(h.pod('gated').status.phase, 'Running');
    assert.deepEqual(
      [ready().status, ready().reason, ready().message],
      ['False', 'ReadinessGatesNotReady', `corresponding condition of pod readiness gate "${gate}" does not exist.`],
    );
    assert.equal(h.pod('gated').status.conditions.find((c: any) => c.type === 'ContainersReady').status, 'True');
    const write = (status: string) => {
      const p = h.pod('gated');
      const conditions = [...p.status.conditions.filter((c: any) => c.type !== gate), { type: gate, status, lastTransitionTime: null }];
      h.store.update('', 'pods', { ...p, status: { ...p.status, conditions } }, { subresource: 'status' });
    };
    write('False');
    await h.at(4000);
    assert.deepEqual([ready().status, ready().message], ['False', `the status of pod readiness gate "${gate}" is not "True", but False`]);
    write('True');
    await h.at(5000);
    assert.equal(ready().status, 'True');
    assert.ok(
      h.pod('gated').status.conditions.some((c: any) => c.type === gate && c.status === 'True'),
      'the gate condition is kept',
    );
    assert.deepEqual(h.errors, []);
    h.kubelet.stop();
  });
});
