// Owners and owned on the demo cluster, through the extension's own runners (no 'vscode'): a load
// fills the owner index beside the tree's model (a Deployment -> ReplicaSet -> pods both ways, a
// custom resource owning a ConfigMap), and the sync loop's watches keep it current through a
// rollout (a new ReplicaSet, the old one's pods gone) and an owner's deletion (the garbage
// collector takes its ConfigMap). A custom resource's Events are listed live by its uid.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { KubeClient } from '../../src/core/kube/client';
import { loadKubeContext } from '../../src/core/kube/config/kubeconfig';
import type { RelationTree } from '../../src/core/relations/ownerIndex';
import { TimelineStore } from '../../src/core/timeline/store';
import { createLogger } from '../../src/app/logger';
import { runLoad } from '../../src/app/load/loadRunner';
import { ResourceModel } from '../../src/app/model/resourceModel';
import { liveEventsAbout } from '../../src/app/relations/objectEvents';
import { Relations } from '../../src/app/relations/relations';
import { defaultSettings } from '../../src/app/settings';
import { SyncRunner } from '../../src/app/sync/syncRunner';
import { informerTypes } from '../../src/app/sync/informerTypes';
import { crdObject } from '../../src/demo/server';
import { runOwners } from '../../src/cli/owners';
import { api, configMap, namespace, startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';

const NS = 'rel';
const quiet = createLogger(
  { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  () => 'error',
);

/** `Kind/name` of each child of a tree, sorted (the index keeps no order a test should rely on). */
const kids = (t: RelationTree | undefined) => (t?.children ?? []).map((c) => `${c.node.kind}/${c.node.name}`).sort();

describe('relations on the demo cluster', () => {
  let tc: TestCluster;
  let client: KubeClient;
  let model: ResourceModel;
  let relations: Relations;
  let runner: SyncRunner | undefined;
  let widgetUid = '';
  let configUid = '';

  before(async () => {
    tc = await startTestCluster({ objects: 200, seed: 5, kubelet: true, kubeletSpeed: 20, controllers: true });
    client = await KubeClient.connect(loadKubeContext({ kubeconfig: tc.kubeconfig }));
    const c = tc.cluster;
    assert.equal((await api(c, '/api/v1/namespaces', { method: 'POST', json: namespace(NS) })).status, 201);
    const crd = crdObject({ group: 'rel.example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });
    assert.equal((await api(c, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', json: crd })).status, 201);
    const w = await api(c, `/apis/rel.example.com/v1/namespaces/${NS}/widgets`, {
      method: 'POST',
      json: { apiVersion: 'rel.example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: NS } },
    });
    assert.equal(w.status, 201);
    widgetUid = w.body.metadata.uid;
    const cm = configMap(NS, 'w1-config');
    cm.metadata.ownerReferences = [
      { apiVersion: 'rel.example.com/v1', kind: 'Widget', name: 'w1', uid: widgetUid, controller: true, blockOwnerDeletion: true },
    ];
    const made = await api(c, `/api/v1/namespaces/${NS}/configmaps`, { method: 'POST', json: cm });
    assert.equal(made.status, 201);
    configUid = made.body.metadata.uid;
    const d = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
      },
    };
    assert.equal((await api(c, `/apis/apps/v1/namespaces/${NS}/deployments`, { method: 'POST', json: d })).status, 201);
    // the controllers' work is done before the load: 2 pods of the one ReplicaSet
    await eventually(() => c.store.list('', 'pods', NS).items.length === 2, { description: 'the Deployment has its 2 pods', timeoutMs: 30_000 });
    model = new ResourceModel();
    relations = new Relations(model);
  });

  after(async () => {
    await runner?.stop();
    client?.close();
    await tc?.close();
  });

  const deploymentUid = () => tc.cluster.store.get('apps', 'deployments', NS, 'web')!.metadata.uid!;

  it('a load indexes a Deployment -> ReplicaSet -> pods both ways, and a custom resource owning a ConfigMap', async () => {
    const r = await runLoad({
      client,
      contextName: 'kubeloop-demo',
      settings: defaultSettings(),
      model,
      relations,
      timeline: new TimelineStore(),
      log: quiet,
      origin: 0,
      loadId: 'rel',
      signal: new AbortController().signal,
    });
    assert.equal(r.summary.outcome, 'ok');
    const down = relations.index.dependentsOf(deploymentUid())!;
    assert.equal(down.children.length, 1);
    const rs = down.children[0]!;
    assert.equal(rs.node.kind, 'ReplicaSet');
    assert.equal(rs.controller, true);
    assert.equal(rs.children.length, 2);
    assert.ok(rs.children.every((p) => p.node.kind === 'Pod' && p.node.typeKey === 'pods' && !p.node.virtual));
    const up = relations.index.ownersOf(rs.children[0]!.node.uid)!;
    assert.deepEqual(kids(up), [`ReplicaSet/${rs.node.name}`]);
    assert.deepEqual(kids(up.children[0]), ['Deployment/web']);
    assert.deepEqual(kids(relations.index.dependentsOf(widgetUid)), ['ConfigMap/w1-config']);
    const owner = relations.index.ownersOf(configUid)!.children[0]!;
    assert.equal(owner.node.typeKey, 'widgets.rel.example.com');
    assert.equal(owner.node.virtual, false);
  });

  it('kubeloop owners prints both ways, custom resources included, and names what it cannot find', async () => {
    const run = async (...args: string[]) => {
      const out = new PassThrough();
      const err = new PassThrough();
      const chunks: string[] = [];
      const errs: string[] = [];
      out.on('data', (c: Buffer) => chunks.push(c.toString()));
      err.on('data', (c: Buffer) => errs.push(c.toString()));
      const code = await runOwners([...args, '--kubeconfig', tc.kubeconfig], { stdout: out, stderr: err, signal: new AbortController().signal });
      return { code, out: chunks.join(''), err: errs.join('') };
    };
    const d = await run('deployment/web', '-n', NS);
    assert.equal(d.code, 0, d.err);
    assert.match(
      d.out,
      /^Owners:\n  \(none\)\nObject: Deployment rel\/web\nOwned:\n  ReplicaSet rel\/web-\S+ \(controller\)\n    Pod rel\/web-\S+ \(controller\)\n    Pod rel\/web-\S+ \(controller\)\n$/,
    );
    const cm = await run('cm/w1-config', '-n', NS, '--json');
    assert.equal(cm.code, 0, cm.err);
    const j = JSON.parse(cm.out) as { object: { kind: string }; owners: { node: { kind: string; name: string; typeKey: string }; controller: boolean }[] };
    assert.equal(j.object.kind, 'ConfigMap');
    assert.deepEqual(
      j.owners.map((o) => [o.node.kind, o.node.name, o.node.typeKey, o.controller]),
      [['Widget', 'w1', 'widgets.rel.example.com', true]],
    );
    const missing = await run('widgets.rel.example.com/nope', '-n', NS);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /widgets\.rel\.example\.com "nope" not found in namespace "rel"/);
  });

  it("a custom resource's Events are listed live by its uid, with the warnings filter", async () => {
    const target = { uid: widgetUid, kind: 'Widget', name: 'w1', namespace: NS };
    const event = (name: string, type: string, reason: string, involved: Record<string, unknown>) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: NS },
      involvedObject: { apiVersion: 'rel.example.com/v1', kind: 'Widget', name: 'w1', namespace: NS, ...involved },
      type,
      reason,
      message: `${reason} of w1`,
      lastTimestamp: new Date().toISOString(),
      source: { component: 'widget-operator' },
    });
    for (const e of [
      event('w1.a', 'Normal', 'Synced', { uid: widgetUid }),
      event('w1.b', 'Warning', 'SyncFailed', { uid: widgetUid }),
      // an earlier Widget of the same name: another uid, not this one's
      event('w1.c', 'Warning', 'Stale', { uid: 'an-older-uid' }),
    ])
      assert.equal((await api(tc.cluster, `/api/v1/namespaces/${NS}/events`, { method: 'POST', json: e })).status, 201);
    const all = await liveEventsAbout(client, target, new AbortController().signal);
    assert.ok('rows' in all, JSON.stringify(all));
    assert.deepEqual(all.rows.map((r) => r.reason).sort(), ['SyncFailed', 'Synced']);
    const warnings = await liveEventsAbout(client, target, new AbortController().signal, true);
    assert.ok('rows' in warnings);
    assert.deepEqual(
      warnings.rows.map((r) => [r.type, r.reason, r.source]),
      [['Warning', 'SyncFailed', 'widget-operator']],
    );
  });

  it('the sync loop keeps it current: a rollout adds a ReplicaSet and its pods, the old pods leave; a deleted owner takes its ConfigMap', async () => {
    runner = new SyncRunner({
      client,
      contextName: 'kubeloop-demo',
      namespaces: [],
      types: informerTypes(model),
      syncPeriodSeconds: 60,
      pageSize: 500,
      model,
      timeline: new TimelineStore(),
      log: quiet,
      origin: 0,
      observer: relations.observer,
    });
    await eventually(() => runner!.sourcesReady(), { description: 'every source listed', timeoutMs: 60_000 });
    const patch = await api(tc.cluster, `/apis/apps/v1/namespaces/${NS}/deployments/web`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:1.28' }] } } } }),
    });
    assert.equal(patch.status, 200);
    const live = (ns: string) => tc.cluster.store.list('', 'pods', ns).items.filter((p) => !p.metadata.deletionTimestamp);
    await eventually(
      () => {
        const down = relations.index.dependentsOf(deploymentUid())!;
        assert.equal(down.children.length, 2, `ReplicaSets: ${kids(down).join(', ')}`);
        const pods = down.children.flatMap((rs) => rs.children.map((p) => p.node.uid)).sort();
        // the index holds exactly the pods the API server holds, each under its ReplicaSet
        assert.deepEqual(
          pods,
          live(NS)
            .map((p) => p.metadata.uid!)
            .sort(),
        );
        const full = down.children.find((rs) => rs.children.length === 2);
        assert.ok(full, 'the new ReplicaSet has both pods');
        assert.ok(
          down.children.some((rs) => rs.children.length === 0),
          'the old ReplicaSet has none',
        );
        return true;
      },
      { description: 'the rollout in the owner index', timeoutMs: 60_000 },
    );
    const del = await api(tc.cluster, `/apis/rel.example.com/v1/namespaces/${NS}/widgets/w1`, { method: 'DELETE' });
    assert.equal(del.status, 200);
    await eventually(() => relations.index.node(configUid) === undefined && relations.index.node(widgetUid) === undefined, {
      description: 'the Widget and its ConfigMap gone from the index',
      timeoutMs: 30_000,
    });
  });
});
