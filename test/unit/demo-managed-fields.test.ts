/**
 * Server-side apply's managedFields entries in the demo (src/demo/server/managed-fields.ts) and a
 * Secret's write-only stringData (defaults.ts): pure functions, no server.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { withApplyEntry, withUpdateEntry } from '../../src/demo/server/managed-fields';
import { normalizeStored } from '../../src/demo/server/defaults';
import type { DemoObject } from '../../src/demo/store';

const cm = (meta: Partial<DemoObject['metadata']> = {}): DemoObject => ({
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

describe('managedFields for Update writes', () => {
  const w = (manager: string, time = '2026-01-01T00:00:00Z') => ({ manager, apiVersion: 'v1', time });
  const data = (o: DemoObject) => (o.metadata.managedFields as { manager: string; fieldsV1: unknown }[]).map((m) => [m.manager, m.fieldsV1]);

  it("a create gives its manager every field it set, a new map's node marked with '.'", () => {
    const o = withUpdateEntry(undefined, { ...cm({ labels: { a: '1' } }), data: { k: 'v' } }, w('kubectl-create'), false);
    assert.deepEqual(o.metadata.managedFields, [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2026-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:k': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } },
      },
    ]);
  });
  it('a change by another manager moves the field to it; the first keeps the rest; an emptied entry goes', () => {
    const v1 = withUpdateEntry(undefined, { ...cm(), data: { k: 'v', j: 'w' } }, w('a'), false);
    const v2 = withUpdateEntry(v1, { ...v1, data: { k: 'changed', j: 'w' } }, w('b'), false);
    assert.deepEqual(data(v2), [
      ['a', { 'f:data': { '.': {}, 'f:j': {} } }],
      ['b', { 'f:data': { 'f:k': {} } }],
    ]);
    const v3 = withUpdateEntry(v2, { ...v2, data: { k: 'changed', j: 'again' } }, w('b', '2026-01-02T00:00:00Z'), false);
    assert.deepEqual(data(v3), [['b', { 'f:data': { 'f:j': {}, 'f:k': {} } }]]);
    assert.equal((v3.metadata.managedFields as { time: string }[])[0]!.time, '2026-01-02T00:00:00Z');
  });
  it('a write that changes nothing leaves the entries (and their times) as they were', () => {
    const v1 = withUpdateEntry(undefined, { ...cm(), data: { k: 'v' } }, w('a'), false);
    const v2 = withUpdateEntry(v1, { ...v1 }, w('a', '2026-02-02T00:00:00Z'), false);
    assert.deepEqual(v2.metadata.managedFields, v1.metadata.managedFields);
  });
  it('keys list items as upstream: containers by name, conditions by type, ownerReferences by uid', () => {
    const pod: DemoObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'a', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'u1', controller: true }] },
      spec: { containers: [{ name: 'c', image: 'x' }] },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const main = withUpdateEntry(undefined, pod, w('kube-controller-manager'), true);
    assert.deepEqual(data(main), [
      [
        'kube-controller-manager',
        {
          'f:metadata': { 'f:ownerReferences': { '.': {}, 'k:{"uid":"u1"}': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      ],
    ]);
    const status = withUpdateEntry(main, { ...main }, { ...w('kubelet'), subresource: 'status' }, true);
    assert.equal(status.metadata.managedFields!.length, 1, 'unchanged status: no entry');
    const next = withUpdateEntry(
      main,
      { ...main, status: { conditions: [{ type: 'Ready', status: 'False' }] } },
      { ...w('kubelet'), subresource: 'status' },
      true,
    );
    assert.deepEqual(data(next)[1], ['kubelet', { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { 'f:status': {} } } } }]);
  });
});

describe('managedFields of a write that sets no field', () => {
  it('a create of a bare object (the default ServiceAccount) leaves no entry', () => {
    const sa: DemoObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'a' } };
    assert.equal(
      withUpdateEntry(undefined, sa, { manager: 'kube-controller-manager', apiVersion: 'v1', time: '2026-01-01T00:00:00Z' }, false).metadata.managedFields,
      undefined,
    );
  });
});
