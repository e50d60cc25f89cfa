/**
 * The ClusterLoader against the embedded demo cluster over a real socket: exact counts, filters,
 * metadata-only mode, and cancellation seen from the server side.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterLoader, type LoadTaskResult } from '../../src/core/loader';
import type { LoaderTaskEvent } from '../../src/core/timeline/events';
import { demo, type Fixture } from './loader-helpers';
import { eventually } from '../support/eventually';

const key = (r: LoadTaskResult) => `${r.task.gvr.group}/${r.task.gvr.resource}`;

describe('ClusterLoader on the demo cluster', () => {
  let fx: Fixture;
  before(async () => {
    fx = await demo(4000);
  });
  after(async () => {
    await fx.stop();
  });

  it('loads every listable type with exact counts: no object lost or doubled across pages', async () => {
    const client = await fx.client();
    const events: LoaderTaskEvent[] = [];
    const loader = new ClusterLoader(client, { concurrency: 6, pageSize: 37, onEvent: (e) => events.push(e) });
    const { summary, results } = await loader.load();
    assert.equal(summary.outcome, 'ok');
    assert.ok(summary.resourceTypes >= 60, `${summary.resourceTypes} types`);
    assert.equal(results.length, summary.tasks);
    let total = 0;
    for (const r of results) {
      const want = fx.cluster.store.list(r.task.gvr.group, r.task.gvr.resource);
      assert.equal(r.count, want.items.length, `count of ${key(r)}`);
      const uids = r.items.map((o) => o.metadata.uid);
      assert.equal(new Set(uids).size, uids.length, `no duplicates in ${key(r)}`);
      assert.deepEqual(new Set(uids), new Set(want.items.map((o) => o.metadata.uid)), `same objects in ${key(r)}`);
      assert.equal(r.pages, Math.max(1, Math.ceil(r.count / 37)), `pages of ${key(r)}`);
      assert.ok(Number(r.resourceVersion) > 0);
      total += r.count;
    }
    assert.equal(summary.objects, total);
    // Every object the cluster holds, of every type that can be listed (resources served only by a
    // non-preferred version included), is loaded exactly once; events.events.k8s.io is left out as
    // the same objects as core events (kube-apiserver's one Event storage; the demo keeps the two
    // apart, so here its objects are simply not counted).
    assert.deepEqual(
      summary.skippedTypes.map((s) => `${s.resource}.${s.group}`),
      ['events.events.k8s.io'],
    );
    assert.ok(!results.some((r) => r.task.gvr.group === 'events.k8s.io'));
    const storeTotal = fx.cluster.store
      .types()
      .filter((t) => t.verbs.includes('list') && !(t.group === 'events.k8s.io' && t.resource === 'events'))
      .reduce((n, t) => n + fx.cluster.store.count(t.group, t.resource), 0);
    assert.equal(total, storeTotal);
    // The timeline: every task started and finished once, pages add up, lanes within concurrency.
    const finishes = events.filter((e) => e.phase === 'finish');
    assert.equal(finishes.length, results.length);
    assert.equal(
      events.filter((e) => e.phase === 'page').reduce((n, e) => n + (e.count ?? 0), 0),
      total,
    );
    assert.ok(events.every((e) => e.worker >= 0 && e.worker < 6));
    assert.equal(new Set(events.map((e) => e.worker)).size, 6);
  });

  it('metadata-only mode keeps only metadata, with the same counts', async () => {
    const client = await fx.client();
    const { summary, results } = await new ClusterLoader(client, {
      pageSize: 200,
      metadataOnly: true,
      include: ['pods', 'configmaps', 'deployments.apps', 'nodes'],
    }).load();
    assert.equal(summary.outcome, 'ok');
    assert.equal(results.length, 4);
    for (const r of results) {
      assert.equal(r.count, fx.cluster.store.count(r.task.gvr.group, r.task.gvr.resource));
      for (const o of r.items) {
        assert.deepEqual(Object.keys(o), ['metadata']);
        assert.ok(o.metadata.name && o.metadata.uid);
        assert.equal(o.metadata.managedFields, undefined);
      }
    }
  });

  it('namespaces and a label selector: one task per namespace, exactly the matching objects', async () => {
    const client = await fx.client();
    const pods = fx.cluster.store.list('', 'pods').items;
    const namespaces = [...new Set(pods.map((p) => p.metadata.namespace!))].slice(0, 2);
    const app = pods.find((p) => p.metadata.namespace === namespaces[0])!.metadata.labels!['app.kubernetes.io/part-of'];
    const selector = `app.kubernetes.io/part-of=${app}`;
    const loader = new ClusterLoader(client, { namespaces, labelSelector: selector, include: ['pods', 'nodes'], pageSize: 5 });
    const { summary, results } = await loader.load();
    assert.equal(summary.outcome, 'ok');
    assert.deepEqual(
      results.map((r) => `${r.task.gvr.resource}/${r.task.namespace ?? '-'}`).sort(),
      ['nodes/-', `pods/${namespaces[0]}`, `pods/${namespaces[1]}`].sort(),
    );
    for (const ns of namespaces) {
      const want = pods
        .filter((p) => p.metadata.namespace === ns && p.metadata.labels?.['app.kubernetes.io/part-of'] === app)
        .map((p) => p.metadata.name)
        .sort();
      const got = results
        .find((r) => r.task.namespace === ns)!
        .items.map((o) => o.metadata.name)
        .sort();
      assert.deepEqual(got, want, ns);
    }
    assert.ok(results.find((r) => r.task.namespace === namespaces[0])!.count > 0);
  });

  it('cancel aborts every in-flight request (the server sees them go) and settles promptly as cancelled', async () => {
    const client = await fx.client();
    const id = fx.cluster.faults.add({ kind: 'hang', verb: 'list' });
    try {
      const before = fx.cluster.stats.abortedRequests;
      const loader = new ClusterLoader(client, { concurrency: 4 });
      const results: LoadTaskResult[] = [];
      const run = loader.start({ onResult: (r) => results.push(r) });
      await eventually(() => fx.cluster.stats.inflight >= 4, { description: 'four hung lists', timeoutMs: 10_000 });
      const t0 = Date.now();
      run.cancel(new Error('user cancelled'));
      const summary = await run.done;
      const settleMs = Date.now() - t0;
      assert.equal(summary.outcome, 'cancelled');
      // the four lists hang forever: settling at all proves the abort reached them; the bound is loose
      // because this machine is shared, and still far below any request timeout
      assert.ok(settleMs < 3000, `settled in ${settleMs} ms`);
      assert.equal(results.length, summary.tasks, 'every planned task has its one result');
      assert.equal(new Set(results.map((r) => r.taskId)).size, summary.tasks);
      assert.equal(results.filter((r) => r.worker >= 0).length, 4, 'four had started');
      assert.ok(results.every((r) => r.outcome === 'cancelled'));
      await eventually(() => fx.cluster.stats.abortedRequests - before >= 4, { description: 'the server to see four aborted requests', timeoutMs: 5_000 });
      await eventually(() => fx.cluster.stats.inflight === 0, { description: 'no request in flight on the server', timeoutMs: 5_000 });
      assert.equal(client.transport.stats.inFlight, 0);
    } finally {
      fx.cluster.faults.remove(id);
    }
  });

  it('closing the client closes every connection it opened', async () => {
    const base = fx.cluster.stats.openConnections;
    const client = await fx.client();
    await new ClusterLoader(client, { concurrency: 8, include: ['pods', 'secrets', 'configmaps', 'events'] }).load();
    assert.ok(fx.cluster.stats.openConnections > base, 'the load opened keep-alive connections');
    client.close();
    await eventually(() => fx.cluster.stats.openConnections <= base, { description: 'connections to close', timeoutMs: 5_000 });
  });
});
