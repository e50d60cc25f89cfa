// Issue 44's figure: owners and owned of an object at 100k objects in at most 50 ms. The objects are
// the demo generator's 100,000 (its ownerReferences: Deployments -> ReplicaSets -> Pods, CronJobs ->
// Jobs -> Pods, StatefulSets, DaemonSets, ...; test/support/demoOwnerGraph.ts), in the owner index;
// and the widest tree a query can meet, one owner of 100,000 ConfigMaps. Each query's median of 21
// runs is held to the budget (a single run can meet a major GC of the generator's garbage on a
// loaded machine; the median cannot be many of them).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OwnerIndex, QUERY_LIMIT } from '../../src/core/relations/ownerIndex';
import { demoOwners, indexOf } from '../support/demoOwnerGraph';

const BUDGET_MS = 50;

function medianMs(fn: () => unknown): number {
  const d: number[] = [];
  for (let i = 0; i < 21; i++) {
    const t = performance.now();
    fn();
    d.push(performance.now() - t);
  }
  return d.sort((a, b) => a - b)[10]!;
}

describe('owner index at 100k objects', () => {
  it('answers owners and owned of the demo cluster objects within 50 ms', () => {
    const demo = demoOwners(100_000);
    const index = indexOf(demo.items);
    assert.ok(index.size > 99_000, `${index.size} objects`);
    const up = index.ownersOf(demo.ownedPod)!;
    assert.ok(up.children.length > 0, 'the pod has an owner');
    const down = index.dependentsOf(demo.widestOwner)!;
    assert.ok(down.children.length > 50, `the widest owner has ${down.children.length} dependents`);
    const owners = medianMs(() => index.ownersOf(demo.ownedPod));
    const dependents = medianMs(() => index.dependentsOf(demo.widestOwner));
    assert.ok(owners <= BUDGET_MS, `owners: ${owners.toFixed(2)} ms`);
    assert.ok(dependents <= BUDGET_MS, `dependents: ${dependents.toFixed(2)} ms`);
  });

  it('answers one owner of 100,000 objects within 50 ms, showing QUERY_LIMIT nodes and counting the rest', () => {
    const index = new OwnerIndex();
    index.upsert({ metadata: { uid: 'root', name: 'root', namespace: 'ns' } }, 'widgets.example.com', 'Widget');
    const ref = [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'root', uid: 'root', controller: true }];
    for (let i = 0; i < 100_000; i++)
      index.upsert({ metadata: { uid: `u${i}`, name: `cm-${i}`, namespace: 'ns', ownerReferences: ref } }, 'configmaps', 'ConfigMap');
    const t = index.dependentsOf('root')!;
    assert.equal(t.children.length + (t.omitted ?? 0), 100_000);
    assert.equal(t.children.length, QUERY_LIMIT - 1);
    const ms = medianMs(() => index.dependentsOf('root'));
    assert.ok(ms <= BUDGET_MS, `dependents: ${ms.toFixed(2)} ms`);
    const up = medianMs(() => index.ownersOf('u99999'));
    assert.ok(up <= BUDGET_MS, `owners: ${up.toFixed(2)} ms`);
  });
});
