/**
 * Every injected fault, switched on in a test (through the FaultController, the admin endpoint or
 * the start-up spec) and observed by a real client: kubectl, @kubernetes/client-node, or fetch.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { api, configMap, namespace, startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';

describe('fault injection, observed by real clients', () => {
  let t: TestCluster;
  let core: CoreV1Api;
  let kc: KubeConfig;
  before(async () => {
    t = await startTestCluster({ faults: 'latency,ms=1,path=/never-matches' });
    t.cluster.store.create('', 'namespaces', namespace('f'));
    for (let i = 0; i < 30; i++) t.cluster.store.create('', 'configmaps', configMap('f', `cm-${String(i).padStart(2, '0')}`));
    kc = new KubeConfig();
    kc.loadFromString(t.cluster.kubeconfig());
    core = kc.makeApiClient(CoreV1Api);
  });
  afterEach(() => t.cluster.faults.clear());
  after(() => t.close());

  it('start-up faults are listed and can be removed at run time', () => {
    const rules = t.cluster.faults.list();
    assert.equal(rules.length, 1);
    assert.equal(rules[0]!.kind, 'latency');
    assert.ok(t.cluster.faults.remove(rules[0]!.id));
    assert.equal(t.cluster.faults.list().length, 0);
  });

  it('latency delays the matching request only', async () => {
    t.cluster.faults.add({ kind: 'latency', latencyMs: 400, verb: 'list', resource: 'configmaps', times: 1 });
    let t0 = performance.now();
    await core.listNamespacedConfigMap({ namespace: 'f' });
    assert.ok(performance.now() - t0 >= 390, 'first list was delayed');
    t0 = performance.now();
    await core.listNamespacedConfigMap({ namespace: 'f' });
    assert.ok(performance.now() - t0 < 390, 'times=1: the second is not');
  });

  it('throttle answers 429 with Retry-After; kubectl retries and succeeds, client-node reports it', async () => {
    // Through the admin endpoint, as a test process outside the cluster's process would do it.
    const added = await api(t.cluster, '/_demo/faults', {
      method: 'POST',
      body: 'throttle,verb=list,resource=configmaps,times=1,retryAfter=1',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(added.status, 201);
    const before = t.cluster.stats.requestsByVerb.list ?? 0;
    const out = await t.kubectlOk(['get', 'cm', '-n', 'f', '-o', 'name']);
    assert.equal(out.trim().split('\n').length, 30);
    assert.equal((t.cluster.stats.requestsByVerb.list ?? 0) - before, 2, 'kubectl retried once after the 429');

    t.cluster.faults.add({ kind: 'throttle', retryAfterSeconds: 7, verb: 'list', times: 1 });
    await assert.rejects(core.listNamespacedConfigMap({ namespace: 'f' }), (e: any) => {
      assert.equal(e.code, 429);
      assert.equal(e.headers['retry-after'], '7');
      assert.equal(JSON.parse(e.body).reason, 'TooManyRequests');
      return true;
    });
  });

  it('error answers the chosen 5xx with a Status', async () => {
    t.cluster.faults.add({ kind: 'error', status: 503, resource: 'configmaps', times: 1 });
    await assert.rejects(
      core.readNamespacedConfigMap({ name: 'cm-01', namespace: 'f' }),
      (e: any) => e.code === 503 && JSON.parse(e.body).reason === 'ServiceUnavailable',
    );
    t.cluster.faults.add({ kind: 'error', status: 500, resource: 'configmaps' });
    const r = await t.kubectl(['get', 'cm', 'cm-01', '-n', 'f']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Error from server \(InternalError\)/);
  });

  it('reset destroys the connection', async () => {
    t.cluster.faults.add({ kind: 'reset', verb: 'get', resource: 'configmaps', times: 1 });
    await assert.rejects(core.readNamespacedConfigMap({ name: 'cm-01', namespace: 'f' }), (e: any) =>
      /ECONNRESET|socket hang up|other side closed/i.test(String(e?.message ?? e) + String(e?.cause?.message ?? '')),
    );
    const ok = await core.readNamespacedConfigMap({ name: 'cm-01', namespace: 'f' });
    assert.equal(ok.metadata?.name, 'cm-01');
  });

  it('hang never answers; a client that gives up closes its connection and the server counts the abort', async () => {
    t.cluster.faults.add({ kind: 'hang', verb: 'list', resource: 'configmaps' });
    const abortedBefore = t.cluster.stats.abortedRequests;
    const r = await t.kubectl(['get', 'cm', '-n', 'f', '--request-timeout=500ms']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /timeout|deadline|Timeout/);
    await assert.rejects(fetch(`${t.cluster.url}/api/v1/namespaces/f/configmaps`, { signal: AbortSignal.timeout(200) }), /abort|timeout/i);
    await eventually(() => t.cluster.stats.abortedRequests >= abortedBefore + 2, { description: 'the server to count both requests aborted', timeoutMs: 5000 });
    await eventually(() => t.cluster.stats.inflight === 0, { description: 'no request in flight', timeoutMs: 5000 });
  });

  it('malformed answers 200 with a body no client can parse', async () => {
    t.cluster.faults.add({ kind: 'malformed', verb: 'list', resource: 'configmaps', times: 2 });
    await assert.rejects(core.listNamespacedConfigMap({ namespace: 'f' }), /JSON|Unexpected|Unterminated/i);
    const r = await t.kubectl(['get', 'cm', '-n', 'f']);
    assert.notEqual(r.code, 0);
  });

  it('expire-continue answers 410 Expired on continue requests only', async () => {
    t.cluster.faults.add({ kind: 'expire-continue', resource: 'configmaps', times: 1 });
    const r = await t.kubectl(['get', 'cm', '-n', 'f', '--chunk-size=10']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Error from server \(Expired\): The provided continue parameter is too old/);
    const first = await core.listNamespacedConfigMap({ namespace: 'f', limit: 10 });
    t.cluster.faults.add({ kind: 'expire-continue', resource: 'configmaps', times: 1 });
    await assert.rejects(core.listNamespacedConfigMap({ namespace: 'f', limit: 10, _continue: first.metadata!._continue }), (e: any) => e.code === 410);
    const again = await core.listNamespacedConfigMap({ namespace: 'f', limit: 10, _continue: first.metadata!._continue });
    assert.equal(again.items.length, 10, 'the token itself was still good');
  });

  it('drop-events silently skips watch events', async () => {
    t.cluster.faults.add({ kind: 'drop-events', verb: 'watch', resource: 'configmaps', dropCount: 2 });
    const rv = String(t.cluster.store.currentRV);
    const seen: string[] = [];
    const ctl = await new Watch(kc).watch(
      '/api/v1/namespaces/f/configmaps',
      { resourceVersion: rv },
      (type, o) => seen.push(`${type}:${o.metadata.name}`),
      () => {},
    );
    try {
      for (let i = 0; i < 5; i++) t.cluster.store.create('', 'configmaps', configMap('f', `drop-${i}`));
      await eventually(() => seen.length >= 3, { description: 'three watch events seen', timeoutMs: 5000 });
      assert.deepEqual(seen, ['ADDED:drop-2', 'ADDED:drop-3', 'ADDED:drop-4']);
    } finally {
      ctl.abort();
    }
  });

  it('every=k applies to every k-th matching request; the admin endpoint lists and deletes rules', async () => {
    const add = await api(t.cluster, '/_demo/faults', { method: 'POST', json: { kind: 'error', status: 502, verb: 'get', resource: 'configmaps', every: 2 } });
    assert.equal(add.status, 201);
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) codes.push((await api(t.cluster, '/api/v1/namespaces/f/configmaps/cm-01')).status);
    assert.deepEqual(codes, [200, 502, 200, 502]);
    const listed = await api(t.cluster, '/_demo/faults');
    assert.equal(listed.body.rules.length, 1);
    assert.equal(listed.body.rules[0].matched, 4);
    assert.equal(listed.body.rules[0].applied, 2);
    assert.equal((await api(t.cluster, `/_demo/faults/${add.body.ids[0]}`, { method: 'DELETE' })).status, 200);
    assert.equal((await api(t.cluster, '/_demo/faults')).body.rules.length, 0);
    const bad = await api(t.cluster, '/_demo/faults', { method: 'POST', body: 'explode,verb=get' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /unknown fault kind "explode"/);
  });

  it('connection counters see a client close its connections', async () => {
    const open = t.cluster.stats.openConnections;
    const r = await t.kubectl(['get', 'cm', '-n', 'f']);
    assert.equal(r.code, 0);
    await eventually(() => t.cluster.stats.openConnections <= open, { description: "kubectl's connections closed", timeoutMs: 5000 });
    assert.ok(t.cluster.stats.totalConnections > 0);
  });
});

describe('stopping the cluster', () => {
  it('closes hung requests and open watches at once, and is idempotent', async () => {
    const t = await startTestCluster({ faults: 'hang,verb=list' });
    const hung = fetch(`${t.cluster.url}/api/v1/configmaps`).then(
      () => 'answered',
      () => 'closed',
    );
    const watch = await fetch(`${t.cluster.url}/api/v1/configmaps?watch=1`);
    const drained = watch.body!.pipeTo(new WritableStream()).then(
      () => 'ended',
      () => 'closed',
    );
    await eventually(() => t.cluster.stats.openWatches === 1 && t.cluster.stats.inflight === 2, {
      description: 'one watch open, two requests in flight',
      timeoutMs: 5000,
    });
    const t0 = performance.now();
    await Promise.all([t.cluster.stop(), t.cluster.stop()]);
    assert.ok(performance.now() - t0 < 2000, 'stop did not wait for the clients');
    assert.equal(await hung, 'closed');
    assert.ok(['ended', 'closed'].includes(await drained));
    await eventually(() => t.cluster.stats.openConnections === 0, { description: 'every connection closed', timeoutMs: 5000 });
    await t.cluster.stop();
    await t.close();
  });
});
