// A Table row (the demo's printers, through the same parsing the list path uses) gives the view the
// full object gives: pods in every state kubectl names, workloads' ready/desired, phases, deletion;
// metadata alone gives it for the types the rule loads as metadata; everything else stays full.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { computeObjectView, type ObjectView } from '../../src/core/rows/objectView';
import { METADATA_TYPES, TABLE_TYPES, podPhaseFromRow, restartCount, treeTransferFor, viewOfLoaded } from '../../src/core/rows/tableView';
import { TableColumnError, tableItems, tableRowOf } from '../../src/core/kube/listwatch/table';
import { objectKey } from '../../src/core/kube/objects/objectKey';
import type { StoredObject as SyncObject } from '../../src/core/kube/objects/types';
import { table, tableJson } from '../../src/demo/server/forms';
import { Catalog } from '../../src/demo/server/catalog';
import { DEFAULT_NOW, generateObjects } from '../../src/demo/generator';
import { ObjectStore, type DemoObject } from '../../src/demo/store';
import { PODS, pod, waiting } from '../support/pod-spread';

const NOW = new Date(DEFAULT_NOW);
const POD = { group: '', resource: 'pods' };

/** Full view and Table view of the same objects, through a JSON round trip as on the wire. */
function bothViews(group: string, resource: string, kind: string, objects: DemoObject[]): { full: ObjectView; fromTable: ObjectView }[] {
  const opts = { version: 'v1', includeObject: 'Metadata', now: NOW } as const;
  // the list path's text encoding, and the same document as the object form watches and GETs use
  const body = JSON.parse(tableJson(resource, group, objects, { resourceVersion: '1' }, opts)) as unknown;
  assert.deepEqual(body, JSON.parse(JSON.stringify(table(resource, group, objects, { resourceVersion: '1' }, opts))));
  const { items } = tableItems(body, undefined, `/${resource}`);
  const ref = { group, resource };
  return objects.map((o, i) => {
    const full = JSON.parse(JSON.stringify({ ...o, kind })) as SyncObject;
    const key = objectKey(full, ref);
    assert.ok(tableRowOf(items[i]!), 'each item carries its row');
    return { full: computeObjectView(key, full, ref), fromTable: viewOfLoaded(key, items[i] as SyncObject, ref, kind) };
  });
}

