// One I/O thread per process (ioThread.ts): every client's paged lists are walked by the same
// worker, each cluster on a channel of its own (its agent, its TLS material); the thread lives as
// long as some client uses it, and its death fails every open stream cleanly, each list going on
// on the calling thread.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient, sharedIoThread, type KubeObject } from '../../src/core/kube';
import { setIoThreadIdleMs } from '../../src/core/kube/transport/ioThread';
import { b64, contextFor, makePki, pagedPodList, startServer, type TestServer } from './kube-helpers';
import { eventually } from '../support/eventually';

const pods = { group: '', version: 'v1', resource: 'pods' };

/** A paged pod list whose first continuation request (only) never answers when `hangOnce`. */
const listServer = (n: number, prefix: string, hangOnce = false) => pagedPodList(n, (k) => (hangOnce && k === 1 ? 'hang' : 'none'), prefix);

const servers: TestServer[] = [];
const clients: KubeClient[] = [];
after(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});

async function cluster(handler: Parameters<typeof startServer>[0], tls?: Parameters<typeof startServer>[1], user = {}, cl = {}) {
  const s = await startServer(handler, tls);
  servers.push(s);
  const c = await KubeClient.connect(contextFor(s.url, user, cl), { qps: 0, retry: { backoffBaseMs: 1 } });
  clients.push(c);
  return { s, c };
}
/** An https cluster with its own CA that lists only to the client certificate of CN "tester". */
function mtlsCluster(n: number, prefix: string) {
  const pki = makePki();
  return cluster(
    (req, res) => {
      const cn = (req.socket as import('node:tls').TLSSocket).getPeerCertificate()?.subject?.CN;
      if (cn !== 'tester') return void res.writeHead(401).end();
      listServer(n, prefix)(req, res);
    },
    { key: pki.serverKey, cert: pki.serverCert, ca: pki.ca, requestCert: true },
    { 'client-certificate-data': b64(pki.clientCert), 'client-key-data': b64(pki.clientKey) },
    { 'certificate-authority-data': b64(pki.ca) },
  );
}
const names = (items: KubeObject[]) => items.map((x) => x.metadata.name);
const expected = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('one I/O thread shared by every client of the process', () => {
  it('two clients (one https with its own CA and client certificate, one http) walk their lists on the same thread', async () => {
    const before = sharedIoThread()?.channels ?? 0;
    const a = await mtlsCluster(20, 'a');
    const b = await cluster(listServer(30, 'b'));
    const thread = sharedIoThread();
    assert.ok(thread, 'a thread runs');
    assert.equal(thread.channels, before + 2, 'one channel per client, on one thread');
    const [ra, rb] = await Promise.all([a.c.list(pods, { limit: 3 }), b.c.list(pods, { limit: 4 })]);
    assert.deepEqual(names(ra.items), expected(20, 'a'));
    assert.deepEqual(names(rb.items), expected(30, 'b'));
    assert.equal(a.c.transport.stats.streamedPages, ra.pages, "every page of the TLS cluster came through the thread, with that cluster's certificate");
    assert.equal(b.c.transport.stats.streamedPages, rb.pages);
    assert.equal(sharedIoThread()?.threadId, thread.threadId);
    a.c.close();
    b.c.close();
  });

  it('closing one client closes its connections only; the other goes on on the same thread, and the last close ends the thread', async () => {
    const a = await cluster(listServer(12, 'a'));
    const b = await cluster(listServer(12, 'b'));
    await Promise.all([a.c.list(pods, { limit: 2 }), b.c.list(pods, { limit: 2 })]);
    const thread = sharedIoThread()!;
    assert.ok(a.s.openSockets.size > 0 && b.s.openSockets.size > 0, 'kept-alive connections on both');
    a.c.close();
    await eventually(() => a.s.openSockets.size === 0, { description: "the closed client's connections are gone" });
    assert.ok(b.s.openSockets.size > 0, "the other client's stay");
    const streamed = b.c.transport.stats.streamedPages;
    const r = await b.c.list(pods, { limit: 5 });
    assert.deepEqual(names(r.items), expected(12, 'b'));
    assert.equal(b.c.transport.stats.streamedPages - streamed, r.pages, 'still walked by the thread');
    assert.equal(sharedIoThread()?.threadId, thread.threadId, 'the same thread');
    const others = clients.filter((c) => c !== a.c && c !== b.c);
    others.forEach((c) => c.close());
    b.c.close();
    assert.equal(sharedIoThread(), undefined, 'the last close ended the thread');
    const c = await cluster(listServer(6, 'c'));
    const rc = await c.c.list(pods, { limit: 2 });
    assert.deepEqual(names(rc.items), expected(6, 'c'));
    assert.equal(c.c.transport.stats.streamedPages, rc.pages, 'a later client starts a new thread');
    assert.notEqual(sharedIoThread()?.threadId, thread.threadId);
    c.c.close();
  });

  it("the death of the thread fails both clients' open streams once, each list completes on the calling thread, and a new client gets a new thread", async () => {
    const a = await cluster(listServer(15, 'a', true));
    const b = await cluster(listServer(15, 'b', true));
    const la = a.c.list(pods, { limit: 4 });
    const lb = b.c.list(pods, { limit: 4 });
    // both lists wait on their hung second page, in the thread
    await eventually(() => a.s.seen.length === 2 && b.s.seen.length === 2, { description: 'both second pages asked for' });
    const thread = sharedIoThread()!;
    assert.equal(thread.streams, 2);
    await thread.kill();
    const [ra, rb] = await Promise.all([la, lb]);
    assert.deepEqual(names(ra.items), expected(15, 'a'));
    assert.deepEqual(names(rb.items), expected(15, 'b'));
    assert.deepEqual([ra.retries, rb.retries], [1, 1], 'each stream failed once, with a reset, and was retried');
    assert.equal(a.c.transport.stats.streamedPages, 1, 'the first page came through the thread, the rest through this one');
    assert.equal(b.c.transport.stats.streamedPages, 1);
    assert.equal(a.c.transport.listStreams, false, 'no new stream on a dead thread');
    const again = await a.c.list(pods, { limit: 4 });
    assert.deepEqual(names(again.items), expected(15, 'a'));
    assert.equal(a.c.transport.stats.streamedPages, 1, 'later lists stay on the calling thread');
    const c = await cluster(listServer(6, 'c'));
    const rc = await c.c.list(pods, { limit: 2 });
    assert.equal(c.c.transport.stats.streamedPages, rc.pages, 'a client made after the death has a new thread');
    assert.notEqual(sharedIoThread()?.threadId, thread.threadId);
  });

  it('an idle thread retires (its memory goes with it); the next list of each client, TLS material and all, starts a new one', async () => {
    const was = setIoThreadIdleMs(150);
    try {
      clients.forEach((c) => c.close());
      const a = await mtlsCluster(9, 'a');
      const b = await cluster(listServer(7, 'b'));
      const first = await Promise.all([a.c.list(pods, { limit: 2 }), b.c.list(pods, { limit: 2 })]);
      const thread = sharedIoThread()!;
      assert.ok(thread, 'the lists ran on a thread');
      await eventually(() => sharedIoThread() === undefined, { description: 'the idle thread to retire' });
      await eventually(() => a.s.openSockets.size === 0 && b.s.openSockets.size === 0, { description: "the retired thread's connections to close" });
      const [ra, rb] = await Promise.all([a.c.list(pods, { limit: 2 }), b.c.list(pods, { limit: 2 })]);
      assert.deepEqual(names(ra.items), expected(9, 'a'));
      assert.deepEqual(names(rb.items), expected(7, 'b'));
      assert.equal(a.c.transport.stats.streamedPages, first[0].pages + ra.pages, 'every page of both lists came through a thread, with the client certificate');
      assert.equal(b.c.transport.stats.streamedPages, first[1].pages + rb.pages);
      assert.equal(a.c.transport.listStreams, true, 'a retirement is not a failure: streams stay on');
      const now = sharedIoThread();
      assert.ok(now && now.threadId !== thread.threadId, 'a new thread');
      assert.equal(now.channels, 2, 'both channels on it');
      a.c.close();
      b.c.close();
      assert.equal(sharedIoThread(), undefined, 'the last close still ends it');
    } finally {
      setIoThreadIdleMs(was);
    }
  });
});
