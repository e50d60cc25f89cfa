// Paged lists walked by the transport's I/O thread (ioThread.ts / listStream.ts): the same objects
// and the same failure semantics as the calling thread's own loop, which takes over at any page the
// thread cannot deliver.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock } from '../../src/core/clock';
import { KubeClient, KubeApiError, KubeTransportError, TokenBucket, type KubeObject } from '../../src/core/kube';
import { b64, contextFor, makePki, pagedPodList as listServer, startServer, status, type TestServer } from './kube-helpers';
import { eventually } from '../support/eventually';

const pods = { group: '', version: 'v1', resource: 'pods' };

const servers: TestServer[] = [];
const clients: KubeClient[] = [];
after(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});
async function setup(
  handler: Parameters<typeof startServer>[0],
  opts: Parameters<typeof KubeClient.connect>[1] = {},
  tls?: Parameters<typeof startServer>[1],
  user = {},
  cluster = {},
) {
  const s = await startServer(handler, tls);
  servers.push(s);
  const c = await KubeClient.connect(contextFor(s.url, user, cluster), { qps: 0, ...opts });
  clients.push(c);
  return { s, c };
}
const names = (items: KubeObject[]) => items.map((x) => x.metadata.name);
/** `pages` for the first page; every continuation answers 200 with a body whose items are not a list. */
function pagesThenNoList(pages: ReturnType<typeof listServer>): ReturnType<typeof listServer> {
  return (req, res) => {
    if (!new URL(req.url!, 'http://x').searchParams.get('continue')) return pages(req, res);
    const body = JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '42' }, items: 'not a list' });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
}
const expected = (n: number) => Array.from({ length: n }, (_, i) => `p${i}`);

