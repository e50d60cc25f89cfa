/**
 * Protobuf on the wire against a real kube-apiserver: for every built-in kind with a field set, a
 * list and a watch-list asked for in protobuf give the keys and tree rows the same requests in JSON
 * give; and two sync loops, one on protobuf and one on JSON, observe the same after the same churn
 * (desired keys, rows, actual state, the informer's operations per key in order).
 *
 * Run: node --import tsx --test --test-timeout=600000 test/apiserver/syncloop-protobuf.test.ts
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { KubeClient, type KubeObject } from '../../src/core/kube';
import { objectKey } from '../../src/core/kube/objects/objectKey';
import type { GroupVersionResource, StoredObject } from '../../src/core/kube/objects/types';
import { computeObjectView } from '../../src/core/rows/objectView';
import type { WatchedType } from '../../src/core/syncloop/sources/watchscope';
import { eventually } from '../support/eventually';
import { assertLoopsAgree } from '../support/loopParity';
import { startSync, type RunningSync } from '../support/syncLoop';
import { seed } from './objects';
import { Api, collectionPath } from './support';

const NS = 'pbl';
const g = (group: string, version: string, resource: string, kind: string, namespaced: boolean) => ({ group, version, resource, kind, namespaced });
const KINDS = [
  g('', 'v1', 'pods', 'Pod', true),
  g('', 'v1', 'events', 'Event', true),
  g('', 'v1', 'nodes', 'Node', false),
  g('', 'v1', 'namespaces', 'Namespace', false),
  g('', 'v1', 'services', 'Service', true),
  g('', 'v1', 'configmaps', 'ConfigMap', true),
  g('', 'v1', 'secrets', 'Secret', true),
  g('', 'v1', 'persistentvolumes', 'PersistentVolume', false),
  g('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true),
  g('', 'v1', 'replicationcontrollers', 'ReplicationController', true),
  g('apps', 'v1', 'deployments', 'Deployment', true),
  g('apps', 'v1', 'replicasets', 'ReplicaSet', true),
  g('apps', 'v1', 'statefulsets', 'StatefulSet', true),
  g('apps', 'v1', 'daemonsets', 'DaemonSet', true),
  g('batch', 'v1', 'jobs', 'Job', true),
  g('batch', 'v1', 'cronjobs', 'CronJob', true),
  g('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true),
];

const labels = { app: 'pbl' };
const podTemplate = { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } };

/** The kinds seed() does not make (a controller manager would), made by hand. */
async function seedTheRest(api: Api): Promise<void> {
  const post = (group: string, resource: string, body: unknown, ns?: string) => api.must('POST', collectionPath(group, 'v1', resource, ns), body);
  await post('', 'nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'pbl-node', labels: { zone: 'a' } } });
  await post(
    '',
    'events',
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'pbl-ev', namespace: NS },
      involvedObject: { kind: 'Pod', name: 'x', namespace: NS },
      reason: 'Started',
      message: 'started',
      type: 'Normal',
    },
    NS,
  );
  const selector = { matchLabels: labels };
  await post(
    '',
    'replicationcontrollers',
    { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'pbl-rc' }, spec: { replicas: 1, selector: labels, template: podTemplate } },
    NS,
  );
  await post(
    'apps',
    'replicasets',
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'pbl-rs' }, spec: { replicas: 2, selector, template: podTemplate } },
    NS,
  );
  await post('apps', 'daemonsets', { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'pbl-ds' }, spec: { selector, template: podTemplate } }, NS);
  await post(
    'discovery.k8s.io',
    'endpointslices',
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'pbl-es', labels: { 'kubernetes.io/service-name': 'x' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
      ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
    },
    NS,
  );
}

const keyOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const rowsOf = (items: KubeObject[], t: (typeof KINDS)[number]) =>
  new Map(items.map((o) => [keyOf(o), computeObjectView(keyOf(o), { ...o, kind: t.kind } as StoredObject, { group: t.group, resource: t.resource })]));

