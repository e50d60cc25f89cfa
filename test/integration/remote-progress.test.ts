/**
 * The per-task timeout counts progress, against the demo cluster over a real socket: a list whose
 * pages keep coming (each one slow, the whole far longer than the timeout) loads in full, while a
 * list that stops receiving is cut off one timeout after its last page, with what it had received.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterLoader } from '../../src/core/loader';
import { demo, until, type Fixture } from './loader-helpers';

const TIMEOUT_MS = 900;
const PAGE_LATENCY_MS = 250;

describe('remote: a timeout that counts progress', () => {
  let fx: Fixture;
  before(async () => {
    fx = await demo(4000);
  });
  after(async () => {
    await fx.stop();
  });

  for (const ioThread of [true, false]) {
    it(`a slow list that keeps receiving pages is not killed; a stuck one is, after its last page (${ioThread ? 'I/O thread' : 'loading thread'})`, async () => {
      const ids = [
        // every page of both lists takes PAGE_LATENCY_MS; the third secrets request never answers
        fx.cluster.faults.add({ kind: 'latency', verb: 'list', resource: 'configmaps', latencyMs: PAGE_LATENCY_MS }),
        fx.cluster.faults.add({ kind: 'latency', verb: 'list', resource: 'secrets', latencyMs: PAGE_LATENCY_MS }),
        fx.cluster.faults.add({ kind: 'hang', verb: 'list', resource: 'secrets', every: 3 }),
      ];
      try {
        const client = await fx.client({ ioThread });
        const { results } = await new ClusterLoader(client, { include: ['configmaps', 'secrets'], pageSize: 100, taskTimeoutMs: TIMEOUT_MS }).load();
        const by = new Map(results.map((r) => [r.task.gvr.resource, r]));
        const cms = by.get('configmaps')!;
        const wantCms = fx.cluster.store.list('', 'configmaps').items.length;
        assert.equal(cms.outcome, 'ok', cms.message);
        assert.equal(cms.count, wantCms);
        assert.ok(cms.pages >= 6, `${cms.pages} pages`);
        assert.ok(cms.durationMs > TIMEOUT_MS, `the list (${cms.durationMs} ms) outlived a fixed ${TIMEOUT_MS} ms deadline`);

        const sec = by.get('secrets')!;
        assert.equal(sec.outcome, 'error');
        assert.equal(sec.reason, 'Timeout');
        assert.match(sec.message!, new RegExp(`no progress for ${TIMEOUT_MS} ms`));
        assert.equal(sec.pages, 2, 'two pages came before the list got stuck');
        assert.equal(sec.count, 200, 'what was received is kept (partial)');
        assert.equal(sec.partial, true);
      } finally {
        ids.forEach((id) => fx.cluster.faults.remove(id));
      }
      // The stuck request was really abandoned: the server sees no request left hanging.
      await until(() => fx.cluster.stats.inflight === 0, 10_000, 'the server to see the stuck request go');
    });
  }
});
