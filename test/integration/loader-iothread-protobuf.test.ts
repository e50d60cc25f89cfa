/**
 * The loader's full-object lists are walked by the I/O thread, and since issue 41 they ask for
 * protobuf there as on the calling thread: on the demo cluster, which answers protobuf as
 * kube-apiserver does, the loader's rows of every built-in kind with a field set (ConfigMaps and
 * Secrets included: the loader reads rows only) are the rows the same load gives from JSON pages
 * (protobuf: false), every page walked by the thread either way. A Secret's values, and a
 * ConfigMap's data, reach neither the loaded objects nor the walker's string cache.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterLoader, type LoadTaskResult } from '../../src/core/loader';
import type { KubeClient, KubeObject } from '../../src/core/kube';
import type { StoredObject } from '../../src/core/kube/objects/types';
import { computeObjectView } from '../../src/core/rows/objectView';
import { cachedStrings } from '../../src/core/kube/protobuf/reader';
import { demo, type Fixture } from './loader-helpers';

/** The built-in types whose kinds have a field set (protobuf/ask.ts), as the loader's include names them. */
const TYPES: [include: string, kind: string][] = [
  ['pods', 'Pod'],
  ['events', 'Event'],
  ['nodes', 'Node'],
  ['namespaces', 'Namespace'],
  ['services', 'Service'],
  ['persistentvolumes', 'PersistentVolume'],
  ['persistentvolumeclaims', 'PersistentVolumeClaim'],
  ['replicationcontrollers', 'ReplicationController'],
  ['deployments.apps', 'Deployment'],
  ['replicasets.apps', 'ReplicaSet'],
  ['statefulsets.apps', 'StatefulSet'],
  ['daemonsets.apps', 'DaemonSet'],
  ['jobs.batch', 'Job'],
  ['cronjobs.batch', 'CronJob'],
  ['endpointslices.discovery.k8s.io', 'EndpointSlice'],
  ['configmaps', 'ConfigMap'],
  ['secrets', 'Secret'],
  ['serviceaccounts', 'ServiceAccount'],
  ['endpoints', 'Endpoints'],
  ['resourcequotas', 'ResourceQuota'],
  ['roles.rbac.authorization.k8s.io', 'Role'],
  ['rolebindings.rbac.authorization.k8s.io', 'RoleBinding'],
  ['clusterroles.rbac.authorization.k8s.io', 'ClusterRole'],
  ['clusterrolebindings.rbac.authorization.k8s.io', 'ClusterRoleBinding'],
  ['controllerrevisions.apps', 'ControllerRevision'],
  ['leases.coordination.k8s.io', 'Lease'],
  ['events.events.k8s.io', 'Event'],
  ['ingresses.networking.k8s.io', 'Ingress'],
  ['networkpolicies.networking.k8s.io', 'NetworkPolicy'],
  ['poddisruptionbudgets.policy', 'PodDisruptionBudget'],
  ['horizontalpodautoscalers.autoscaling', 'HorizontalPodAutoscaler'],
];

/** Planted in a Secret's data and a ConfigMap's data: the protobuf load must never decode them. */
const SECRET_VALUE = 'planted-secret-value-7f3a9c';
const CONFIG_VALUE = 'planted-config-value-5e1b2d';
const PAGE = 25;

const typeOf = (r: LoadTaskResult) => (r.task.gvr.group ? `${r.task.gvr.resource}.${r.task.gvr.group}` : r.task.gvr.resource);
const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

async function load(client: KubeClient) {
  const before = client.transport.stats.streamedPages;
  const { summary, results } = await new ClusterLoader(client, { include: TYPES.map(([t]) => t), pageSize: PAGE, concurrency: 4 }).load();
  assert.equal(summary.outcome, 'ok');
  const byType = new Map<string, { rows: Map<string, unknown>; bytes: number; pages: number }>();
  for (const r of results) {
    const kind = TYPES.find(([t]) => t === typeOf(r))![1];
    const rows = new Map<string, unknown>();
    for (const o of r.items)
      rows.set(keyOf(o), computeObjectView(keyOf(o), { ...o, kind } as StoredObject, { group: r.task.gvr.group, resource: r.task.gvr.resource }));
    byType.set(typeOf(r), { rows, bytes: r.bytes, pages: r.pages });
  }
  const pages = results.reduce((n, r) => n + r.pages, 0);
  return { byType, results, pages, streamed: client.transport.stats.streamedPages - before };
}

