/**
 * Limited rights on the demo cluster, whose RBAC-style grants answer 403s and the SelfSubject
 * reviews as kube-apiserver's RBAC does (test/apiserver/rights.test.ts holds both to the same
 * answers): a user whose Role covers one namespace, with that namespace in its kubeconfig context,
 * loads that namespace's objects exactly; types it may not list are forbidden, never "0 items";
 * every denied (type, namespace) pair is asked at most once; `kubeloop load` exits 2, not 1.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runLoad } from '../../src/cli/load';
import { KubeClient, loadKubeContext } from '../../src/core/kube';
import { ClusterLoader, type LoadTaskResult } from '../../src/core/loader';
import type { DemoObject } from '../../src/demo/store';
import { TimelineStore } from '../../src/core/timeline/store';
import { namespaceChoices } from '../../src/app/connection/connection';
import { runLoad as runExtensionLoad } from '../../src/app/load/loadRunner';
import { createLogger } from '../../src/app/logger';
import { ResourceModel } from '../../src/app/model/resourceModel';
import { defaultSettings } from '../../src/app/settings';
import { TreeModel } from '../../src/app/tree/treeModel';
import type { ResourceNode } from '../../src/app/tree/treeNode';
import { runKubectl } from '../support/kubectl';
import { demo, type Fixture } from './loader-helpers';
import { capture } from '../support/capture';

const GRANTS = [
  // alice: a Role with get/list/watch of everything, bound in team-a only.
  'alice:team-a:get,list,watch:*:*',
  // bob: pods across the cluster (a ClusterRoleBinding), configmaps in team-a (a RoleBinding).
  'bob:*:get,list,watch::pods',
  'bob:team-a:get,list,watch::configmaps',
  // carol: rights in a namespace that is not her context's, none anywhere else.
  'carol:elsewhere:get,list,watch:*:*',
];

describe('the loader with limited rights (demo cluster RBAC)', () => {
  let fx: Fixture;
  const kc: Record<string, string> = {};

  before(async () => {
    // TLS: kubectl sends a bearer token only over HTTPS.
    fx = await demo(800, { grants: GRANTS, tls: true });
    const store = fx.cluster.store;
    store.create('', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } } as DemoObject);
    for (let i = 0; i < 40; i++)
      store.create('', 'configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}`, namespace: 'team-a' },
        data: { i: String(i) },
      } as DemoObject);
    for (let i = 0; i < 3; i++)
      store.create('', 'secrets', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `s-${i}`, namespace: 'team-a' },
        type: 'Opaque',
        data: {},
      } as DemoObject);
    for (const user of ['alice', 'bob', 'carol']) {
      kc[user] = join(fx.dir, `kubeconfig-${user}`);
      await fx.cluster.writeKubeconfig(kc[user]!, { user, namespace: 'team-a' });
    }
  });
  after(async () => {
    await fx.stop();
  });

  const inNs = (group: string, resource: string, ns: string) => fx.cluster.store.list(group, resource).items.filter((o) => o.metadata.namespace === ns).length;

  it('kubectl as the team-a user sees what the issue reports: 40 ConfigMaps in its context namespace, a 403 with -A, and its rules', async () => {
    const k = (args: string[]) => runKubectl(args, { kubeconfig: kc.alice! });
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
  });

  /** List requests sent since `before`, by 'list resource@namespace'. */
  const listsSince = (before: Record<string, number>) =>
    Object.entries(fx.cluster.stats.requestsByScope)
      .map(([k, n]) => [k, n - (before[k] ?? 0)] as const)
      .filter(([k, n]) => n > 0 && k.startsWith('list '));

  /** The team-a user's results: namespaced types exact in team-a, cluster-scoped ones forbidden. */
  const checkTeamA = (results: LoadTaskResult[]) => {
    const cms = results.filter((r) => r.task.gvr.resource === 'configmaps');
    assert.equal(cms.length, 1);
    assert.deepEqual([cms[0]!.outcome, cms[0]!.task.namespace, cms[0]!.count], ['ok', 'team-a', 40]);
    for (const r of results) {
      if (r.task.namespaced) {
        assert.equal(r.outcome, 'ok', `${r.task.gvr.resource}: ${r.message}`);
        assert.equal(r.task.namespace, 'team-a');
        assert.equal(r.count, inNs(r.task.gvr.group, r.task.gvr.resource, 'team-a'), r.task.gvr.resource);
      } else {
        assert.deepEqual([r.outcome, r.status, r.reason], ['error', 403, 'Forbidden'], r.task.gvr.resource);
        assert.ok(r.forbidden, 'marked forbidden');
      }
    }
    assert.equal(results.find((r) => r.task.gvr.resource === 'secrets')?.count, 3);
  };

  it('a user limited to team-a (context namespace team-a): the reviews plan team-a lists and forbidden cluster-scoped types; no request is refused', async () => {
    const client = await KubeClient.connect(loadKubeContext({ kubeconfig: kc.alice }));
    const before = { ...fx.cluster.stats.requestsByScope };
    const refusedBefore = fx.cluster.stats.responsesByCode['403'] ?? 0;
    try {
      const { summary, results, plan } = await new ClusterLoader(client, { pageSize: 25 }).load();
      assert.equal(summary.outcome, 'partial');
      assert.deepEqual(plan!.fallbackNamespaces, ['team-a']);
      assert.equal(summary.narrowed, 0, 'known up front: nothing to narrow');
      assert.equal(summary.results, summary.tasks, 'one result per task');
      checkTeamA(results);
      assert.ok(results.filter((r) => r.outcome === 'error').every((r) => r.forbidden === 'review' && r.worker === -1));
      assert.equal((fx.cluster.stats.responsesByCode['403'] ?? 0) - refusedBefore, 0, 'no 403 at all');
      // Every list is in team-a, once (pages of 25 hold team-a's 40 configmaps in 2).
      const asked = listsSince(before);
      assert.ok(asked.length > 20);
      for (const [k, n] of asked) {
        assert.match(k, /@team-a$/);
        assert.equal(n, k === 'list configmaps@team-a' ? 2 : 1, k);
      }
    } finally {
      client.close();
    }
  });

  it('without the reviews: every all-namespaces list is refused once and narrowed to team-a; the results are the same', async () => {
    const client = await KubeClient.connect(loadKubeContext({ kubeconfig: kc.alice }));
    const before = { ...fx.cluster.stats.requestsByScope };
    try {
      const { summary, results } = await new ClusterLoader(client, { pageSize: 500, accessReview: false }).load();
      assert.equal(summary.results, summary.tasks, 'one result per task');
      assert.ok(summary.narrowed > 20, `narrowed ${summary.narrowed}`);
      checkTeamA(results);
      assert.ok(results.filter((r) => r.outcome === 'error').every((r) => r.forbidden === 'request'));
      const asked = listsSince(before);
      for (const [k, n] of asked) assert.equal(n, 1, `${k} asked once`);
      assert.ok(asked.some(([k]) => k === 'list configmaps@*') && asked.some(([k]) => k === 'list configmaps@team-a'));
      assert.ok(!asked.some(([k]) => k.startsWith('list namespaces@team-a')), 'a cluster-scoped type is never listed in a namespace');
    } finally {
      client.close();
    }
  });

  it('the access reviews plan out what the rules forbid: bob lists pods across the cluster, configmaps in team-a, and asks nothing else', async () => {
    const client = await KubeClient.connect(loadKubeContext({ kubeconfig: kc.bob }));
    const before = { ...fx.cluster.stats.requestsByScope };
    try {
      const { summary, results } = await new ClusterLoader(client, {}).load();
      const pods = results.find((r) => r.task.gvr.resource === 'pods')!;
      assert.deepEqual([pods.outcome, pods.task.namespace, pods.count], ['ok', undefined, fx.cluster.store.count('', 'pods')]);
      const cms = results.find((r) => r.task.gvr.resource === 'configmaps')!;
      assert.deepEqual([cms.outcome, cms.task.namespace, cms.count], ['ok', 'team-a', 40]);
      const others = results.filter((r) => r !== pods && r !== cms);
      assert.ok(others.length > 10);
      for (const r of others) assert.deepEqual([r.outcome, r.status, r.forbidden, r.worker], ['error', 403, 'review', -1], r.task.gvr.resource);
      assert.equal(summary.forbidden, others.length);
      const lists = Object.entries(fx.cluster.stats.requestsByScope)
        .filter(([k, n]) => k.startsWith('list ') && n - (before[k] ?? 0) > 0)
        .map(([k]) => k)
        .sort();
      assert.deepEqual(lists, ['list configmaps@team-a', 'list pods@*']);
    } finally {
      client.close();
    }
  });

  it('kubeloop load: the human table says forbidden (never 0 items) and --json lists them in failed; exit 2, not 1', async () => {
    const c = capture();
    assert.equal(await runLoad(['--kubeconfig', kc.alice!], c.io), 2, c.err);
    assert.match(c.out, /^configmaps\s+v1\s+team-a\s+40\s+1\s+0\s+[\d.]+s\s+\d\s+ok$/m);
    assert.match(c.out, /^nodes\s+v1\s+-\s+0\s+0\s+0\s+[\d.]+s\s+-\s+forbidden$/m, 'a 403 is forbidden, not 0 items');
    assert.match(c.err, /^forbidden: nodes: 403 Forbidden: nodes is forbidden/m);
    const j = capture();
    assert.equal(await runLoad(['--kubeconfig', kc.alice!, '--json'], j.io), 2, j.err);
    const doc = JSON.parse(j.out);
    assert.equal(doc.contextNamespace, 'team-a');
    assert.deepEqual(doc.fallbackNamespaces, ['team-a']);
    const nodes = doc.failed.find((f: any) => f.resource === 'nodes');
    // A Role's `*` names nodes too, but only cluster-wide grants reach the cluster scope: known up front.
    assert.deepEqual([nodes.status, nodes.reason, nodes.forbidden], [403, 'Forbidden', 'review']);
    assert.equal(doc.failed.length, doc.forbidden);
    assert.ok(
      doc.failed.every((f: any) => f.namespace === null),
      'only cluster-scoped types fail',
    );
    assert.equal(doc.types.find((t: any) => t.resource === 'configmaps').count, 40);
  });

  it('a user with no rights in its context gets one clear message: who, which context, what it may not do', async () => {
    const c = capture();
    const before = fx.cluster.stats.requestsByVerb.list ?? 0;
    assert.equal(await runLoad(['--kubeconfig', kc.carol!], c.io), 2, c.err);
    assert.equal((fx.cluster.stats.requestsByVerb.list ?? 0) - before, 0, 'the reviews said it all: no list was sent');
    assert.match(
      c.err,
      /user "carol" \(context "carol@kubeloop-demo", server https?:\/\/[^)]+\) may not list any resource type across all namespaces nor in the namespace "team-a"/,
    );
    assert.match(c.out, /0 objects of 0 task\(s\)/);
  });

  /** label [— description] lines of the tree, `depth` levels deep. */
  function render(t: TreeModel, depth: number, node?: ResourceNode, indent = 0): string[] {
    if (depth === 0) return [];
    return t.children(node).flatMap((c) => {
      const it = t.item(c);
      return [`${'  '.repeat(indent)}${it.label}${it.description ? ` — ${it.description}` : ''}`, ...render(t, depth - 1, c, indent + 1)];
    });
  }

  it("the extension's load: the tree holds team-a's objects, and forbidden types are error nodes saying 403 Forbidden", async () => {
    const client = await KubeClient.connect(loadKubeContext({ kubeconfig: kc.alice }));
    try {
      const model = new ResourceModel();
      const lines: string[] = [];
      const log = createLogger(
        { trace: () => undefined, debug: () => undefined, info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) },
        () => 'info',
      );
      const r = await runExtensionLoad({
        client,
        contextName: 'alice@kubeloop-demo',
        settings: defaultSettings(),
        model,
        timeline: new TimelineStore(),
        log,
        origin: 0,
        loadId: 't',
        signal: new AbortController().signal,
      });
      assert.equal(r.summary.outcome, 'partial');
      assert.deepEqual(model.namespaces(), ['team-a']);
      assert.equal(model.bucket('team-a', 'configmaps')?.objects.size, 40);
      assert.equal(model.bucket('team-a', 'secrets')?.objects.size, 3);
      assert.ok(model.failures().length > 0 && model.failures().every((f) => f.status === 403 && f.namespace === undefined && !f.type.namespaced));
      const tree = render(new TreeModel(model), 4);
      assert.ok(tree.includes('    Node (nodes) — 403 Forbidden'), tree.join('\n'));
      const ns = tree.indexOf('  team-a');
      assert.ok(ns > 0, tree.join('\n'));
      assert.ok(tree.slice(ns).includes('      ConfigMap — 40') && tree.slice(ns).includes('      Secret — 3'), tree.join('\n'));
    } finally {
      client.close();
    }
  });

  it('Select Namespaces for a user who may not list namespaces: the known ones (context namespace first), not an error', async () => {
    const ctx = loadKubeContext({ kubeconfig: kc.alice });
    const client = await KubeClient.connect(ctx);
    try {
      const c = await namespaceChoices(client, ctx, ['team-b'], AbortSignal.timeout(10_000));
      assert.deepEqual([c.source, c.names], ['known', ['team-a', 'team-b']]);
      assert.match(c.note!, /may not list namespaces in "alice@kubeloop-demo" \(403 Forbidden\)/);
      const admin = await KubeClient.connect(loadKubeContext({ kubeconfig: fx.kubeconfig }));
      try {
        const all = await namespaceChoices(admin, loadKubeContext({ kubeconfig: fx.kubeconfig }), [], AbortSignal.timeout(10_000));
        assert.equal(all.source, 'cluster');
        assert.ok(all.names.includes('team-a') && all.names.includes('kube-system'));
      } finally {
        admin.close();
      }
    } finally {
      client.close();
    }
  });
});
