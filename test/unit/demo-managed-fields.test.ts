/**
 * Server-side apply's managedFields entries in the demo (src/demo/server/managed-fields.ts) and a
 * Secret's write-only stringData (defaults.ts): pure functions, no server.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { withApplyEntry } from '../../src/demo/server/managed-fields';
import { normalizeStored } from '../../src/demo/server/defaults';
import type { KubeObject } from '../../src/demo/store';

const cm = (meta: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', namespace: 'a', ...meta },
});
const entry = { manager: 'm1', apiVersion: 'v1', time: '2026-01-01T00:00:00Z' };

describe('managedFields for server-side apply', () => {
  it('records what the applied configuration sets, without its identity fields', () => {
    const applied = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'a', labels: { x: 'y' } }, data: { k: 'v' } };
    const o = withApplyEntry(cm(), applied, entry);
    assert.deepEqual(o.metadata.managedFields, [
      { ...entry, operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:x': {} } }, 'f:data': { 'f:k': {} } } },
    ]);
  });
  it("replace the manager's own Apply entry and keep the others'", () => {
    const other = { manager: 'm2', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:z': {} } } };
    const old = { manager: 'm1', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:old': {} } } };
    const o = withApplyEntry(cm({ managedFields: [other, old] }), { data: { new: '1' } }, entry);
    assert.deepEqual(
      (o.metadata.managedFields as { manager: string; fieldsV1: unknown }[]).map((m) => [m.manager, m.fieldsV1]),
      [
        ['m2', { 'f:data': { 'f:z': {} } }],
        ['m1', { 'f:data': { 'f:new': {} } }],
      ],
    );
  });
  it('keep a status subresource entry apart from the main one', () => {
    const main = withApplyEntry(cm(), { data: { a: '1' } }, entry);
    const both = withApplyEntry(main, { status: { s: 1 } }, { ...entry, subresource: 'status' });
    assert.deepEqual(
      (both.metadata.managedFields as { subresource?: string }[]).map((m) => m.subresource ?? ''),
      ['', 'status'],
    );
  });
});

describe('Secret stringData', () => {
  const secrets = { group: '', resource: 'secrets' } as Parameters<typeof normalizeStored>[0];
  it('is merged into data (base64, overriding) and never stored', () => {
    const s = normalizeStored(secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { a: Buffer.from('old').toString('base64'), b: 'Yg==' },
      stringData: { a: 'new', c: 'ünï' },
    });
    assert.equal(s.stringData, undefined);
    assert.deepEqual(s.data, { a: Buffer.from('new').toString('base64'), b: 'Yg==', c: Buffer.from('ünï', 'utf8').toString('base64') });
  });
});