describe('the loader on the I/O thread: protobuf pages give the rows JSON pages give', () => {
  let fx: Fixture;
  before(async () => {
    fx = await demo(1500);
    fx.cluster.store.create('', 'secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'planted', namespace: 'default' },
      type: 'Opaque',
      data: { 'planted-key': Buffer.from(SECRET_VALUE).toString('base64') },
    });
    fx.cluster.store.create('', 'configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'planted', namespace: 'default' },
      data: { 'planted-key': CONFIG_VALUE },
    });
  });
  after(async () => {
    await fx.stop();
  });

  it('every built-in kind with a field set: the same rows; every page walked by the thread; protobuf pages smaller', async () => {
    const pb = await load(await fx.client());
    const js = await load(await fx.client({ protobuf: false }));
    assert.deepEqual([...pb.byType.keys()].sort(), TYPES.map(([t]) => t).sort(), 'every type loaded');
    assert.equal(pb.streamed, pb.pages, 'the I/O thread walked every protobuf page');
    assert.equal(js.streamed, js.pages, 'and every JSON page');
    for (const [type] of TYPES) {
      const p = pb.byType.get(type)!;
      const j = js.byType.get(type)!;
      assert.ok(p.rows.size > 0, `${type}: objects loaded`);
      assert.deepStrictEqual(p.rows, j.rows, `${type}: rows`);
      assert.equal(p.pages, j.pages, `${type}: pages`);
      assert.ok(p.bytes < j.bytes, `${type}: protobuf pages smaller (${p.bytes} vs ${j.bytes} bytes)`);
    }
    // Decoded by the walker: each pod narrowed to its field set.
    const spec = (o: KubeObject) => (o as unknown as { spec: Record<string, unknown> }).spec;
    const pods = (x: typeof pb) => x.results.find((r) => typeOf(r) === 'pods')!.items;
    assert.ok(pods(js).some((o) => spec(o).dnsPolicy !== undefined));
    assert.ok(pods(pb).every((o) => spec(o).dnsPolicy === undefined && spec(o).containers !== undefined));
  });

  it("a Secret's values and a ConfigMap's data: in no object the protobuf load keeps, nor in the walker's string cache", async () => {
    const include = ['secrets', 'configmaps'];
    const loadItems = async (protobuf: boolean) => {
      const client = await fx.client(protobuf ? {} : { protobuf: false });
      const { summary, results } = await new ClusterLoader(client, { include, pageSize: PAGE, concurrency: 2 }).load();
      assert.equal(summary.outcome, 'ok');
      return JSON.stringify(results.flatMap((r) => r.items));
    };
    const forms = [SECRET_VALUE, Buffer.from(SECRET_VALUE).toString('base64'), CONFIG_VALUE, 'planted-key'];
    const found = (text: string) => forms.filter((v) => text.includes(v));
    // JSON pages bring them (the search can fail) ...
    assert.deepEqual(found(await loadItems(false)), forms.slice(1));
    // ... protobuf pages, read by the walker, do not; the planted objects are loaded all the same.
    const pb = await loadItems(true);
    assert.deepEqual(found(pb), []);
    assert.deepEqual(found(cachedStrings().join('\n')), []);
    assert.ok(pb.includes('"name":"planted","namespace":"default"'), 'the planted objects are loaded');
    assert.ok(pb.includes('"type":"Opaque"'), "a Secret's type is kept");
  });

  it('a counting load (kubeloop load): the same counts and pages as the rows load, every page streamed, no object decoded', async () => {
    const name = 'counted-never-decoded-9b2c';
    fx.cluster.store.create('', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { k: 'v' } });
    const include = [...TYPES.map(([t]) => t), 'certificates.cert-manager.io'];
    const client = await fx.client();
    const before = client.transport.stats.streamedPages;
    const counted = await new ClusterLoader(client, { include, pageSize: PAGE, concurrency: 4, countsOnly: true }).load();
    assert.equal(counted.summary.outcome, 'ok');
    const pages = counted.results.reduce((n, r) => n + r.pages, 0);
    assert.equal(client.transport.stats.streamedPages - before, pages, 'every page walked by the I/O thread');
    // Nothing of an object was decoded: an item holds at most the kind its list names and an empty
    // metadata (a metadata-only list's), and the name is in no string made.
    const held = counted.results.flatMap((r) => r.items.map((o) => JSON.stringify({ ...o, kind: undefined, apiVersion: undefined })));
    assert.ok(held.length > 1000, `items: ${held.length}`);
    assert.deepEqual([...new Set(held)].sort(), ['{"metadata":{}}', '{}']);
    assert.deepEqual(
      cachedStrings().filter((s) => s === name),
      [],
    );
    const rows = await new ClusterLoader(await fx.client(), { include, pageSize: PAGE, concurrency: 4 }).load();
    const report = (x: typeof rows) => x.results.map((r) => `${typeOf(r)} ${r.task.namespace ?? ''}: ${r.count} in ${r.pages}`).sort();
    assert.deepEqual(report(counted), report(rows));
    assert.ok(rows.summary.objects > 1000, `objects: ${rows.summary.objects}`);
    assert.equal(counted.summary.objects, rows.summary.objects);
    assert.ok(
      rows.results.some((r) => r.items.some((o) => o.metadata.name === name)),
      'the rows load decodes the name',
    );
  });

  it("a counting load's pages on the calling thread (kubeloop load --metadata-only: no I/O thread) are counted, not decoded, too", async () => {
    const name = 'counted-here-never-decoded-4d1e';
    fx.cluster.store.create('', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { k: 'v' } });
    const include = ['configmaps', 'pods', 'certificates.cert-manager.io'];
    const client = await fx.client({ ioThread: false });
    const counted = await new ClusterLoader(client, { include, pageSize: PAGE, concurrency: 2, metadataOnly: true, countsOnly: true }).load();
    assert.equal(counted.summary.outcome, 'ok');
    assert.equal(client.transport.stats.streamedPages, 0, 'no page streamed');
    const held = counted.results.flatMap((r) => r.items.map((o) => JSON.stringify(o)));
    assert.ok(held.length > 100, `items: ${held.length}`);
    assert.deepEqual([...new Set(held)], ['{"metadata":{}}']);
    assert.deepEqual(
      cachedStrings().filter((s) => s === name),
      [],
    );
    const rows = await new ClusterLoader(await fx.client({ ioThread: false }), { include, pageSize: PAGE, concurrency: 2, metadataOnly: true }).load();
    const report = (x: typeof rows) => x.results.map((r) => `${typeOf(r)} ${r.task.namespace ?? ''}: ${r.count} in ${r.pages}`).sort();
    assert.deepEqual(report(counted), report(rows));
    assert.ok(rows.results.some((r) => r.items.some((o) => o.metadata.name === name)));
  });
});
