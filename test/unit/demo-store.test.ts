import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ObjectStore, StoreError, type DemoObject, type StoreEvent, type TypeInfo } from '../../src/demo/store';

const pods: TypeInfo = {
  group: '',
  version: 'v1',
  resource: 'pods',
  kind: 'Pod',
  listKind: 'PodList',
  singular: 'pod',
  namespaced: true,
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: ['status'],
};
const namespaces: TypeInfo = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  singular: 'namespace',
  namespaced: false,
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: ['status'],
};
const deployments: TypeInfo = {
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  kind: 'Deployment',
  listKind: 'DeploymentList',
  singular: 'deployment',
  namespaced: true,
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
};

function newStore(historySize?: number) {
  const s = new ObjectStore({ historySize, now: () => new Date('2026-01-02T03:04:05.678Z') });
  s.registerType(pods);
  s.registerType(namespaces);
  s.registerType(deployments);
  return s;
}
const pod = (ns: string, name: string, extra: Partial<DemoObject> = {}): DemoObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { containers: [] }, ...extra }) as DemoObject;

function codeOf(fn: () => unknown): [number, string] {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StoreError);
    return [e.code, e.reason];
  }
  assert.fail('expected a StoreError');
}

describe('ObjectStore', () => {
  it('create sets uid, resourceVersion, creationTimestamp and generation=1, and freezes the object', () => {
    const s = newStore();
    const before = s.currentRV;
    const o = s.create('', 'pods', pod('a', 'p1'));
    assert.equal(o.metadata.resourceVersion, String(before + 1));
    assert.equal(s.currentRV, before + 1);
    assert.match(o.metadata.uid!, /^[0-9a-f-]{36}$/);
    assert.equal(o.metadata.creationTimestamp, '2026-01-02T03:04:05Z');
    assert.equal(o.metadata.generation, 1);
    assert.ok(Object.isFrozen(o) && Object.isFrozen(o.metadata) && Object.isFrozen(o.spec));
    assert.deepEqual(
      codeOf(() => s.create('', 'pods', pod('a', 'p1'))),
      [409, 'AlreadyExists'],
    );
    assert.deepEqual(
      codeOf(() => s.create('', 'pods', pod('a', ''))),
      [422, 'Invalid'],
    );
  });

  it('lists sorted by namespace then name; a list is a snapshot untouched by later writes', () => {
    const s = newStore();
    for (const [ns, n] of [
      ['b', 'z'],
      ['a', 'y'],
      ['b', 'a'],
      ['c', 'm'],
      ['a', 'b'],
    ] as const)
      s.create('', 'pods', pod(ns, n));
    const all = s.list('', 'pods');
    assert.deepEqual(
      all.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
      ['a/b', 'a/y', 'b/a', 'b/z', 'c/m'],
    );
    assert.equal(all.resourceVersion, String(s.currentRV));
    assert.deepEqual(
      s.list('', 'pods', 'b').items.map((o) => o.metadata.name),
      ['a', 'z'],
    );
    assert.deepEqual(s.list('', 'pods', 'nope').items, []);
    s.delete('', 'pods', 'a', 'b');
    s.create('', 'pods', pod('a', 'a'));
    assert.equal(all.items.length, 5);
    assert.equal(all.items[0]!.metadata.name, 'b');
    assert.deepEqual(
      s.list('', 'pods', 'a').items.map((o) => o.metadata.name),
      ['a', 'y'],
    );
  });

  it('update replaces, bumps generation only on spec change, keeps status for types with a status subresource', () => {
    const s = newStore();
    const o = s.create('', 'pods', pod('a', 'p', { status: { phase: 'Pending' } }));
    const u1 = s.update('', 'pods', { ...o, metadata: { ...o.metadata, labels: { x: '1' } }, status: { phase: 'Bogus' } });
    assert.equal(u1.metadata.generation, 1);
    assert.deepEqual(u1.status, { phase: 'Pending' });
    assert.equal(u1.metadata.uid, o.metadata.uid);
    const u2 = s.update('', 'pods', { ...u1, spec: { containers: [{ name: 'c' }] } });
    assert.equal(u2.metadata.generation, 2);
    const u3 = s.update('', 'pods', { ...u2, spec: { nope: 1 }, status: { phase: 'Running' } }, { subresource: 'status' });
    assert.deepEqual(u3.status, { phase: 'Running' });
    assert.deepEqual(u3.spec, u2.spec);
    assert.equal(u3.metadata.generation, 2);
    // A stale resourceVersion conflicts; no resourceVersion means "unconditional".
    assert.deepEqual(
      codeOf(() => s.update('', 'pods', o)),
      [409, 'Conflict'],
    );
    const { resourceVersion: _rv, ...meta } = o.metadata;
    assert.equal(s.update('', 'pods', { ...o, metadata: meta }).metadata.resourceVersion, String(s.currentRV));
    assert.deepEqual(
      codeOf(() => s.update('', 'pods', pod('a', 'missing'))),
      [404, 'NotFound'],
    );
  });

  it('update of a type without a status subresource takes .status from the request', () => {
    const s = newStore();
    const d = s.create('apps', 'deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'a' } });
    assert.deepEqual(s.update('apps', 'deployments', { ...d, status: { replicas: 3 } }).status, { replicas: 3 });
  });

  it('delete returns the object at the deletion revision and 404s on a missing object', () => {
    const s = newStore();
    s.create('', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1', namespace: 'ignored' } });
    assert.equal(s.get('', 'namespaces', undefined, 'ns1')!.metadata.namespace, undefined);
    const gone = s.delete('', 'namespaces', undefined, 'ns1');
    assert.equal(gone.metadata.resourceVersion, String(s.currentRV));
    assert.equal(s.get('', 'namespaces', undefined, 'ns1'), undefined);
    assert.deepEqual(
      codeOf(() => s.delete('', 'namespaces', undefined, 'ns1')),
      [404, 'NotFound'],
    );
  });

  it('notifies subscribers synchronously, in order, and survives a throwing subscriber', () => {
    const s = newStore();
    const seen: string[] = [];
    s.subscribe(() => {
      throw new Error('boom');
    });
    const off = s.subscribe((e) => seen.push(`${e.type}:${e.object.metadata.name}:${e.rv}`));
    const o = s.create('', 'pods', pod('a', 'p'));
    assert.deepEqual(seen, [`ADDED:p:${o.metadata.resourceVersion}`]);
    s.update('', 'pods', o);
    s.delete('', 'pods', 'a', 'p');
    assert.deepEqual(
      seen.map((x) => x.split(':')[0]),
      ['ADDED', 'MODIFIED', 'DELETED'],
    );
    off();
    s.create('', 'pods', pod('a', 'q'));
    assert.equal(seen.length, 3);
  });

  it('eventsSince answers from the bounded history and says expired when it cannot', () => {
    const s = newStore(4);
    const start = s.currentRV;
    for (let i = 0; i < 3; i++) s.create('', 'pods', pod('a', `p${i}`));
    s.create('apps', 'deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'a' } });
    const ev = s.eventsSince(start, '', 'pods');
    assert.ok(Array.isArray(ev));
    assert.deepEqual(
      ev.map((e) => e.object.metadata.name),
      ['p0', 'p1', 'p2'],
    );
    s.create('', 'pods', pod('a', 'p3')); // pushes p0 out of the history
    assert.equal(s.eventsSince(start, '', 'pods'), 'expired');
    const ev2 = s.eventsSince(start + 1, '', 'pods');
    assert.ok(Array.isArray(ev2));
    assert.deepEqual(
      ev2.map((e) => e.object.metadata.name),
      ['p1', 'p2', 'p3'],
    );
    assert.deepEqual(s.eventsSince(s.currentRV, '', 'pods'), []);
  });

  it('property: replaying events onto an empty map reproduces list(); resourceVersions strictly increase', () => {
    const op = fc.record({ kind: fc.constantFrom('c', 'u', 'd'), ns: fc.constantFrom('a', 'b'), name: fc.constantFrom('x', 'y', 'z') });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const s = newStore(1000);
        const replay = new Map<string, DemoObject>();
        let last = s.currentRV;
        s.subscribe((e: StoreEvent) => {
          assert.ok(e.rv > last);
          last = e.rv;
          const k = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
          if (e.type === 'DELETED') replay.delete(k);
          else replay.set(k, e.object);
        });
        for (const o of ops) {
          try {
            if (o.kind === 'c') s.create('', 'pods', pod(o.ns, o.name));
            else if (o.kind === 'u') s.update('', 'pods', pod(o.ns, o.name, { spec: { n: Math.random() } }));
            else s.delete('', 'pods', o.ns, o.name);
          } catch (e) {
            assert.ok(e instanceof StoreError);
          }
        }
        const listed = s.list('', 'pods').items;
        assert.deepEqual(
          listed.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
          [...replay.keys()].sort(),
        );
        for (const o of listed) assert.equal(replay.get(`${o.metadata.namespace}/${o.metadata.name}`), o);
      }),
    );
  });
});
