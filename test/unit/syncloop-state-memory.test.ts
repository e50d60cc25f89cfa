import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { ActualStateOfWorld } from '../../src/core/syncloop/state/actual';
import { DesiredStateOfWorld } from '../../src/core/syncloop/state/desired';
import { deepEqual } from '../../src/core/syncloop/equal';
import { computeObjectView, type ObjectView } from '../../src/core/rows/objectView';
import { objectKey, type ResourceRef } from '../../src/core/kube/objects/objectKey';
import type { StoredObject } from '../../src/core/kube/objects/types';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const CONFIGMAPS: ResourceRef = { group: '', resource: 'configmaps' };
const NODES: ResourceRef = { group: '', resource: 'nodes' };
const uid = (i: number) => `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;

function configMap(i: number, rv: number, deleting = false): StoredObject {
  return {
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: `ns-${i % 3}`, uid: uid(i), resourceVersion: String(rv), ...(deleting ? { deletionTimestamp: 'x' } : {}) },
  };
}

/** Sets N views (in a frame of its own, so none stays in the caller's); returns copies of them and weak references to them. */
function fill(actual: ActualStateOfWorld, N: number): { expected: ObjectView[]; refs: WeakRef<ObjectView>[] } {
  const expected: ObjectView[] = [];
  const refs: WeakRef<ObjectView>[] = [];
  for (let i = 0; i < N; i++) {
    const obj = configMap(i, 100 + i);
    const v = computeObjectView(objectKey(obj, CONFIGMAPS), obj, CONFIGMAPS);
    expected.push({ ...v });
    refs.push(new WeakRef(v));
    actual.set(v);
  }
  return { expected, refs };
}

describe('actualStateOfWorld keeps rows, not views', () => {
  it('holds no view object per key: the views it was given are collected, and what it answers equals them', async () => {
    const actual = new ActualStateOfWorld();
    const N = 2000;
    const { expected, refs } = fill(actual, N);
    // WeakRefs made in this job hold their targets until it ends.
    await new Promise<void>((r) => setImmediate(r));
    gc();
    const kept = refs.filter((r) => r.deref() !== undefined).length;
    assert.equal(kept, 0, `${kept} of ${N} views are still held by the state`);
    assert.equal(actual.wholeViews, 0);
    for (const v of expected) assert.ok(deepEqual(actual.get(v.key), v), `${v.key} reads back as it was set`);
  });

  it('keeps whole what the words cannot hold (probe results, a uid that is no UUID, a key of another form)', () => {
    const actual = new ActualStateOfWorld();
    const base = computeObjectView(objectKey(configMap(1, 5), CONFIGMAPS), configMap(1, 5), CONFIGMAPS);
    const odd: ObjectView[] = [
      { ...base, key: 'k1', uid: 'not-a-uuid' },
      { ...base, key: 'k2', name: 'k2', probes: { c: { readiness: 'Success' } } },
      { ...base, key: 'somewhere/else', name: 'other' },
      { ...base, key: 'k4', name: 'k4', resourceVersion: 'abc' },
    ];
    for (const v of odd) actual.set(v);
    assert.equal(actual.wholeViews, odd.length);
    for (const v of odd) assert.ok(deepEqual(actual.get(v.key), v));
  });

  it('property: set, delete and the changes heard are those of a Map of views', () => {
    const op = fc.record({
      i: fc.integer({ min: 0, max: 5 }),
      kind: fc.constantFrom('set', 'set', 'set', 'delete', 'deleteOtherUid'),
      rv: fc.integer({ min: 1, max: 4 }),
      gen: fc.integer({ min: 0, max: 1 }),
      deleting: fc.boolean(),
      node: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const actual = new ActualStateOfWorld();
        const model = new Map<string, ObjectView>();
        const heard: [string, ObjectView | undefined, ObjectView | undefined][] = [];
        actual.subscribe((k, o, n) => heard.push([k, o, n]));
        for (const o of ops) {
          const r = o.node ? NODES : CONFIGMAPS;
          const obj = configMap(o.i + 16 * o.gen, o.rv, o.deleting);
          if (o.node) delete obj.metadata.namespace;
          obj.metadata.name = `x-${o.i}`;
          const key = objectKey(obj, r);
          const before = heard.length;
          const old = model.get(key);
          if (o.kind === 'set') {
            const v = computeObjectView(key, obj, r);
            const changed = actual.set(v);
            assert.equal(changed, !old || !deepEqual(old, v));
            if (changed) {
              model.set(key, v);
              assert.ok(deepEqual(heard.at(-1), [key, old, v]));
            }
          } else {
            const u = o.kind === 'delete' ? old?.uid : 'ffffffff-0000-4000-8000-000000000000';
            const removed = actual.delete(key, u);
            assert.equal(removed, old !== undefined && old.uid === u);
            if (removed) {
              model.delete(key);
              assert.ok(deepEqual(heard.at(-1), [key, old, undefined]));
            }
          }
          assert.ok(heard.length - before <= 1, 'one change heard at most');
          assert.equal(actual.size, model.size);
          for (const [k, v] of model) assert.ok(deepEqual(actual.get(k), v));
          assert.deepEqual([...actual.keys()].sort(), [...model.keys()].sort());
        }
      }),
    );
  });
});

describe('desiredStateOfWorld indexes UIDs of pods only', () => {
  it('a non-pod object takes no UID index entry; a pod is found by its UID', () => {
    const desired = new DesiredStateOfWorld();
    for (let i = 0; i < 100; i++) {
      const obj = configMap(i, 1);
      desired.set({ key: objectKey(obj, CONFIGMAPS), obj, resource: CONFIGMAPS, source: 'api:configmaps' });
    }
    const pod: StoredObject = { metadata: { name: 'p', namespace: 'ns', uid: 'pod-uid', resourceVersion: '1' } };
    desired.set({ key: 'ns/p', obj: pod, source: 'api' });
    assert.equal(desired.uidIndexSize, 1);
    assert.equal(desired.getByUID('pod-uid')?.key, 'ns/p');
    assert.equal(desired.getByUID(uid(3)), undefined);
    assert.equal(desired.get(objectKey(configMap(3, 1), CONFIGMAPS))?.obj.metadata.uid, uid(3));
    desired.remove('ns/p', 'pod-uid');
    assert.equal(desired.uidIndexSize, 0);
  });
});
