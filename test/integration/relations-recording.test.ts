// Relations from a flight recording: the owners of a recorded pod (pod -> ReplicaSet -> Deployment)
// rebuilt from the recording's objects, and the pod's Events kept after the API server expired them
// (the demo's --event-ttl made short), with the warnings filter. The recording is the extension's
// own: a SyncRunner recorded by core's recorder, over a real socket to the demo cluster.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '../../src/core/kube/client';
import { loadKubeContext } from '../../src/core/kube/config/kubeconfig';
import { Recording } from '../../src/core/recorder/reader';
import { startRecording } from '../../src/core/recorder/session';
import { TimelineStore } from '../../src/core/timeline/store';
import { createLogger } from '../../src/app/logger';
import { ResourceModel } from '../../src/app/model/resourceModel';
import { liveEventsAbout, recordedEventsAbout } from '../../src/app/relations/objectEvents';
import { recordedOwnerIndex } from '../../src/app/relations/recordedOwners';
import { SyncRunner } from '../../src/app/sync/syncRunner';
import { api, namespace, startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';

const NS = 'recrel';
const quiet = createLogger(
  { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  () => 'error',
);
const never = new AbortController().signal;

describe('relations from a recording', () => {
  let tc: TestCluster;
  let client: KubeClient;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-relations-'));
    tc = await startTestCluster({ objects: 0, kubelet: true, kubeletSpeed: 20, controllers: true, eventTtlMs: 2000 });
    client = await KubeClient.connect(loadKubeContext({ kubeconfig: tc.kubeconfig }));
    assert.equal((await api(tc.cluster, '/api/v1/namespaces', { method: 'POST', json: namespace(NS) })).status, 201);
  });

  after(async () => {
    client?.close();
    await tc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rebuilds a pod owner chain and keeps its Events past their expiry, warnings filterable', async () => {
    const runner = new SyncRunner({
      client,
      contextName: 'demo',
      namespaces: [NS],
      types: [
        { group: 'apps', version: 'v1', resource: 'replicasets', namespaced: true },
        { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true },
      ],
      syncPeriodSeconds: 60,
      pageSize: 500,
      model: new ResourceModel(),
      timeline: new TimelineStore(),
      log: quiet,
      origin: 0,
    });
    const session = new AbortController();
    const path = join(dir, 'rel.klr');
    try {
      await eventually(() => runner.sourcesReady(), { description: 'the loop listed', timeoutMs: 30_000 });
      const rec = await startRecording({ path, context: 'demo', timeline: new TimelineStore() }, session.signal);
      runner.record(rec.recorder);
      const d = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'api', namespace: NS },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'api' } },
          template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
        },
      };
      assert.equal((await api(tc.cluster, `/apis/apps/v1/namespaces/${NS}/deployments`, { method: 'POST', json: d })).status, 201);
      const pod = await eventually(() => tc.cluster.store.list('', 'pods', NS).items[0], { description: 'the pod', timeoutMs: 30_000 });
      const target = { uid: pod.metadata.uid!, kind: 'Pod', name: pod.metadata.name, namespace: NS };
      // A Warning about the pod beside the kubelet's Normal ones.
      const warning = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${pod.metadata.name}.warn`, namespace: NS },
        involvedObject: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name, namespace: NS, uid: pod.metadata.uid },
        type: 'Warning',
        reason: 'BackOff',
        message: 'Back-off restarting failed container c',
        count: 3,
        lastTimestamp: new Date().toISOString(),
        source: { component: 'kubelet' },
      };
      assert.equal((await api(tc.cluster, `/api/v1/namespaces/${NS}/events`, { method: 'POST', json: warning })).status, 201);
      await eventually(() => rec.recorder.holds(`events/${NS}/${pod.metadata.name}.warn`), { description: 'the Warning recorded', timeoutMs: 20_000 });
      // the API server's TTL expires them: the live list ends empty, the recording saw them go
      await eventually(
        async () => {
          const live = await liveEventsAbout(client, target, never);
          return 'rows' in live && live.rows.length === 0 && !rec.recorder.holds(`events/${NS}/${pod.metadata.name}.warn`);
        },
        { description: "the pod's Events expired and their deletion recorded", timeoutMs: 30_000 },
      );
      session.abort();
      await rec.done;

      const r = await Recording.open(path, never);
      try {
        const all = await recordedEventsAbout(r, target, never);
        assert.ok(all.length >= 2, `the recorded Events about the pod: ${all.map((e) => e.reason).join(', ')}`);
        assert.ok(all.some((e) => e.type === 'Normal'));
        const warnings = await recordedEventsAbout(r, target, never, true);
        assert.deepEqual(
          warnings.map((e) => [e.type, e.reason, e.count, e.source]),
          [['Warning', 'BackOff', 3, 'kubelet']],
        );
        // the owners, at the instant the pod was last recorded alive
        const ix = recordedOwnerIndex(await r.objectsAt(r.range.end, never));
        const up = ix.ownersOf(pod.metadata.uid!)!;
        assert.equal(up.children[0]?.node.kind, 'ReplicaSet');
        assert.equal(up.children[0]?.children[0]?.node.kind, 'Deployment');
        assert.equal(up.children[0]?.children[0]?.node.virtual, false, 'the Deployment was recorded, not only named');
      } finally {
        r.close();
      }
    } finally {
      session.abort();
      await runner.stop();
    }
  });
});
