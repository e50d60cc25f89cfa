// The model over packed rows: rows as a real API server sends them (UUIDs, integer resourceVersions)
// are held as columns, read back as the views they were, compared without being made again, and
// the tree makes a view only for the rows VS Code is given.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { computeObjectView } from '../../src/core/rows/objectView';
import { PackedRows } from '../../src/core/rows/packedRows';
import type { StoredObject } from '../../src/core/kube/objects/types';
import { ResourceModel, type ModelChange } from '../../src/app/model/resourceModel';
import { TreeModel } from '../../src/app/tree/treeModel';
import { obj, pod, result, task } from './vscode-fixtures';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const NODES = { group: '', version: 'v1', resource: 'nodes' };
const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };

let rv = 4_300_000_000;
/** A fixture as kube-apiserver would send it: a UUID and an etcd revision. */
function real<T extends StoredObject>(o: T): T {
  o.metadata.uid = randomUUID();
  o.metadata.resourceVersion = String(++rv);
  return o;
}

function bigModel(n: number): ResourceModel {
  const m = new ResourceModel();
  m.reset('ctx');
  const pods = Array.from({ length: n }, (_, i) => real(pod('big', `p-${String(i).padStart(5, '0')}`, i % 10 === 0 ? 'Pending' : 'Running', i % 10 !== 0)));
  m.applyResult(result(task(PODS, 'Pod', true), pods));
  m.applyResult(result(task(NODES, 'Node', false), [real(obj('Node', 'node-1'))]));
  m.applyResult(result(task(NAMESPACES, 'Namespace', false), [real(obj('Namespace', 'big'))]));
  return m;
}

/** How many views the rows make while `f` runs (the rows' own method, counted). */
function viewsMadeBy(f: () => void): number {
  const viewAt = PackedRows.prototype.viewAt;
  let n = 0;
  PackedRows.prototype.viewAt = function (this: PackedRows, i: number) {
    n++;
    return viewAt.call(this, i);
  };
  try {
    f();
  } finally {
    PackedRows.prototype.viewAt = viewAt;
  }
  return n;
}

describe('ResourceModel over packed rows', () => {
  it('holds real rows as columns and reads back the views the loader made', () => {
    const m = new ResourceModel();
    m.reset('ctx');
    const pods = [real(pod('a', 'web-0')), real(pod('a', 'web-1', 'Pending', false)), real(pod('a', 'db-0', 'Running', true, 4))];
    m.applyResult(result(task(PODS, 'Pod', true), pods));
    m.applyResult(result(task(NODES, 'Node', false), [real(obj('Node', 'node-1'))]));
    for (const p of pods) {
      assert.deepEqual(m.object('a', 'pods', p.metadata.name)!.view, computeObjectView(`a/${p.metadata.name}`, p, PODS));
    }
    assert.deepEqual(m.object('', 'nodes', 'node-1')!.view.kind, 'Node');
    assert.equal(m.bucket('a', 'pods')!.wholeRows, 0, 'no row kept as an object');
    assert.equal(m.bucket('', 'nodes')!.wholeRows, 0);
  });

  it('announces nothing for an equal reload or an equal synced view, and one row for a changed one', () => {
    const m = new ResourceModel();
    m.reset('ctx');
    const pods = [real(pod('a', 'web-0')), real(pod('a', 'web-1'))];
    m.applyResult(result(task(PODS, 'Pod', true), pods));
    const changes: ModelChange[] = [];
    m.onChange((c) => changes.push(c));
    m.applyResult(result(task(PODS, 'Pod', true), structuredClone(pods)));
    assert.equal(m.applyView('a/web-0', computeObjectView('a/web-0', structuredClone(pods[0]!), PODS)), false);
    assert.deepEqual(changes, []);
    const crashed = structuredClone(pods[1]!);
    crashed.metadata.resourceVersion = String(++rv);
    assert.equal(m.applyView('a/web-1', computeObjectView('a/web-1', crashed, PODS)), true, 'a new resourceVersion is a change');
    assert.deepEqual(changes, [{ kind: 'object', namespace: 'a', typeKey: 'pods', name: 'web-1' }]);
    assert.equal(m.object('a', 'pods', 'web-1')!.view.resourceVersion, crashed.metadata.resourceVersion);
  });

  it('the tree makes views only for the page of rows VS Code is given, filtered or not', () => {
    const m = bigModel(10_000);
    const t = new TreeModel(m, 500);
    let made = viewsMadeBy(() => {
      const ctx = t.roots()[0]!;
      for (const ns of t.children(ctx)) t.item(ns);
    });
    assert.ok(made <= 2, `namespace rows: ${made} views`);
    const kind = t.children(t.children(t.children(t.roots()[0]!).find((n) => n.namespace === 'big')!)[0]!)[0]!;
    made = viewsMadeBy(() => {
      t.item(kind);
      for (const row of t.children(kind)) t.item(row);
    });
    assert.equal(made, 500, 'one view per row on the page, none for the other 9,500');
    t.setFilter('p-01');
    made = viewsMadeBy(() => {
      t.changed({ kind: 'reset' });
      const ctx = t.roots()[0]!;
      for (const ns of t.children(ctx)) for (const g of t.children(ns)) for (const k of t.children(g)) for (const row of t.children(k)) t.item(row);
    });
    assert.ok(made <= 500 + 2, `filtered: ${made} views for at most a page of matches`);
    // A status change of a row on the page is compared with what was drawn: its view only.
    t.setFilter('');
    made = viewsMadeBy(() => {
      assert.ok(m.applyView('big/p-00003', computeObjectView('big/p-00003', real(pod('big', 'p-00003', 'Pending', false)), PODS)));
    });
    assert.equal(made, 0, 'the model compares the new view with the packed row, without making the old one');
  });
});
