// PackedRows: a bucket's rows as columns. Every view read back is the one written (deepEqual), rows
// stay in name order, and rows as a real API server makes them are packed, not kept as objects.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { computeObjectView, makeView, type ObjectView } from '../../src/core/rows/objectView';
import { PackedRows } from '../../src/core/rows/packedRows';
import { MAX_ROW_STRINGS, NO_ROW_STRING, RowStrings } from '../../src/core/rows/rowStrings';
import { deepEqual } from '../../src/core/syncloop/equal';
import type { Pod } from '../../src/core/kube/objects/pod';

const NS = 'shop';
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function realPod(name: string, o: { rv?: number; status?: string; restarts?: number; deleting?: boolean; uid?: string } = {}): ObjectView {
  const pod: Pod = {
    kind: 'Pod',
    metadata: {
      name,
      namespace: NS,
      uid: o.uid ?? randomUUID(),
      resourceVersion: String(o.rv ?? 4_300_000_123),
      ...(o.deleting ? { deletionTimestamp: '2026-12-07T10:00:00Z' } : {}),
    },
    spec: { containers: [{ name: 'app', image: 'shop:1' }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [
        {
          name: 'app',
          ready: o.status === undefined,
          restartCount: o.restarts ?? 0,
          state: o.status ? { waiting: { reason: o.status } } : { running: {} },
        },
      ],
    },
  } as Pod;
  return computeObjectView(`${NS}/${name}`, pod, undefined);
}

/** Every row read back against the views written, and the order against a fresh sort. */
function assertHolds(rows: PackedRows, want: ReadonlyMap<string, ObjectView>): void {
  const names = [...want.keys()].sort(byName);
  assert.deepEqual(rows.sortedNames(), names);
  assert.equal(rows.size, names.length);
  for (let i = 0; i < names.length; i++) {
    const v = want.get(names[i]!)!;
    assert.ok(deepEqual(rows.viewAt(i), v), `row ${names[i]}: ${JSON.stringify(rows.viewAt(i))} != ${JSON.stringify(v)}`);
    assert.ok(rows.sameAt(i, v));
    assert.equal(rows.keyAt(i), v.key);
    assert.equal(rows.indexOf(names[i]!), i);
  }
}

describe('PackedRows', () => {
  it('holds puts, replaces and removes in name order, each view read back as written', () => {
    const rows = new PackedRows(`${NS}/`, NS, new RowStrings());
    const want = new Map<string, ObjectView>();
    for (const name of ['web-2', 'web-0', 'db-0', 'web-1']) {
      const v = realPod(name);
      assert.equal(rows.set(name, v), true, `${name} is new`);
      want.set(name, v);
    }
    assertHolds(rows, want);
    const crashed = realPod('web-0', { status: 'CrashLoopBackOff', restarts: 7, rv: 4_300_000_999 });
    assert.equal(rows.set('web-0', crashed), false, 'a replace is not new');
    want.set('web-0', crashed);
    assertHolds(rows, want);
    assert.equal(rows.viewAt(rows.indexOf('web-0')).status, 'CrashLoopBackOff');
    assert.equal(rows.remove('db-0'), true);
    assert.equal(rows.remove('db-0'), false, 'removing a name that is gone');
    want.delete('db-0');
    assertHolds(rows, want);
    assert.equal(rows.wholeRows, 0, 'real pods are packed, not kept as views');
  });

  it('sameAt is deepEqual: an equal view from elsewhere is the same, any changed column is not', () => {
    const rows = new PackedRows(`${NS}/`, NS, new RowStrings());
    const uid = randomUUID();
    const v = realPod('api-0', { uid, rv: 17 });
    rows.set('api-0', v);
    assert.ok(rows.sameAt(0, { ...v }), 'a copy');
    assert.ok(rows.sameAt(0, realPod('api-0', { uid, rv: 17 })), 'the view computed again');
    const changes: Partial<ObjectView>[] = [
      { resourceVersion: '18' },
      { resourceVersion: undefined },
      { uid: randomUUID() },
      { status: 'Error' },
      { status: 'Never-seen-before' },
      { ready: '0/1' },
      { ready: undefined },
      { restarts: 1 },
      { phase: 'Failed' },
      { deleting: true },
      { kind: 'Deployment' },
      { namespace: undefined },
      { probes: { app: { readiness: 'Failure' } } },
    ];
    for (const c of changes) assert.equal(rows.sameAt(0, { ...v, ...c }), false, JSON.stringify(c));
  });

  it('keeps a view the columns cannot hold exactly whole, and reads it back the same', () => {
    const rows = new PackedRows('configmaps:kube-system/', 'kube-system', new RowStrings());
    const odd: ObjectView[] = [
      makeView('configmaps:kube-system/a', { uid: 'not-a-uuid', name: 'a', namespace: 'kube-system', resourceVersion: '12' }, 'ConfigMap', 'Active'),
      makeView('configmaps:kube-system/b', { uid: randomUUID().toUpperCase(), name: 'b', namespace: 'kube-system' }, 'ConfigMap', 'Active'),
      makeView('configmaps:kube-system/c', { uid: randomUUID(), name: 'c', namespace: 'kube-system', resourceVersion: '007' }, 'ConfigMap', 'Active'),
      makeView(
        'configmaps:kube-system/d',
        { uid: randomUUID(), name: 'd', namespace: 'kube-system', resourceVersion: '12345678901234567890' },
        'ConfigMap',
        'Active',
      ),
      makeView('elsewhere/e', { uid: randomUUID(), name: 'e', namespace: 'kube-system' }, 'ConfigMap', 'Active'),
      makeView('configmaps:kube-system/f', { uid: randomUUID(), name: 'f', namespace: 'default' }, 'ConfigMap', 'Active'),
      {
        ...makeView('configmaps:kube-system/g', { uid: randomUUID(), name: 'g', namespace: 'kube-system' }, 'Pod', 'Running'),
        probes: { c: { liveness: 'Success' } },
      },
    ];
    const want = new Map(odd.map((v) => [v.name, v]));
    for (const v of odd) rows.set(v.name, v);
    assertHolds(rows, want);
    assert.equal(rows.wholeRows, odd.length);
    // Packed again once the view fits: the whole one is let go.
    const plain = makeView(
      'configmaps:kube-system/a',
      { uid: randomUUID(), name: 'a', namespace: 'kube-system', resourceVersion: '13' },
      'ConfigMap',
      'Active',
    );
    rows.set('a', plain);
    want.set('a', plain);
    assertHolds(rows, want);
    assert.equal(rows.wholeRows, odd.length - 1);
    rows.remove('g');
    assert.equal(rows.wholeRows, odd.length - 2, 'a removed whole row is let go');
  });

  it('replaceAll sorts once, keeps the last view of a name given twice, and forgets the rows before', () => {
    const rows = new PackedRows(`${NS}/`, NS, new RowStrings());
    rows.set('old', realPod('old'));
    const first = realPod('b');
    const last = realPod('b', { status: 'ImagePullBackOff' });
    const a = realPod('a');
    rows.replaceAll(['b', 'a', 'b'], [first, a, last]);
    assertHolds(
      rows,
      new Map([
        ['a', a],
        ['b', last],
      ]),
    );
  });

  it('holds 100,000 rows packed, in order, through inserts and removes in the middle', () => {
    const rows = new PackedRows(`${NS}/`, NS, new RowStrings());
    const n = 100_000;
    const names = Array.from({ length: n }, (_, i) => `pod-${String((i * 7919) % n).padStart(6, '0')}`);
    // As computeObjectView makes them (realPod, one in a thousand), without computing each.
    const view = (name: string, i: number) =>
      i % 1000 === 0
        ? realPod(name, { rv: i, restarts: i % 5, status: 'CrashLoopBackOff' })
        : makeView(`${NS}/${name}`, { uid: randomUUID(), name, namespace: NS, resourceVersion: String(i) }, 'Pod', 'Running', {
            phase: 'Running',
            ready: '1/1',
            restarts: i % 5,
          });
    rows.replaceAll(names, names.map(view));
    assert.equal(rows.size, n);
    assert.equal(rows.wholeRows, 0);
    const mid = realPod('pod-050000x');
    rows.set('pod-050000x', mid);
    rows.remove('pod-000001');
    const sorted = rows.sortedNames();
    for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i - 1]! < sorted[i]!, `order at ${i}`);
    const at = rows.indexOf('pod-050000x');
    assert.equal(sorted[at - 1], 'pod-050000');
    assert.ok(deepEqual(rows.viewAt(at), mid));
    assert.equal(rows.indexOf('pod-000001'), -1);
    assert.equal(rows.viewAt(rows.indexOf(names[2000]!)).status, 'CrashLoopBackOff');
    assert.equal(rows.viewAt(rows.indexOf(names[2001]!)).restarts, 2001 % 5);
  });

  it('stays equal to a map of the views written through any sequence of writes and removes (property)', () => {
    const name = fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,5}[a-z0-9])?$/);
    const view = (n: string) =>
      fc
        .record({
          uuid: fc.boolean(),
          rv: fc.option(fc.oneof(fc.nat().map(String), fc.constantFrom('0', '01', 'x1', '9007199254740993')), { nil: undefined }),
          status: fc.constantFrom('Running', 'Pending', 'Init:0/1', 'Terminating'),
          phase: fc.option(fc.constantFrom('Running', 'Pending'), { nil: undefined }),
          ready: fc.option(fc.constantFrom('0/1', '1/1', '2/3'), { nil: undefined }),
          restarts: fc.option(fc.oneof(fc.nat(10), fc.constant(1.5)), { nil: undefined }),
          deleting: fc.boolean(),
          namespaced: fc.boolean(),
          probes: fc.boolean(),
        })
        .map((o) => {
          const m = {
            uid: o.uuid ? randomUUID() : `uid-${n}`,
            name: n,
            ...(o.namespaced ? { namespace: NS } : {}),
            ...(o.rv !== undefined ? { resourceVersion: o.rv } : {}),
          };
          const v = makeView(`${NS}/${n}`, { ...m, ...(o.deleting ? { deletionTimestamp: 'now' } : {}) }, 'Pod', o.status, o);
          if (o.probes) v.probes = { app: { readiness: 'Success' } };
          return v;
        });
    const op = fc.oneof(
      name.chain((n) => view(n).map((v) => ({ kind: 'set' as const, name: n, view: v }))),
      name.map((n) => ({ kind: 'remove' as const, name: n })),
      fc.array(name, { maxLength: 8 }).chain((ns) => fc.tuple(...ns.map((n) => view(n))).map((vs) => ({ kind: 'replace' as const, names: ns, views: vs }))),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const rows = new PackedRows(`${NS}/`, NS, new RowStrings());
        const want = new Map<string, ObjectView>();
        for (const o of ops) {
          if (o.kind === 'set') {
            assert.equal(rows.set(o.name, o.view), !want.has(o.name));
            want.set(o.name, o.view);
          } else if (o.kind === 'remove') {
            assert.equal(rows.remove(o.name), want.delete(o.name));
          } else {
            rows.replaceAll(o.names, o.views);
            want.clear();
            o.names.forEach((n, k) => want.set(n, o.views[k]!));
          }
          assertHolds(rows, want);
          // sameAt against another row's view: true exactly when the two are deepEqual
          const names = [...want.keys()].sort(byName);
          if (names.length > 1) assert.equal(rows.sameAt(0, want.get(names[1]!)!), deepEqual(want.get(names[0]!), want.get(names[1]!)));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('RowStrings', () => {
  it('gives each string one id, and past its bound none: such a row is kept whole, still exact', () => {
    const strings = new RowStrings();
    assert.equal(strings.idOf('Running'), strings.idOf('Running'));
    assert.equal(strings.valueOf(strings.idOf('Pending')), 'Pending');
    while (strings.size < MAX_ROW_STRINGS) strings.idOf(`s${strings.size}`);
    assert.equal(strings.idOf('one too many'), NO_ROW_STRING);
    assert.equal(strings.valueOf(strings.idOf('Running')), 'Running', 'ids given before stay valid');
    const rows = new PackedRows(`${NS}/`, NS, strings);
    const v = realPod('p', { status: 'a reason never seen' });
    rows.set('p', v);
    assert.equal(rows.wholeRows, 1);
    assert.ok(deepEqual(rows.viewAt(0), v));
  });
});
