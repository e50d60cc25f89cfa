/**
 * The namespace scope of a load under limited rights (src/core/loader/scope.ts and the 403
 * fallback in ClusterLoader): pure planning cases, RBAC rule matching, and a property over random
 * RBAC grants, checked against an in-memory client that authorizes as RBAC does (a namespaced
 * grant covers its namespace only; a cluster-wide grant covers every namespace and the cluster
 * scope) and answers the SelfSubject reviews from the same grants.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock } from '../../src/core/clock';
import {
  KubeApiError,
  ruleAllows,
  rulesAllow,
  type ApiResource,
  type Discovery,
  type KubeObject,
  type ListHooks,
  type ListOptions,
  type ResourceAttributes,
  type ResourceRule,
} from '../../src/core/kube';
import { ClusterLoader, nothingPermitted, planScopedTasks, type LoaderClient } from '../../src/core/loader';
import { REVIEW_TIMEOUT_MS, type AccessFacts } from '../../src/core/kube/access/review';
import type { GroupVersionResource } from '../../src/core/timeline/events';

const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames: string[] = []): ResourceRule => ({
  verbs,
  apiGroups,
  resources,
  resourceNames,
});
const type = (resource: string, namespaced: boolean, group = ''): ApiResource => ({
  group,
  version: 'v1',
  resource,
  kind: resource[0]!.toUpperCase() + resource.slice(1, -1),
  singular: resource.slice(0, -1),
  namespaced,
  verbs: ['list', 'watch'],
  shortNames: [],
  categories: [],
});
const CM = type('configmaps', true);
const SECRETS = type('secrets', true);
const NODES = type('nodes', false);

describe('RBAC rule matching (rbac.RuleAllows for a list of a collection)', () => {
  it('wildcards match; a rule with resourceNames never allows a list; the group must match', () => {
    assert.equal(ruleAllows(rule(['*'], ['*'], ['*']), 'list', 'apps', 'deployments'), true);
    assert.equal(ruleAllows(rule(['get', 'list'], [''], ['configmaps']), 'list', '', 'configmaps'), true);
    assert.equal(ruleAllows(rule(['get'], [''], ['configmaps']), 'list', '', 'configmaps'), false);
    assert.equal(ruleAllows(rule(['list'], ['apps'], ['configmaps']), 'list', '', 'configmaps'), false);
    assert.equal(ruleAllows(rule(['list'], [''], ['configmaps'], ['only-this']), 'list', '', 'configmaps'), false);
    assert.equal(rulesAllow([rule(['get'], ['*'], ['*']), rule(['list'], [''], ['secrets'])], 'list', '', 'secrets'), true);
  });
});

describe('planScopedTasks', () => {
  const facts = (f: Partial<AccessFacts>): AccessFacts => ({ rules: [], reviewErrors: [], ...f });
  const rulesIn = (namespace: string, resourceRules: ResourceRule[], incomplete = false) => ({ namespace, resourceRules, incomplete, evaluationError: '' });

  it('a user who may list everything gets all-namespaces tasks, and the context namespace to fall back to', () => {
    const p = planScopedTasks([CM, NODES], { namespaces: [], contextNamespace: 'team-a' }, facts({ listEverything: true }));
    assert.deepEqual(
      p.tasks.map((t) => [t.gvr.resource, t.namespace, t.forbidden]),
      [
        ['configmaps', undefined, undefined],
        ['nodes', undefined, undefined],
      ],
    );
    assert.deepEqual(p.fallback, ['team-a']);
  });

  it('what the rules of the context namespace do not allow is forbidden without a request; no context namespace means "default"', () => {
    const p = planScopedTasks(
      [CM, SECRETS, NODES],
      { namespaces: [] },
      facts({ listEverything: false, rules: [rulesIn('default', [rule(['list'], [''], ['configmaps'])])] }),
    );
    assert.deepEqual(p.candidates, ['default']);
    assert.deepEqual(
      p.tasks.map((t) => [t.id, t.gvr.resource, t.namespace, !!t.forbidden]),
      [
        [0, 'configmaps', undefined, false],
        [1, 'secrets', undefined, true],
        [2, 'nodes', undefined, true],
      ],
    );
    assert.match(p.tasks[1]!.forbidden!, /^secrets is forbidden: the user may not list secrets across all namespaces, nor in the namespace "default"/);
  });

  it('the cluster-wide rules (the probe namespace) decide between an all-namespaces task and one in the context namespace', () => {
    const cluster = rulesIn('probe', [rule(['list'], [''], ['pods'])]);
    const ctx = rulesIn('team-a', [rule(['list'], [''], ['pods']), rule(['list'], ['*'], ['*'])]);
    const p = planScopedTasks(
      [type('pods', true), CM, NODES],
      { namespaces: [], contextNamespace: 'team-a' },
      facts({ listEverything: false, clusterRules: cluster, rules: [ctx] }),
    );
    assert.deepEqual(
      p.tasks.map((t) => [t.gvr.resource, t.namespace ?? '*', !!t.forbidden]),
      [
        ['pods', '*', false],
        ['configmaps', 'team-a', false],
        ['nodes', '*', true],
      ],
    );
    assert.match(p.tasks[2]!.forbidden!, /^nodes is forbidden: the user may not list nodes at the cluster scope/);
  });

  it('incomplete rules or a failed review prove nothing: the type is tried', () => {
    const incomplete = planScopedTasks([SECRETS], { namespaces: [], contextNamespace: 'a' }, facts({ listEverything: false, rules: [rulesIn('a', [], true)] }));
    assert.equal(incomplete.tasks[0]!.forbidden, undefined);
    const failed = planScopedTasks([SECRETS, NODES], { namespaces: [], contextNamespace: 'a' }, facts({ reviewErrors: ['404'] }));
    assert.deepEqual(
      failed.tasks.map((t) => t.forbidden),
      [undefined, undefined],
    );
  });

  it('with chosen namespaces: one task per namespace where allowed, a forbidden task where not; no fallback', () => {
    const p = planScopedTasks(
      [CM, NODES],
      { namespaces: ['a', 'b'], contextNamespace: 'ignored' },
      facts({ listEverything: false, rules: [rulesIn('a', [rule(['list'], [''], ['configmaps'])]), rulesIn('b', [])] }),
    );
    assert.deepEqual(
      p.tasks.map((t) => [t.gvr.resource, t.namespace ?? '-', !!t.forbidden]),
      [
        ['configmaps', 'a', false],
        ['configmaps', 'b', true],
        ['nodes', '-', true],
      ],
    );
    assert.deepEqual(p.fallback, []);
  });
});

/** RBAC in memory: cluster-wide grants, and grants in one namespace. */
interface Rbac {
  cluster: Set<string>;
  inNs: Set<string>;
}

