/**
 * The kube layer asks for protobuf (listwatch/list.ts, watch.ts) and reads whatever comes by its
 * Content-Type: on the demo cluster, which answers protobuf as kube-apiserver does, a list and a
 * watch of every kind with a field set give the same keys and tree rows as the same requests in
 * JSON (protobuf: false), each object narrowed to its field set; metadata-only lists and watches of
 * a custom resource come in protobuf, its full objects in JSON (as ConfigMaps' and Secrets', but for a
 * reader of rows: ListOptions.rowsOnly). A protobuf error Status is read as
 * the error it says (a 410 on a continue token restarts the list).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient, KubeApiError, type KubeObject } from '../../src/core/kube';
import type { GroupVersionResource, StoredObject } from '../../src/core/kube/objects/types';
import { PROTOBUF_ACCEPT, PROTOBUF_METADATA_LIST_ACCEPT } from '../../src/core/kube/protobuf';
import { computeObjectView } from '../../src/core/rows/objectView';
import { startDemoCluster, type DemoCluster } from '../../src/demo';
import { protobufList, protobufStatus } from '../../src/demo/server/protobuf-forms';
import { contextFor, startServer, type TestServer } from '../unit/kube-helpers';

const gvr = (group: string, version: string, resource: string): GroupVersionResource => ({ group, version, resource });

const TYPES: [GroupVersionResource, string][] = [
  [gvr('', 'v1', 'pods'), 'Pod'],
  [gvr('', 'v1', 'events'), 'Event'],
  [gvr('', 'v1', 'nodes'), 'Node'],
  [gvr('', 'v1', 'namespaces'), 'Namespace'],
  [gvr('', 'v1', 'services'), 'Service'],
  [gvr('', 'v1', 'configmaps'), 'ConfigMap'],
  [gvr('', 'v1', 'secrets'), 'Secret'],
  [gvr('', 'v1', 'persistentvolumes'), 'PersistentVolume'],
  [gvr('', 'v1', 'persistentvolumeclaims'), 'PersistentVolumeClaim'],
  [gvr('', 'v1', 'replicationcontrollers'), 'ReplicationController'],
  [gvr('apps', 'v1', 'deployments'), 'Deployment'],
  [gvr('apps', 'v1', 'replicasets'), 'ReplicaSet'],
  [gvr('apps', 'v1', 'statefulsets'), 'StatefulSet'],
  [gvr('apps', 'v1', 'daemonsets'), 'DaemonSet'],
  [gvr('batch', 'v1', 'jobs'), 'Job'],
  [gvr('batch', 'v1', 'cronjobs'), 'CronJob'],
  [gvr('discovery.k8s.io', 'v1', 'endpointslices'), 'EndpointSlice'],
  [gvr('', 'v1', 'serviceaccounts'), 'ServiceAccount'],
  [gvr('', 'v1', 'endpoints'), 'Endpoints'],
  [gvr('', 'v1', 'resourcequotas'), 'ResourceQuota'],
  [gvr('rbac.authorization.k8s.io', 'v1', 'roles'), 'Role'],
  [gvr('rbac.authorization.k8s.io', 'v1', 'rolebindings'), 'RoleBinding'],
  [gvr('rbac.authorization.k8s.io', 'v1', 'clusterroles'), 'ClusterRole'],
  [gvr('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings'), 'ClusterRoleBinding'],
  [gvr('apps', 'v1', 'controllerrevisions'), 'ControllerRevision'],
  [gvr('coordination.k8s.io', 'v1', 'leases'), 'Lease'],
  [gvr('events.k8s.io', 'v1', 'events'), 'Event'],
  [gvr('networking.k8s.io', 'v1', 'ingresses'), 'Ingress'],
  [gvr('networking.k8s.io', 'v1', 'networkpolicies'), 'NetworkPolicy'],
  [gvr('policy', 'v1', 'poddisruptionbudgets'), 'PodDisruptionBudget'],
  [gvr('autoscaling', 'v2', 'horizontalpodautoscalers'), 'HorizontalPodAutoscaler'],
];
const WIDGETS = gvr('example.com', 'v1', 'widgets');

const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;

function rowsOf(items: KubeObject[], g: GroupVersionResource, kind: string): Map<string, unknown> {
  const rows = new Map<string, unknown>();
  for (const o of items) rows.set(keyOf(o), computeObjectView(keyOf(o), { ...o, kind } as StoredObject, { group: g.group, resource: g.resource }));
  return rows;
}

describe('kube layer: protobuf on the wire, on the demo cluster', () => {
  let c: DemoCluster;
  let pb: KubeClient;
  let js: KubeClient;
  before(async () => {
    c = await startDemoCluster({ objects: 400, crds: [{ group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true }] });
    for (let i = 0; i < 3; i++) {
      c.store.create(
        'example.com',
        'widgets',
        { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: `w${i}`, namespace: 'pb-test' }, spec: { size: i } },
        { manager: 'test' },
      );
    }
    // no I/O thread: every page is read on this thread, where protobuf is asked for
    pb = await KubeClient.connect(contextFor(c.url), { qps: 0, ioThread: false });
    js = await KubeClient.connect(contextFor(c.url), { qps: 0, ioThread: false, protobuf: false });
  });
  after(async () => {
    pb.close();
    js.close();
    await c.stop();
  });

  for (const [g, kind] of TYPES) {
    it(`${g.group || 'core'}/${g.resource}: a list and a watch in protobuf give the keys and rows JSON gives`, async () => {
      const before = c.stats.bodyBytesSent;
      const p = await pb.list(g, { limit: 50 });
      const pbBytes = c.stats.bodyBytesSent - before;
      const j = await js.list(g, { limit: 50, resourceVersion: p.resourceVersion, resourceVersionMatch: 'Exact' });
      assert.ok(p.items.length > 0);
      assert.deepStrictEqual(rowsOf(p.items, g, kind), rowsOf(j.items, g, kind));
      assert.equal(p.items[0]!.kind, kind, 'items typed from the list');
      // ConfigMaps' and Secrets' full objects are asked for in JSON (their field sets drop the data)
      if (!['ConfigMap', 'Secret'].includes(kind))
        assert.ok(pbBytes < c.stats.bodyBytesSent - before - pbBytes, 'the protobuf pages are smaller than the JSON ones');

      const seen = async (client: KubeClient) => {
        const ac = new AbortController();
        const events: string[] = [];
        const objects: KubeObject[] = [];
        const end = client.watch(
          g,
          { resourceVersion: p.resourceVersion, resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true },
          (e) => {
            if (e.type === 'BOOKMARK') return ac.abort();
            events.push(`${e.type} ${keyOf(e.object)}`);
            objects.push(e.object);
          },
          ac.signal,
        );
        assert.equal((await end).kind, 'aborted');
        return { events, rows: rowsOf(objects, g, kind) };
      };
      const [pw, jw] = await Promise.all([seen(pb), seen(js)]);
      assert.deepStrictEqual(pw, jw);
      assert.equal(pw.events.length, p.items.length);
    });
  }

  it('asks for protobuf, and narrows objects to the field set; protobuf: false asks for JSON', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }));
    });
    try {
      const a = await KubeClient.connect(contextFor(server.url), { qps: 0, ioThread: false });
      const b = await KubeClient.connect(contextFor(server.url), { qps: 0, ioThread: false, protobuf: false });
      await a.list(gvr('', 'v1', 'pods'));
      await a.list(gvr('', 'v1', 'pods'), { metadataOnly: true });
      await a.list(WIDGETS);
      await b.list(gvr('', 'v1', 'pods'));
      // a Secret's full objects: JSON, data and all, but for a reader of rows (the loader)
      await a.list(gvr('', 'v1', 'secrets'));
      await a.list(gvr('', 'v1', 'secrets'), { rowsOnly: true });
      await b.list(gvr('', 'v1', 'secrets'), { rowsOnly: true });
      a.close();
      b.close();
      assert.deepStrictEqual(
        server.seen.map((s) => s.headers.accept),
        [PROTOBUF_ACCEPT, PROTOBUF_METADATA_LIST_ACCEPT, 'application/json', 'application/json', 'application/json', PROTOBUF_ACCEPT, 'application/json'],
      );
    } finally {
      await server.close();
    }
    const p = await pb.list(gvr('', 'v1', 'pods'), { limit: 500 });
    const j = await js.list(gvr('', 'v1', 'pods'), { limit: 500 });
    const spec = (o: KubeObject) => (o as unknown as { spec: Record<string, unknown> }).spec;
    assert.ok(
      j.items.some((o) => spec(o).dnsPolicy !== undefined),
      'JSON pods carry fields the loop does not read',
    );
    assert.ok(
      p.items.every((o) => spec(o).dnsPolicy === undefined && spec(o).containers !== undefined),
      'protobuf pods carry the field set',
    );
  });

  it('a custom resource: full objects in JSON, metadata-only lists and watches in protobuf', async () => {
    const full = await pb.list(WIDGETS, { namespace: 'pb-test' });
    assert.deepStrictEqual(
      full.items.map((o) => (o as unknown as { spec: unknown }).spec),
      [{ size: 0 }, { size: 1 }, { size: 2 }],
    );
    const meta = await pb.list(WIDGETS, { namespace: 'pb-test', metadataOnly: true, limit: 2 });
    assert.deepStrictEqual(meta.items.map(keyOf), ['pb-test/w0', 'pb-test/w1', 'pb-test/w2']);
    assert.ok(meta.items.every((o) => Object.keys(o).join() === 'metadata'));
    const ac = new AbortController();
    const names: string[] = [];
    const end = pb.watch(
      WIDGETS,
      { namespace: 'pb-test', metadataOnly: true },
      (e) => {
        names.push(`${e.type} ${keyOf(e.object)}`);
        if (names.length === 3) ac.abort();
      },
      ac.signal,
    );
    assert.equal((await end).kind, 'aborted');
    assert.deepStrictEqual(names.sort(), ['ADDED pb-test/w0', 'ADDED pb-test/w1', 'ADDED pb-test/w2']);
  });

  it('a protobuf 410 on a continue token is read as Expired, and the list restarts', async () => {
    const items = c.store.list('', 'pods', undefined).items.slice(0, 4);
    let calls = 0;
    const server: TestServer = await startServer((req, res) => {
      calls++;
      assert.equal(req.headers.accept, PROTOBUF_ACCEPT);
      const cont = new URL(req.url ?? '', 'http://x').searchParams.get('continue');
      if (cont && calls === 2) {
        res.writeHead(410, { 'content-type': 'application/vnd.kubernetes.protobuf' });
        return res.end(
          protobufStatus({
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: 'the continue token expired',
            reason: 'Expired',
            code: 410,
          }),
        );
      }
      res.writeHead(200, { 'content-type': 'application/vnd.kubernetes.protobuf' });
      res.end(
        cont
          ? protobufList('v1', 'Pod', items.slice(2), { resourceVersion: '9' })
          : protobufList('v1', 'Pod', items.slice(0, 2), { resourceVersion: '9', continue: 'next' }),
      );
    });
    const client = await KubeClient.connect(contextFor(server.url), { qps: 0, ioThread: false });
    const fallbacks: KubeApiError[] = [];
    try {
      const r = await client.list(gvr('', 'v1', 'pods'), { limit: 2 }, { onFallback: (e) => fallbacks.push(e) });
      assert.deepStrictEqual(r.items.map(keyOf), items.map(keyOf));
      assert.equal(fallbacks.length, 1);
      assert.equal(fallbacks[0]!.reason, 'Expired');
      assert.equal(fallbacks[0]!.message, 'the continue token expired');
    } finally {
      client.close();
      await server.close();
    }
  });
});
