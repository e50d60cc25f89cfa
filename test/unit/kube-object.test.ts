import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asStoredObject } from '../../src/core/kube';

test('asStoredObject keeps an object with a name and a uid, as the same reference', () => {
  const o = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { containers: [] } };
  assert.equal(asStoredObject(o), o);
});

test('asStoredObject skips what the API server never stores: no metadata, no name, no uid', () => {
  for (const bad of [
    null,
    undefined,
    3,
    'pod',
    {},
    { metadata: null },
    { metadata: { uid: 'u' } },
    { metadata: { name: '', uid: 'u' } },
    { metadata: { name: 'p' } },
    { metadata: { name: 7, uid: 'u' } },
  ]) {
    assert.equal(asStoredObject(bad), undefined, JSON.stringify(bad));
  }
});