class RbacClient implements LoaderClient {
  readonly lists: string[] = [];
  readonly denied: string[] = [];
  readonly reviews: string[] = [];
  readonly context = { name: 'test', namespace: 'team-a' };
  constructor(
    private readonly types: ApiResource[],
    private readonly rbac: Rbac,
    private readonly objects: (r: string, ns: string) => number,
    private readonly namespaces: string[],
  ) {}

  async discover(): Promise<Discovery> {
    return {
      mode: 'aggregated',
      groups: [{ name: '', preferredVersion: 'v1', versions: [{ version: 'v1', stale: false, resources: this.types }] }],
      failures: [],
    };
  }

  private may(resource: string, ns: string | undefined): boolean {
    return this.rbac.cluster.has(resource) || (ns === 'team-a' && this.rbac.inNs.has(resource));
  }

  async accessReview(a: ResourceAttributes) {
    this.reviews.push('ssar');
    const allowed = a.resource === '*' ? this.types.every((t) => this.rbac.cluster.has(t.resource)) : this.may(a.resource, a.namespace || undefined);
    return { allowed, denied: false, reason: '' };
  }

  async rulesReview(namespace: string) {
    this.reviews.push(`ssrr ${namespace}`);
    const names = [...this.rbac.cluster, ...(namespace === 'team-a' ? this.rbac.inNs : [])];
    return { namespace, resourceRules: names.map((n) => rule(['get', 'list', 'watch'], [''], [n])), incomplete: false, evaluationError: '' };
  }

