/**
 * Limited rights on a real kube-apiserver with RBAC (issue 9): a user whose Role allows
 * get/list/watch of everything in team-a only, with `namespace: team-a` in its kubeconfig context,
 * must see team-a's objects (exact counts), forbidden types as forbidden, exit status 2 (not 1), and
 * each denied (type, namespace) pair asked once; a user with no rights gets a clear message.
 * The demo cluster's grants are held to the real server's answers to the same questions (reviews,
 * 403s), so the demo-based tests of the same behaviour test what a real cluster does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from '../../src/cli/load';
import { KubeApiError, KubeClient, loadKubeContext, rulesAllow } from '../../src/core/kube';
import { ClusterLoader } from '../../src/core/loader';
import { CLUSTER_RULES_PROBE } from '../../src/core/kube/access/review';
import type { LoaderTaskEvent } from '../../src/core/timeline/events';
import { startDemoCluster, type DemoCluster } from '../../src/demo';
import { runKubectl } from '../support/kubectl';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { seed } from './objects';
import { Api, bindClusterRole, bindRole, collectionPath, kubeconfigFor, mapLimit } from './support';
import { capture } from '../support/capture';

const USERS = [
  { name: 'alice', token: 'alice-token-7c1e9b44a2' },
  { name: 'bob', token: 'bob-token-0d83f2a6e5' },
  { name: 'nobody', token: 'nobody-token-5b2c7e9f10' },
];
const READ = ['get', 'list', 'watch'];
/** The same grants, written for the demo cluster. */
const DEMO_GRANTS = ['alice:team-a:get,list,watch:*:*', 'bob:*:get,list,watch::pods', 'bob:team-a:get,list,watch::configmaps'];

