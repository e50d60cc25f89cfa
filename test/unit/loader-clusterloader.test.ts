import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { FakeClock } from '../../src/core/clock';
import {
  KubeApiError,
  listableResources,
  parseAggregated,
  type ApiResource,
  type Discovery,
  type KubeObject,
  type ListHooks,
  type ListOptions,
} from '../../src/core/kube';
import { ClusterLoader, planTasks, selectTypes, type LoaderClient, type LoadTaskResult } from '../../src/core/loader';
import { SharedLanes } from '../../src/core/pool';
import type { GroupVersionResource, LoaderTaskEvent } from '../../src/core/timeline/events';

const fixture = parseAggregated(JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'discovery', 'aggregated_v2.json'), 'utf8')));
const realTypes = listableResources(fixture);

function syntheticDiscovery(n: number): Discovery {
  const resources: ApiResource[] = Array.from({ length: n }, (_, i) => ({
    group: 'example.com',
    version: 'v1',
    resource: `things${i}`,
    kind: `Thing${i}`,
    singular: `thing${i}`,
    namespaced: i % 3 !== 0,
    verbs: ['list', 'get', 'watch'],
    shortNames: [],
    categories: [],
  }));
  return {
    mode: 'aggregated',
    groups: [{ name: 'example.com', preferredVersion: 'v1', versions: [{ version: 'v1', stale: false, resources }] }],
    failures: [],
  };
}

interface TypeBehaviour {
  objects: number;
  pageLatencyMs: number;
  failWith?: () => Error;
  failAfterPages?: number;
  hang?: boolean;
}

/** An in-memory LoaderClient: pages of fake objects, with latency on the FakeClock, honouring signals. */
class FakeClient implements LoaderClient {
  calls: { gvr: GroupVersionResource; opts: ListOptions }[] = [];
  signals: AbortSignal[] = [];
  constructor(
    private readonly clock: FakeClock,
    private readonly disc: Discovery | (() => Promise<Discovery>),
    private readonly behaviour: (gvr: GroupVersionResource, ns?: string) => TypeBehaviour,
  ) {}

  async discover(): Promise<Discovery> {
    return typeof this.disc === 'function' ? this.disc() : this.disc;
  }

  async list(gvr: GroupVersionResource, opts: ListOptions, hooks: ListHooks) {
    this.calls.push({ gvr, opts });
    this.signals.push(hooks.signal!);
    const b = this.behaviour(gvr, opts.namespace);
    const sink = hooks.sink ?? [];
    const limit = opts.limit ?? 500;
    let page = 0;
    if (b.hang) await new Promise<void>((_, reject) => hooks.signal!.addEventListener('abort', () => reject(hooks.signal!.reason), { once: true }));
    for (let start = 0; start === 0 || start < b.objects; start += limit) {
      if (b.failWith && page === (b.failAfterPages ?? 0)) throw b.failWith();
      await this.clock.sleep(b.pageLatencyMs, hooks.signal);
      const n = Math.max(0, Math.min(limit, b.objects - start));
      for (let i = 0; i < n; i++) sink.push({ metadata: { name: `${gvr.resource}-${start + i}`, namespace: opts.namespace } } as KubeObject);
      hooks.onPage?.({ index: page++, items: n, bytes: n * 100, more: start + limit < b.objects });
    }
    return { items: sink, resourceVersion: '42', pages: page, retries: 0, bytes: 0, fellBackToFullList: false };
  }
}

const namespacesType: ApiResource = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  singular: 'namespace',
  namespaced: false,
  verbs: ['list', 'get', 'watch'],
  shortNames: ['ns'],
  categories: [],
};

async function settle<T>(clock: FakeClock, p: Promise<T>, step = 10): Promise<T> {
  let done = false;
  let value!: T;
  p.then((v) => ((done = true), (value = v)));
  for (let i = 0; !done; i++) {
    await clock.advance(step);
    assert.ok(i < 1_000_000, 'load never settled');
  }
  return value;
}

