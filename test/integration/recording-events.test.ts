// The sync loop's recording keeps every Event whole, whatever it is about: an Event about a
// Deployment and one about a custom resource reach the recording with their reason, message and
// type (they were watched as metadata only, so a recording held their names and nothing they said),
// and stay readable from it after the API server expired them (the demo's --event-ttl made short).
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
import { recordedEventsAbout } from '../../src/app/relations/objectEvents';
import { informerTypes } from '../../src/app/sync/informerTypes';
import { SyncRunner } from '../../src/app/sync/syncRunner';
import { api, namespace, startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';

const NS = 'recev';
const quiet = createLogger(
  { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  () => 'error',
);
const never = new AbortController().signal;

function event(name: string, involved: { apiVersion: string; kind: string; name: string; uid: string }, type: string, reason: string) {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: NS },
    involvedObject: { ...involved, namespace: NS },
    type,
    reason,
    message: `${reason} on ${involved.kind} ${involved.name}`,
    count: 2,
    lastTimestamp: new Date().toISOString(),
    source: { component: 'test-operator' },
  };
}

describe('Events in a sync-loop recording', () => {
  let tc: TestCluster;
  let client: KubeClient;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-recev-'));
    tc = await startTestCluster({ objects: 0, eventTtlMs: 8000 });
    client = await KubeClient.connect(loadKubeContext({ kubeconfig: tc.kubeconfig }));
    assert.equal((await api(tc.cluster, '/api/v1/namespaces', { method: 'POST', json: namespace(NS) })).status, 201);
  });

  after(async () => {
    client?.close();
    await tc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records Events about a Deployment and a custom resource whole, readable after they expired', async () => {
    const model = new ResourceModel();
    // What a load of the tree registers: Events among the types (their rows need only metadata).
    model.registerTypes([
      { key: 'events', gvr: { group: '', version: 'v1', resource: 'events' }, kind: 'Event', namespaced: true, watchable: true },
      { key: 'deployments.apps', gvr: { group: 'apps', version: 'v1', resource: 'deployments' }, kind: 'Deployment', namespaced: true, watchable: true },
    ]);
    const runner = new SyncRunner({
      client,
      contextName: 'demo',
      namespaces: [NS],
      types: informerTypes(model),
      syncPeriodSeconds: 60,
      pageSize: 500,
      model,
      timeline: new TimelineStore(),
      log: quiet,
      origin: 0,
    });
    const session = new AbortController();
    const path = join(dir, 'events.klr');
    try {
      await eventually(() => runner.sourcesReady(), { description: 'the loop listed', timeoutMs: 30_000 });
      const rec = await startRecording({ path, context: 'demo', timeline: new TimelineStore() }, session.signal);
      runner.record(rec.recorder);
      const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', uid: 'uid-deployment' };
      const widget = { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w1', uid: 'uid-widget' };
      for (const e of [event('api.1', deployment, 'Normal', 'ScalingReplicaSet'), event('w1.1', widget, 'Warning', 'SyncFailed')])
        assert.equal((await api(tc.cluster, `/api/v1/namespaces/${NS}/events`, { method: 'POST', json: e })).status, 201);
      const keys = ['api.1', 'w1.1'].map((name) => `events/${NS}/${name}`);
      await eventually(() => keys.every((k) => rec.recorder.holds(k)), { description: 'both Events recorded', timeoutMs: 20_000 });
      await eventually(() => keys.every((k) => !rec.recorder.holds(k)), { description: 'both Events expired and their deletion recorded', timeoutMs: 30_000 });
      session.abort();
      await rec.done;

      const r = await Recording.open(path, never);
      try {
        const onDeployment = await recordedEventsAbout(r, { uid: deployment.uid, kind: 'Deployment', name: 'api', namespace: NS }, never);
        assert.deepEqual(
          onDeployment.map((e) => [e.type, e.reason, e.message, e.count, e.source]),
          [['Normal', 'ScalingReplicaSet', 'ScalingReplicaSet on Deployment api', 2, 'test-operator']],
        );
        const onWidget = await recordedEventsAbout(r, { uid: widget.uid, kind: 'Widget', name: 'w1', namespace: NS }, never, true);
        assert.deepEqual(
          onWidget.map((e) => [e.type, e.reason, e.message]),
          [['Warning', 'SyncFailed', 'SyncFailed on Widget w1']],
        );
      } finally {
        r.close();
      }
    } finally {
      session.abort();
      await runner.stop();
    }
  });
});