describe('Table row -> ObjectView', () => {
  it('a pod in every state kubectl names: the same view as from the full object', () => {
    for (const { full, fromTable } of bothViews('', 'pods', 'Pod', PODS)) assert.deepEqual(fromTable, full, full.name);
  });

  it('reads Restarts as kube-apiserver prints it: 3, "3" and "3 (5m ago)"', () => {
    assert.equal(restartCount(3), 3);
    assert.equal(restartCount('3'), 3);
    assert.equal(restartCount('12 (5m ago)'), 12);
    assert.equal(restartCount(undefined), 0);
    const [crash] = bothViews('', 'pods', 'Pod', [PODS.find((p) => p.metadata.name === 'crashloop')!]);
    assert.equal(crash!.fromTable.restarts, 7);
  });

  it("the one phase a row cannot tell: a deleting pod that never ran is taken as Running (the tree shows no pod's phase)", () => {
    const p = pod(
      'terminating-pending',
      {},
      { phase: 'Pending', containerStatuses: [waiting('a', 'ContainerCreating')] },
      { deletionTimestamp: '2026-01-01T01:00:00Z' },
    );
    const [{ full, fromTable }] = bothViews('', 'pods', 'Pod', [p]) as [{ full: ObjectView; fromTable: ObjectView }];
    assert.equal(full.phase, 'Pending');
    assert.equal(fromTable.phase, 'Running');
    assert.deepEqual({ ...fromTable, phase: undefined }, { ...full, phase: undefined });
    assert.equal(podPhaseFromRow('Terminating', 0, { cells: {} }, true), 'Running');
  });

  it("every generated object of a Table type (pods, workloads, namespaces, volumes): the full object's view", () => {
    const store = new ObjectStore({ now: () => NOW });
    const catalog = new Catalog(store);
    catalog.registerBuiltins();
    generateObjects(store, { objects: 4000, seed: 5 });
    let checked = 0;
    for (const id of Object.keys(TABLE_TYPES)) {
      const [group, resource] = id.split('/') as [string, string];
      const type = store.type(group, resource);
      assert.ok(type, id);
      const items = store.list(group, resource).items;
      // deletion on a copy of some: Terminating rows and phases hidden behind them
      const some = items.map((o, i) => (i % 7 === 3 ? { ...o, metadata: { ...o.metadata, deletionTimestamp: '2026-01-01T01:00:00Z' } } : o));
      for (const { full, fromTable } of bothViews(group, resource, type.kind, some)) {
        if (full.deleting && (resource === 'persistentvolumes' || resource === 'persistentvolumeclaims')) {
          // Status prints Terminating in place of the phase: the phase is left out, the row is the same.
          assert.deepEqual({ ...fromTable, phase: undefined }, { ...full, phase: undefined }, full.key);
          assert.equal(fromTable.phase, undefined);
        } else assert.deepEqual(fromTable, full, full.key);
        checked++;
      }
    }
    assert.ok(checked > 500, `${checked} objects checked`);
    for (const kind of ['Pod', 'Deployment', 'ReplicaSet', 'StatefulSet', 'Namespace', 'PersistentVolumeClaim']) {
      assert.ok(
        Object.keys(TABLE_TYPES).some(
          (id) => store.type(id.split('/')[0]!, id.split('/')[1]!)?.kind === kind && store.count(id.split('/')[0]!, id.split('/')[1]!) > 0,
        ),
        `generated some ${kind}`,
      );
    }
  });

  it('metadata alone gives the full view for every generated object of a METADATA_TYPES type', () => {
    const store = new ObjectStore({ now: () => NOW });
    new Catalog(store).registerBuiltins();
    generateObjects(store, { objects: 3000, seed: 9 });
    let checked = 0;
    for (const t of store.types()) {
      const id = `${t.group}/${t.resource}`;
      if (!METADATA_TYPES.has(id)) continue;
      const ref = { group: t.group, resource: t.resource };
      for (const o of store.list(t.group, t.resource).items) {
        const full = { ...o, kind: t.kind } as SyncObject;
        const key = objectKey(full, ref);
        assert.deepEqual(viewOfLoaded(key, { metadata: o.metadata } as SyncObject, ref, t.kind), computeObjectView(key, full, ref), key);
        checked++;
      }
    }
    assert.ok(checked > 500, `${checked} objects checked`);
  });

  it('the rule: Table for types whose printer shows the view, metadata for name-only rows, full for anything else', () => {
    assert.equal(treeTransferFor({ group: '', resource: 'pods' }), 'table');
    assert.equal(treeTransferFor({ group: 'apps', resource: 'replicasets' }), 'table');
    assert.equal(treeTransferFor({ group: '', resource: 'configmaps' }), 'metadata');
    assert.equal(treeTransferFor({ group: 'batch', resource: 'jobs' }), 'metadata');
    // custom resources may read status.phase / spec.replicas that their printer columns do not show
    assert.equal(treeTransferFor({ group: 'cert-manager.io', resource: 'certificates' }), 'full');
    assert.equal(treeTransferFor({ group: 'gateway.networking.k8s.io', resource: 'gateways' }), 'full');
    assert.equal(treeTransferFor({ group: 'apps.example.com', resource: 'deployments' }), 'full');
  });

  it('a Table without a column the rule reads is a TableColumnError naming it (the loader then lists full objects)', () => {
    const body = {
      kind: 'Table',
      columnDefinitions: [{ name: 'Name' }, { name: 'Age' }],
      rows: [{ cells: ['p', '1d'], object: { metadata: { name: 'p', uid: 'u' } } }],
    };
    const { items } = tableItems(body, undefined, '/api/v1/pods');
    assert.throws(
      () => viewOfLoaded('p', items[0] as SyncObject, POD, 'Pod'),
      (e: unknown) => e instanceof TableColumnError && /"Status"/.test(e.message),
    );
  });

  it('pages without columnDefinitions reuse the previous ones; rows without metadata are an error', () => {
    const first = tableItems({ kind: 'Table', columnDefinitions: [{ name: 'Name' }, { name: 'Status' }], rows: [] }, undefined, '/x');
    const next = tableItems({ kind: 'Table', rows: [{ cells: ['a', 'Bound'], object: { metadata: { name: 'a', uid: 'u' } } }] }, first.columns, '/x');
    assert.deepEqual(tableRowOf(next.items[0]!)?.cells, { Name: 'a', Status: 'Bound' });
    assert.throws(
      () => tableItems({ kind: 'Table', columnDefinitions: [{ name: 'Name' }], rows: [{ cells: ['a'] }] }, undefined, '/x'),
      /includeObject=Metadata/,
    );
  });
});
