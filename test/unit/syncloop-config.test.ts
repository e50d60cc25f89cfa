import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PodConfig } from '../../src/core/syncloop/config/podconfig';
import { PodStorage } from '../../src/core/syncloop/config/storage';
import type { PodUpdate } from '../../src/core/syncloop/types';
import type { StoredObject } from '../../src/core/kube/objects/types';
import type { Pod } from '../../src/core/kube/objects/pod';

function pod(name: string, uid: string, extra: Partial<Pod> & { rv?: string; labels?: Record<string, string>; deletion?: string } = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid,
      resourceVersion: extra.rv ?? '1',
      ...(extra.labels ? { labels: extra.labels } : {}),
      ...(extra.deletion ? { deletionTimestamp: extra.deletion } : {}),
    },
    spec: extra.spec ?? { containers: [{ name: 'c', image: 'img:1' }] },
    status: extra.status ?? { phase: 'Pending' },
  };
}

const summary = (us: PodUpdate[]) => us.map((u) => `${u.op}:${u.pods.map((p) => p.metadata.name).join(',')}`);

describe('config merge (podStorage.merge), per syncloop.md', () => {
  const base = pod('a', 'uid-a');
  const cases: { name: string; next: Pod; expect: string[] }[] = [
    { name: 'only status changed -> RECONCILE', next: pod('a', 'uid-a', { rv: '2', status: { phase: 'Running' } }), expect: ['RECONCILE:a'] },
    { name: 'spec changed -> UPDATE', next: pod('a', 'uid-a', { rv: '2', spec: { containers: [{ name: 'c', image: 'img:2' }] } }), expect: ['UPDATE:a'] },
    { name: 'labels changed -> UPDATE', next: pod('a', 'uid-a', { rv: '2', labels: { x: 'y' } }), expect: ['UPDATE:a'] },
    { name: 'changed with a deletion timestamp -> DELETE', next: pod('a', 'uid-a', { rv: '2', deletion: '2026-01-01T00:00:00Z' }), expect: ['DELETE:a'] },
    {
      name: 'spec and status changed -> UPDATE (no extra RECONCILE)',
      next: pod('a', 'uid-a', { rv: '2', labels: { x: 'y' }, status: { phase: 'Running' } }),
      expect: ['UPDATE:a'],
    },
    { name: 'only resourceVersion changed -> nothing', next: pod('a', 'uid-a', { rv: '9' }), expect: [] },
    { name: 'same name, new UID -> REMOVE old then ADD new', next: pod('a', 'uid-a2'), expect: ['REMOVE:a', 'ADD:a'] },
  ];
  for (const c of cases) {
    it(`SET: ${c.name}`, () => {
      const s = new PodStorage();
      assert.deepEqual(summary(s.mergeToUpdates('api', { op: 'SET', pods: [base], source: 'api' })), ['ADD:a']);
      assert.deepEqual(summary(s.mergeToUpdates('api', { op: 'SET', pods: [c.next], source: 'api' })), c.expect);
    });
  }

  it('SET: gone from the snapshot -> REMOVE; new UID -> ADD; delivered REMOVE, ADD, UPDATE, DELETE, RECONCILE', () => {
    const s = new PodStorage();
    s.mergeToUpdates('api', { op: 'SET', source: 'api', pods: [pod('a', '1'), pod('b', '2'), pod('c', '3'), pod('d', '4')] });
    const out = s.mergeToUpdates('api', {
      op: 'SET',
      source: 'api',
      pods: [
        pod('e', '5'),
        pod('b', '2', { rv: '2', labels: { l: '1' } }),
        pod('c', '3', { rv: '2', deletion: '2026-01-01T00:00:00Z' }),
        pod('d', '4', { rv: '2', status: { phase: 'Running' } }),
      ],
    });
    assert.deepEqual(summary(out), ['REMOVE:a', 'ADD:e', 'UPDATE:b', 'DELETE:c', 'RECONCILE:d']);
  });

  it('watch ops: ADD of a known UID is compared like an update; REMOVE of an unknown UID is a no-op', () => {
    const s = new PodStorage();
    assert.deepEqual(summary(s.mergeToUpdates('api', { op: 'ADD', source: 'api', pods: [pod('a', '1')] })), ['ADD:a']);
    assert.deepEqual(summary(s.mergeToUpdates('api', { op: 'ADD', source: 'api', pods: [pod('a', '1', { status: { phase: 'Running' } })] })), ['RECONCILE:a']);
    assert.deepEqual(summary(s.mergeToUpdates('api', { op: 'UPDATE', source: 'api', pods: [pod('a', '1', { labels: { k: 'v' } })] })), ['UPDATE:a']);
    assert.deepEqual(summary(s.mergeToUpdates('api', { op: 'REMOVE', source: 'api', pods: [pod('zz', '99')] })), []);
    assert.deepEqual(summary(s.mergeToUpdates('api', { op: 'REMOVE', source: 'api', pods: [pod('a', '1')] })), ['REMOVE:a']);
  });

  it('kubelet-local annotations are not changes', () => {
    const s = new PodStorage();
    const a = pod('a', '1');
    s.mergeToUpdates('api', { op: 'SET', source: 'api', pods: [a] });
    const b = structuredClone(a);
    b.metadata.annotations = { 'kubernetes.io/config.seen': 'now' };
    assert.deepEqual(summary(s.mergeToUpdates('api', { op: 'SET', source: 'api', pods: [b] })), []);
  });

  it('kinds without a spec: a data change is an UPDATE, a status-only change a RECONCILE', () => {
    const s = new PodStorage();
    const cm: StoredObject = { kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'ns', uid: 'u' }, data: { a: '1' } };
    s.mergeToUpdates('cms', { op: 'SET', source: 'cms', pods: [cm], resource: { group: '', resource: 'configmaps' } });
    assert.deepEqual(summary(s.mergeToUpdates('cms', { op: 'UPDATE', source: 'cms', pods: [{ ...cm, data: { a: '2' } }] })), ['UPDATE:cm']);
    assert.deepEqual(summary(s.mergeToUpdates('cms', { op: 'UPDATE', source: 'cms', pods: [{ ...cm, data: { a: '2' }, status: { x: 1 } }] })), [
      'RECONCILE:cm',
    ]);
  });

  it('sources are separate, and a source is seen after its first SET; an empty first SET still yields one empty ADD', () => {
    const s = new PodStorage();
    s.mergeToUpdates('api', { op: 'ADD', source: 'api', pods: [pod('a', '1')] });
    assert.equal(s.seenSources('api'), false);
    const first = s.mergeToUpdates('file', { op: 'SET', source: 'file', pods: [] });
    assert.deepEqual(summary(first), ['ADD:']);
    assert.equal(s.seenSources('file'), true);
    assert.equal(s.seenSources('api', 'file'), false);
    // the file source never held 'a', so a SET without it removes nothing from 'api'
    assert.deepEqual(summary(s.mergeToUpdates('file', { op: 'SET', source: 'file', pods: [] })), []);
    assert.deepEqual(
      s.sourcePods('api').map((p) => p.metadata.name),
      ['a'],
    );
  });

  it('property: replaying SETs converges — the storage holds exactly the last snapshot, and every UID ever added is removed once absent', () => {
    const snapshot = fc.uniqueArray(fc.integer({ min: 0, max: 15 }), { maxLength: 10 });
    fc.assert(
      fc.property(fc.array(fc.tuple(snapshot, fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 30 }), (steps) => {
        const s = new PodStorage();
        const live = new Set<string>();
        for (const [ids, phase] of steps) {
          const pods = ids.map((i) => pod(`p${i}`, `u${i}`, { status: { phase: ['Pending', 'Running', 'Succeeded', 'Failed'][phase]! } }));
          for (const u of s.mergeToUpdates('api', { op: 'SET', source: 'api', pods })) {
            for (const p of u.pods) {
              if (u.op === 'ADD') {
                assert.ok(!live.has(p.metadata.uid));
                live.add(p.metadata.uid);
              } else if (u.op === 'REMOVE') {
                assert.ok(live.delete(p.metadata.uid));
              } else assert.ok(live.has(p.metadata.uid));
            }
          }
          assert.deepEqual([...live].sort(), ids.map((i) => `u${i}`).sort());
        }
      }),
    );
  });
});

describe('PodConfig', () => {
  it('delivers merges in call order with backpressure from configCh', async () => {
    const c = new PodConfig(1);
    const done: number[] = [];
    const m1 = c.merge('api', { op: 'SET', source: 'api', pods: [pod('a', '1'), pod('b', '2', { rv: '1' })] }).then(() => done.push(1));
    const m2 = c.merge('api', { op: 'UPDATE', source: 'api', pods: [pod('a', '1', { labels: { x: '1' } })] }).then(() => done.push(2));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(done, [1]);
    const got: string[] = [];
    for (let i = 0; i < 2; i++) got.push(...summary([(await c.updates.recv()).value!]));
    await Promise.all([m1, m2]);
    assert.deepEqual(got, ['ADD:a,b', 'UPDATE:a']);
    assert.equal(c.seenAllSources(new Set(['api'])), true);
    assert.equal(c.seenAllSources(new Set()), false);
  });
});