describe('paged list on the I/O thread', () => {
  it('delivers the same objects, pages and requests as the calling thread, with and without pipelining', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 9 }), fc.boolean(), async (n, limit, pipeline) => {
        const streamed = await setup(listServer(n));
        const local = await setup(listServer(n), { ioThread: false });
        const a = await streamed.c.list(pods, { limit, pipeline });
        const b = await local.c.list(pods, { limit, pipeline });
        assert.deepEqual(names(a.items), expected(n));
        assert.deepEqual(a.items, b.items);
        assert.deepEqual([a.pages, a.resourceVersion, a.bytes], [b.pages, b.resourceVersion, b.bytes]);
        assert.equal(streamed.s.seen.length, a.pages, 'one request per page: nothing fetched ahead in vain');
        assert.equal(streamed.c.transport.stats.streamedPages, a.pages);
        assert.equal(local.c.transport.stats.streamedPages, 0);
        assert.equal(streamed.c.transport.stats.inFlight, 0);
        streamed.c.close();
        local.c.close();
      }),
      { numRuns: 15 },
    );
  });

  it('a 429 mid-list is retried on the calling thread (Retry-After honoured), and the list completes exactly', async () => {
    const { s, c } = await setup(listServer(30, (k) => (k === 2 ? 'throttle' : 'none')));
    const kinds: string[] = [];
    const r = await c.list(pods, { limit: 4 }, { onRetry: (i) => kinds.push(i.kind) });
    assert.deepEqual(names(r.items), expected(30));
    assert.deepEqual([r.retries, kinds], [1, ['retry-after']]);
    assert.equal(s.seen.length, r.pages + 1);
    assert.ok(c.transport.stats.streamedPages >= 2 && c.transport.stats.streamedPages < r.pages, 'the stream delivered the first pages, this thread the rest');
  });

  it('a connection reset mid-list is retried with backoff; no object lost or doubled', async () => {
    const { c } = await setup(
      listServer(25, (k) => (k === 3 ? 'reset' : 'none')),
      { retry: { backoffBaseMs: 1 } },
    );
    const r = await c.list(pods, { limit: 3 });
    assert.deepEqual(names(r.items), expected(25));
    assert.equal(r.retries, 1);
  });

  it('a page whose body is no list fails the list with a malformed error, as on the calling thread: not retried', async () => {
    const { s, c } = await setup(pagesThenNoList(listServer(9)));
    const local = await setup(pagesThenNoList(listServer(9)), { ioThread: false });
    const failures: unknown[] = [];
    for (const client of [c, local.c]) {
      failures.push(
        await client.list(pods, { limit: 3, pipeline: false }).then(
          () => 'listed',
          (e: unknown) => e,
        ),
      );
    }
    for (const e of failures) {
      assert.ok(e instanceof KubeTransportError && e.kind === 'malformed', `${String(e)}`);
      assert.match((e as Error).message, /not a list/);
    }
    assert.equal(s.seen.length, 2, 'the first page and the one that is no list, each once');
    assert.equal(local.s.seen.length, 2, 'the same on the calling thread');
  });

  it('a 410 on a continuation restarts a paged list; a 403 fails with its status and keeps the pages received', async () => {
    const gone = await setup(listServer(12, (k) => (k === 1 ? 'gone' : 'none')));
    const r = await gone.c.list(pods, { limit: 5 });
    assert.equal(r.fellBackToFullList, true);
    assert.equal(r.restarts, 1);
    assert.deepEqual(names(r.items), expected(12));
    for (const x of gone.s.seen) assert.equal(new URL(x.url, 'http://x').searchParams.get('limit'), '5', 'the restart is paged too');
    const forbidden = await setup(listServer(12, (k) => (k === 2 ? 'forbidden' : 'none')));
    const sink: KubeObject[] = [];
    await assert.rejects(forbidden.c.list(pods, { limit: 5 }, { sink }), (e: unknown) => e instanceof KubeApiError && e.status === 403);
    assert.deepEqual(names(sink), expected(10));
  });

  it('a page that never completes hits the per-request timeout on the I/O thread', async () => {
    const { c } = await setup(
      listServer(10, (k) => (k === 1 ? 'hang' : 'none')),
      { requestTimeoutMs: 150, retry: { maxBackoffRetries: 0 } },
    );
    await assert.rejects(c.list(pods, { limit: 4 }), (e: unknown) => e instanceof KubeTransportError && e.kind === 'timeout');
  });

  it('abort rejects at once with the reason, and the server sees the request go', async () => {
    const { s, c } = await setup(listServer(10, (k) => (k === 1 ? 'hang' : 'none')));
    const ac = new AbortController();
    const p = c.list(pods, { limit: 4 }, { signal: ac.signal });
    await eventually(() => s.seen.length === 2, { description: 's.seen.length === 2' });
    const reason = new Error('stop');
    ac.abort(reason);
    await assert.rejects(p, (e) => e === reason);
    await eventually(() => s.openSockets.size <= 1, { description: 's.openSockets.size <= 1' }); // the hung request's connection is gone
    assert.equal(c.transport.stats.inFlight, 0);
    c.close();
    await eventually(() => s.openSockets.size === 0, { description: 's.openSockets.size === 0' }); // and close() ends the thread's connections
  });

  it('sends no request without a rate-limit token', async () => {
    // On a fake clock: one token at once, then one per 25 ms. Each page's request waits on the clock
    // for its token (a pending timer), and is sent only once the clock has moved the whole 25 ms.
    const clock = new FakeClock();
    const { s, c } = await setup(listServer(12), { qps: 40, burst: 1, clock });
    const listed = c.list(pods, { limit: 2 });
    for (let i = 1; i < 6; i++) {
      await eventually(() => s.seen.length === i && clock.pendingTimers() === 1, {
        description: `request ${i} served and request ${i + 1} waiting for its token`,
      });
      await clock.advance(24);
      assert.equal(s.seen.length, i, `request ${i + 1} went 1 ms before its token`);
      await clock.advance(1);
    }
    const r = await listed;
    assert.deepEqual(names(r.items), expected(12));
    assert.equal(s.seen.length, 6);
    assert.equal(clock.now(), 5 * 25, 'the sixth request went at 125 ms, not before');
  });

  it('verifies the server against the kubeconfig CA and presents the client certificate', async () => {
    const pki = makePki();
    const handler = listServer(9);
    const { s, c } = await setup(
      (req, res) => {
        const cn = (req.socket as import('node:tls').TLSSocket).getPeerCertificate()?.subject?.CN;
        if (cn !== 'tester') return status(res, 401, 'Unauthorized', 'no client certificate');
        handler(req, res);
      },
      {},
      { key: pki.serverKey, cert: pki.serverCert, ca: pki.ca, requestCert: true },
      { 'client-certificate-data': b64(pki.clientCert), 'client-key-data': b64(pki.clientKey) },
      { 'certificate-authority-data': b64(pki.ca) },
    );
    const r = await c.list(pods, { limit: 2 });
    assert.deepEqual(names(r.items), expected(9));
    assert.equal(c.transport.stats.streamedPages, 5);
    assert.equal(s.seen.length, 5);
  });
});

describe('TokenBucket grants for list streams', () => {
  it('tryTake never waits and takes only what is there; refund gives back up to the burst', () => {
    const b = new TokenBucket(10, 3, new FakeClock());
    assert.deepEqual([b.tryTake(), b.tryTake(), b.tryTake(), b.tryTake()], [true, true, true, false]);
    b.refund(2);
    assert.deepEqual([b.tryTake(), b.tryTake(), b.tryTake()], [true, true, false]);
    b.refund(10);
    assert.deepEqual([b.tryTake(), b.tryTake(), b.tryTake(), b.tryTake()], [true, true, true, false], 'never more than the burst');
  });
});
