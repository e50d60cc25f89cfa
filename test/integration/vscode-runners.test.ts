// The extension's load and sync runners (no 'vscode') against the embedded demo cluster over real
// loopback HTTP: the tree's model fills as types finish, a cancel is prompt, a refresh of one type
// touches only that type, and the sync loop converges the model to the API (adds, status changes,
// and objects deleted before the loop started).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/core/kube/client';
import { loadKubeContext } from '../../src/core/kube/config/kubeconfig';
import { TimelineStore } from '../../src/core/timeline/store';
import { createLogger, type Logger } from '../../src/app/logger';
import { runLoad, type LoadProgress } from '../../src/app/load/loadRunner';
import { ResourceModel } from '../../src/app/model/resourceModel';
import { defaultSettings } from '../../src/app/settings';
import { SyncRunner } from '../../src/app/sync/syncRunner';
import { informerTypes } from '../../src/app/sync/informerTypes';
import { api, configMap, startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';
import { result, task } from '../unit/vscode-fixtures';

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = createLogger(
    {
      trace: () => undefined,
      debug: (m) => lines.push(`debug ${m}`),
      info: (m) => lines.push(`info ${m}`),
      warn: (m) => lines.push(`warn ${m}`),
      error: (m) => lines.push(`error ${m}`),
    },
    () => 'debug',
  );
  return Object.assign(log, { lines });
}

