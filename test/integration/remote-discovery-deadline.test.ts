/**
 * Discovery deadlines against the demo cluster over a real socket: a group version that never
 * answers (a hung aggregated API behind /apis/{g}/{v}) costs one failure after its deadline, the
 * rest of discovery and the load go on; a root that never answers fails discovery, not forever.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { discover, DiscoveryTimeoutError, listableResources } from '../../src/core/kube';
import { ClusterLoader, type LoaderClient } from '../../src/core/loader';
import { demo, type Fixture } from './loader-helpers';
import { eventually } from '../support/eventually';

const DEADLINE_MS = 600;

describe('remote: discovery deadlines', () => {
  let fx: Fixture;
  before(async () => {
    fx = await demo(500);
  });
  after(async () => {
    await fx.stop();
  });

  it('a hung group version is one failure after its deadline; every other group is discovered', { timeout: 30_000 }, async () => {
    const id = fx.cluster.faults.add({ kind: 'hang', path: '/apis/apps/v1' });
    try {
      const client = await fx.client();
      const t0 = Date.now();
      const d = await discover(client.transport, { legacyOnly: true, timeoutMs: DEADLINE_MS });
      const ms = Date.now() - t0;
      assert.deepEqual(
        d.failures.map((f) => f.groupVersion),
        ['apps/v1'],
      );
      assert.match(d.failures[0].message, new RegExp(`no answer within the discovery deadline of ${DEADLINE_MS} ms`));
      assert.ok(ms >= DEADLINE_MS, `waited the deadline (${ms} ms)`);
      const groups = new Set(d.groups.map((g) => g.name));
      for (const g of ['', 'batch', 'rbac.authorization.k8s.io', 'networking.k8s.io']) assert.ok(groups.has(g), `group "${g}" discovered`);
      assert.ok(!listableResources(d).some((r) => r.group === 'apps'));
      const state = fx.cluster.faults.list().find((f) => f.id === id)!;
      assert.equal(state.applied, 1, 'one request for the hung group: its deadline is not retried');
      await eventually(() => fx.cluster.stats.inflight === 0, { description: 'the hung request to be abandoned', timeoutMs: 10_000 });
    } finally {
      fx.cluster.faults.remove(id);
    }
  });

  it('a root that never answers fails discovery after its deadline with a clear error', { timeout: 30_000 }, async () => {
    const id = fx.cluster.faults.add({ kind: 'hang', path: '/apis', times: 1 });
    try {
      const client = await fx.client();
      await assert.rejects(discover(client.transport, { timeoutMs: DEADLINE_MS }), (e: unknown) => e instanceof DiscoveryTimeoutError && e.path === '/apis');
    } finally {
      fx.cluster.faults.remove(id);
    }
  });

  it('the loader loads everything else when a group hangs in discovery', { timeout: 30_000 }, async () => {
    const id = fx.cluster.faults.add({ kind: 'hang', path: '/apis/apps/v1' });
    try {
      const client = await fx.client();
      const loaderClient: LoaderClient = {
        transport: client.transport,
        discover: (o) => client.discover({ ...o, legacyOnly: true, timeoutMs: DEADLINE_MS }),
        list: (gvr, o, h) => client.list(gvr, o, h),
      };
      const loader = new ClusterLoader(loaderClient, { include: ['configmaps', 'jobs.batch'] });
      const { summary } = await loader.load();
      assert.equal(summary.outcome, 'ok');
      assert.deepEqual(
        summary.discoveryFailures.map((f) => f.groupVersion),
        ['apps/v1'],
      );
      assert.equal(summary.objects, fx.cluster.store.list('', 'configmaps').items.length + fx.cluster.store.list('batch', 'jobs').items.length);
    } finally {
      fx.cluster.faults.remove(id);
    }
  });
});
