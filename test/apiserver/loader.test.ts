/**
 * The ClusterLoader against a real kube-apiserver (v1.36, etcd 3.6, watch cache on, RBAC):
 * a few thousand objects over many built-in types and namespaces plus three CRDs (namespaced,
 * cluster-scoped, two served versions) are loaded in pages of 7, in full and metadata-only mode,
 * and every type's objects must be exactly those a plain unpaged GET of the same collection
 * returns (the server's own objects included). A user whose ClusterRole allows listing only a
 * few types gets those, exactly, and one 403 result with the server's own message per other type.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/core/kube';
import { ClusterLoader, type LoadTaskResult } from '../../src/core/loader';
import type { LoaderTaskEvent } from '../../src/core/timeline/events';
import { discoverTypes } from '../../bench/types';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { seed, typeKey, type Created } from './objects';
import { Api, bindClusterRole, collectionPath, createCrd, kubeconfigFor, mapLimit, type CrdSpec } from './support';

const NAMESPACES = Array.from({ length: 12 }, (_, i) => `team-${String(i).padStart(2, '0')}`);
const LIMITED = { name: 'limited', token: 'limited-user-token-5c1f0b7e' };
const CRDS: (CrdSpec & { perNamespace: number })[] = [
  { group: 'stable.kubeloop.io', kind: 'Widget', plural: 'widgets', scope: 'Namespaced', perNamespace: 9 },
  { group: 'stable.kubeloop.io', kind: 'Gadget', plural: 'gadgets', scope: 'Cluster', perNamespace: 0 },
  // Stored as v1beta1, also served as v1: the loader must list it once, from the preferred v1.
  { group: 'beta.kubeloop.io', kind: 'Gizmo', plural: 'gizmos', scope: 'Namespaced', versions: ['v1beta1', 'v1'], perNamespace: 4 },
];
const PAGE = 7;
const key = (r: LoadTaskResult) => typeKey(r.task.gvr.group, r.task.gvr.resource);
/** uid, or namespace/name for objects the server makes up without one (componentstatuses). */
const ident = (o: { metadata: { uid?: string; namespace?: string; name?: string } }) => o.metadata.uid ?? `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const path = (r: LoadTaskResult) => collectionPath(r.task.gvr.group, r.task.gvr.version, r.task.gvr.resource, r.task.namespace);

describe('ClusterLoader against a real kube-apiserver', () => {
  let cp: ControlPlane;
  let api: Api;
  let created: Created;

  before(async () => {
    cp = await startControlPlane({ extraUsers: [LIMITED] });
    api = Api.admin(cp, 32);
    for (const c of CRDS) await createCrd(api, c);
    created = await seed(api, { namespaces: NAMESPACES, perNamespace: 12, cluster: 20, concurrency: 24 });
    const custom: { c: (typeof CRDS)[number]; ns?: string; i: number }[] = [];
    for (const c of CRDS) {
      if (c.scope === 'Cluster') for (let i = 0; i < 40; i++) custom.push({ c, i });
      else for (const ns of NAMESPACES) for (let i = 0; i < c.perNamespace; i++) custom.push({ c, ns, i });
    }
    await mapLimit(custom, 24, async ({ c, ns, i }) => {
      const version = c.versions?.[0] ?? 'v1';
      const name = `${c.plural.slice(0, -1)}-${i}`;
      await api.must(
        'POST',
        collectionPath(c.group, version, c.plural, ns),
        {
          apiVersion: `${c.group}/${version}`,
          kind: c.kind,
          metadata: { name, ...(ns ? { namespace: ns } : {}), labels: { index: String(i) } },
          spec: { size: i, colour: i % 2 ? 'red' : 'blue' },
        },
        [201],
      );
      const k = typeKey(c.group, c.plural);
      if (!created.byType.has(k)) created.byType.set(k, new Set());
      created.byType.get(k)!.add(ns ? `${ns}/${name}` : name);
      created.total++;
    });
    await bindClusterRole(api, 'kubeloop-limited', LIMITED.name, [
      { apiGroups: [''], resources: ['configmaps', 'pods', 'namespaces'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list'] },
      { apiGroups: ['stable.kubeloop.io'], resources: ['widgets'], verbs: ['list'] },
    ]);
  });
  after(async () => {
    api?.close();
    await cp?.stop();
  });

  /** The uids a plain unpaged GET returns for each result's collection, taken twice around the load. */
  async function plainUids(results: LoadTaskResult[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    await mapLimit(results, 8, async (r) => {
      out.set(path(r), (await api.list(path(r))).items.map(ident));
    });
    return out;
  }

  /**
   * Every result is ok and holds exactly the objects of a plain GET of its collection, no object
   * doubled; objects the server changed by itself during the load (none expected) are reported.
   */
  async function assertExact(results: LoadTaskResult[], before: Map<string, string[]>, diag: (s: string) => void): Promise<number> {
    const afterwards = await plainUids(results);
    let total = 0;
    for (const r of results) {
      assert.equal(r.outcome, 'ok', `${key(r)}: ${r.status} ${r.message}`);
      const got = r.items.map(ident);
      assert.equal(new Set(got).size, got.length, `no object doubled in ${key(r)}`);
      const b = before.get(path(r))!;
      const a = afterwards.get(path(r))!;
      if (JSON.stringify([...b].sort()) === JSON.stringify([...a].sort())) {
        assert.deepEqual(new Set(got), new Set(b), `${key(r)}: the loader's objects are exactly the plain list's`);
      } else {
        diag(`${key(r)} changed on the server during the load (${b.length} -> ${a.length} objects)`);
        for (const u of got) assert.ok(b.includes(u) || a.includes(u), `${key(r)}: ${u} is in neither plain list`);
        for (const u of b) if (a.includes(u)) assert.ok(got.includes(u), `${key(r)}: ${u} missing`);
      }
      assert.ok(r.pages >= Math.max(1, Math.ceil(r.count / PAGE)), `${key(r)}: ${r.pages} pages for ${r.count}`);
      total += r.count;
    }
    return total;
  }

  it('loads every listable type, built-in and custom, with exact counts, in pages of 7', async (t) => {
    const client = await KubeClient.fromKubeconfig({ kubeconfig: cp.kubeconfigPath });
    try {
      const plan = await client.discover();
      assert.equal(plan.mode, 'aggregated');
      const events: LoaderTaskEvent[] = [];
      const loader = new ClusterLoader(client, { concurrency: 4, pageSize: PAGE, onEvent: (e) => events.push(e) });
      // The plain lists first: the loader's planned collections are the same as a legacy discovery's.
      const independent = await discoverTypes(cp.kubeconfigPath);
      const before = new Map<string, string[]>();
      await mapLimit(independent, 8, async (x) => {
        const p = collectionPath(x.group, x.version, x.resource);
        before.set(p, (await api.list(p)).items.map(ident));
      });
      const { summary, results } = await loader.load();
      assert.equal(summary.outcome, 'ok', JSON.stringify(results.filter((r) => r.outcome !== 'ok').map((r) => [key(r), r.status, r.message])));
      assert.deepEqual(
        results.map((r) => `${r.task.gvr.group}/${r.task.gvr.version}/${r.task.gvr.resource}`).sort(),
        independent
          .filter((x) => !(x.group === 'events.k8s.io' && x.resource === 'events'))
          .map((x) => `${x.group}/${x.version}/${x.resource}`)
          .sort(),
        'one task per listable type, at its preferred version (legacy discovery, read independently), events.k8s.io left out as the same objects as core events',
      );
      assert.deepEqual(
        summary.skippedTypes.map((s) => `${s.resource}.${s.group}`),
        ['events.events.k8s.io'],
      );
      assert.ok(
        results.some((r) => key(r) === 'beta.kubeloop.io/gizmos' && r.task.gvr.version === 'v1'),
        'the two-version CRD is listed once, at v1',
      );
      const total = await assertExact(results, before, (s) => t.diagnostic(s));
      assert.equal(summary.objects, total);
      // What the test created is all there, per type.
      for (const [k, names] of created.byType) {
        const r = results.find((x) => key(x) === k);
        assert.ok(r, `a result for ${k}`);
        const loaded = new Set(r.items.map((o) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name!)));
        for (const n of names) assert.ok(loaded.has(n), `${k}: ${n} loaded`);
      }
      // The server's typed lists leave apiVersion and kind out of their items; the loader's objects
      // carry both anyway (as client-go's dynamic client and kubectl show them).
      for (const r of results) {
        const apiVersion = r.task.gvr.group ? `${r.task.gvr.group}/${r.task.gvr.version}` : r.task.gvr.version;
        for (const o of r.items) assert.deepEqual([o.kind, o.apiVersion], [r.task.kind, apiVersion], `${key(r)} ${o.metadata.name}: kind and apiVersion`);
      }
      const own = total - created.total;
      assert.ok(own > 100, `the server's own objects are counted too (${own})`);
      // The timeline agrees: pages add up, one finish per task, lanes within the pool.
      assert.equal(
        events.filter((e) => e.phase === 'page').reduce((n, e) => n + (e.count ?? 0), 0),
        total,
      );
      assert.equal(events.filter((e) => e.phase === 'finish').length, results.length);
      assert.ok(events.every((e) => e.worker >= 0 && e.worker < 4));
      t.diagnostic(
        `${summary.resourceTypes} types, ${total} objects (${created.total} created by the test, ${own} the server's own), ${summary.requests} requests, ${summary.durationMs} ms`,
      );
    } finally {
      client.close();
    }
  });

  it('metadata-only mode: only metadata, the same exact counts, fewer bytes', async (t) => {
    const client = await KubeClient.fromKubeconfig({ kubeconfig: cp.kubeconfigPath });
    try {
      const include = [
        'configmaps',
        'secrets',
        'pods',
        'deployments.apps',
        'roles.rbac.authorization.k8s.io',
        'namespaces',
        'clusterroles',
        'widgets.stable.kubeloop.io',
        'gadgets.stable.kubeloop.io',
        'gizmos.beta.kubeloop.io',
      ];
      const full = await new ClusterLoader(client, { concurrency: 4, pageSize: PAGE, include }).load();
      const before = await plainUids(full.results);
      const meta = await new ClusterLoader(client, { concurrency: 4, pageSize: PAGE, include, metadataOnly: true }).load();
      assert.equal(meta.summary.outcome, 'ok');
      assert.equal(meta.results.length, include.length);
      const total = await assertExact(meta.results, before, (s) => t.diagnostic(s));
      assert.equal(total, full.summary.objects);
      for (const r of meta.results) {
        for (const o of r.items) {
          assert.deepEqual(Object.keys(o), ['metadata'], `${key(r)}: metadata only`);
          assert.ok(o.metadata.name && o.metadata.uid && o.metadata.resourceVersion);
          assert.equal(o.metadata.managedFields, undefined);
        }
      }
      assert.ok(
        meta.summary.bytes < full.summary.bytes * 0.8,
        `the server sent PartialObjectMetadataList (${meta.summary.bytes} vs ${full.summary.bytes} bytes)`,
      );
      t.diagnostic(`metadata-only ${meta.summary.bytes} bytes vs full ${full.summary.bytes} bytes for ${total} objects`);
    } finally {
      client.close();
    }
  });

  it('a limited user gets every allowed type exactly and one 403 with the real message per other type', async () => {
    const client = await KubeClient.fromKubeconfig({ kubeconfig: kubeconfigFor(cp, LIMITED.name) });
    try {
      // Without the access reviews every type is asked, so each forbidden one gets the server's own 403.
      const { summary, results } = await new ClusterLoader(client, { concurrency: 4, pageSize: PAGE, accessReview: false }).load();
      assert.equal(summary.outcome, 'partial');
      const allowed = new Set(['/configmaps', '/pods', '/namespaces', 'apps/deployments', 'stable.kubeloop.io/widgets']);
      const ok = results.filter((r) => r.outcome === 'ok');
      assert.deepEqual(ok.map(key).sort(), [...allowed].sort());
      await assertExact(ok, await plainUids(ok), () => undefined);
      const failed = results.filter((r) => r.outcome !== 'ok');
      assert.equal(failed.length, results.length - allowed.size);
      assert.equal(new Set(failed.map(key)).size, failed.length, 'one failed result per forbidden type');
      for (const r of failed) {
        const { group, resource } = r.task.gvr;
        const qualified = group ? `${resource}.${group}` : resource;
        assert.deepEqual([r.outcome, r.status, r.reason, r.retries, r.count], ['error', 403, 'Forbidden', 0, 0], key(r));
        // A namespaced type refused across namespaces was asked once more in the context's namespace
        // (default): its result is that 403.
        const scope = r.task.namespace ? `in the namespace "${r.task.namespace}"` : 'at the cluster scope';
        assert.equal(r.task.namespace, r.task.namespaced ? 'default' : undefined, key(r));
        assert.equal(r.message, `${qualified} is forbidden: User "${LIMITED.name}" cannot list resource "${resource}" in API group "${group}" ${scope}`);
      }
      // With the reviews (the default), the same types load and the same ones are forbidden, known
      // from the user's rules: none of them is requested.
      const reviewed = await new ClusterLoader(client, { concurrency: 4, pageSize: PAGE }).load();
      assert.deepEqual(
        reviewed.results
          .filter((r) => r.outcome === 'ok')
          .map(key)
          .sort(),
        [...allowed].sort(),
      );
      const known = reviewed.results.filter((r) => r.outcome !== 'ok');
      assert.deepEqual(known.map(key).sort(), failed.map(key).sort());
      for (const r of known) assert.deepEqual([r.status, r.forbidden, r.pages], [403, 'review', 0], key(r));
      // Per namespace, the message names the namespace.
      const ns = await new ClusterLoader(client, { namespaces: ['team-03'], include: ['secrets', 'configmaps'], accessReview: false }).load();
      const secrets = ns.results.find((r) => r.task.gvr.resource === 'secrets')!;
      assert.equal(secrets.message, `secrets is forbidden: User "${LIMITED.name}" cannot list resource "secrets" in API group "" in the namespace "team-03"`);
      const cms = ns.results.find((r) => r.task.gvr.resource === 'configmaps')!;
      assert.equal(cms.outcome, 'ok');
      assert.equal(cms.count, (await api.list('/api/v1/namespaces/team-03/configmaps')).items.length);
    } finally {
      client.close();
    }
  });
});
