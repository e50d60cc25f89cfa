/**
 * Discovery on disk against the demo cluster over a real socket: a second client of the same server
 * and user starts without discovery requests; a load that asks for a type the cached discovery does
 * not have (a CRD created since) re-discovers once and loads it; a type that went away (404)
 * invalidates the entry; other servers and users never see the entry.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiscoveryCache, KubeApiError, listableResources, loadKubeContext, type KubeClient } from '../../src/core/kube';
import { ClusterLoader } from '../../src/core/loader';
import { crdObject } from '../../src/demo/server';
import { api } from './demo-support';
import { demo, type Fixture } from './loader-helpers';

describe('remote: discovery cache on disk', () => {
  let fx: Fixture;
  let other: Fixture;
  let dir: string;
  before(async () => {
    fx = await demo(300);
    other = await demo(0);
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-disc-cache-'));
  });
  after(async () => {
    await fx.stop();
    await other.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const discoveryRequests = (f: Fixture) => f.cluster.stats.requestsByVerb.discovery ?? 0;
  const cached = (f: Fixture, extra = {}) => f.client({ discoveryCache: { dir, ...extra } });
  const names = (c: Awaited<ReturnType<KubeClient['discover']>>) =>
    listableResources(c)
      .map((r) => `${r.resource}.${r.group}`)
      .sort();

  it('a second client of the same server and user discovers from disk, with no request; its next discovery, or a fresh one, asks again', async () => {
    const first = await cached(fx);
    const n0 = discoveryRequests(fx);
    const d1 = await first.discover();
    assert.equal(d1.cachedAgeMs, undefined);
    assert.equal(discoveryRequests(fx) - n0, 2, 'aggregated discovery: /api and /apis');
    const second = await cached(fx);
    const n1 = discoveryRequests(fx);
    const d2 = await second.discover();
    assert.equal(discoveryRequests(fx) - n1, 0, 'nothing asked of the server');
    assert.ok(d2.cachedAgeMs !== undefined && d2.cachedAgeMs >= 0);
    assert.deepEqual(names(d2), names(d1));
    // only a client's first discovery comes from disk: a later one (a Refresh) asks the server
    assert.equal((await second.discover()).cachedAgeMs, undefined);
    assert.equal(discoveryRequests(fx) - n1, 2);
    await (await cached(fx)).discover({ fresh: true });
    assert.equal(discoveryRequests(fx) - n1, 4);
  });

  it('another server, or another user of the same server, never gets the entry', async () => {
    await (await cached(fx)).discover();
    const n = discoveryRequests(other);
    const d = await (await cached(other)).discover();
    assert.equal(d.cachedAgeMs, undefined);
    assert.equal(discoveryRequests(other) - n, 2);
    const kc = loadKubeContext({ kubeconfig: fx.kubeconfig });
    const mine = new DiscoveryCache(kc, { dir });
    const theirs = new DiscoveryCache({ ...kc, user: { name: 'someone-else', token: 'another-token' } }, { dir });
    assert.ok((await mine.read()) !== undefined);
    assert.equal(await theirs.read(), undefined);
    assert.equal(mine.folder, theirs.folder, 'one folder per server');
    assert.notEqual(mine.file, theirs.file, 'one entry per user');
  });

  it('a load asking for a type the cached discovery lacks (a CRD made since) re-discovers once and loads it', async () => {
    await (await cached(fx)).discover(); // cache the discovery as it is now
    const crd = crdObject({ group: 'cache.example.com', version: 'v1', kind: 'Gadget', plural: 'gadgets', namespaced: true });
    assert.equal((await api(fx.cluster, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', json: crd })).status, 201);
    for (const name of ['g1', 'g2']) {
      const r = await api(fx.cluster, '/apis/cache.example.com/v1/namespaces/default/gadgets', {
        method: 'POST',
        json: { apiVersion: 'cache.example.com/v1', kind: 'Gadget', metadata: { name } },
      });
      assert.equal(r.status, 201);
    }
    const client = await cached(fx);
    const n = discoveryRequests(fx);
    const { summary, plan } = await new ClusterLoader(client, { include: ['gadgets.cache.example.com', 'configmaps'] }).load();
    assert.equal(discoveryRequests(fx) - n, 2, 'one fresh discovery after the cached one missed');
    assert.deepEqual(summary.unmatchedFilters, []);
    assert.equal(plan?.discovery.cachedAgeMs, undefined);
    assert.equal(summary.outcome, 'ok');
    assert.equal(summary.objects, 2 + fx.cluster.store.list('', 'configmaps').items.length);
    // the fresh answer was stored: the next client sees the CRD from disk
    const next = await (await cached(fx)).discover();
    assert.ok(next.cachedAgeMs !== undefined && names(next).includes('gadgets.cache.example.com'));
  });

  it('a planned type that 404s (gone since it was cached) invalidates the entry', async () => {
    const crd = crdObject({ group: 'gone.example.com', version: 'v1', kind: 'Ghost', plural: 'ghosts', namespaced: true });
    assert.equal((await api(fx.cluster, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { method: 'POST', json: crd })).status, 201);
    const first = await cached(fx);
    await first.discover({ fresh: true });
    assert.equal((await api(fx.cluster, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/ghosts.gone.example.com', { method: 'DELETE' })).status, 200);
    const client = await cached(fx);
    const { results } = await new ClusterLoader(client, { include: ['ghosts.gone.example.com'] }).load();
    assert.equal(results.length, 1);
    assert.equal(results[0].status, 404);
    assert.equal(await client.discoveryCache!.read(), undefined, 'the stale entry is gone');
    const n = discoveryRequests(fx);
    const d = await (await cached(fx)).discover();
    assert.equal(d.cachedAgeMs, undefined);
    assert.equal(discoveryRequests(fx) - n, 2);
    assert.ok(!names(d).includes('ghosts.gone.example.com'));
    await assert.rejects(
      client.list({ group: 'gone.example.com', version: 'v1', resource: 'ghosts' }),
      (e: unknown) => e instanceof KubeApiError && e.status === 404,
    );
  });

  it('an entry older than the TTL is a miss', async () => {
    let now = Date.now();
    await (await cached(fx, { now: () => now, ttlMs: 60_000 })).discover({ fresh: true });
    now += 61_000;
    const n = discoveryRequests(fx);
    const d = await (await cached(fx, { now: () => now, ttlMs: 60_000 })).discover();
    assert.equal(d.cachedAgeMs, undefined);
    assert.equal(discoveryRequests(fx) - n, 2);
  });
});
