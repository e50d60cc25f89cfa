/**
 * The I/O thread's Table trim (ioTable.ts): exactly rows[i].object.metadata.managedFields is cut
 * from a Table page, whatever its neighbours, spacing and strings hold; everything else is the
 * server's bytes, and a page the scan cannot read is left whole.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { tableTrimmer } from '../../src/core/kube/transport/ioTable';

const { cut } = tableTrimmer();

/** The page trimmed, parsed; and the bytes left. */
function trimmed(text: string): { parsed: unknown; text: string } {
  const b = Buffer.from(text, 'utf8');
  const n = cut(b, b.length);
  const out = b.toString('utf8', 0, n);
  return { parsed: JSON.parse(out), text: out };
}

/** What the page means once every row's managedFields are deleted (what list.ts keeps of it). */
function expected(page: { rows?: { object?: { metadata?: Record<string, unknown> } }[] }): unknown {
  const copy = JSON.parse(JSON.stringify(page)) as typeof page; // what JSON makes of it (-0 is 0)
  for (const r of copy.rows ?? []) if (Array.isArray(r.object?.metadata?.managedFields)) delete r.object.metadata.managedFields;
  return copy;
}

const MANAGED = [
  { manager: 'kubelet', operation: 'Update', subresource: 'status', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'k:{"type":"Ready"}': { '.': {} } } } },
  { manager: 'kube-controller-manager', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app]': {} } } } },
];

function table(rows: unknown[]): Record<string, unknown> {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: '12', continue: 'tok' },
    columnDefinitions: [{ name: 'Name', type: 'string', format: 'name', description: 'a "managedFields": [ in a description', priority: 0 }],
    rows,
  };
}

function row(metadata: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { cells: ['a', 1, true], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata, ...extra } };
}

describe('the I/O thread cuts managedFields from Table rows', () => {
  it('as the first, a middle, the last and the only member; compact and pretty JSON alike', () => {
    const page = table([
      row({ managedFields: MANAGED, name: 'first', uid: 'u1' }),
      row({ name: 'middle', managedFields: MANAGED, uid: 'u2' }),
      row({ name: 'last', uid: 'u3', managedFields: MANAGED }),
      row({ managedFields: MANAGED }),
      row({ name: 'none' }),
    ]);
    for (const text of [JSON.stringify(page), JSON.stringify(page, null, 2), JSON.stringify(page, null, '\t')]) {
      const t = trimmed(text);
      assert.deepEqual(t.parsed, expected(page));
      assert.ok(!t.text.includes('kube-controller-manager'), 'every row cut');
    }
  });

  it('leaves every other managedFields: a label or annotation of that name, a field of the object outside metadata, the list metadata, a cell', () => {
    const page = table([
      row({ name: 'a', labels: { managedFields: 'x' }, annotations: { managedFields: '[1]' }, managedFields: MANAGED }, { spec: { managedFields: [1, 2] } }),
      { cells: [{ managedFields: [1] }], object: { metadata: { name: 'b' } } },
    ]);
    (page.metadata as Record<string, unknown>).managedFields = [{ x: 1 }];
    const t = trimmed(JSON.stringify(page));
    assert.deepEqual(t.parsed, expected(page));
    const rows = (t.parsed as { rows: { object: { spec?: unknown; metadata: Record<string, unknown> } }[] }).rows;
    assert.deepEqual(rows[0]!.object.spec, { managedFields: [1, 2] });
    assert.deepEqual(rows[0]!.object.metadata.labels, { managedFields: 'x' });
  });

  it('a plain list (items, not rows) and a page with nothing to cut are the same bytes', () => {
    const list = JSON.stringify({ kind: 'PodList', items: [{ metadata: { name: 'p', managedFields: MANAGED } }] });
    const b = Buffer.from(list);
    assert.equal(cut(b, b.length), b.length);
    assert.equal(b.toString(), list);
    const none = JSON.stringify(table([row({ name: 'x' })]));
    assert.equal(trimmed(none).text, none);
  });

  it('a page the scan cannot read is left whole for the parsing thread to refuse', () => {
    for (const bad of [
      '{"kind":"Table","rows":[{"object":{"metadata":{"managedFields":[{"a":"unclosed}]}}]}',
      '{"kind":"Table","rows":[{"object":{"metadata":{"managedFields":[[[]}}]}',
      '{"kind":"Table","rows":[{"object":{"metadata":{"managedFields":[]}}]}}}',
      // a row cut, then bytes that end the scan: nothing is cut
      '{"kind":"Table","rows":[{"object":{"metadata":{"name":"a","managedFields":[{"m":1}]}}},{"object":{"metadata":{"name":"b}}]}',
      '{"kind":"Table","rows":[{"object":{"metadata":{"name":"a","managedFields":[{"m":1}]}}},{"object":{"metadata":{"name":"b"}}]',
    ]) {
      const b = Buffer.from(bad);
      assert.equal(cut(b, b.length), b.length, bad);
      assert.equal(b.toString(), bad);
    }
  });

  it('property: any rows, any strings (escapes, brackets, quotes, non-ASCII): the parse equals the parse with managedFields deleted', () => {
    const meta = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 });
    const managed = fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 3 });
    const aRow = fc.record({
      metadata: meta,
      managedFields: fc.option(managed),
      at: fc.nat(4),
      spaced: fc.boolean(),
      other: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
    });
    fc.assert(
      fc.property(fc.array(aRow, { maxLength: 5 }), fc.boolean(), (rows, pretty) => {
        const built = rows.map((r) => {
          const entries = Object.entries(r.metadata).filter(([k]) => k !== 'managedFields');
          if (r.managedFields !== null) entries.splice(Math.min(r.at, entries.length), 0, ['managedFields', r.managedFields]);
          return row(Object.fromEntries(entries), r.other);
        });
        const page = table(built);
        const t = trimmed(JSON.stringify(page, null, pretty ? 1 : undefined));
        assert.deepEqual(t.parsed, expected(page));
      }),
      { numRuns: 300 },
    );
  });
});
