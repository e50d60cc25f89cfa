/**
 * Two sync loops that watched the same cluster agree: the same rows (every desired object's view,
 * as the tree shows it), the same actual state, and the same observations (what the informer side
 * made of each event, per key, in order). Used to hold protobuf to JSON on the demo cluster and on
 * a real kube-apiserver. Rows and actual state may lag a moment behind the keys: each is waited
 * for, then asserted, so a difference fails with the diff.
 */
import assert from 'node:assert/strict';
import type { StoredObject } from '../../src/core/kube/objects/types';
import { computeObjectView } from '../../src/core/rows/objectView';
import type { SyncIterationEvent } from '../../src/core/timeline/events';
import { eventually } from './eventually';
import type { RunningSync } from './syncLoop';

const rows = (s: RunningSync) =>
  [...s.sync.desiredObjects()]
    .map((d) => d.key)
    .sort()
    .map((k) => {
      const e = s.sync.desired(k)!;
      return computeObjectView(k, e.obj as StoredObject, e.resource);
    });

const actual = (s: RunningSync) => [...s.sync.views()].sort((x, y) => (x.key < y.key ? -1 : 1));

const observed = (s: RunningSync) => {
  const byKey = new Map<string, string[]>();
  for (const e of s.timeline.toArray() as SyncIterationEvent[]) {
    if (e.kind !== 'iteration' || (e.source !== 'config' && e.source !== 'informer') || !e.key) continue;
    byKey.set(e.key, [...(byKey.get(e.key) ?? []), e.op]);
  }
  return [...byKey.entries()].sort(([x], [y]) => (x < y ? -1 : 1));
};

export async function assertLoopsAgree(a: RunningSync, b: RunningSync): Promise<void> {
  await eventually(() => JSON.stringify(rows(a)) === JSON.stringify(rows(b)), { description: 'the same rows', timeoutMs: 60_000 }).catch(() => {});
  assert.deepStrictEqual(rows(a), rows(b));
  await eventually(() => JSON.stringify(actual(a)) === JSON.stringify(actual(b)), { description: 'the same actual state', timeoutMs: 60_000 }).catch(() => {});
  assert.deepStrictEqual(actual(a), actual(b));
  assert.ok(observed(a).length > 0, 'the loop observed the churn');
  assert.deepStrictEqual(observed(a), observed(b));
}