describe('ClusterLoader: options', () => {
  const client = new FakeClient(new FakeClock(), syntheticDiscovery(1), () => ({ objects: 0, pageLatencyMs: 0 }));
  it('validates with clear errors', () => {
    const bad: [object, RegExp][] = [
      [{ pageSize: 0 }, /page size must be an integer from 1 to 20000, got 0/],
      [{ pageSize: 20001 }, /page size must be an integer from 1 to 20000, got 20001/],
      [{ pageSize: 2.5 }, /page size/],
      [{ concurrency: 0 }, /concurrency must be an integer from 1 to 32, got 0/],
      [{ concurrency: 64 }, /concurrency must be an integer from 1 to 32, got 64/],
      [{ taskTimeoutMs: -1 }, /task timeout must be/],
      [{ namespaces: ['Bad_NS'] }, /namespace "Bad_NS" is not a valid namespace name/],
      [{ include: [''] }, /include: empty resource type name/],
    ];
    for (const [o, re] of bad)
      assert.throws(
        () => new ClusterLoader(client, o),
        (e: unknown) => e instanceof RangeError && re.test((e as Error).message),
      );
    const ok = new ClusterLoader(client, {});
    assert.deepEqual([ok.options.concurrency, ok.options.pageSize, ok.options.taskTimeoutMs], [4, 500, 300_000]);
  });
});

describe('ClusterLoader: planning', () => {
  it('one all-namespaces task per namespaced type, one per namespace when namespaces are given, cluster-scoped once', () => {
    const all = planTasks(realTypes);
    assert.equal(all.length, 53);
    const nsd = realTypes.filter((r) => r.namespaced).length;
    const per = planTasks(realTypes, { namespaces: ['a', 'b'], labelSelector: 'app=x' });
    assert.equal(per.length, nsd * 2 + (53 - nsd));
    assert.ok(per.filter((t) => !t.namespaced).every((t) => t.namespace === undefined));
    assert.deepEqual(
      per.map((t) => t.id),
      per.map((_, i) => i),
    );
    assert.ok(per.every((t) => t.labelSelector === 'app=x'));
  });

  it('include/exclude match resource, resource.group, resource.version.group, kind, short name and singular', () => {
    const pick = (inc: string[], exc: string[] = []) => selectTypes(realTypes, inc, exc).selected.map((r) => `${r.resource}.${r.group}`);
    assert.deepEqual(pick(['deployments']), ['deployments.apps']);
    for (const spec of ['deploy', 'Deployment', 'deployment', 'deployments.apps', 'deployments.v1.apps', 'DEPLOYMENTS'])
      assert.deepEqual(pick([spec]), ['deployments.apps'], spec);
    assert.deepEqual(pick(['cronjobs', 'jobs.batch']), ['cronjobs.batch', 'jobs.batch']);
    assert.ok(!pick([], ['leases']).includes('leases.coordination.k8s.io'));
    assert.equal(pick([], ['leases']).length, 52);
    assert.deepEqual(selectTypes(realTypes, ['deploymnets'], ['nope']).unmatched, ['deploymnets', 'nope']);
    // A bare name defined by several groups means the first group's, as kubectl resolves it.
    const withCore = [{ ...realTypes[0], group: '', resource: 'events', kind: 'Event', singular: 'event', shortNames: ['ev'] }, ...realTypes];
    assert.deepEqual(
      selectTypes(withCore, ['events'], []).selected.map((r) => `${r.resource}.${r.group}`),
      ['events.'],
    );
    assert.deepEqual(
      selectTypes(withCore, ['events.events.k8s.io'], []).selected.map((r) => `${r.resource}.${r.group}`),
      ['events.events.k8s.io'],
    );
    assert.equal(selectTypes(withCore, [], ['events']).selected.length, withCore.length - 1);
  });
});

