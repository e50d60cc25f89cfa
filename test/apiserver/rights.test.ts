/**
 * Limited rights on a real kube-apiserver with RBAC (issue 9): the loader scenarios of
 * test/support/rights/loader.ts (also run on the demo cluster by test/integration/loader-rights.test.ts),
 * on Roles and ClusterRoles made from the same grants; and the demo cluster's grants held to the
 * real server's answers to the same questions (reviews, 403s), so the demo-based tests of the same
 * behaviour test what a real cluster does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeApiError, KubeClient, loadKubeContext, rulesAllow } from '../../src/core/kube';
import { CLUSTER_RULES_PROBE } from '../../src/core/kube/access/review';
import { startDemoCluster, type DemoCluster } from '../../src/demo';
import { loaderRightsScenarios } from '../support/rights/loader';
import { RIGHTS_GRANTS, RIGHTS_USERS, type RightsServer } from '../support/rights/server';
import { realRightsServer } from './rightsServer';

describe('limited rights on a real kube-apiserver (RBAC)', () => {
  let server: RightsServer;
  let demo: DemoCluster;
  let dir: string;

  before(async () => {
    server = await realRightsServer();
    demo = await startDemoCluster({ kubelet: false, grants: RIGHTS_GRANTS });
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-rights-'));
  });
  after(async () => {
    await demo?.stop();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  loaderRightsScenarios(() => server);

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
    for (const user of RIGHTS_USERS) {
      const real = await KubeClient.connect(loadKubeContext({ kubeconfig: await server.kubeconfig(user) }));
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
