// RowBatch, the load's writer: rows written from the page's fields (no view made) and taken into a
// bucket's PackedRows hold exactly what the views of the same items, packed, held. Checked over the
// demo's generated objects of every built-in type in each form the load reads them (Table rows,
// metadata, full objects), their metadata varied by fast-check (uids and resourceVersions the words
// cannot hold, missing namespaces, deletions, names out of order and repeated), into a string table
// that is not the batch's (ids translated) or one that is full (rows kept whole).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ObjectView } from '../../src/core/rows/objectView';
import { PackedRows } from '../../src/core/rows/packedRows';
import { RowBatch } from '../../src/core/rows/rowBatch';
import { MAX_ROW_STRINGS, RowStrings } from '../../src/core/rows/rowStrings';
import { METADATA_TYPES, rowOfLoaded, TABLE_TYPES, viewOfLoaded } from '../../src/core/rows/tableView';
import { tableItems } from '../../src/core/kube/listwatch/table';
import { objectKey } from '../../src/core/kube/objects/objectKey';
import type { KubeObject, StoredObject } from '../../src/core/kube/objects/types';
import { deepEqual } from '../../src/core/syncloop/equal';
import { tableJson } from '../../src/demo/server/forms';
import { Catalog } from '../../src/demo/server/catalog';
import { DEFAULT_NOW, generateObjects } from '../../src/demo/generator';
import { ObjectStore, type DemoObject, type TypeInfo } from '../../src/demo/store';
import type { LoadTask, LoadTaskResult } from '../../src/core/loader/types';
import { ResourceModel, viewTransform } from '../../src/app/model/resourceModel';

const NOW = new Date(DEFAULT_NOW);

/** The demo's objects of every type, once. */
const demo = (() => {
  const store = new ObjectStore({ now: () => NOW });
  new Catalog(store).registerBuiltins();
  generateObjects(store, { objects: 3000, seed: 11 });
  return store;
})();

type Form = 'table' | 'metadata' | 'full';

/** `objects` as the load receives them in `form` (Table rows through the wire's JSON). */
function itemsAs(t: TypeInfo, form: Form, objects: DemoObject[]): KubeObject[] {
  const wire = JSON.parse(JSON.stringify(objects)) as KubeObject[];
  if (form === 'full') return wire;
  if (form === 'metadata') return wire.map((o) => ({ metadata: o.metadata }));
  const body = JSON.parse(tableJson(t.resource, t.group, objects, { resourceVersion: '1' }, { version: 'v1', includeObject: 'Metadata', now: NOW })) as unknown;
  return tableItems(body, undefined, `/${t.resource}`).items;
}

/** Every form the load reads each generated type in (the tree's own rule and full objects). */
function cases(): { t: TypeInfo; form: Form }[] {
  const out: { t: TypeInfo; form: Form }[] = [];
  for (const t of demo.types()) {
    if (demo.count(t.group, t.resource) === 0) continue;
    const id = `${t.group}/${t.resource}`;
    out.push({ t, form: 'full' });
    if (id in TABLE_TYPES) out.push({ t, form: 'table' });
    if (METADATA_TYPES.has(id)) out.push({ t, form: 'metadata' });
  }
  return out;
}

const prefixOf = (t: TypeInfo, ns: string) => objectKey({ metadata: { name: '', uid: '', ...(t.namespaced ? { namespace: ns } : {}) } }, t);

/** A list's items by the bucket they go to (the model's rule), as (item, namespace) in list order. */
function bucketed(t: TypeInfo, items: readonly KubeObject[], taskNs: string | undefined): { obj: StoredObject; ns: string }[] {
  const out: { obj: StoredObject; ns: string }[] = [];
  for (const item of items) {
    const obj = item as StoredObject;
    if (!obj.metadata?.name || typeof obj.metadata.uid !== 'string') continue;
    const ns = t.namespaced ? (obj.metadata.namespace ?? taskNs ?? '') : '';
    if (t.namespaced && !ns) continue;
    out.push({ obj, ns });
  }
  return out;
}

