/**
 * Paged lists: limit/continue over one consistent snapshot, exactly-once delivery with kubectl's
 * --chunk-size on a few thousand objects, writes between pages that do not leak into the list,
 * resourceVersion semantics, and continue-token expiry (410 Expired) after the TTL.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { INCONSISTENT_CONTINUE_MESSAGE } from '../apiserver/facts';
import { api, configMap, namespace, startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';

const NAMESPACES = 30;
const PER_NAMESPACE = 100; // 3,000 configmaps

describe('paged lists', () => {
  let t: TestCluster;
  before(async () => {
    t = await startTestCluster();
    const s = t.cluster.store;
    for (let n = 0; n < NAMESPACES; n++) {
      s.create('', 'namespaces', namespace(`ns-${String(n).padStart(2, '0')}`));
      for (let i = 0; i < PER_NAMESPACE; i++)
        s.create('', 'configmaps', configMap(`ns-${String(n).padStart(2, '0')}`, `cm-${i}`, { i: String(i) }, { tier: String(i % 3) }));
    }
  });
  after(() => t.close());

  it('kubectl --chunk-size returns every object exactly once (compared with a full list)', async () => {
    const full = (await api(t.cluster, '/api/v1/configmaps')).body;
    const want = full.items.map((o: any) => `${o.metadata.namespace}/${o.metadata.name}`);
    assert.equal(want.length, NAMESPACES * PER_NAMESPACE);
    const before = t.cluster.stats.requestsByVerb.list ?? 0;
    const out = JSON.parse(await t.kubectlOk(['get', 'configmaps', '-A', '-o', 'json', '--chunk-size=137']));
    const got = out.items.map((o: any) => `${o.metadata.namespace}/${o.metadata.name}`);
    assert.equal(new Set(got).size, got.length, 'no object twice');
    assert.deepEqual([...got].sort(), [...want].sort());
    assert.equal((t.cluster.stats.requestsByVerb.list ?? 0) - before, Math.ceil(want.length / 137), 'kubectl really paged');
  });

  it('kubectl --chunk-size with a label selector pages over the filtered list', async () => {
    const out = JSON.parse(await t.kubectlOk(['get', 'configmaps', '-A', '-o', 'json', '--chunk-size=50', '-l', 'tier=1']));
    const names = out.items.map((o: any) => `${o.metadata.namespace}/${o.metadata.name}`);
    assert.equal(names.length, NAMESPACES * 33);
    assert.equal(new Set(names).size, names.length);
    assert.ok(out.items.every((o: any) => o.metadata.labels.tier === '1'));
  });

  it('all pages come from the first page snapshot, even with writes in between', async () => {
    const s = t.cluster.store;
    const first = (await api(t.cluster, '/api/v1/namespaces/ns-03/configmaps?limit=30')).body;
    assert.equal(first.items.length, 30);
    assert.equal(first.metadata.remainingItemCount, PER_NAMESPACE - 30);
    const rv = first.metadata.resourceVersion;
    const seen = first.items.map((o: any) => o.metadata.name);
    // Writes between pages: a new object, a deleted one (not yet listed), a modified one.
    s.create('', 'configmaps', configMap('ns-03', 'zz-new'));
    s.delete('', 'configmaps', 'ns-03', 'cm-99');
    const old = s.get('', 'configmaps', 'ns-03', 'cm-98')!;
    s.update('', 'configmaps', { ...old, data: { i: 'changed' } });
    let cont = first.metadata.continue;
    let remaining = first.metadata.remainingItemCount;
    while (cont) {
      const page = (await api(t.cluster, `/api/v1/namespaces/ns-03/configmaps?limit=30&continue=${encodeURIComponent(cont)}`)).body;
      assert.equal(page.metadata.resourceVersion, rv, 'every page carries the snapshot revision');
      seen.push(...page.items.map((o: any) => o.metadata.name));
      if (page.metadata.continue) assert.ok(page.metadata.remainingItemCount < remaining);
      remaining = page.metadata.remainingItemCount;
      for (const o of page.items) if (o.metadata.name === 'cm-98') assert.equal(o.data.i, '98');
      cont = page.metadata.continue;
    }
    assert.equal(seen.length, PER_NAMESPACE);
    assert.ok(seen.includes('cm-99') && !seen.includes('zz-new'));
    s.delete('', 'configmaps', 'ns-03', 'zz-new');
  });

  it('limit=0 or no limit returns everything; a short last page ends with an empty continue', async () => {
    const all = (await api(t.cluster, '/api/v1/namespaces/ns-01/configmaps?limit=0')).body;
    assert.equal(all.items.length, PER_NAMESPACE);
    assert.equal(all.metadata.continue, undefined);
    const p1 = (await api(t.cluster, '/api/v1/namespaces/ns-01/configmaps?limit=60')).body;
    const p2 = (await api(t.cluster, `/api/v1/namespaces/ns-01/configmaps?limit=60&continue=${p1.metadata.continue}`)).body;
    assert.equal(p2.items.length, 40);
    assert.equal(p2.metadata.continue, undefined);
  });

  it('resourceVersionMatch=Exact lists the past; NotOlderThan a future revision is a 504', async () => {
    const s = t.cluster.store;
    const rv = String(s.currentRV);
    s.create('', 'configmaps', configMap('ns-05', 'later'));
    s.delete('', 'configmaps', 'ns-05', 'cm-0');
    const past = (await api(t.cluster, `/api/v1/namespaces/ns-05/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`)).body;
    assert.equal(past.metadata.resourceVersion, rv);
    const names = past.items.map((o: any) => o.metadata.name);
    assert.ok(names.includes('cm-0') && !names.includes('later'));
    const legacy = (await api(t.cluster, `/api/v1/namespaces/ns-05/configmaps?resourceVersion=${rv}&limit=500`)).body;
    assert.equal(legacy.items.length, PER_NAMESPACE, 'resourceVersion + limit without a match is Exact');
    const future = await api(t.cluster, `/api/v1/configmaps?resourceVersion=${s.currentRV + 10}&resourceVersionMatch=NotOlderThan`);
    assert.equal(future.status, 504);
    assert.equal(future.body.reason, 'Timeout');
    const bad = await api(t.cluster, '/api/v1/configmaps?resourceVersionMatch=Exact');
    assert.equal(bad.status, 422);
    assert.equal(bad.body.reason, 'Invalid');
  });

  it('a continue token expires after the TTL with the apiserver 410 Expired Status', async () => {
    const short = await startTestCluster({ continueTtlMs: 100 });
    try {
      for (let i = 0; i < 20; i++) short.cluster.store.create('', 'configmaps', configMap('default', `c${i}`));
      const first = (await api(short.cluster, '/api/v1/configmaps?limit=10')).body;
      // The TTL runs on the server's real clock: wait for the state "expired" as a client sees it, on
      // a probe token issued after `first` (so it expires no sooner) whose next page is not the last
      // (a last page ends its snapshot at once, which would look like expiry).
      const probe = (await api(short.cluster, '/api/v1/configmaps?limit=5')).body;
      await eventually(
        async () => (await api(short.cluster, `/api/v1/configmaps?limit=5&continue=${encodeURIComponent(probe.metadata.continue)}`)).status === 410,
        {
          description: 'a token issued after the first page to expire (100 ms TTL)',
        },
      );
      const r = await api(short.cluster, `/api/v1/configmaps?limit=10&continue=${encodeURIComponent(first.metadata.continue)}`);
      assert.equal(r.status, 410);
      // As a v1.36 apiserver answers (measured in test/apiserver/loader-limits.test.ts): the Status
      // carries a token that continues the list, inconsistently, from the current state.
      const { continue: token, ...restMeta } = r.body.metadata;
      assert.deepEqual(
        { ...r.body, metadata: restMeta },
        {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: INCONSISTENT_CONTINUE_MESSAGE,
          reason: 'Expired',
          code: 410,
        },
      );
      short.cluster.store.create('', 'configmaps', configMap('default', 'c99'));
      const rest = (await api(short.cluster, `/api/v1/configmaps?limit=100&continue=${encodeURIComponent(token)}`)).body;
      assert.deepEqual(
        rest.items.map((o: { metadata: { name: string } }) => o.metadata.name),
        ['c18', 'c19', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9', 'c99'],
        'the remainder after the last key served, as it is now (c99 was created after the first page)',
      );
      assert.equal(rest.metadata.continue, undefined);
    } finally {
      await short.close();
    }
    const first = (await api(t.cluster, '/api/v1/configmaps?limit=10')).body;
    const garbage = await api(t.cluster, '/api/v1/configmaps?limit=10&continue=not-a-token');
    assert.equal(garbage.status, 400);
    const withRV = await api(t.cluster, `/api/v1/configmaps?limit=10&resourceVersion=5&continue=${encodeURIComponent(first.metadata.continue)}`);
    assert.equal(withRV.status, 400);
    assert.match(withRV.body.message, /specifying resource version is not allowed when using continue/);
  });
});
