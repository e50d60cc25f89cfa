/**
 * The sync loop on protobuf and on JSON observes the same: two loops on one demo cluster, one whose
 * client asks for protobuf (the default) and one with `protobuf: false`, watching pods and every
 * other built-in kind with a field set, through the same churn (pods added, run, deleted; a
 * Deployment scaled; a Service relabelled; ConfigMaps made and deleted; a Node's condition). After
 * it both hold the same desired state (keys), show the same rows, have the same actual state, and
 * made the same observations (the informer's operations per key, in order).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/core/kube/client';
import { objectKey } from '../../src/core/kube/objects/objectKey';
import type { StoredObject } from '../../src/core/kube/objects/types';
import type { WatchedType } from '../../src/core/syncloop/sources/watchscope';
import type { DemoObject } from '../../src/demo/store';
import { eventually } from '../support/eventually';
import { assertLoopsAgree } from '../support/loopParity';
import { startSync, type RunningSync } from '../support/syncLoop';
import { startTestCluster, type TestCluster } from './demo-support';

const TYPES: WatchedType[] = [
  { group: '', version: 'v1', resource: 'events', namespaced: true },
  { group: '', version: 'v1', resource: 'nodes', namespaced: false },
  { group: '', version: 'v1', resource: 'namespaces', namespaced: false },
  { group: '', version: 'v1', resource: 'services', namespaced: true },
  { group: '', version: 'v1', resource: 'configmaps', namespaced: true, metadataOnly: true, kind: 'ConfigMap' },
  { group: '', version: 'v1', resource: 'secrets', namespaced: true, metadataOnly: true, kind: 'Secret' },
  { group: '', version: 'v1', resource: 'persistentvolumes', namespaced: false },
  { group: '', version: 'v1', resource: 'persistentvolumeclaims', namespaced: true },
  { group: '', version: 'v1', resource: 'replicationcontrollers', namespaced: true },
  { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true },
  { group: 'apps', version: 'v1', resource: 'replicasets', namespaced: true },
  { group: 'apps', version: 'v1', resource: 'statefulsets', namespaced: true },
  { group: 'apps', version: 'v1', resource: 'daemonsets', namespaced: true },
  { group: 'batch', version: 'v1', resource: 'jobs', namespaced: true },
  { group: 'batch', version: 'v1', resource: 'cronjobs', namespaced: true },
  { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', namespaced: true },
];

const clone = <T>(o: T): T => JSON.parse(JSON.stringify(o)) as T;

describe('the sync loop: protobuf and JSON observe the same', () => {
  let t: TestCluster;
  let pb: RunningSync;
  let js: RunningSync;
  before(async () => {
    t = await startTestCluster({ objects: 300, kubelet: false });
    pb = await startSync({ client: await KubeClient.fromKubeconfig({ kubeconfig: t.kubeconfig }) }, { types: TYPES, readyTimeoutMs: 120_000 });
    js = await startSync(
      { client: await KubeClient.fromKubeconfig({ kubeconfig: t.kubeconfig }, { protobuf: false }) },
      { types: TYPES, readyTimeoutMs: 120_000 },
    );
  });
  after(async () => {
    await pb?.stop();
    await js?.stop();
    await t?.close();
  });

  it('the same desired state, rows, actual state and observations after the same churn', async () => {
    const store = t.cluster.store;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    for (let i = 0; i < 12; i++) {
      store.create(
        '',
        'pods',
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `pb-${i}`, namespace: 'default', labels: { app: 'pb' } },
          spec: {
            nodeName: 'demo-node-1',
            dnsPolicy: 'ClusterFirst',
            containers: [{ name: 'c', image: 'nginx:1.27', readinessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 5 } }],
          },
          status: { phase: 'Pending' },
        } as unknown as DemoObject,
        { manager: 'test' },
      );
    }
    for (let i = 0; i < 8; i++) {
      const p = clone(store.get('', 'pods', 'default', `pb-${i}`)!);
      Object.assign(p, {
        status: {
          phase: 'Running',
          startTime: now,
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }],
          containerStatuses: [
            {
              name: 'c',
              ready: true,
              restartCount: i % 3,
              image: 'nginx:1.27',
              imageID: '',
              containerID: `containerd://${i}`,
              state: { running: { startedAt: now } },
            },
          ],
        },
      });
      store.update('', 'pods', p, { subresource: 'status', manager: 'kubelet' });
    }
    for (let i = 8; i < 12; i++) store.delete('', 'pods', 'default', `pb-${i}`);
    const d = clone(store.list('apps', 'deployments').items[0]!) as DemoObject & { spec: { replicas?: number } };
    d.spec.replicas = (d.spec.replicas ?? 1) + 2;
    store.update('apps', 'deployments', d, { manager: 'test' });
    const svc = clone(store.list('', 'services').items[0]!);
    svc.metadata.labels = { ...(svc.metadata.labels ?? {}), relabelled: 'yes' };
    store.update('', 'services', svc, { manager: 'test' });
    for (let i = 0; i < 3; i++)
      store.create('', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `pb-cm-${i}`, namespace: 'default' } } as DemoObject, {
        manager: 'test',
      });
    store.delete('', 'configmaps', 'default', 'pb-cm-1');
    const node = clone(store.list('', 'nodes').items[0]!) as DemoObject & { status: { conditions?: { type: string; status: string }[] } };
    node.status.conditions = (node.status.conditions ?? []).map((c) => (c.type === 'MemoryPressure' ? { ...c, status: 'True' } : c));
    store.update('', 'nodes', node, { subresource: 'status', manager: 'kubelet' });

    const keys = (s: RunningSync) => [...s.sync.desiredObjects()].map((d) => d.key).sort();
    const expectedKeys = () => {
      const out: string[] = [];
      for (const ty of [{ group: '', resource: 'pods' }, ...TYPES]) {
        for (const o of store.list(ty.group, ty.resource).items) out.push(objectKey(o as unknown as StoredObject, ty));
      }
      return out;
    };
    await eventually(
      () => {
        const pk = keys(pb);
        const jk = keys(js);
        const running = (s: RunningSync) => (s.sync.desired('default/pb-7')?.obj as { status?: { phase?: string } } | undefined)?.status?.phase === 'Running';
        const cms = (k: string[]) => !k.includes('configmaps:default/pb-cm-1') && k.includes('configmaps:default/pb-cm-2') && !k.includes('default/pb-11');
        assert.ok(running(pb), 'protobuf: pb-7 Running');
        assert.ok(running(js), 'JSON: pb-7 Running');
        assert.ok(cms(pk), 'protobuf: the configmaps and deleted pods');
        assert.ok(cms(jk), 'JSON: the configmaps and deleted pods');
        assert.deepStrictEqual(pk, jk);
        return true;
      },
      { description: 'both loops saw the churn', timeoutMs: 30_000 },
    );
    assert.deepStrictEqual(keys(pb), [...new Set(expectedKeys())].sort());

    // The protobuf loop's objects came through the walker: narrowed to the field set. (A pod is
    // narrowed in both: the loop keeps its own copy of a pod, config/loopPod.ts; a Deployment as it came.)
    const deployment = objectKey(d as unknown as StoredObject, { group: 'apps', resource: 'deployments' });
    const spec = (s: RunningSync) => (s.sync.desired(deployment)!.obj as unknown as { spec: Record<string, unknown> }).spec;
    assert.equal(typeof spec(js).template, 'object');
    assert.equal(spec(pb).template, undefined);

    await assertLoopsAgree(pb, js);
  });
});