describe('limited rights on a real kube-apiserver (RBAC)', () => {
  let cp: ControlPlane;
  let api: Api;
  let demo: DemoCluster;
  let dir: string;

  before(async () => {
    cp = await startControlPlane({ extraUsers: USERS });
    api = Api.admin(cp, 16);
    await seed(api, { namespaces: ['team-a', 'team-b'], perNamespace: 4, cluster: 3, concurrency: 12 });
    // 40 ConfigMaps in team-a in all (seed made 4), as in the issue.
    await mapLimit(
      Array.from({ length: 36 }, (_, i) => i),
      12,
      (i) =>
        api.must('POST', '/api/v1/namespaces/team-a/configmaps', { metadata: { name: `issue-${String(i).padStart(2, '0')}` }, data: { i: String(i) } }, [201]),
    );
    await bindRole(api, 'team-a', 'team-a-reader', 'alice', [{ apiGroups: ['*'], resources: ['*'], verbs: READ }]);
    await bindClusterRole(api, 'pod-reader', 'bob', [{ apiGroups: [''], resources: ['pods'], verbs: READ }]);
    await bindRole(api, 'team-a', 'cm-reader', 'bob', [{ apiGroups: [''], resources: ['configmaps'], verbs: READ }]);
    demo = await startDemoCluster({ kubelet: false, grants: DEMO_GRANTS });
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-rights-'));
  });
  after(async () => {
    api?.close();
    await demo?.stop();
    await cp?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const count = async (group: string, version: string, resource: string, ns?: string) =>
    (await api.list(collectionPath(group, version, resource, ns))).items.length;

  it('the team-a user: team-a objects exactly, cluster-scoped types forbidden, exit 2, each denied pair asked once', async (t) => {
    const kubeconfig = kubeconfigFor(cp, 'alice', 'team-a');
    const c = capture();
    assert.equal(await runLoad(['--kubeconfig', kubeconfig, '--json'], c.io), 2, c.err);
    const j = JSON.parse(c.out);
    assert.equal(j.contextNamespace, 'team-a');
    assert.deepEqual(j.fallbackNamespaces, ['team-a']);
    const cms = j.types.find((x: any) => x.resource === 'configmaps');
    assert.deepEqual([cms.namespace, cms.outcome, cms.count], ['team-a', 'ok', 40]);
    for (const ty of j.types.filter((x: any) => x.namespaced)) {
      assert.equal(ty.outcome, 'ok', `${ty.resource}`);
      assert.equal(ty.namespace, 'team-a', ty.resource);
      assert.equal(ty.count, await count(ty.group, ty.version, ty.resource, 'team-a'), `count of ${ty.resource} in team-a`);
    }
    assert.ok(j.failed.length > 5, 'cluster-scoped types are reported');
    for (const f of j.failed) {
      assert.deepEqual([f.namespace, f.status, f.reason], [null, 403, 'Forbidden'], f.resource);
      assert.equal(f.forbidden, 'review', f.resource);
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

    // The same load through the loader, asking up front (the default) and, with the reviews off,
    // discovering the 403s: both give the same counts, and no (type, namespace) pair is asked twice.
    const client = await KubeClient.connect(loadKubeContext({ kubeconfig }));
    try {
      const counts: Record<string, string>[] = [];
      for (const accessReview of [true, false]) {
        const events: LoaderTaskEvent[] = [];
        const { summary, results } = await new ClusterLoader(client, { accessReview, onEvent: (e) => events.push(e) }).load();
        const starts = events.filter((e) => e.phase === 'start').map((e) => `${e.gvr.group}/${e.gvr.resource}@${e.namespace ?? '*'}`);
        assert.equal(new Set(starts).size, starts.length, 'no pair asked twice');
        assert.equal(events.filter((e) => e.phase === 'retry').length, 0, 'no retries: a 403 is final');
        const denied = events.filter((e) => e.phase === 'finish' && e.status === 403).map((e) => `${e.gvr.resource}@${e.namespace ?? '*'}`);
        if (accessReview) {
          assert.deepEqual(denied, [], 'known up front: no list is refused');
          assert.equal(summary.narrowed, 0);
        } else {
          assert.ok(denied.includes('configmaps@*') && !denied.includes('configmaps@team-a'), denied.join(' '));
          assert.ok(summary.narrowed > 20);
        }
        counts.push(
          Object.fromEntries(
            results.map((r) => [`${r.task.gvr.group}/${r.task.gvr.resource}`, `${r.task.namespace ?? '*'} ${r.outcome} ${r.count} ${r.status ?? ''}`]),
          ),
        );
        t.diagnostic(
          `reviews ${accessReview ? 'on' : 'off'}: ${summary.tasks} tasks, ${starts.length} lists (${denied.length} refused), ${summary.requests} requests, ${summary.narrowed} narrowed to team-a, ${summary.forbidden} forbidden, ${summary.durationMs.toFixed(0)} ms`,
        );
      }
      assert.deepEqual(counts[0], counts[1], 'the same outcome either way');
    } finally {
      client.close();
    }
  });

  it("kubectl as the team-a user (the issue's report): 40 ConfigMaps, a 403 with -A, can-i yes/no, its rules; the demo answers alike", async () => {
    const check = async (kubeconfig: string) => {
      const k = (args: string[]) => runKubectl(args, { kubeconfig });
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
    };
    await check(kubeconfigFor(cp, 'alice', 'team-a'));
    // The demo, with alice's grant and team-a's 40 ConfigMaps (over TLS: kubectl sends tokens only over HTTPS).
    const d = await startDemoCluster({ kubelet: false, tls: true, grants: DEMO_GRANTS });
    try {
      d.store.create('', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } } as any);
      for (let i = 0; i < 40; i++)
        d.store.create('', 'configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'team-a' } } as any);
      const file = join(dir, 'demo-kubectl-alice');
      await d.writeKubeconfig(file, { user: 'alice', namespace: 'team-a' });
      await check(file);
    } finally {
      await d.stop();
    }
  });

  it('a user with no rights: every type forbidden from the reviews alone (no list sent), one clear message, exit 2', async () => {
    const kubeconfig = kubeconfigFor(cp, 'nobody', 'team-a');
    const c = capture();
    assert.equal(await runLoad(['--kubeconfig', kubeconfig], c.io), 2, c.err);
    assert.match(
      c.err,
      /^kubeloop load: user "nobody" \(context "nobody", server https:\/\/127\.0\.0\.1:\d+\) may not list any resource type across all namespaces nor in the namespace "team-a": every type is forbidden/m,
    );
    const client = await KubeClient.connect(loadKubeContext({ kubeconfig }));
    try {
      const { summary, results } = await new ClusterLoader(client).load();
      assert.ok(results.length > 40);
      assert.ok(results.every((r) => r.outcome === 'error' && r.forbidden === 'review' && r.worker === -1));
      assert.equal(summary.forbidden, results.length);
    } finally {
      client.close();
    }
  });

  it('the demo cluster answers the reviews and the 403s as the real server does (same grants, same questions)', async () => {
    const questions = [
      { verb: 'list', group: '', resource: 'configmaps', namespace: 'team-a' },
      { verb: 'list', group: '', resource: 'configmaps', namespace: 'team-b' },
      { verb: 'list', group: '', resource: 'configmaps' },
      { verb: 'list', group: '*', resource: '*' },
      { verb: 'list', group: '', resource: 'nodes' },
      { verb: 'list', group: '', resource: 'pods' },
      { verb: 'list', group: 'apps', resource: 'deployments', namespace: 'team-a' },
      { verb: 'watch', group: '', resource: 'secrets', namespace: 'team-a' },
      { verb: 'delete', group: '', resource: 'configmaps', namespace: 'team-a' },
    ];
    const types = [
      ['', 'configmaps'],
      ['', 'pods'],
      ['', 'secrets'],
      ['apps', 'deployments'],
      ['', 'nodes'],
    ] as const;
    const ask = async (client: KubeClient) => {
      const out: unknown[] = [];
      for (const q of questions) out.push([q, (await client.accessReview(q)).allowed]);
      // A namespace that does not exist: its rules are the cluster-wide grants alone (the loader's probe).
      for (const ns of ['team-a', 'team-b', CLUSTER_RULES_PROBE]) {
        const rr = await client.rulesReview(ns);
        out.push([ns, rr.incomplete, types.map(([g, r]) => `${r}:${rulesAllow(rr.resourceRules, 'list', g, r)}`)]);
      }
      const bad = await client.rulesReview('').then(
        () => 'accepted',
        (e: unknown) => (e instanceof KubeApiError ? `${e.status} ${e.message}` : String(e)),
      );
      out.push(['no namespace', bad]);
      const refused = await client.list({ group: '', version: 'v1', resource: 'configmaps' }).then(
        () => 'allowed',
        (e: unknown) => (e instanceof KubeApiError ? `${e.status} ${e.reason}: ${e.message}` : String(e)),
      );
      out.push(['list configmaps across namespaces', refused]);
      return out;
    };
    for (const user of ['alice', 'bob']) {
      const real = await KubeClient.connect(loadKubeContext({ kubeconfig: kubeconfigFor(cp, user, 'team-a') }));
      const file = join(dir, `demo-${user}`);
      await demo.writeKubeconfig(file, { user, namespace: 'team-a' });
      const fake = await KubeClient.connect(loadKubeContext({ kubeconfig: file }));
      try {
        assert.deepEqual(await ask(fake), await ask(real), `the answers to ${user}`);
      } finally {
        real.close();
        fake.close();
      }
    }
  });
});
