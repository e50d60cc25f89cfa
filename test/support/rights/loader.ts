/**
 * The loader with limited rights, written once and run on the demo cluster (integration tier) and
 * on a real kube-apiserver (apiserver tier): a user whose Role covers one namespace, with that
 * namespace in its kubeconfig context, loads that namespace's objects exactly; types it may not
 * list are forbidden, never "0 items"; every denied (type, namespace) pair is asked at most once;
 * `kubeloop load` exits 2, not 1; a user with no rights in its context gets one clear message.
 * What was asked of the server is checked where the server counts it (the demo cluster).
 */
import { it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { runLoad } from '../../../src/cli/load';
import { KubeClient, loadKubeContext } from '../../../src/core/kube';
import { ClusterLoader, type LoadTaskResult } from '../../../src/core/loader';
import type { LoaderTaskEvent } from '../../../src/core/timeline/events';
import { namespaceChoices } from '../../../src/app/connection/connection';
import { createLogger } from '../../../src/app/logger';
import { ResourceModel } from '../../../src/app/model/resourceModel';
import { TreeModel } from '../../../src/app/tree/treeModel';
import type { ResourceNode } from '../../../src/app/tree/treeNode';
import { capture } from '../capture';
import { runKubectl } from '../kubectl';
import { extensionLoad, requestsSince, type RightsServer } from './server';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

type Scenario = [name: string, run: (s: RightsServer, t: TestContext) => Promise<void>];
const SCENARIOS: Scenario[] = [];
const scenario = (name: string, run: Scenario[1]) => void SCENARIOS.push([name, run]);

/** The team-a user's results: namespaced types exact in team-a, cluster-scoped ones forbidden. */
const checkTeamA = async (s: RightsServer, results: LoadTaskResult[]) => {
  const cms = results.filter((r) => r.task.gvr.resource === 'configmaps');
  assert.equal(cms.length, 1);
  assert.deepEqual([cms[0]!.outcome, cms[0]!.task.namespace, cms[0]!.count], ['ok', 'team-a', 40]);
  for (const r of results) {
    if (r.task.namespaced) {
      assert.equal(r.outcome, 'ok', `${r.task.gvr.resource}: ${r.message}`);
      assert.equal(r.task.namespace, 'team-a');
      assert.equal(r.count, await s.count(r.task.gvr.group, r.task.gvr.version, r.task.gvr.resource, 'team-a'), r.task.gvr.resource);
    } else {
      assert.deepEqual([r.outcome, r.status, r.reason], ['error', 403, 'Forbidden'], r.task.gvr.resource);
      assert.ok(r.forbidden, 'marked forbidden');
    }
  }
  assert.equal(results.find((r) => r.task.gvr.resource === 'secrets')?.count, await s.count('', 'v1', 'secrets', 'team-a'));
};
/** List requests since `before`, as [`list resource@namespace`, n]. */
const listsSince = (s: RightsServer, before: Record<string, number>) =>
  Object.entries(requestsSince(s.counters!, before)).filter(([k]) => k.startsWith('list '));
const connect = async (s: RightsServer, user?: string) => KubeClient.connect(loadKubeContext({ kubeconfig: await s.kubeconfig(user) }));

scenario(
  'kubectl as the team-a user sees what the issue reports: 40 ConfigMaps in its context namespace, a 403 with -A, can-i yes/no, its rules',
  async (s) => {
    const k = async (args: string[]) => runKubectl(args, { kubeconfig: await s.kubeconfig('alice') });
    const cms = await k(['get', 'configmaps', '-o', 'name']);
    assert.equal(cms.code, 0, cms.stderr);
    assert.equal(cms.stdout.trim().split('\n').length, 40);
    const all = await k(['get', 'configmaps', '-A']);
    assert.notEqual(all.code, 0);
    assert.match(all.stderr, /configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" at the cluster scope/);
    assert.equal((await k(['auth', 'can-i', 'list', 'configmaps'])).stdout.trim(), 'yes');
    assert.equal((await k(['auth', 'can-i', 'list', 'configmaps', '-A'])).stdout.trim(), 'no');
    const rules = await k(['auth', 'can-i', '--list']);
    assert.equal(rules.code, 0, rules.stderr);
    assert.match(rules.stdout, /^\*\.\*\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    assert.match(rules.stdout, /^selfsubjectrulesreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
  },
);

scenario('kubeloop load --json as the team-a user: team-a objects exactly, cluster-scoped types forbidden by the review, exit 2', async (s) => {
  const c = capture();
  assert.equal(await runLoad(['--kubeconfig', await s.kubeconfig('alice'), '--json'], c.io), 2, c.err);
  const j = JSON.parse(c.out);
  assert.equal(j.contextNamespace, 'team-a');
  assert.deepEqual(j.fallbackNamespaces, ['team-a']);
  const cms = j.types.find((x: any) => x.resource === 'configmaps');
  assert.deepEqual([cms.namespace, cms.outcome, cms.count], ['team-a', 'ok', 40]);
  for (const ty of j.types.filter((x: any) => x.namespaced)) {
    assert.equal(ty.outcome, 'ok', `${ty.resource}`);
    assert.equal(ty.namespace, 'team-a', ty.resource);
    assert.equal(ty.count, await s.count(ty.group, ty.version, ty.resource, 'team-a'), `count of ${ty.resource} in team-a`);
  }
  assert.ok(j.failed.length > 5, 'cluster-scoped types are reported');
  assert.equal(j.failed.length, j.forbidden);
  for (const f of j.failed) {
    // A Role's `*` names nodes too, but only cluster-wide grants reach the cluster scope: known up front.
    assert.deepEqual([f.namespace, f.status, f.reason, f.forbidden], [null, 403, 'Forbidden', 'review'], f.resource);
    const ty = j.types.find((x: any) => x.resource === f.resource && x.group === f.group);
    assert.equal(ty.namespaced, false, `${f.resource} is cluster-scoped`);
  }
  assert.equal(
    j.failed.find((f: any) => f.resource === 'nodes').message,
    'nodes is forbidden: the user may not list nodes at the cluster scope (SelfSubjectRulesReview: no cluster-wide grant allows it); not requested',
  );
  assert.equal(
    j.objects,
    j.types.filter((x: any) => x.outcome === 'ok').reduce((n: number, x: any) => n + x.count, 0),
  );
});

scenario('kubeloop load as the team-a user: the human table says forbidden (never 0 items); exit 2, not 1', async (s) => {
  const c = capture();
  assert.equal(await runLoad(['--kubeconfig', await s.kubeconfig('alice')], c.io), 2, c.err);
  assert.match(c.out, /^configmaps\s+v1\s+team-a\s+40\s+1\s+0\s+[\d.]+s\s+\d\s+ok$/m);
  assert.match(c.out, /^nodes\s+v1\s+-\s+0\s+0\s+0\s+[\d.]+s\s+-\s+forbidden$/m, 'a 403 is forbidden, not 0 items');
  assert.match(c.err, /^forbidden: nodes: 403 Forbidden: nodes is forbidden/m);
});

scenario(
  'the loader as the team-a user, with the reviews (the default): team-a lists planned, cluster-scoped types forbidden up front, no request refused',
  async (s) => {
    const client = await connect(s, 'alice');
    const before = s.counters?.byScope() ?? {};
    const refusedBefore = s.counters?.refused() ?? 0;
    try {
      const events: LoaderTaskEvent[] = [];
      const { summary, results, plan } = await new ClusterLoader(client, { pageSize: 25, onEvent: (e) => events.push(e) }).load();
      assert.equal(summary.outcome, 'partial');
      assert.deepEqual(plan!.fallbackNamespaces, ['team-a']);
      assert.equal(summary.narrowed, 0, 'known up front: nothing to narrow');
      assert.equal(summary.results, summary.tasks, 'one result per task');
      await checkTeamA(s, results);
      assert.ok(results.filter((r) => r.outcome === 'error').every((r) => r.forbidden === 'review' && r.worker === -1));
      const starts = events.filter((e) => e.phase === 'start').map((e) => `${e.gvr.group}/${e.gvr.resource}@${e.namespace ?? '*'}`);
      assert.equal(new Set(starts).size, starts.length, 'no pair asked twice');
      assert.equal(events.filter((e) => e.phase === 'retry').length, 0, 'no retries');
      assert.deepEqual(
        events.filter((e) => e.phase === 'finish' && e.status === 403),
        [],
        'known up front: no list is refused',
      );
      if (s.counters) {
        assert.equal(s.counters.refused() - refusedBefore, 0, 'no 403 at all');
        // Every list is in team-a, once (pages of 25 hold team-a's 40 configmaps in 2).
        const asked = listsSince(s, before);
        assert.ok(asked.length > 20);
        for (const [k, n] of asked) {
          assert.match(k, /@team-a$/);
          assert.equal(n, k === 'list configmaps@team-a' ? 2 : 1, k);
        }
      }
    } finally {
      client.close();
    }
  },
);

scenario(
  'the loader as the team-a user without the reviews: every all-namespaces list is refused once and narrowed to team-a; the results are the same',
  async (s, t) => {
    const client = await connect(s, 'alice');
    try {
      const counts: Record<string, string>[] = [];
      for (const accessReview of [true, false]) {
        const before = s.counters?.byScope() ?? {};
        const events: LoaderTaskEvent[] = [];
        const { summary, results } = await new ClusterLoader(client, { pageSize: 500, accessReview, onEvent: (e) => events.push(e) }).load();
        assert.equal(summary.results, summary.tasks, 'one result per task');
        await checkTeamA(s, results);
        const starts = events.filter((e) => e.phase === 'start').map((e) => `${e.gvr.group}/${e.gvr.resource}@${e.namespace ?? '*'}`);
        assert.equal(new Set(starts).size, starts.length, 'no pair asked twice');
        assert.equal(events.filter((e) => e.phase === 'retry').length, 0, 'no retries: a 403 is final');
        const denied = events.filter((e) => e.phase === 'finish' && e.status === 403).map((e) => `${e.gvr.resource}@${e.namespace ?? '*'}`);
        if (!accessReview) {
          assert.ok(summary.narrowed > 20, `narrowed ${summary.narrowed}`);
          assert.ok(results.filter((r) => r.outcome === 'error').every((r) => r.forbidden === 'request'));
          assert.ok(denied.includes('configmaps@*') && !denied.includes('configmaps@team-a'), denied.join(' '));
          if (s.counters) {
            const asked = listsSince(s, before);
            for (const [k, n] of asked) assert.equal(n, 1, `${k} asked once`);
            assert.ok(asked.some(([k]) => k === 'list configmaps@*') && asked.some(([k]) => k === 'list configmaps@team-a'));
            assert.ok(!asked.some(([k]) => k.startsWith('list namespaces@team-a')), 'a cluster-scoped type is never listed in a namespace');
          }
        }
        counts.push(
          Object.fromEntries(
            results.map((r) => [`${r.task.gvr.group}/${r.task.gvr.resource}`, `${r.task.namespace ?? '*'} ${r.outcome} ${r.count} ${r.status ?? ''}`]),
          ),
        );
        t.diagnostic(
          `${s.name}, reviews ${accessReview ? 'on' : 'off'}: ${summary.tasks} tasks, ${starts.length} lists (${denied.length} refused), ${summary.requests} requests, ${summary.narrowed} narrowed to team-a, ${summary.forbidden} forbidden, ${summary.durationMs.toFixed(0)} ms`,
        );
      }
      assert.deepEqual(counts[0], counts[1], 'the same outcome either way');
    } finally {
      client.close();
    }
  },
);

scenario('the access reviews plan out what the rules forbid: bob lists pods across the cluster, configmaps in team-a, and asks nothing else', async (s) => {
  const client = await connect(s, 'bob');
  const before = s.counters?.byScope() ?? {};
  try {
    const { summary, results } = await new ClusterLoader(client, {}).load();
    const pods = results.find((r) => r.task.gvr.resource === 'pods')!;
    assert.deepEqual([pods.outcome, pods.task.namespace, pods.count], ['ok', undefined, await s.count('', 'v1', 'pods')]);
    const cms = results.find((r) => r.task.gvr.resource === 'configmaps')!;
    assert.deepEqual([cms.outcome, cms.task.namespace, cms.count], ['ok', 'team-a', 40]);
    const others = results.filter((r) => r !== pods && r !== cms);
    assert.ok(others.length > 10);
    for (const r of others) assert.deepEqual([r.outcome, r.status, r.forbidden, r.worker], ['error', 403, 'review', -1], r.task.gvr.resource);
    assert.equal(summary.forbidden, others.length);
    if (s.counters)
      assert.deepEqual(
        listsSince(s, before)
          .map(([k]) => k)
          .sort(),
        ['list configmaps@team-a', 'list pods@*'],
      );
  } finally {
    client.close();
  }
});

scenario(
  'a user with no rights in its context (carol) gets one clear message, who, which context, what it may not do; the reviews alone forbid every type (no list sent)',
  async (s) => {
    const kubeconfig = await s.kubeconfig('carol');
    const c = capture();
    const listsBefore = s.counters?.lists() ?? 0;
    assert.equal(await runLoad(['--kubeconfig', kubeconfig], c.io), 2, c.err);
    if (s.counters) assert.equal(s.counters.lists() - listsBefore, 0, 'the reviews said it all: no list was sent');
    assert.match(
      c.err,
      new RegExp(
        `^kubeloop load: user "carol" \\(context "${escape(s.contextName('carol'))}", server https://127\\.0\\.0\\.1:\\d+\\) may not list any resource type across all namespaces nor in the namespace "team-a": every type is forbidden`,
        'm',
      ),
    );
    assert.match(c.out, /0 objects of 0 task\(s\)/);
    const client = await KubeClient.connect(loadKubeContext({ kubeconfig }));
    try {
      const { summary, results } = await new ClusterLoader(client).load();
      assert.ok(results.length > 40);
      assert.ok(results.every((r) => r.outcome === 'error' && r.forbidden === 'review' && r.worker === -1));
      assert.equal(summary.forbidden, results.length);
    } finally {
      client.close();
    }
  },
);

/** label [— description] lines of the tree, `depth` levels deep. */
function render(t: TreeModel, depth: number, node?: ResourceNode, indent = 0): string[] {
  if (depth === 0) return [];
  return t.children(node).flatMap((c) => {
    const item = t.item(c);
    return [`${'  '.repeat(indent)}${item.label}${item.description ? ` — ${item.description}` : ''}`, ...render(t, depth - 1, c, indent + 1)];
  });
}

scenario("the extension's load as the team-a user: the tree holds team-a's objects, and forbidden types are error nodes saying 403 Forbidden", async (s) => {
  const client = await connect(s, 'alice');
  try {
    const model = new ResourceModel(s.contextName('alice'));
    const lines: string[] = [];
    const log = createLogger(
      { trace: () => undefined, debug: () => undefined, info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) },
      () => 'info',
    );
    const r = await extensionLoad(s, 'alice', client, model, log);
    assert.equal(r.summary.outcome, 'partial');
    assert.deepEqual(model.namespaces(), ['team-a']);
    const secrets = await s.count('', 'v1', 'secrets', 'team-a');
    assert.equal(model.bucket('team-a', 'configmaps')?.objects.size, 40);
    assert.equal(model.bucket('team-a', 'secrets')?.objects.size, secrets);
    assert.ok(model.failures().length > 0 && model.failures().every((f) => f.status === 403 && f.namespace === undefined && !f.type.namespaced));
    const tree = render(new TreeModel(model), 4);
    assert.ok(tree.includes('    Node (nodes) — 403 Forbidden'), tree.join('\n'));
    const ns = tree.indexOf('  team-a');
    assert.ok(ns > 0, tree.join('\n'));
    assert.ok(tree.slice(ns).includes('      ConfigMap — 40') && tree.slice(ns).includes(`      Secret — ${secrets}`), tree.join('\n'));
  } finally {
    client.close();
  }
});

scenario('Select Namespaces for a user who may not list namespaces: the known ones (context namespace first), not an error', async (s) => {
  const ctx = loadKubeContext({ kubeconfig: await s.kubeconfig('alice') });
  const client = await KubeClient.connect(ctx);
  try {
    const c = await namespaceChoices(client, ctx, ['team-b'], AbortSignal.timeout(10_000));
    assert.deepEqual([c.source, c.names], ['known', ['team-a', 'team-b']]);
    assert.match(c.note!, new RegExp(`may not list namespaces in "${escape(s.contextName('alice'))}" \\(403 Forbidden\\)`));
    const adminCtx = loadKubeContext({ kubeconfig: await s.kubeconfig() });
    const admin = await KubeClient.connect(adminCtx);
    try {
      const all = await namespaceChoices(admin, adminCtx, [], AbortSignal.timeout(10_000));
      assert.equal(all.source, 'cluster');
      assert.ok(all.names.includes('team-a') && all.names.includes('kube-system'));
    } finally {
      admin.close();
    }
  } finally {
    client.close();
  }
});

/** Registers the loader scenarios; `server()` is the running server (set up in the caller's `before`). */
export function loaderRightsScenarios(server: () => RightsServer): void {
  for (const [name, run] of SCENARIOS) it(name, (t) => run(server(), t));
}
