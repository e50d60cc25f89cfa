// OwnerIndex (src/core/relations/ownerIndex.ts): ownerReferences both ways, dangling and
// cluster-scoped owners, custom resources, cycles, and both directions agreeing after any sequence
// of upserts, removes and relists (a property test).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { OwnerIndex, type OwnedObject, type RelationTree } from '../../src/core/relations/ownerIndex';

function obj(
  uid: string,
  name: string,
  namespace: string | undefined,
  owners: { uid: string; kind: string; name: string; controller?: boolean }[] = [],
): OwnedObject {
  return {
    metadata: {
      uid,
      name,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(owners.length ? { ownerReferences: owners.map((o) => ({ apiVersion: 'v1', ...o })) } : {}),
    },
  };
}

/** `kind/name` of every node of a tree, depth first, with `*` on a node the walk did not expand again. */
function flat(t: RelationTree | undefined, depth = 0): string[] {
  if (!t) return [];
  return [
    `${'  '.repeat(depth)}${t.node.kind}/${t.node.name}${t.node.virtual ? ' (virtual)' : ''}${t.seen ? ' *seen' : ''}${t.omitted ? ` +${t.omitted}` : ''}`,
    ...t.children.flatMap((c) => flat(c, depth + 1)),
  ];
}

describe('OwnerIndex', () => {
  it('answers a Deployment -> ReplicaSet -> Pods chain both ways, with the controller edge marked', () => {
    const ix = new OwnerIndex();
    ix.upsert(obj('d1', 'web', 'shop'), 'deployments.apps', 'Deployment');
    ix.upsert(obj('rs1', 'web-1', 'shop', [{ uid: 'd1', kind: 'Deployment', name: 'web', controller: true }]), 'replicasets.apps', 'ReplicaSet');
    for (const p of ['a', 'b'])
      ix.upsert(obj(`p-${p}`, `web-1-${p}`, 'shop', [{ uid: 'rs1', kind: 'ReplicaSet', name: 'web-1', controller: true }]), 'pods', 'Pod');
    assert.deepEqual(flat(ix.dependentsOf('d1')), ['Deployment/web', '  ReplicaSet/web-1', '    Pod/web-1-a', '    Pod/web-1-b']);
    assert.deepEqual(flat(ix.ownersOf('p-b')), ['Pod/web-1-b', '  ReplicaSet/web-1', '    Deployment/web']);
    assert.equal(ix.ownersOf('p-b')!.children[0]!.controller, true);
    assert.equal(ix.dependentsOf('d1')!.children[0]!.controller, true);
    assert.equal(ix.node('rs1')!.typeKey, 'replicasets.apps');
  });

  it('keeps an owner nobody listed as a virtual node, named by the reference, and forgets it with its last dependent', () => {
    const ix = new OwnerIndex();
    ix.upsert(obj('cm', 'conf', 'ns', [{ uid: 'gone', kind: 'Widget', name: 'w1' }]), 'configmaps', 'ConfigMap');
    assert.deepEqual(flat(ix.ownersOf('cm')), ['ConfigMap/conf', '  Widget/w1 (virtual)']);
    assert.equal(ix.size, 1);
    assert.equal(ix.nodes, 2);
    ix.remove('cm');
    assert.equal(ix.nodes, 0, 'neither the object nor its dangling owner stays');
  });

  it('turns an owner deleted under its dependents virtual, and observed again when it comes back', () => {
    const ix = new OwnerIndex();
    ix.upsert(obj('w', 'w1', 'ns'), 'widgets.example.com', 'Widget');
    ix.upsert(obj('cm', 'conf', 'ns', [{ uid: 'w', kind: 'Widget', name: 'w1' }]), 'configmaps', 'ConfigMap');
    ix.remove('w');
    assert.equal(ix.node('w')!.virtual, true);
    assert.deepEqual(flat(ix.dependentsOf('w')), ['Widget/w1 (virtual)', '  ConfigMap/conf']);
    ix.upsert(obj('w', 'w1', 'ns'), 'widgets.example.com', 'Widget');
    assert.equal(ix.node('w')!.virtual, false);
    assert.equal(ix.node('w')!.typeKey, 'widgets.example.com');
  });

  it('links a cluster-scoped owner of a namespaced object (uids know no namespace)', () => {
    const ix = new OwnerIndex();
    ix.upsert(obj('n1', 'node-1', undefined), 'nodes', 'Node');
    ix.upsert(obj('lease', 'node-1', 'kube-node-lease', [{ uid: 'n1', kind: 'Node', name: 'node-1' }]), 'leases.coordination.k8s.io', 'Lease');
    assert.deepEqual(flat(ix.dependentsOf('n1')), ['Node/node-1', '  Lease/node-1']);
    assert.equal(ix.node('n1')!.namespace, undefined);
  });

  it('follows an ownerReferences change: the old owner loses the dependent, the new one gains it', () => {
    const ix = new OwnerIndex();
    ix.upsert(obj('a', 'a', 'ns'), 'widgets.example.com', 'Widget');
    ix.upsert(obj('b', 'b', 'ns'), 'widgets.example.com', 'Widget');
    ix.upsert(obj('c', 'c', 'ns', [{ uid: 'a', kind: 'Widget', name: 'a' }]), 'configmaps', 'ConfigMap');
    ix.upsert(obj('c', 'c', 'ns', [{ uid: 'b', kind: 'Widget', name: 'b' }]), 'configmaps', 'ConfigMap');
    assert.deepEqual(flat(ix.dependentsOf('a')), ['Widget/a']);
    assert.deepEqual(flat(ix.dependentsOf('b')), ['Widget/b', '  ConfigMap/c']);
  });

  it('ends on a cycle and on a self-reference, marking where it stopped', () => {
    const ix = new OwnerIndex();
    ix.upsert(obj('x', 'x', 'ns', [{ uid: 'y', kind: 'Widget', name: 'y' }]), 'widgets.example.com', 'Widget');
    ix.upsert(obj('y', 'y', 'ns', [{ uid: 'x', kind: 'Widget', name: 'x' }]), 'widgets.example.com', 'Widget');
    ix.upsert(obj('s', 's', 'ns', [{ uid: 's', kind: 'Widget', name: 's' }]), 'widgets.example.com', 'Widget');
    assert.deepEqual(flat(ix.ownersOf('x')), ['Widget/x', '  Widget/y', '    Widget/x *seen']);
    assert.deepEqual(flat(ix.dependentsOf('s')), ['Widget/s', '  Widget/s *seen']);
  });

  it('cuts a query at its limit, counting what it left out', () => {
    const ix = new OwnerIndex();
    ix.upsert(obj('root', 'root', 'ns'), 'widgets.example.com', 'Widget');
    for (let i = 0; i < 10; i++) ix.upsert(obj(`c${i}`, `c${i}`, 'ns', [{ uid: 'root', kind: 'Widget', name: 'root' }]), 'configmaps', 'ConfigMap');
    const t = ix.dependentsOf('root', 4)!;
    assert.equal(t.children.length, 3, 'the root and 3 children make the 4 nodes');
    assert.equal(t.omitted, 7, 'the rest are counted');
  });

  it('indexes an object of an empty type key and kind, and an owner reference of an empty kind, first of all (a peer may send them)', () => {
    const ix = new OwnerIndex();
    ix.upsert({ metadata: { uid: 'x', name: 'x', ownerReferences: [{ uid: 'o', kind: '', name: 'o' }] } }, '', '');
    assert.deepEqual(ix.node('x'), { uid: 'x', kind: '', name: 'x', virtual: false });
    assert.deepEqual(ix.node('o'), { uid: 'o', kind: '', name: 'o', virtual: true });
  });

  it('replace removes what a relist of that type and namespace no longer holds, and nothing else', () => {
    const ix = new OwnerIndex();
    ix.upsert(obj('p1', 'p1', 'a'), 'pods', 'Pod');
    ix.upsert(obj('p2', 'p2', 'b'), 'pods', 'Pod');
    ix.upsert(obj('c1', 'c1', 'a'), 'configmaps', 'ConfigMap');
    ix.replace('pods', 'Pod', 'a', []);
    assert.equal(ix.node('p1'), undefined);
    assert.ok(ix.node('p2'), 'another namespace stays');
    assert.ok(ix.node('c1'), 'another type stays');
    assert.equal(ix.find('pods', 'p2', 'b'), 'p2');
  });

  for (const style of ['UUIDs', 'other uids'] as const) {
    it(`retain and retainListed remove exactly the objects of their type and scope that the listed uids lack, whatever else they name (${style})`, () => {
      // listed uids as many as the type's objects, naming another type's, nothing, or one twice, must not pass for complete
      const uids = style === 'UUIDs' ? [1, 2, 3, 4, 5].map((n) => `0000000${n}-9446-4e90-a528-8ec0f1ac1966`) : ['a', 'b', 'c', 'd', 'e'];
      const types = ['pods', 'configmaps'];
      const op = fc.oneof(
        fc.record({ op: fc.constant('upsert' as const), uid: fc.constantFrom(...uids), type: fc.constantFrom(...types), ns: fc.constantFrom('x', 'y') }),
        fc.record({ op: fc.constant('remove' as const), uid: fc.constantFrom(...uids) }),
        fc.record({
          op: fc.constant('retain' as const),
          type: fc.constantFrom(...types),
          ns: fc.constantFrom(undefined, 'x'),
          listed: fc.array(fc.constantFrom(...uids, 'gone'), { maxLength: 7 }),
          asArray: fc.boolean(),
        }),
      );
      fc.assert(
        fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
          const ix = new OwnerIndex();
          const model = new Map<string, { type: string; ns: string }>();
          for (const o of ops) {
            if (o.op === 'upsert') {
              ix.upsert(obj(o.uid, o.uid, o.ns), o.type, o.type);
              model.set(o.uid, { type: o.type, ns: o.ns });
            } else if (o.op === 'remove') {
              ix.remove(o.uid);
              model.delete(o.uid);
            } else {
              if (o.asArray) ix.retainListed(o.type, o.ns, o.listed);
              else ix.retain(o.type, o.ns, new Set(o.listed));
              for (const [u, m] of [...model]) if (m.type === o.type && (o.ns === undefined || m.ns === o.ns) && !o.listed.includes(u)) model.delete(u);
            }
            assert.equal(ix.size, model.size);
            for (const u of uids) {
              const m = model.get(u);
              assert.equal(m ? ix.find(m.type, u, m.ns) : undefined, m ? u : undefined, `${u} is held exactly when the model holds it`);
              assert.equal(ix.node(u) !== undefined, m !== undefined);
            }
          }
        }),
        { numRuns: 300 },
      );
    });
  }

  it('keeps both directions in agreement after any sequence of upserts, removes and relists', () => {
    const uids = ['a', 'b', 'c', 'd', 'e', 'f'];
    const op = fc.oneof(
      fc.record({ op: fc.constant('upsert' as const), uid: fc.constantFrom(...uids), owners: fc.uniqueArray(fc.constantFrom(...uids), { maxLength: 3 }) }),
      fc.record({ op: fc.constant('remove' as const), uid: fc.constantFrom(...uids) }),
      fc.record({ op: fc.constant('relist' as const), keep: fc.uniqueArray(fc.constantFrom(...uids), { maxLength: 6 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const ix = new OwnerIndex();
        // the model: uid -> owners of the objects present
        const model = new Map<string, string[]>();
        const mk = (u: string, owners: string[]) =>
          obj(
            u,
            u,
            'ns',
            owners.map((o) => ({ uid: o, kind: 'Widget', name: o })),
          );
        for (const o of ops) {
          if (o.op === 'upsert') {
            ix.upsert(mk(o.uid, o.owners), 'widgets', 'Widget');
            model.set(o.uid, o.owners);
          } else if (o.op === 'remove') {
            ix.remove(o.uid);
            model.delete(o.uid);
          } else {
            const items = o.keep.filter((u) => model.has(u)).map((u) => mk(u, model.get(u)!));
            ix.replace('widgets', 'Widget', undefined, items);
            for (const u of [...model.keys()]) if (!o.keep.includes(u)) model.delete(u);
          }
        }
        assert.equal(ix.size, model.size);
        const named = new Set([...model.values()].flat());
        for (const u of uids) {
          const present = model.has(u);
          const node = ix.node(u);
          assert.equal(node !== undefined, present || named.has(u), `${u} is a node exactly when present or named`);
          if (!node) continue;
          assert.equal(node.virtual, !present);
          const owners = ix.ownersOf(u)!.children.map((c) => c.node.uid);
          assert.deepEqual(owners, present ? model.get(u) : []);
          const deps = ix
            .dependentsOf(u)!
            .children.map((c) => c.node.uid)
            .sort();
          assert.deepEqual(
            deps,
            [...model.entries()]
              .filter(([, os]) => os.includes(u))
              .map(([d]) => d)
              .sort(),
          );
        }
      }),
    );
  });
});
