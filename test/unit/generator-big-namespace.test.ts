// The generator's big namespace (--big-namespace NS:P): one namespace with P pods inside the N
// objects, deterministic, the rest of the cluster planned from what is left.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { ObjectStore } from '../../src/demo/store';
import { Catalog } from '../../src/demo/server/catalog';
import { generateObjects } from '../../src/demo/generator';

function cluster(objects: number, pods: number) {
  const store = new ObjectStore();
  new Catalog(store).registerBuiltins();
  const res = generateObjects(store, { objects, seed: 11, bigNamespace: { name: 'big', pods } });
  return { store, res };
}

it('puts P bare Running pods in one more namespace, within exactly N objects, the same for the same seed', () => {
  const a = cluster(6000, 2500);
  assert.equal(a.res.objects, 6000);
  let stored = 0;
  for (const t of a.store.types()) if (t.verbs.includes('list')) stored += a.store.count(t.group, t.resource);
  assert.ok(stored >= 6000, `${stored} objects in the store (the system namespaces come on top)`);
  const big = a.store.list('', 'pods').items.filter((p) => p.metadata.namespace === 'big');
  assert.equal(big.length, 2500);
  assert.equal(new Set(big.map((p) => p.metadata.name)).size, 2500);
  assert.ok(big.every((p) => (p.status as { phase?: string }).phase === 'Running' && !p.metadata.ownerReferences));
  assert.ok(a.store.get('', 'namespaces', undefined, 'big'), 'the namespace object exists');
  assert.ok(!a.res.namespaces.includes('big'), 'the spread namespaces are others');
  // Other namespaces still get pods and the other types.
  assert.ok(a.store.list('', 'pods').items.some((p) => p.metadata.namespace !== 'big'));
  assert.ok(a.store.count('', 'configmaps') > 0);
  const b = cluster(6000, 2500);
  assert.deepEqual(
    b.store
      .list('', 'pods')
      .items.filter((p) => p.metadata.namespace === 'big')
      .map((p) => [p.metadata.name, p.status]),
    big.map((p) => [p.metadata.name, p.status]),
  );
});

it('never makes more pods than the N objects leave room for', () => {
  const { res, store } = cluster(50, 1000);
  assert.equal(res.objects, 50);
  assert.equal(store.list('', 'pods').items.filter((p) => p.metadata.namespace === 'big').length, 47);
  assert.ok(store.count('', 'nodes') >= 1);
});
