/**
 * The per-task timeout counts progress, against the demo cluster over a real socket: a list whose
 * pages keep coming (each one slow, the whole far longer than the timeout) loads in full, while a
 * list that stops receiving is cut off one timeout after its last page, with what it had received.
 * Inside one page too: a body that trickles in for longer than the timeout is progress; a body
 * that stops halfway is not, nor one that trickles on past PAGE_TRICKLE_ALLOWANCE timeouts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/core/kube';
import { ClusterLoader, PAGE_TRICKLE_ALLOWANCE, type LoaderClient } from '../../src/core/loader';
import { contextFor, startServer, type TestServer } from '../unit/kube-helpers';
import { demo, type Fixture } from './loader-helpers';
import { eventually } from '../support/eventually';

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
      await eventually(() => fx.cluster.stats.inflight === 0, { description: 'the server to see the stuck request go', timeoutMs: 10_000 });
    });
  }
});

describe('remote: progress inside one long page', () => {
  const servers: TestServer[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  /**
   * One list page whose body trickles in: `chunks` pieces, one every `gapMs`, then (unless `stall`)
   * its end. The whole takes far longer than the task timeout; no gap is as long as it.
   */
  async function trickle(opts: { chunks: number; gapMs: number; stall: boolean }) {
    const items = Array.from({ length: 400 }, (_, i) =>
      JSON.stringify({ metadata: { name: `cm-${i}`, namespace: 'default', uid: `u${i}` }, data: { k: 'v'.repeat(200) } }),
    );
    const body = Buffer.from(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[${items.join(',')}]}`);
    const s = await startServer((req, res) => {
      if (!req.url?.startsWith('/api/v1/configmaps')) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      const size = Math.ceil(body.length / opts.chunks);
      let i = 0;
      const next = () => {
        if (res.destroyed) return;
        if (opts.stall && i === Math.floor(opts.chunks / 2)) return; // half the body, then nothing
        res.write(body.subarray(i * size, (i + 1) * size));
        if (++i < opts.chunks) setTimeout(next, opts.gapMs);
        else res.end();
      };
      next();
    });
    servers.push(s);
    return s;
  }
  const CM = {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    kind: 'ConfigMap',
    singular: 'configmap',
    namespaced: true,
    verbs: ['list'],
    shortNames: [],
    categories: [],
  };

  /** Loads the one ConfigMaps type of the trickling server (discovery given, not asked) with that task timeout. */
  const loadConfigMaps = (client: KubeClient, taskTimeoutMs: number) => {
    const loaderClient: LoaderClient = {
      transport: client.transport,
      discover: async () => ({
        mode: 'aggregated',
        failures: [],
        groups: [{ name: '', preferredVersion: 'v1', versions: [{ version: 'v1', stale: false, resources: [CM] }] }],
      }),
      list: (gvr, o, h) => client.list(gvr, o, h),
    };
    return new ClusterLoader(loaderClient, { pageSize: 500, taskTimeoutMs }).load();
  };

  for (const ioThread of [true, false]) {
    it(`a page arriving slowly but steadily is not cut off; one that stops mid-body is (${ioThread ? 'I/O thread' : 'loading thread'})`, async () => {
      for (const stall of [false, true]) {
        const s = await trickle({ chunks: 16, gapMs: 100, stall });
        const client = await KubeClient.connect(contextFor(s.url), { ioThread, qps: 0, retry: { maxBackoffRetries: 0 } });
        try {
          // The I/O thread starts with the client's first list; on a loaded 2-core machine its
          // start-up alone took over 700 ms (2 of 7 runs cut before the first byte). A first list
          // with no timeout starts it, so the timed list measures the page's own gaps.
          if (ioThread && !stall) assert.equal((await loadConfigMaps(client, 0)).results[0]?.outcome, 'ok');
          const { results } = await loadConfigMaps(client, 700);
          const r = results[0];
          if (!stall) {
            assert.equal(r.outcome, 'ok', r.message);
            assert.equal(r.count, 400);
            assert.ok(r.durationMs > 700, `the page took ${r.durationMs} ms, longer than the timeout`);
          } else {
            assert.equal(r.outcome, 'error');
            assert.equal(r.reason, 'Timeout');
            assert.match(r.message!, /no progress for 700 ms/);
          }
        } finally {
          client.close();
        }
      }
    });
  }

  for (const ioThread of [true, false]) {
    it(`a page that trickles past ${PAGE_TRICKLE_ALLOWANCE} task deadlines is cut, though bytes keep coming (${ioThread ? 'I/O thread' : 'loading thread'})`, async () => {
      // 400 pieces 25 ms apart: a 10 s page, every gap far under the 300 ms deadline
      const s = await trickle({ chunks: 400, gapMs: 25, stall: false });
      const client = await KubeClient.connect(contextFor(s.url), { ioThread, qps: 0, retry: { maxBackoffRetries: 0 } });
      try {
        const { results } = await loadConfigMaps(client, 300);
        const r = results[0];
        assert.equal(r.outcome, 'error', `${r.outcome} after ${r.durationMs} ms`);
        assert.equal(r.reason, 'Timeout');
        assert.ok(r.durationMs < 10_000, `cut before the page ended (${r.durationMs} ms)`);
      } finally {
        client.close();
      }
    });
  }
});
