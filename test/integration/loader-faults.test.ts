/**
 * Every fault the demo cluster can inject, against the loader over a real socket: each ends in the
 * right result, never a hang, and the counts of what loaded are exact (no object lost or doubled
 * across pages, retries and 410 fallbacks).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterLoader, type ClusterLoaderOptions, type LoadSummary, type LoadTaskResult } from '../../src/core/loader';
import { MAX_LIST_RESTARTS } from '../../src/core/kube';
import type { FaultRule } from '../../src/demo';
import { demo, type Fixture } from './loader-helpers';
import { eventually } from '../support/eventually';

const TYPES = ['configmaps', 'secrets', 'deployments.apps', 'events'];

describe('ClusterLoader under injected faults', () => {
  let fx: Fixture;
  before(async () => {
    fx = await demo(3000, { forbidden: ['/secrets'] });
  });
  after(async () => {
    await fx.stop();
  });

  /** Runs a load of TYPES with `fault` on configmaps lists; returns the results by type. */
  async function loadWith(fault: Omit<FaultRule, 'resource' | 'verb'> | undefined, opts: ClusterLoaderOptions = {}) {
    const id = fault ? fx.cluster.faults.add({ resource: 'configmaps', verb: 'list', ...fault } as FaultRule) : undefined;
    try {
      const client = await fx.client();
      const t0 = Date.now();
      const { summary, results } = await new ClusterLoader(client, { include: TYPES, pageSize: 50, ...opts }).load();
      const by = new Map(results.map((r) => [r.task.gvr.resource, r]));
      return { summary, by, ms: Date.now() - t0, state: id ? fx.cluster.faults.list().find((f) => f.id === id) : undefined };
    } finally {
      if (id) fx.cluster.faults.remove(id);
    }
  }

  const exact = (r: LoadTaskResult) => {
    assert.equal(r.outcome, 'ok', `${r.task.gvr.resource}: ${r.message}`);
    const want = fx.cluster.store.list(r.task.gvr.group, r.task.gvr.resource).items.map((o) => o.metadata.uid);
    const got = r.items.map((o) => o.metadata.uid);
    assert.equal(got.length, want.length, `count of ${r.task.gvr.resource}`);
    assert.deepEqual(new Set(got), new Set(want));
  };
  /** Everything but configmaps (the faulted type) and secrets (forbidden) loads exactly. */
  const restIsExact = (by: Map<string, LoadTaskResult>, summary: LoadSummary) => {
    exact(by.get('deployments')!);
    exact(by.get('events')!);
    assert.equal(summary.results, 4);
  };

  it('403 Forbidden: one failed type with its status and message, the rest loads', async () => {
    const { summary, by } = await loadWith(undefined);
    const s = by.get('secrets')!;
    assert.deepEqual([s.outcome, s.status, s.reason, s.retries], ['error', 403, 'Forbidden', 0]);
    assert.match(s.message!, /secrets is forbidden/);
    exact(by.get('configmaps')!);
    restIsExact(by, summary);
    assert.equal(summary.outcome, 'partial');
    assert.equal(summary.failed, 1);
  });

  it('410 Expired on a continue token mid-list: restarts a paged list (bounded), exact count', async () => {
    // Every continuation answered 410: the first page, then MAX_LIST_RESTARTS restarts, then a clear error.
    const always = await loadWith({ kind: 'expire-continue' });
    const cm = always.by.get('configmaps')!;
    assert.deepEqual([cm.outcome, cm.status], ['error', 410]);
    assert.match(cm.message!, new RegExp(`restarted ${MAX_LIST_RESTARTS} times`));
    assert.equal(cm.pages, MAX_LIST_RESTARTS + 1, 'one first page per walk, never one unpaged list');
    restIsExact(always.by, always.summary);
    // A later continuation expires once: the pages already held are discarded, nothing is doubled.
    const once = await loadWith({ kind: 'expire-continue', every: 2, times: 1 });
    assert.equal(once.state?.applied, 1);
    const cm2 = once.by.get('configmaps')!;
    exact(cm2);
    assert.equal(cm2.fellBackToFullList, true);
    const want = fx.cluster.store.list('', 'configmaps').items.length;
    assert.equal(cm2.pages, 2 + Math.ceil(want / 50), 'two pages before the 410, then every page of the restart');
  });

  it('a transform sees every object once per list, keeps what it returns, and counts what it lets go (also across a 410 fallback)', async () => {
    const seen = new Map<string, number>();
    const transform: ClusterLoaderOptions['transform'] = (o, task) => {
      const key = `${task.gvr.resource}/${o.metadata.uid}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      // keep one object in three, reduced to its metadata; let the others go
      return seen.size % 3 === 0 ? { metadata: o.metadata } : undefined;
    };
    // the 3rd continuation of configmaps expires once: the pages taken so far are seen twice
    const { by } = await loadWith({ kind: 'expire-continue', every: 3, times: 1 }, { transform });
    const cm = by.get('configmaps')!;
    assert.equal(cm.fellBackToFullList, true, 'the fallback happened');
    for (const r of [cm, by.get('deployments')!, by.get('events')!]) {
      const want = fx.cluster.store.list(r.task.gvr.group, r.task.gvr.resource).items;
      assert.equal(r.outcome, 'ok', `${r.task.gvr.resource}: ${r.message}`);
      assert.equal(r.count, want.length, `${r.task.gvr.resource}: the count covers the objects let go`);
      assert.ok(r.items.length > 0 && r.items.length < r.count, `${r.task.gvr.resource}: ${r.items.length} of ${r.count} kept`);
      for (const o of r.items) assert.deepEqual(Object.keys(o), ['metadata'], 'kept as the transform returned it');
      const uids = new Set(r.items.map((o) => o.metadata.uid));
      assert.equal(uids.size, r.items.length, `${r.task.gvr.resource}: nothing kept twice`);
    }
    const twice = [...seen].filter(([k, n]) => k.startsWith('configmaps/') && n > 1).length;
    assert.ok(twice >= 100, `the pages before the 410 were transformed again in the restarted list (${twice} objects)`);
    assert.ok(
      [...seen].every(([k, n]) => k.startsWith('configmaps/') || n === 1),
      'other types: every object exactly once',
    );
  });

  it('429 with Retry-After: waits as told, retries, exact count', async () => {
    const { summary, by, ms } = await loadWith({ kind: 'throttle', retryAfterSeconds: 1, times: 2 });
    const cm = by.get('configmaps')!;
    exact(cm);
    assert.equal(cm.retries, 2);
    assert.ok(ms >= 2000, `honoured Retry-After (took ${ms} ms)`);
    restIsExact(by, summary);
  });

  it('500 without Retry-After: bounded backoff, then success; persistent 500 is one failed type', async () => {
    const transient = await loadWith({ kind: 'error', status: 500, times: 3 });
    exact(transient.by.get('configmaps')!);
    assert.equal(transient.by.get('configmaps')!.retries, 3);
    const persistent = await loadWith({ kind: 'error', status: 500 });
    const cm = persistent.by.get('configmaps')!;
    assert.deepEqual([cm.outcome, cm.status, cm.reason, cm.retries], ['error', 500, 'InternalError', 5]);
    restIsExact(persistent.by, persistent.summary);
  });

  it('reset connections: retried, exact count; a type that always resets fails alone', async () => {
    const transient = await loadWith({ kind: 'reset', times: 2 });
    const cm = transient.by.get('configmaps')!;
    exact(cm);
    assert.equal(cm.retries, 2);
    const persistent = await loadWith({ kind: 'reset' });
    const bad = persistent.by.get('configmaps')!;
    assert.deepEqual([bad.outcome, bad.reason, bad.status], ['error', 'reset', undefined]);
    assert.match(bad.message!, /connection reset|socket hang up|closed/);
    restIsExact(persistent.by, persistent.summary);
  });

  it('a hung list ends at the per-task timeout; the server sees the request abandoned', async () => {
    const aborted = fx.cluster.stats.abortedRequests;
    const { summary, by, ms } = await loadWith({ kind: 'hang' }, { taskTimeoutMs: 1000 });
    const cm = by.get('configmaps')!;
    assert.deepEqual([cm.outcome, cm.reason], ['error', 'Timeout']);
    // ends at its own 1 s deadline, far from the 300 s default (generous upper bounds: a shared machine)
    assert.ok(cm.durationMs >= 1000 && cm.durationMs < 10_000, `${cm.durationMs} ms`);
    assert.ok(ms < 15_000, `the load took ${ms} ms`);
    await eventually(() => fx.cluster.stats.abortedRequests > aborted, { description: 'the server to see the hung request abandoned', timeoutMs: 5000 });
    restIsExact(by, summary);
  });

  it('a malformed body fails that type clearly (not retried), the rest loads', async () => {
    const { summary, by } = await loadWith({ kind: 'malformed' });
    const cm = by.get('configmaps')!;
    assert.deepEqual([cm.outcome, cm.reason, cm.retries], ['error', 'malformed', 0]);
    // ConfigMaps are listed as protobuf (JSON where the server answers JSON): either reader says so.
    assert.match(cm.message!, /not valid (JSON|Kubernetes protobuf)/);
    restIsExact(by, summary);
  });

  it('latency on one type does not hold the others: they finish first', async () => {
    const order: string[] = [];
    const id = fx.cluster.faults.add({ kind: 'latency', latencyMs: 800, resource: 'configmaps', verb: 'list' });
    try {
      const client = await fx.client();
      const run = new ClusterLoader(client, { include: ['configmaps', 'deployments.apps', 'events'], concurrency: 3 }).start();
      for await (const r of run.results) order.push(r.task.gvr.resource);
      assert.equal((await run.done).outcome, 'ok');
      assert.equal(order.at(-1), 'configmaps');
    } finally {
      fx.cluster.faults.remove(id);
    }
  });
});