  async list(gvr: GroupVersionResource, opts: ListOptions, hooks: ListHooks) {
    this.lists.push(`${gvr.resource}@${opts.namespace ?? '*'}`);
    const t = this.types.find((x) => x.resource === gvr.resource)!;
    if (!this.may(gvr.resource, t.namespaced ? opts.namespace : undefined)) {
      this.denied.push(`${gvr.resource}@${opts.namespace ?? '*'}`);
      throw new KubeApiError(
        403,
        'Forbidden',
        `${gvr.resource} is forbidden: User "u" cannot list resource "${gvr.resource}" in API group "" ${opts.namespace ? `in the namespace "${opts.namespace}"` : 'at the cluster scope'}`,
      );
    }
    const sink = hooks.sink ?? [];
    const nss = !t.namespaced ? [''] : opts.namespace ? [opts.namespace] : this.namespaces;
    let n = 0;
    for (const ns of nss)
      for (let i = 0; i < this.objects(gvr.resource, ns); i++, n++)
        sink.push({ metadata: { name: `${gvr.resource}-${ns}-${i}`, ...(ns ? { namespace: ns } : {}) } } as KubeObject);
    hooks.onPage?.({ index: 0, items: n, bytes: n, more: false });
    return { items: sink, resourceVersion: '1', pages: 1, retries: 0, bytes: n, fellBackToFullList: false };
  }
}