describe('load and sync runners on the demo cluster', () => {
  let tc: TestCluster;
  let client: KubeClient;

  before(async () => {
    tc = await startTestCluster({ objects: 600, seed: 3, forbidden: ['/secrets'], kubelet: true });
    client = await KubeClient.connect(loadKubeContext({ kubeconfig: tc.kubeconfig }));
  });

  after(async () => {
    client?.close();
    await tc?.close();
  });

  const load = (model: ResourceModel, extra: Partial<Parameters<typeof runLoad>[0]> = {}) =>
    runLoad({
      client,
      contextName: 'kubeloop-demo',
      settings: defaultSettings(),
      model,
      timeline: new TimelineStore(),
      log: recordingLog(),
      origin: 0,
      loadId: 'test',
      signal: new AbortController().signal,
      ...extra,
    });

  it('streams results into the model: objects are there before the last type finishes; 403 is a failure', async () => {
    const model = new ResourceModel();
    const seen: { p: LoadProgress; objects: number }[] = [];
    const timeline = new TimelineStore();
    const r = await load(model, { timeline, onProgress: (p) => seen.push({ p, objects: model.objectCount }) });
    assert.equal(r.summary.outcome, 'partial');
    const midway = seen.find((x) => x.p.typesDone > 0 && x.p.typesDone < x.p.typesTotal && x.objects > 0);
    assert.ok(midway, 'the model held objects while types were still loading');
    assert.equal(model.objectCount, r.summary.objects);
    assert.deepEqual(
      model.failures().map((f) => [f.type.key, f.status]),
      [['secrets', 403]],
    );
    assert.ok(
      timeline.toArray().some((e) => e.kind === 'task' && e.phase === 'finish'),
      'task events reach the timeline',
    );
    assert.ok(model.loadedTypes().find((t) => t.key === 'componentstatuses')?.watchable === false, 'a type without the watch verb is marked');
  });

  it('an unset kubeloop.concurrency: the pool size comes from the RTT and the log says so; a set one is used as given', async () => {
    const auto = recordingLog();
    const r = await load(new ResourceModel(), { log: auto });
    assert.equal(r.summary.concurrency, 4, JSON.stringify(r.summary.concurrencyAuto)); // loopback: as on a LAN
    assert.equal(r.summary.concurrencyAuto?.lanes, 4);
    assert.ok(
      auto.lines.some((l) => /^info loader: 4 workers, chosen from a round-trip time of [\d.]+ ms \(kubeloop\.concurrency not set/.test(l)),
      auto.lines.join('\n'),
    );
    const set = recordingLog();
    const r2 = await load(new ResourceModel(), { log: set, settings: { ...defaultSettings(), concurrency: 3, concurrencyChosen: true } });
    assert.equal(r2.summary.concurrency, 3);
    assert.equal(r2.summary.concurrencyAuto, undefined);
    assert.ok(
      set.lines.some((l) => l.includes('(3 workers, page size')),
      set.lines.join('\n'),
    );
    assert.ok(!set.lines.some((l) => l.includes('chosen from')));
  });

  it('a cancel ends a load against a hanging cluster at once and keeps what finished', async () => {
    const id = tc.cluster.faults.add({ kind: 'hang', verb: 'list', resource: 'configmaps' });
    try {
      const model = new ResourceModel();
      const ac = new AbortController();
      const started = Date.now();
      let cancelledAt = 0;
      const r = await load(model, {
        signal: ac.signal,
        onProgress: (p) => {
          if (p.typesDone >= 3 && !cancelledAt) {
            cancelledAt = Date.now();
            ac.abort(new Error('cancelled by the test'));
          }
        },
      });
      const settledIn = Date.now() - cancelledAt;
      assert.equal(r.summary.outcome, 'cancelled');
      assert.ok(cancelledAt > 0 && settledIn < 2000, `settled ${settledIn} ms after the cancel (load ran ${Date.now() - started} ms)`);
      assert.ok(model.objectCount > 0, 'types that finished stay');
      assert.equal(
        model.bucketsIn('default').some((b) => b.type.key === 'configmaps'),
        false,
      );
    } finally {
      tc.cluster.faults.remove(id);
    }
  });

  it('refreshing one type in one namespace replaces that bucket only', async () => {
    const model = new ResourceModel();
    await load(model);
    const before = model.objectCount;
    assert.equal((await api(tc.cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', json: configMap('default', 'refreshed-one') })).status, 201);
    const r = await load(model, { only: { typeKey: 'configmaps', namespace: 'default' } });
    assert.equal(r.summary.tasks, 1);
    assert.ok(model.object('default', 'configmaps', 'refreshed-one'));
    assert.equal(model.objectCount, before + 1);
  });

  it('the sync loop converges the model: new objects, status changes, and objects deleted before it started', async () => {
    const model = new ResourceModel();
    await load(model);
    // Deleted after the load and before the loop: no REMOVE will ever name it.
    const gone = model
      .bucketsIn('default')
      .find((b) => b.type.key === 'configmaps')!
      .sortedObjects()[0]!.name;
    assert.equal((await api(tc.cluster, `/api/v1/namespaces/default/configmaps/${gone}`, { method: 'DELETE' })).status, 200);
    const log = recordingLog();
    const timeline = new TimelineStore();
    const failed = new Set(model.failures().map((f) => f.type.key));
    const runner = new SyncRunner({
      client,
      contextName: 'kubeloop-demo',
      namespaces: [],
      types: model
        .loadedTypes()
        .filter((t) => t.key !== 'pods' && t.watchable !== false && !failed.has(t.key))
        .map((t) => t.gvr),
      syncPeriodSeconds: 10,
      pageSize: 500,
      model,
      timeline,
      log,
      origin: 0,
      reconcileEveryMs: 200,
    });
    try {
      await eventually(() => runner.sourcesReady(), { description: 'every source to list', timeoutMs: 15_000 });
      await eventually(() => !model.object('default', 'configmaps', gone), { description: `the deleted ${gone} to leave the tree`, timeoutMs: 15_000 });
      const pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'added-by-test', namespace: 'default' },
        spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
      };
      assert.equal((await api(tc.cluster, '/api/v1/namespaces/default/pods', { method: 'POST', json: pod })).status, 201);
      await eventually(() => !!model.object('default', 'pods', 'added-by-test'), { description: 'the new pod in the tree', timeoutMs: 15_000 });
      await eventually(() => model.object('default', 'pods', 'added-by-test')?.view.status === 'Running', {
        description: 'the kubelet simulation to start it (a status change reaches the row)',
        timeoutMs: 15_000,
      });
      assert.ok(
        log.lines.some((l) => /^info SyncLoop ADD source="api" pods=\[.*"default\/added-by-test".*\] handler="HandlePodAdditions"/.test(l)),
        'the handler log names the pod and the handler',
      );
      assert.ok(
        timeline.toArray().some((e) => e.kind === 'iteration' && e.source === 'config'),
        'iterations reach the timeline',
      );
      const bad = log.lines.filter((l) => /MethodNotAllowed|not allow this method/.test(l));
      assert.deepEqual(bad, [], 'no watch of an unwatchable type');
      // A load after the first reconcile (a Refresh) that brings a row the API does not have: the
      // reconcile walks again (the model's loadVersion moved) and takes it out; the others stay.
      const pods = model.bucketsIn('default').find((b) => b.type.key === 'pods')!;
      const kept = [...pods.objects.values()].map((e) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: e.name, namespace: 'default', uid: e.view.uid },
      }));
      model.applyResult(
        result(task(pods.type.gvr, 'Pod', true, 'default', 9_999), [
          ...kept,
          { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'phantom', namespace: 'default', uid: 'phantom-uid' } },
        ]),
      );
      assert.ok(model.object('default', 'pods', 'phantom'));
      await eventually(() => !model.object('default', 'pods', 'phantom'), { description: 'the loaded phantom to leave the tree', timeoutMs: 15_000 });
      assert.ok(model.object('default', 'pods', 'added-by-test'), 'the real ones stay');
    } finally {
      await runner.stop();
    }
    assert.equal(runner.running, false);
  });
  it('types whose rows need only metadata are watched as metadata: no ConfigMap data in the loop, the same rows, changes still reach them', async () => {
    const model = new ResourceModel();
    await load(model);
    const types = informerTypes(model);
    const cms = types.find((t) => t.resource === 'configmaps')!;
    assert.deepEqual([cms.metadataOnly, cms.kind], [true, 'ConfigMap']);
    assert.ok(!types.find((t) => t.resource === 'deployments')?.metadataOnly, 'a Deployment row reads its replicas: whole objects');
    const name = 'metadata-watched';
    assert.equal(
      (await api(tc.cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', json: configMap('default', name, { big: 'x'.repeat(5000) }) })).status,
      201,
    );
    const runner = new SyncRunner({
      client,
      contextName: 'kubeloop-demo',
      namespaces: [],
      types,
      syncPeriodSeconds: 10,
      pageSize: 500,
      model,
      timeline: new TimelineStore(),
      log: recordingLog(),
      origin: 0,
      reconcileEveryMs: 200,
    });
    try {
      await eventually(() => runner.sourcesReady(), { description: 'every source to list', timeoutMs: 15_000 });
      await eventually(() => !!model.object('default', 'configmaps', name), { description: 'the new ConfigMap in the tree', timeoutMs: 15_000 });
      const held = runner.sync.desired(`configmaps:default/${name}`)!;
      assert.equal(held.obj.kind, 'ConfigMap');
      assert.equal((held.obj as { data?: unknown }).data, undefined, 'the loop holds no ConfigMap data');
      // A synced row is the row a full load gives.
      const full = new ResourceModel();
      await load(full, { settings: { ...defaultSettings(), treeTransfer: 'full' } });
      const { resourceVersion: _a, ...synced } = model.object('default', 'configmaps', name)!.view;
      const { resourceVersion: _b, ...loaded } = full.object('default', 'configmaps', name)!.view;
      assert.deepEqual(synced, loaded);
      // A deletion still reaches the row.
      assert.equal((await api(tc.cluster, `/api/v1/namespaces/default/configmaps/${name}`, { method: 'DELETE' })).status, 200);
      await eventually(() => !model.object('default', 'configmaps', name), { description: 'the deleted ConfigMap to leave the tree', timeoutMs: 15_000 });
    } finally {
      await runner.stop();
    }
  });

  it("a loop scoped to one node adds that node's pods and leaves other nodes' pods in the tree", async () => {
    const pinned = (name: string, nodeName: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: { nodeName, containers: [{ name: 'c', image: 'nginx:1.27' }] },
    });
    assert.equal((await api(tc.cluster, '/api/v1/namespaces/default/pods', { method: 'POST', json: pinned('elsewhere', 'node-other') })).status, 201);
    const model = new ResourceModel();
    await load(model);
    assert.ok(model.object('default', 'pods', 'elsewhere'), 'loaded');
    const log = recordingLog();
    const runner = new SyncRunner({
      client,
      contextName: 'kubeloop-demo',
      namespaces: ['default'],
      node: 'node-scoped',
      types: [],
      syncPeriodSeconds: 10,
      pageSize: 500,
      model,
      timeline: new TimelineStore(),
      log,
      origin: 0,
      reconcileEveryMs: 60_000,
    });
    try {
      await eventually(() => runner.sourcesReady(), { description: 'every source to list', timeoutMs: 15_000 });
      assert.ok(
        log.lines.some((l) => l.includes('pods of node node-scoped')),
        log.lines.join('\n'),
      );
      assert.equal(runner.reconcile(), 0, 'nothing the scoped loop cannot see is removed');
      assert.ok(model.object('default', 'pods', 'elsewhere'), 'still in the tree');
      assert.equal((await api(tc.cluster, '/api/v1/namespaces/default/pods', { method: 'POST', json: pinned('here', 'node-scoped') })).status, 201);
      await eventually(() => !!model.object('default', 'pods', 'here'), { description: "the scoped node's new pod in the tree", timeoutMs: 15_000 });
      assert.equal(runner.sync.desired('default/elsewhere'), undefined, "the loop does not watch other nodes' pods");
      assert.ok(runner.plegHealth().healthy);
    } finally {
      await runner.stop();
    }
  });
});
