/**
 * The loader where a real kube-apiserver says no: a continue token that outlived an etcd
 * compaction (410 Expired, after the watch cache dropped its snapshot too) and a server whose
 * in-flight limit is 1 (--max-requests-inflight=1 with APF off: the plain limiter answers 429 with
 * Retry-After). In both the loader must still return exact counts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { KubeClient, loadKubeContext } from '../../src/core/kube';
import { ClusterLoader, type LoadTaskResult } from '../../src/core/loader';
import type { LoaderTaskEvent } from '../../src/core/timeline/events';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { seed } from './objects';
import { Api, bindClusterRole, collectionPath, kubeconfigFor, mapLimit } from './support';
import { eventually } from '../support/eventually';

const READER = { name: 'reader', token: 'reader-token-3f9a2c11d0' };

describe('the loader against a real server that expires continue tokens and throttles', () => {
  let cp: ControlPlane;
  let api: Api;

  before(async () => {
    // The admin (system:masters) is exempt from the in-flight limit: the seeding and the 410 test
    // run as admin; the 429 test runs as a user bound to a read-everything ClusterRole.
    cp = await startControlPlane({
      maxRequestsInflight: 1,
      extraUsers: [READER],
      extraApiserverArgs: ['--enable-priority-and-fairness=false'],
    });
    api = Api.admin(cp, 24);
    await seed(api, { namespaces: ['limits-a', 'limits-b', 'limits-c'], perNamespace: 10, cluster: 10, concurrency: 16 });
    await api.must('POST', '/api/v1/namespaces', { metadata: { name: 'expire' } });
    await mapLimit(
      Array.from({ length: 60 }, (_, i) => i),
      16,
      (i) =>
        api.must('POST', '/api/v1/namespaces/expire/configmaps', { metadata: { name: `cm-${String(i).padStart(2, '0')}` }, data: { i: String(i) } }, [201]),
    );
    await bindClusterRole(api, 'kubeloop-reader', READER.name, [{ apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] }]);
  });
  after(async () => {
    api?.close();
    await cp?.stop();
  });

  const exact = async (r: LoadTaskResult) => {
    assert.equal(r.outcome, 'ok', `${r.task.gvr.resource}: ${r.status} ${r.message}`);
    const want = (await api.list(collectionPath(r.task.gvr.group, r.task.gvr.version, r.task.gvr.resource))).items.map(
      (o) => o.metadata.uid ?? o.metadata.name,
    );
    const got = r.items.map((o) => o.metadata.uid ?? o.metadata.name);
    assert.equal(got.length, want.length, `count of ${r.task.gvr.resource}`);
    assert.deepEqual(new Set(got), new Set(want), `objects of ${r.task.gvr.resource}`);
  };

  it('a continue token that outlives compaction gets a real 410; the loader restarts a paged list, exact count', async (t) => {
    // The loader's requests wait on a client-side rate limit driven by a fake clock: the test lets
    // them out one at a time, and holds them while it compacts etcd after the first page.
    const fake = new FakeClock();
    const client = await KubeClient.connect(loadKubeContext({ kubeconfig: cp.kubeconfigPath }), { clock: fake, qps: 1, burst: 1 });
    const probe = await api.must('GET', '/api/v1/configmaps?limit=1');
    const events: LoaderTaskEvent[] = [];
    let hold = false;
    let compacted = false;
    const loader = new ClusterLoader(client, {
      include: ['configmaps'],
      pageSize: 7,
      concurrency: 1,
      onEvent: (e) => {
        events.push(e);
        if (e.phase === 'page' && !compacted) hold = true;
      },
    });
    try {
      const run = loader.start();
      let settled = false;
      void run.done.then(() => (settled = true));
      const results: LoadTaskResult[] = [];
      const collect = (async () => {
        for await (const r of run.results) results.push(r);
      })();
      while (!settled) {
        if (hold && !compacted) {
          // A write after the list's revision, then compaction past it.
          await api.must('POST', '/api/v1/namespaces/limits-a/configmaps', { metadata: { name: 'after-first-page' } }, [201]);
          const rev = await cp.compactEtcd();
          // The watch cache keeps serving the old snapshot until it learns of the compaction
          // (it polls every 15 s); wait until the server really answers 410 on an old token.
          const gone = await eventually(
            async () => {
              const r = await api.request('GET', `/api/v1/configmaps?limit=1&continue=${encodeURIComponent(probe.metadata.continue)}`);
              return r.status === 410 ? r : undefined;
            },
            { description: 'the server to answer 410 for a continue token older than the compaction', timeoutMs: 40_000 },
          );
          assert.equal(gone.body.reason, 'Expired');
          assert.equal(gone.body.code, 410);
          t.diagnostic(`compacted at ${rev}; the server's 410: ${JSON.stringify(gone.body)}`);
          compacted = true;
          hold = false;
        }
        if (!hold) await fake.advance(1000);
        // Pacing, not a wait for time: the loader's requests run on real sockets between two steps
        // of its fake clock; the loop ends on the run's own state (settled).
        await new Promise((r) => setTimeout(r, 5));
      }
      await collect;
      const summary = await run.done;
      assert.equal(summary.outcome, 'ok');
      const cm = results[0]!;
      assert.equal(cm.fellBackToFullList, true, 'the list was restarted');
      await exact(cm);
      assert.ok(
        cm.items.some((o) => o.metadata.name === 'after-first-page'),
        'the restarted list is the current state',
      );
      assert.ok(cm.pages >= 1 + Math.ceil(cm.count / 7), `the first page, then the restarted list's pages (${cm.pages} pages for ${cm.count})`);
      assert.ok(
        events.filter((e) => e.phase === 'page').every((e) => (e.count ?? 0) <= 7),
        'pages of 7 all along, never one unpaged list',
      );
      const retry = events.find((e) => e.phase === 'retry');
      assert.match(retry?.message ?? '', /^410 Expired: continue token expired; restarting the paged list$/);
    } finally {
      client.close();
    }
  });

  it('a server with an in-flight limit of 1 answers real 429s; the loader retries and every count is exact', async (t) => {
    const client = await KubeClient.fromKubeconfig({ kubeconfig: kubeconfigFor(cp, READER.name) });
    try {
      const statuses: number[] = [];
      const loader = new ClusterLoader(client, {
        concurrency: 8,
        pageSize: 7,
        onEvent: (e) => {
          if (e.phase === 'retry' && e.status) statuses.push(e.status);
        },
      });
      const { summary, results } = await loader.load();
      assert.equal(
        summary.outcome,
        'ok',
        JSON.stringify(results.filter((r) => r.outcome !== 'ok').map((r) => [r.task.gvr.resource, r.status, r.retries, r.message])),
      );
      assert.ok(summary.retries > 0, 'the server throttled');
      assert.ok(statuses.length > 0 && statuses.every((s) => s === 429), `retries were 429s: ${[...new Set(statuses)]}`);
      for (const r of results) await exact(r);
      t.diagnostic(
        `${summary.tasks} tasks, ${summary.objects} objects, ${summary.requests} requests, ${summary.retries} retries after 429, ${summary.durationMs} ms`,
      );
    } finally {
      client.close();
    }
  });
});
