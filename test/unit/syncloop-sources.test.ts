import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConsistencyCheck, divergence } from '../../src/core/syncloop/sources/consistency';
import { sourceName } from '../../src/core/syncloop/sources/cluster';
import type { StoredObject } from '../../src/core/kube/objects/types';

const o = (uid: string, rv: string): StoredObject => ({ metadata: { name: uid, namespace: 'ns', uid, resourceVersion: rv } });
const snap = (seq: number, rv: string, ...items: StoredObject[]) => ({ items, resourceVersion: rv, seq });

describe('missed-event detection (PLEG list vs the pods source)', () => {
  it('names missed ADDs, DELETEs and MODIFYs, and ignores what the held copy already has newer', () => {
    assert.deepEqual([...divergence(snap(1, '10', o('a', '5'), o('b', '7')), [o('a', '5'), o('b', '7')])], []);
    assert.deepEqual([...divergence(snap(1, '10', o('a', '5')), [])], ['+a@5']);
    assert.deepEqual([...divergence(snap(1, '10'), [o('a', '5')])], ['-a@5']);
    assert.deepEqual([...divergence(snap(1, '10', o('a', '9')), [o('a', '5')])], ['~a@9']);
    // the watch is ahead of the list: a newer held copy, or an object created after the list
    assert.deepEqual([...divergence(snap(1, '10', o('a', '5')), [o('a', '12')])], []);
    assert.deepEqual([...divergence(snap(1, '10'), [o('n', '11')])], []);
  });

  it('relists only when the same difference survives into a newer list', () => {
    const c = new ConsistencyCheck();
    assert.equal(c.check('api', snap(1, '10', o('a', '5')), []), undefined);
    assert.equal(c.check('api', snap(1, '10', o('a', '5')), []), undefined, 'same list twice proves nothing');
    assert.deepEqual(c.check('api', snap(2, '11', o('a', '5')), []), ['+a@5']);
    // an event in flight: different next time, so no relist
    assert.equal(c.check('api', snap(3, '12', o('b', '6')), []), undefined);
    assert.equal(c.check('api', snap(4, '13', o('b', '6')), [o('b', '6')]), undefined);
    assert.equal(c.check('api', snap(5, '14', o('b', '6')), []), undefined);
  });

  it('names sources the way the kubelet does: "api" for all pods', () => {
    assert.equal(sourceName({ group: '', version: 'v1', resource: 'pods' }), 'api');
    assert.equal(sourceName({ group: '', version: 'v1', resource: 'pods' }, 'default'), 'api/default');
    assert.equal(sourceName({ group: 'apps', version: 'v1', resource: 'deployments' }, 'web'), 'api:deployments.apps/web');
  });
});