/** The reference: each item's view (viewOfLoaded), packed by replaceAll; and the writer: rowOfLoaded into a batch, taken by replaceFrom. */
function bothWays(t: TypeInfo, items: readonly KubeObject[], taskNs: string | undefined, target: () => RowStrings): void {
  const ref = { group: t.group, resource: t.resource };
  const rows = bucketed(t, items, taskNs);
  const batch = new RowBatch(ref, t.namespaced);
  const views = new Map<string, { names: string[]; views: ObjectView[] }>();
  for (const { obj, ns } of rows) {
    let g = views.get(ns);
    if (!g) views.set(ns, (g = { names: [], views: [] }));
    g.names.push(obj.metadata.name);
    g.views.push(viewOfLoaded(objectKey(obj, ref), obj, ref, t.kind));
    rowOfLoaded(obj, ref, t.kind, batch.into(ns));
  }
  const groups = batch.groups();
  assert.deepEqual([...groups.keys()].sort(), [...views.keys()].sort());
  for (const [ns, g] of views) {
    const packed = new PackedRows(prefixOf(t, ns), t.namespaced ? ns : undefined, new RowStrings());
    packed.replaceAll(g.names, g.views);
    const written = new PackedRows(prefixOf(t, ns), t.namespaced ? ns : undefined, target());
    written.replaceFrom(batch, groups.get(ns)!);
    assert.deepEqual(written.sortedNames(), packed.sortedNames(), `${t.resource} in ${ns}: the same rows in the same order`);
    for (let i = 0; i < packed.size; i++) {
      const want = packed.viewAt(i);
      assert.ok(deepEqual(written.viewAt(i), want), `${want.key}: ${JSON.stringify(written.viewAt(i))} != ${JSON.stringify(want)}`);
      assert.equal(written.keyAt(i), packed.keyAt(i));
      assert.ok(written.sameAt(i, want));
    }
    // Each row of the batch is the view written last for its name.
    const last = new Map(g.names.map((n, k) => [n, g.views[k]!]));
    for (const r of groups.get(ns)!) {
      const v = last.get(batch.nameAt(r))!;
      const i = written.indexOf(v.name);
      if (deepEqual(batch.viewAt(r), v)) assert.ok(written.sameAsRow(i, batch, r) && packed.sameAsRow(i, batch, r), v.key);
      assert.ok(deepEqual(written.viewOfRow(batch, r), batch.viewAt(r)));
    }
    if (target().size < MAX_ROW_STRINGS) assert.equal(written.wholeRows, packed.wholeRows, `${t.resource} in ${ns}: kept whole alike`);
  }
}

const odd = fc.record({
  uid: fc.option(fc.constantFrom('not-a-uuid', 'ABCDEF01-2345-6789-ABCD-EF0123456789', ''), { nil: undefined, freq: 3 }),
  rv: fc.option(fc.constantFrom('0', '007', 'x1', '1234567890123456', '999999999999999', ''), { nil: undefined, freq: 3 }),
  dropRv: fc.boolean(),
  dropNs: fc.integer({ min: 0, max: 9 }),
  deleting: fc.integer({ min: 0, max: 5 }),
  rename: fc.option(fc.constantFrom('a', 'zz', 'same'), { nil: undefined, freq: 4 }),
});

