/**
 * What the sync loop keeps of a changed object (src/core/kube/objects/share.ts, wired in ConfigSink): after
 * a watch MODIFIED event, the version a source holds takes the previous version's unchanged parts
 * (the same objects), keeps the changed ones new, and the loop still handles the change as the
 * config merge classifies it (a label change of a pod is an UPDATE). Real watches from the demo
 * cluster over a real socket.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PODS_GVR, sourceName } from '../../src/core/syncloop/sources/cluster';
import type { SyncIterationEvent } from '../../src/core/timeline/events';
import { api, startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';
import { startSync } from '../support/syncLoop';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };

describe('the sync loop keeps what a change changed, and shares the rest with the version before', () => {
  let t: TestCluster;
  before(async () => {
    t = await startTestCluster({ kubelet: false });
  });
  after(async () => {
    await t.close();
  });

  it('a pod label patch and a ConfigMap data patch: unchanged subtrees are the held objects, changed ones new', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'share-1', namespace: 'default', labels: { app: 'a' } },
      spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] },
    };
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'share-cm', namespace: 'default', labels: { team: 't' } }, data: { a: '1', b: '2' } };
    assert.equal((await api(t.cluster, '/api/v1/namespaces/default/pods', { method: 'POST', json: pod })).status, 201);
    assert.equal((await api(t.cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', json: cm })).status, 201);

    const { sync, timeline, stop } = await startSync(t.kubeconfig, { types: [CONFIGMAPS] });
    try {
      const podSource = sourceName(PODS_GVR);
      const cmSource = sourceName(CONFIGMAPS);
      const find = (source: string, name: string) => sync.held(source).find((o) => o.metadata.name === name);
      await eventually(() => sync.allSourcesReady() && !!find(podSource, 'share-1') && !!find(cmSource, 'share-cm'), {
        description: 'both objects held',
        timeoutMs: 20_000,
      });
      const p0 = find(podSource, 'share-1')! as any;
      const c0 = find(cmSource, 'share-cm')! as any;

      const merge = { 'content-type': 'application/merge-patch+json' };
      assert.equal(
        (await api(t.cluster, '/api/v1/namespaces/default/pods/share-1', { method: 'PATCH', headers: merge, json: { metadata: { labels: { app: 'b' } } } }))
          .status,
        200,
      );
      assert.equal(
        (await api(t.cluster, '/api/v1/namespaces/default/configmaps/share-cm', { method: 'PATCH', headers: merge, json: { data: { b: '3' } } })).status,
        200,
      );
      await eventually(
        () =>
          find(podSource, 'share-1')!.metadata.resourceVersion !== p0.metadata.resourceVersion &&
          find(cmSource, 'share-cm')!.metadata.resourceVersion !== c0.metadata.resourceVersion,
        {
          description: 'both changes held',
          timeoutMs: 20_000,
        },
      );
      const p1 = find(podSource, 'share-1')! as any;
      const c1 = find(cmSource, 'share-cm')! as any;

      assert.notEqual(p1, p0);
      assert.equal(p1.metadata.labels.app, 'b');
      assert.equal(p0.metadata.labels.app, 'a', 'the version before is untouched');
      assert.equal(p1.spec, p0.spec, 'the unchanged spec is the held object');
      assert.equal(p1.spec.containers[0], p0.spec.containers[0]);
      assert.notEqual(p1.metadata, p0.metadata, 'metadata changed: a new object');
      assert.notEqual(p1.metadata.labels, p0.metadata.labels);

      assert.deepEqual(c1.data, { a: '1', b: '3' });
      assert.deepEqual(c0.data, { a: '1', b: '2' });
      assert.notEqual(c1.data, c0.data);
      assert.equal(c1.metadata.labels, c0.metadata.labels, 'unchanged labels are the held object');

      // The change is still the merge's UPDATE of that pod (a label is not status).
      await eventually(
        () =>
          timeline
            .toArray()
            .some((e) => e.kind === 'iteration' && (e as SyncIterationEvent).op === 'UPDATE' && (e as SyncIterationEvent).key === 'default/share-1'),
        { description: 'an UPDATE iteration for the pod', timeoutMs: 20_000 },
      );
    } finally {
      await stop();
    }
  });
});