describe('ClusterLoader under RBAC (property: random grants)', () => {
  const NAMES = ['configmaps', 'secrets', 'pods', 'services', 'nodes', 'namespaces', 'leases', 'persistentvolumes'];
  const arb = fc.record({
    namespaced: fc.array(fc.boolean(), { minLength: NAMES.length, maxLength: NAMES.length }),
    cluster: fc.subarray(NAMES),
    inNs: fc.subarray(NAMES),
    reviews: fc.boolean(),
    seed: fc.integer({ min: 0, max: 1000 }),
  });

  it('lists exactly what the user may see; forbidden is 403, never 0 items; no pair twice; one result per task', async () => {
    await fc.assert(
      fc.asyncProperty(arb, async ({ namespaced, cluster, inNs, reviews, seed }) => {
        const types = NAMES.map((n, i) => type(n, namespaced[i]!));
        const objects = (r: string, ns: string) => (r.length * 7 + ns.length * 3 + seed) % 5;
        const client = new RbacClient(types, { cluster: new Set(cluster), inNs: new Set(inNs) }, objects, ['team-a', 'team-b', 'kube-system']);
        const loader = new ClusterLoader(client, { clock: new FakeClock(), accessReview: reviews });
        const { summary, results } = await loader.load();
        assert.notEqual(summary.outcome, 'failed');
        assert.equal(summary.results, summary.tasks);
        assert.equal(results.length, summary.tasks);
        assert.equal(new Set(client.lists).size, client.lists.length, `a pair asked twice: ${client.lists}`);
        for (const t of types) {
          const rs = results.filter((r) => r.task.gvr.resource === t.resource);
          assert.equal(rs.length, 1, t.resource);
          const r = rs[0]!;
          const all = !t.namespaced ? objects(t.resource, '') : ['team-a', 'team-b', 'kube-system'].reduce((n, ns) => n + objects(t.resource, ns), 0);
          if (cluster.includes(t.resource)) {
            assert.deepEqual([r.outcome, r.task.namespace, r.count], ['ok', undefined, all], t.resource);
          } else if (t.namespaced && inNs.includes(t.resource)) {
            assert.deepEqual([r.outcome, r.task.namespace, r.count], ['ok', 'team-a', objects(t.resource, 'team-a')], t.resource);
          } else {
            assert.deepEqual([r.outcome, r.status, r.reason, r.count], ['error', 403, 'Forbidden', 0], t.resource);
            assert.ok(r.forbidden);
            // Known from the rules: no request at all (only with the reviews on).
            if (reviews) assert.equal(r.forbidden, 'review', t.resource);
          }
        }
        assert.equal(summary.forbidden, results.filter((r) => r.outcome === 'error').length);
        if (!reviews) assert.deepEqual(client.reviews, []);
        // Asked up front, the reviews leave nothing to discover by 403.
        else assert.deepEqual(client.denied, []);
      }),
      { numRuns: 150 },
    );
  });

  it('a cancel while a 403 is being narrowed still gives every task one result and settles', async () => {
    const types = [type('configmaps', true), type('secrets', true)];
    const client = new RbacClient(types, { cluster: new Set(), inNs: new Set(['configmaps', 'secrets']) }, () => 2, ['team-a']);
    const ac = new AbortController();
    const run = new ClusterLoader(client, { clock: new FakeClock(), concurrency: 1, accessReview: false }).start({
      signal: ac.signal,
      onNarrow: () => ac.abort(new Error('stop')),
    });
    const summary = await run.done;
    assert.equal(summary.outcome, 'cancelled');
    assert.equal(summary.results, summary.tasks);
  });

  it('reviews that never answer are abandoned after REVIEW_TIMEOUT_MS on the clock (their requests aborted): the load goes on as if it had not asked', async () => {
    const clock = new FakeClock();
    const types = [type('configmaps', true), type('nodes', false)];
    const client = new RbacClient(types, { cluster: new Set(['configmaps', 'nodes']), inNs: new Set() }, () => 1, ['team-a']);
    const aborted: unknown[] = [];
    const hang = (_a: unknown, o: { signal?: AbortSignal }) =>
      new Promise<never>((_, reject) => o.signal!.addEventListener('abort', () => (aborted.push(o.signal!.reason), reject(o.signal!.reason)), { once: true }));
    Object.assign(client, { accessReview: hang, rulesReview: hang });
    const run = new ClusterLoader(client, { clock }).start();
    let settled = false;
    void run.done.then(() => (settled = true));
    while (clock.pendingTimers() === 0) await new Promise((r) => setImmediate(r));
    await clock.advance(REVIEW_TIMEOUT_MS - 1);
    assert.equal(settled, false, 'still waiting for the reviews');
    await clock.advance(1);
    const summary = await run.done;
    const plan = (await run.plan)!;
    assert.equal(summary.outcome, 'ok');
    assert.equal(aborted.length, 1, 'the one review in flight was aborted');
    assert.match(plan.access.reviewErrors[0]!, /no answer within 10000 ms/);
    assert.deepEqual(client.lists.sort(), ['configmaps@*', 'nodes@*']);
  });
});

describe('nothingPermitted: when a load says the user may list nothing', () => {
  const base = { outcome: 'partial' as const, ok: 0, failed: 3, forbidden: 3, cancelled: 0 };
  it('only when every type tried was refused, none loaded, and the load ran to its end', () => {
    assert.equal(nothingPermitted(base), true);
    assert.equal(nothingPermitted({ ...base, ok: 1 }), false);
    assert.equal(nothingPermitted({ ...base, forbidden: 2 }), false, 'another failure is not a rights problem');
    assert.equal(nothingPermitted({ ...base, failed: 0, forbidden: 0 }), false);
    // A load cancelled after its review-forbidden types were counted (they need no request) is not one.
    assert.equal(nothingPermitted({ ...base, outcome: 'cancelled', failed: 1, forbidden: 1, cancelled: 69 }), false);
    assert.equal(nothingPermitted({ ...base, cancelled: 1 }), false);
  });
});
