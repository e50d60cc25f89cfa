// The object generator: deterministic (same seed, same bytes), exact counts, every listable type
// filled, coherent references, and pods the kubelet simulation adopts without work.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { ObjectStore, type DemoObject, type TypeInfo } from '../../src/demo/store';
import { Catalog } from '../../src/demo/server/catalog';
import { generate, generateObjects, DEFAULT_NOW } from '../../src/demo/generator';
import { profileNamed } from '../../src/demo/generate/profiles';
import { startKubelet } from '../../src/demo/kubelet';
import { FakeClock } from '../../src/core/clock';

function builtinStore(): ObjectStore {
  const store = new ObjectStore({ now: () => new Date(DEFAULT_NOW) });
  new Catalog(store).registerBuiltins();
  return store;
}

/** The generator alone: every object it emits, in order, hashed (no store in between). */
function pureHash(types: TypeInfo[], objects: number, seed: number): { hash: string; count: number } {
  const h = createHash('sha256');
  let count = 0;
  generate(types, { objects, seed }, (_g, _r, o) => {
    h.update(JSON.stringify(o));
    count++;
    return o;
  });
  return { hash: h.digest('hex'), count };
}

function allObjects(store: ObjectStore): DemoObject[] {
  return store
    .types()
    .filter((t) => t.verbs.includes('list'))
    .flatMap((t) => store.list(t.group, t.resource).items);
}

/** JSON without what a store assigns (uids, resourceVersions, creation times). */
/** Without what a store assigns: uids (also where managedFields key an ownerReference by its uid), resourceVersions, creation times. */
function withoutStoreFields(o: unknown): string {
  return JSON.stringify(o, (k, v) => (k === 'uid' || k === 'resourceVersion' || k === 'creationTimestamp' ? undefined : v)).replace(
    /k:\{\\"uid\\":\\"[0-9a-f-]+\\"\}/g,
    'k:{uid}',
  );
}

describe('generator: determinism and shape', () => {
  const types = builtinStore().types();

  it('the same seed gives byte-identical objects; another seed gives different ones', () => {
    const a = pureHash(types, 5000, 7);
    const b = pureHash(types, 5000, 7);
    const c = pureHash(types, 5000, 8);
    assert.equal(a.count, 5000);
    assert.equal(a.hash, b.hash);
    assert.notEqual(a.hash, c.hash);
  });

  it('into two stores, the same seed gives the same objects except what each store assigns', () => {
    const s1 = builtinStore();
    const s2 = builtinStore();
    generateObjects(s1, { objects: 3000, seed: 99 });
    generateObjects(s2, { objects: 3000, seed: 99 });
    const h = (s: ObjectStore) => createHash('sha256').update(allObjects(s).map(withoutStoreFields).join('\n')).digest('hex');
    assert.equal(h(s1), h(s2));
  });

  it('creates exactly N objects for any N', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2500 }), fc.integer({ min: 0, max: 2 ** 31 }), (n, seed) => {
        const store = builtinStore();
        const before = allObjects(store).length;
        const res = generateObjects(store, { objects: n, seed });
        assert.equal(res.objects, n);
        assert.equal(allObjects(store).length - before, n);
      }),
      { numRuns: 25 },
    );
  });

  it('fills at least 60 types, every listable type, and the namespaces scale with N', () => {
    const store = builtinStore();
    const res = generateObjects(store, { objects: 20_000, seed: 1 });
    const listable = store.types().filter((t) => t.verbs.includes('list'));
    const empty = listable.filter((t) => store.count(t.group, t.resource) === 0).map((t) => `${t.group}/${t.resource}`);
    assert.deepEqual(empty, []);
    assert.ok(listable.length >= 60, `${listable.length} listable types`);
    assert.equal(res.namespaces.length, 40);
    assert.ok(store.count('apiextensions.k8s.io', 'customresourcedefinitions') >= 2, 'well-known CRDs installed');
    assert.ok(store.count('cert-manager.io', 'certificates') > 0, 'custom resources of an installed CRD');
    const biggest = Object.entries(res.byType)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([k]) => k);
    for (const k of ['/events', '/configmaps', '/pods']) assert.ok(biggest.includes(k), `${k} among the biggest types: ${biggest}`);
  });

  it('every ownerReference and every pod reference resolves to an object the generator created', () => {
    const store = builtinStore();
    generateObjects(store, { objects: 8000, seed: 3 });
    const byUid = new Map(allObjects(store).map((o) => [o.metadata.uid, o]));
    let owned = 0;
    for (const o of allObjects(store)) {
      for (const ref of (o.metadata.ownerReferences as { kind: string; name: string; uid: string }[] | undefined) ?? []) {
        const owner = byUid.get(ref.uid);
        assert.ok(owner, `${o.kind} ${o.metadata.name}: owner ${ref.kind} ${ref.name} missing`);
        assert.equal(owner.kind, ref.kind);
        assert.equal(owner.metadata.name, ref.name);
        assert.equal(owner.metadata.namespace, o.metadata.namespace);
        owned++;
      }
    }
    assert.ok(owned > 1000);
    for (const e of store.list('', 'events').items) {
      const io = e.involvedObject as { kind: string; name: string; uid: string };
      if (io.kind === 'Pod') assert.equal(byUid.get(io.uid)?.metadata.name, io.name);
    }
    for (const p of store.list('', 'pods').items) {
      const node = (p.spec as { nodeName: string }).nodeName;
      assert.ok(store.get('', 'nodes', undefined, node), `pod ${p.metadata.name} on unknown node ${node}`);
    }
    // Secrets carry base64 data, as the API serves them.
    for (const s of store.list('', 'secrets').items.slice(0, 50)) {
      for (const v of Object.values(s.data as Record<string, string>)) assert.match(v, /^[A-Za-z0-9+/]+={0,2}$/);
    }
  });

  it('generated pods look Running, and the kubelet simulation adopts them without workers, except the crash-looping few', async () => {
    const store = builtinStore();
    const res = generateObjects(store, { objects: 10_000, seed: 5, brokenPods: 3 });
    const pods = store.list('', 'pods').items;
    const running = pods.filter((p) => (p.status as { phase: string }).phase === 'Running');
    assert.ok(running.length > pods.length * 0.8);
    const clock = new FakeClock();
    const kubelet = startKubelet(store, { clock, wallStart: DEFAULT_NOW });
    await clock.advance(0);
    assert.equal(kubelet.stats().workers, 3, 'only the crash-looping pods need simulating');
    assert.ok(res.nodes.includes('demo-node-1'));
    const rv = store.currentRV;
    await clock.advance(120_000);
    assert.ok(store.currentRV > rv, 'the crash-looping pods keep writing');
    kubelet.stop();
    assert.equal(clock.pendingTimers(), 0);
  });
});

describe('generator: a named profile', () => {
  it('scale-limit is 5,000 nodes and 150,000 pods in 1,000,000 objects', () => {
    assert.deepEqual(profileNamed('scale-limit'), { objects: 1_000_000, nodes: 5_000, pods: 150_000 });
    assert.equal(profileNamed('toString'), undefined);
  });
  it("a profile's nodes and pods are exact, and the objects still sum to N", () => {
    const store = builtinStore();
    const res = generateObjects(store, { objects: 6000, seed: 3, nodes: 40, pods: 1200 });
    assert.equal(res.objects, 6000);
    assert.equal(store.count('', 'nodes'), 40);
    assert.equal(store.count('', 'pods'), 1200);
  });
});