describe('ClusterLoader: running a load', () => {
  it('streams results as tasks complete (fast types first), each with counts, pages and worker; events for start/page/finish', async () => {
    const clock = new FakeClock();
    const latency: Record<string, number> = { things0: 500, things1: 10, things2: 20, things3: 30 };
    const client = new FakeClient(clock, syntheticDiscovery(4), (gvr) => ({ objects: 25, pageLatencyMs: latency[gvr.resource] }));
    const events: LoaderTaskEvent[] = [];
    const loader = new ClusterLoader(client, { clock, concurrency: 2, pageSize: 10, onEvent: (e) => events.push(e), loadId: 'L1' });
    const run = loader.start();
    const seen: string[] = [];
    const consumer = (async () => {
      for await (const r of run.results) seen.push(`${r.task.gvr.resource}@${clock.now()}`);
    })();
    const summary = await settle(clock, run.done);
    await consumer;
    assert.deepEqual(
      seen.map((s) => s.split('@')[0]),
      ['things1', 'things2', 'things3', 'things0'],
    );
    assert.ok(Number(seen[0].split('@')[1]) < Number(seen[3].split('@')[1]), 'the first result arrived before the last task finished');
    assert.equal(summary.outcome, 'ok');
    assert.deepEqual([summary.tasks, summary.results, summary.ok, summary.objects, summary.resourceTypes], [4, 4, 4, 100, 4]);
    const t1 = events.filter((e) => e.gvr.resource === 'things1');
    assert.deepEqual(
      t1.map((e) => e.phase),
      ['start', 'page', 'page', 'page', 'finish'],
    );
    assert.deepEqual(
      t1.filter((e) => e.phase === 'page').map((e) => e.count),
      [10, 10, 5],
    );
    const fin = t1.at(-1)!;
    // things1 is the first namespaced type, so the first submitted (byLikelySize): worker 0.
    assert.deepEqual([fin.count, fin.pages, fin.outcome, fin.worker, fin.loadId, fin.durationMs], [25, 3, 'ok', 0, 'L1', 30]);
    assert.ok(events.every((e) => e.worker === 0 || e.worker === 1));
    assert.equal(clock.pendingTimers(), 0);
  });

  it('submits likely-large lists first: namespaced types across namespaces, then cluster-scoped ones, discovery order within each', async () => {
    const clock = new FakeClock();
    const client = new FakeClient(clock, syntheticDiscovery(7), () => ({ objects: 5, pageLatencyMs: 10 }));
    const events: LoaderTaskEvent[] = [];
    const loader = new ClusterLoader(client, { clock, concurrency: 1, pageSize: 10, onEvent: (e) => events.push(e) });
    const summary = await settle(clock, loader.start().done);
    assert.equal(summary.ok, 7);
    // things0, things3, things6 are cluster-scoped (i % 3 === 0).
    const started = events.filter((e) => e.phase === 'start').map((e) => e.gvr.resource);
    assert.deepEqual(started, ['things1', 'things2', 'things4', 'things5', 'things0', 'things3', 'things6']);
  });

  it('submits core namespaces before everything else, so the first result (and the first level of the tree) comes after one short list', async () => {
    const clock = new FakeClock();
    const d = syntheticDiscovery(4);
    d.groups.push({ name: '', preferredVersion: 'v1', versions: [{ version: 'v1', stale: false, resources: [namespacesType] }] });
    const client = new FakeClient(clock, d, (gvr) => (gvr.resource === 'namespaces' ? { objects: 3, pageLatencyMs: 1 } : { objects: 50, pageLatencyMs: 10 }));
    const events: LoaderTaskEvent[] = [];
    const loader = new ClusterLoader(client, { clock, concurrency: 1, pageSize: 10, onEvent: (e) => events.push(e) });
    const { results } = await settle(clock, loader.load());
    const started = events.filter((e) => e.phase === 'start').map((e) => e.gvr.resource);
    assert.deepEqual(started, ['namespaces', 'things1', 'things2', 'things0', 'things3']);
    assert.equal(results[0]!.task.gvr.resource, 'namespaces');
  });

  it('on shared lanes, a cluster in discovery keeps a seat for its first list, and its other lists wait for its namespaces', async () => {
    const clock = new FakeClock();
    const shared = new SharedLanes(2);
    const withNamespaces = (n: number) => {
      const d = syntheticDiscovery(n);
      d.groups.push({ name: '', preferredVersion: 'v1', versions: [{ version: 'v1', stale: false, resources: [namespacesType] }] });
      return d;
    };
    // A: planned at once, every list long. B: its discovery answers after 50 ms.
    const a = new FakeClient(clock, withNamespaces(4), (gvr) =>
      gvr.resource === 'namespaces' ? { objects: 3, pageLatencyMs: 5 } : { objects: 10, pageLatencyMs: 1000 },
    );
    const b = new FakeClient(
      clock,
      () => clock.sleep(50).then(() => withNamespaces(2)),
      (gvr) => (gvr.resource === 'namespaces' ? { objects: 3, pageLatencyMs: 5 } : { objects: 10, pageLatencyMs: 10 }),
    );
    const events: { c: string; e: LoaderTaskEvent }[] = [];
    const load = (c: FakeClient, name: string) =>
      new ClusterLoader(c, { clock, concurrency: 2, pageSize: 10, lanes: { shared, name }, onEvent: (e) => events.push({ c: name, e }) }).load();
    const [ra, rb] = await settle(clock, Promise.all([load(a, 'a'), load(b, 'b')]));
    assert.equal(ra.summary.outcome, 'ok');
    assert.equal(rb.summary.outcome, 'ok');
    const at = (c: string, phase: string, resource?: string) =>
      events.filter((x) => x.c === c && x.e.phase === phase && (!resource || x.e.gvr.resource === resource)).map((x) => x.e.t);
    assert.deepEqual(at('b', 'start', 'namespaces'), [50], "b's first list starts when its plan is ready, not after a's long lists");
    assert.equal(rb.results[0]!.task.gvr.resource, 'namespaces');
    const aNamespacesDone = at('a', 'finish', 'namespaces')[0]!;
    for (const t of at('a', 'start').slice(1))
      assert.ok(t >= aNamespacesDone, `a's other lists start after its namespaces answered (${t} >= ${aNamespacesDone})`);
    assert.equal(shared.inUse, 0, 'every seat given back');
  });

  it('a failing type is one error result with its status and message (partial items kept); the rest loads', async () => {
    const clock = new FakeClock();
    const client = new FakeClient(clock, syntheticDiscovery(6), (gvr) =>
      gvr.resource === 'things2'
        ? {
            objects: 30,
            pageLatencyMs: 5,
            failAfterPages: 1,
            failWith: () => new KubeApiError(403, 'Forbidden', 'things2 is forbidden: User "jane" cannot list'),
          }
        : { objects: 7, pageLatencyMs: 5 },
    );
    const loader = new ClusterLoader(client, { clock, pageSize: 10 });
    const { summary, results } = await settle(clock, loader.load());
    assert.equal(summary.outcome, 'partial');
    assert.deepEqual([summary.ok, summary.failed, summary.results], [5, 1, 6]);
    const bad = results.find((r) => r.outcome === 'error')!;
    assert.deepEqual(
      [bad.task.gvr.resource, bad.status, bad.reason, bad.message, bad.count, bad.partial, bad.pages],
      ['things2', 403, 'Forbidden', 'things2 is forbidden: User "jane" cannot list', 10, true, 1],
    );
    assert.deepEqual([summary.objects, summary.partialObjects], [5 * 7, 10]);
  });

  it('a hanging list ends at the per-task timeout as an error, and the load goes on', async () => {
    const clock = new FakeClock();
    const client = new FakeClient(clock, syntheticDiscovery(3), (gvr) =>
      gvr.resource === 'things1' ? { objects: 1, pageLatencyMs: 0, hang: true } : { objects: 1, pageLatencyMs: 1 },
    );
    const loader = new ClusterLoader(client, { clock, taskTimeoutMs: 2000 });
    const { summary, results } = await settle(clock, loader.load(), 100);
    const hung = results.find((r) => r.task.gvr.resource === 'things1')!;
    assert.deepEqual([hung.outcome, hung.reason, hung.durationMs], ['error', 'Timeout', 2000]);
    assert.match(hung.message!, /per-task timeout/);
    assert.equal(summary.ok, 2);
    assert.equal(clock.pendingTimers(), 0);
  });

  it('cancel aborts every in-flight list and settles as cancelled; every planned task still has exactly one result', async () => {
    const clock = new FakeClock();
    const client = new FakeClient(clock, syntheticDiscovery(40), () => ({ objects: 50, pageLatencyMs: 100 }));
    const caller = new AbortController();
    const loader = new ClusterLoader(client, { clock, concurrency: 3, pageSize: 10 });
    const results: LoadTaskResult[] = [];
    const run = loader.start({ signal: caller.signal, onResult: (r) => results.push(r) });
    await clock.advance(1250); // two tasks done on each lane (500 ms each), the third two pages into its list
    assert.equal(client.signals.length, 9, 'six lists done, three in flight');
    const inflight = client.signals.slice(6);
    assert.ok(inflight.every((s) => !s.aborted));
    caller.abort(new Error('Ctrl-C'));
    const summary = await run.done; // no clock advance needed: cancellation is immediate
    assert.equal(summary.outcome, 'cancelled');
    assert.ok(
      inflight.every((s) => s.aborted),
      'every in-flight list saw the abort',
    );
    assert.equal(client.signals.length, 9, 'nothing started after the cancel');
    assert.equal(results.length, 40);
    assert.deepEqual(new Set(results.map((r) => r.taskId)).size, 40);
    assert.equal(summary.ok + summary.cancelled, 40);
    assert.ok(summary.ok >= 6);
    const mid = results.filter((r) => r.outcome === 'cancelled' && r.worker >= 0);
    assert.equal(mid.length, 3);
    assert.ok(mid.every((r) => r.partial && r.count > 0 && r.message === 'Ctrl-C'));
    assert.equal(clock.pendingTimers(), 0);
  });

  it('a discovery failure is a failed load (a value), not an exception', async () => {
    const clock = new FakeClock();
    const client = new FakeClient(
      clock,
      () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')),
      () => ({ objects: 0, pageLatencyMs: 0 }),
    );
    const { summary, results } = await new ClusterLoader(client, { clock }).load();
    assert.equal(summary.outcome, 'failed');
    assert.match(String((summary.error as Error).message), /ECONNREFUSED/);
    assert.equal(results.length, 0);
  });

  it('passes namespace, selector, page size and metadata-only to every list', async () => {
    const clock = new FakeClock();
    const client = new FakeClient(clock, syntheticDiscovery(3), () => ({ objects: 0, pageLatencyMs: 0 }));
    const loader = new ClusterLoader(client, { clock, namespaces: ['a', 'b'], labelSelector: 'app=web', pageSize: 7, metadataOnly: true });
    const { summary } = await settle(clock, loader.load());
    assert.equal(summary.tasks, 2 * 2 + 1);
    const seen = client.calls.map((c) => `${c.gvr.resource}/${c.opts.namespace ?? '*'}/${c.opts.labelSelector}/${c.opts.limit}/${c.opts.metadataOnly}`).sort();
    assert.deepEqual(seen, [
      'things0/*/app=web/7/true',
      'things1/a/app=web/7/true',
      'things1/b/app=web/7/true',
      'things2/a/app=web/7/true',
      'things2/b/app=web/7/true',
    ]);
  });
});