describe('RowBatch (the load writes packed rows from its pages)', () => {
  it('holds, for every generated object of every type and form, what its view packed holds', () => {
    let n = 0;
    for (const { t, form } of cases()) {
      const items = itemsAs(t, form, demo.list(t.group, t.resource).items);
      bothWays(t, items, undefined, () => new RowStrings());
      n += items.length;
    }
    assert.ok(n > 3000, `${n} items`);
  });

  it('holds it over varied metadata, orders and repeats, into another table (fast-check)', () => {
    const all = cases();
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: all.length - 1 }),
        fc.array(odd, { maxLength: 40 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 1000 }),
        (c, edits, shuffle, seed) => {
          const { t, form } = all[c]!;
          const objects = demo
            .list(t.group, t.resource)
            .items.slice(0, 40)
            .map((o, k) => {
              const e = edits[k];
              if (!e) return o;
              const m: Record<string, unknown> = { ...o.metadata };
              if (e.uid !== undefined) m.uid = e.uid;
              if (e.rv !== undefined) m.resourceVersion = e.rv;
              if (e.dropRv) delete m.resourceVersion;
              if (e.dropNs === 0) delete m.namespace;
              if (e.deleting === 0) m.deletionTimestamp = '2026-01-01T00:00:00Z';
              if (e.rename !== undefined) m.name = e.rename;
              return { ...o, metadata: m } as DemoObject;
            });
          if (shuffle) objects.sort((a, b) => ((a.metadata.name.length * 31 + seed) % 7) - ((b.metadata.name.length * 31 + seed) % 7));
          // A table given other strings first: the batch's ids are not the bucket's.
          const target = new RowStrings();
          for (const s of ['Running', 'x', '1/1', t.kind, 'Active']) target.idOf(s);
          const taskNs = t.namespaced && seed % 2 === 0 ? 'ns-of-task' : undefined;
          bothWays(t, itemsAs(t, form, objects), taskNs, () => target);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps a row whole, the same view, when the bucket table is full', () => {
    const full = new RowStrings();
    for (let i = 0; full.size < MAX_ROW_STRINGS; i++) full.idOf(`s${i}`);
    const t = demo.type('', 'pods')!;
    bothWays(t, itemsAs(t, 'table', demo.list('', 'pods').items.slice(0, 50)), undefined, () => full);
  });
});

describe('viewTransform into the ResourceModel', () => {
  const task = (t: TypeInfo, id: number): LoadTask =>
    ({ id, gvr: { group: t.group, version: t.version, resource: t.resource }, kind: t.kind, namespaced: t.namespaced }) as LoadTask;
  const result = (tk: LoadTask, items: KubeObject[]): LoadTaskResult =>
    ({
      task: tk,
      outcome: 'ok',
      items,
      count: items.length,
      pages: 1,
      retries: 0,
      bytes: 0,
      startedAt: 0,
      durationMs: 0,
      worker: 0,
      fellBackToFullList: false,
    }) as LoadTaskResult;

  it('gives the model the rows the whole items give, and only the last try of a restarted list', () => {
    const whole = new ResourceModel();
    whole.reset('ctx');
    const slim = new ResourceModel();
    slim.reset('ctx');
    let id = 0;
    for (const { t, form } of cases()) {
      const items = itemsAs(t, form, demo.list(t.group, t.resource).items);
      const tk = task(t, ++id);
      whole.applyResult(result(tk, items));
      // A first try of the list whose rows the sink dropped when it started over.
      for (const o of itemsAs(
        t,
        form,
        demo
          .list(t.group, t.resource)
          .items.slice(0, 3)
          .map((o) => ({ ...o, metadata: { ...o.metadata, name: `gone-${o.metadata.name}` } })),
      ))
        viewTransform(o, tk);
      const kept = items.map((o) => viewTransform(o, tk)).filter((o) => o !== undefined);
      assert.ok(
        kept.every((o) => o === kept[0]),
        'one carrier per task, not an object per row',
      );
      slim.applyResult(result(tk, kept));
    }
    assert.equal(slim.objectCount, whole.objectCount);
    assert.ok(whole.objectCount > 2000, `${whole.objectCount} objects`);
    for (const ns of ['', ...whole.namespaces()]) {
      assert.deepEqual(
        slim
          .bucketsIn(ns)
          .map((b) => b.type.key)
          .sort(),
        whole
          .bucketsIn(ns)
          .map((b) => b.type.key)
          .sort(),
      );
      for (const b of whole.bucketsIn(ns)) {
        const s = slim.bucket(ns, b.type.key)!;
        assert.deepEqual(s.sortedNames(), b.sortedNames());
        for (const e of b.sortedObjects()) assert.ok(deepEqual(s.view(e.name), e.view), e.view.key);
        assert.equal(s.wholeRows, 0, 'rows as the demo makes them are packed');
      }
    }
  });
});