describe('protobuf on the wire, on a real kube-apiserver: the same rows and observations as JSON', () => {
  let cp: ControlPlane;
  let api: Api;
  let pb: KubeClient;
  let js: KubeClient;
  before(async () => {
    cp = await startControlPlane();
    api = Api.admin(cp);
    await seed(api, { namespaces: [NS], perNamespace: 2, cluster: 2, prefix: 'pbl' });
    await seedTheRest(api);
    pb = await KubeClient.fromKubeconfig({ kubeconfig: cp.kubeconfigPath }, { ioThread: false });
    js = await KubeClient.fromKubeconfig({ kubeconfig: cp.kubeconfigPath }, { ioThread: false, protobuf: false });
  });
  after(async () => {
    pb?.close();
    js?.close();
    api?.close();
    await cp?.stop();
  });

  it('every kind with a field set: a list and a watch-list give the keys and rows JSON gives', async () => {
    for (const t of KINDS) {
      const gvr: GroupVersionResource = t;
      const p = await pb.list(gvr, { limit: 50 });
      const j = await js.list(gvr, { limit: 50, resourceVersion: p.resourceVersion, resourceVersionMatch: 'Exact' });
      assert.ok(p.items.length > 0, `${t.resource}: objects to compare`);
      assert.deepStrictEqual(rowsOf(p.items, t), rowsOf(j.items, t), t.resource);
      const seen = async (client: KubeClient) => {
        const ac = new AbortController();
        const objects: KubeObject[] = [];
        const end = client.watch(
          gvr,
          { resourceVersion: p.resourceVersion, resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true },
          (e) => (e.type === 'BOOKMARK' ? ac.abort() : void objects.push(e.object)),
          ac.signal,
        );
        assert.equal((await end).kind, 'aborted', t.resource);
        return rowsOf(objects, t);
      };
      const [pw, jw] = await Promise.all([seen(pb), seen(js)]);
      assert.deepStrictEqual(pw, jw, t.resource);
      assert.equal(pw.size, p.items.length, t.resource);
    }
  });

  it('two sync loops, on protobuf and on JSON, observe the same churn', async () => {
    const types: WatchedType[] = KINDS.filter((t) => t.resource !== 'pods').map((t) => ({
      ...t,
      ...(t.resource === 'configmaps' || t.resource === 'secrets' ? { metadataOnly: true } : {}),
    }));
    const a = await startSync({ client: await KubeClient.fromKubeconfig({ kubeconfig: cp.kubeconfigPath }) }, { types, readyTimeoutMs: 120_000 });
    const b = await startSync(
      { client: await KubeClient.fromKubeconfig({ kubeconfig: cp.kubeconfigPath }, { protobuf: false }) },
      { types, readyTimeoutMs: 120_000 },
    );
    try {
      const pods = collectionPath('', 'v1', 'pods', NS);
      for (let i = 0; i < 6; i++) {
        await api.must('POST', pods, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `churn-${i}`, labels },
          spec: { nodeName: 'pbl-node', containers: [{ name: 'c', image: 'nginx:1.27' }] },
        });
      }
      const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      for (let i = 0; i < 4; i++) {
        const p = await api.must('GET', `${pods}/churn-${i}`);
        p.status = {
          phase: 'Running',
          startTime: now,
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }],
          containerStatuses: [
            {
              name: 'c',
              ready: true,
              restartCount: i,
              image: 'nginx:1.27',
              imageID: '',
              containerID: `containerd://${i}`,
              state: { running: { startedAt: now } },
            },
          ],
        };
        await api.must('PUT', `${pods}/churn-${i}/status`, p);
      }
      await api.must('DELETE', `${pods}/churn-5?gracePeriodSeconds=0`);
      await api.must('PATCH', `${pods}/churn-0`, { metadata: { labels: { relabelled: 'yes' } } }, [200], { 'Content-Type': 'application/merge-patch+json' });
      await api.must('POST', collectionPath('', 'v1', 'configmaps', NS), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'churn-cm' },
        data: { a: '1' },
      });

      const keys = (s: RunningSync) => [...s.sync.desiredObjects()].map((d) => d.key).sort();
      const expected = async () => {
        const out: string[] = [];
        for (const t of KINDS) {
          const list = await api.must('GET', collectionPath(t.group, t.version, t.resource));
          for (const o of list.items as StoredObject[]) out.push(objectKey(o, t));
        }
        return out.sort();
      };
      const want = await expected();
      const running = (s: RunningSync) => (s.sync.desired(`${NS}/churn-3`)?.obj as { status?: { phase?: string } } | undefined)?.status?.phase === 'Running';
      await eventually(
        () => {
          assert.deepStrictEqual(keys(a), want, 'protobuf: the desired keys');
          assert.deepStrictEqual(keys(b), want, 'JSON: the desired keys');
          assert.ok(running(a) && running(b), 'churn-3 Running in both');
          return true;
        },
        { description: 'both loops saw the churn', timeoutMs: 120_000 },
      );
      await assertLoopsAgree(a, b);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