describe('ClusterLoader: properties', () => {
  it('for any plan, latencies, failures and cancel moment: exactly one result per task, and the load settles', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 32 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.option(fc.integer({ min: 0, max: 3000 }), { nil: undefined }),
        async (nTypes, concurrency, seed, cancelAt) => {
          const clock = new FakeClock();
          const rnd = (k: number) => ((seed * 7919 + k * 104729) % 1000) / 1000;
          const client = new FakeClient(clock, syntheticDiscovery(nTypes), (gvr) => {
            const k = Number(gvr.resource.slice(6));
            return {
              objects: Math.floor(rnd(k) * 40),
              pageLatencyMs: Math.floor(rnd(k + 1) * 50),
              failWith: rnd(k + 2) < 0.1 ? () => new KubeApiError(500, 'InternalError', 'boom') : undefined,
            };
          });
          const caller = new AbortController();
          if (cancelAt !== undefined) clock.setTimer(cancelAt, () => caller.abort(new Error('cancel')));
          const loader = new ClusterLoader(client, { clock, concurrency, pageSize: 10 });
          const { summary, results } = await settle(clock, loader.load(caller.signal), 25);
          assert.equal(results.length, nTypes);
          assert.equal(new Set(results.map((r) => r.taskId)).size, nTypes);
          assert.equal(summary.ok + summary.failed + summary.cancelled, nTypes);
          assert.equal(
            summary.objects,
            results.reduce((n, r) => n + (r.outcome === 'ok' ? r.count : 0), 0),
          );
          assert.equal(
            summary.objects + summary.partialObjects,
            results.reduce((n, r) => n + r.count, 0),
          );
          if (summary.outcome !== 'cancelled') assert.equal(summary.cancelled, 0);
        },
      ),
      { numRuns: 40 },
    );
  });
});
