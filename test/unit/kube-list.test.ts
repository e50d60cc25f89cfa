import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import fc from 'fast-check';
import { KubeClient, KubeApiError, MAX_LIST_RESTARTS, METADATA_ONLY_ACCEPT, continueFromHead, type KubeObject } from '../../src/core/kube';
import { PROTOBUF_METADATA_LIST_ACCEPT } from '../../src/core/kube/protobuf';
import { contextFor, json, startServer, status, type TestServer } from './kube-helpers';
import { eventually } from '../support/eventually';

const pods = { group: '', version: 'v1', resource: 'pods' };

interface ListServerOpts {
  n: number;
  /** Pages that come back empty even though more items follow (legal). */
  emptyEvery?: number;
  /** Answer 410 Expired to the k-th continuation request (1-based), once. */
  expireAt?: number;
  /** Answer 410 Expired to every continuation request. */
  expireAll?: boolean;
}

/** A list endpoint with the API server's paging rules, over a fixed set of pods. */
function listServer(o: ListServerOpts) {
  const items = Array.from({ length: o.n }, (_, i) => ({
    metadata: {
      name: `p${i}`,
      namespace: 'ns',
      uid: `u${i}`,
      resourceVersion: String(100 + i),
      managedFields: [{ manager: 'kubectl' }],
      labels: { i: String(i % 2) },
    },
    spec: { containers: [{ name: 'c', image: 'x' }] },
    status: { phase: 'Running' },
  }));
  let continuations = 0;
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const u = new URL(req.url!, 'http://x');
    const q = u.searchParams;
    if (q.get('continue') && (q.get('resourceVersion') || q.get('resourceVersionMatch'))) {
      return status(res, 400, 'BadRequest', 'specifying resource version is not allowed when using continue');
    }
    let start = 0;
    let hop = 0;
    if (q.get('continue')) {
      continuations++;
      if (o.expireAll || o.expireAt === continuations)
        return status(res, 410, 'Expired', 'The provided continue parameter is too old to display a consistent list result.');
      [start, hop] = Buffer.from(q.get('continue')!, 'base64').toString().split(':').map(Number);
    }
    const limit = Number(q.get('limit') ?? 0) || o.n;
    // Every (emptyEvery+1)-th continuation answers an empty page that still carries a token.
    const empty = !!o.emptyEvery && hop > 0 && hop % (o.emptyEvery + 1) === 0;
    const slice = empty ? [] : items.slice(start, start + limit);
    const next = empty ? start : start + limit;
    const token = Buffer.from(`${next}:${hop + 1}`).toString('base64');
    const meta = String(req.headers.accept).startsWith('application/json;as=PartialObjectMetadataList');
    json(res, {
      kind: meta ? 'PartialObjectMetadataList' : 'PodList',
      apiVersion: meta ? 'meta.k8s.io/v1' : 'v1',
      metadata: { resourceVersion: '999', continue: next < o.n && q.get('limit') ? token : undefined },
      items: meta ? slice.map((x) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: x.metadata })) : slice,
    });
  };
}

const servers: TestServer[] = [];
const clients: KubeClient[] = [];
after(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});
async function setup(o: ListServerOpts) {
  const s = await startServer(listServer(o));
  servers.push(s);
  const c = await KubeClient.connect(contextFor(s.url), { qps: 0 });
  clients.push(c);
  return { s, c };
}
const names = (items: KubeObject[]) => items.map((x) => x.metadata.name);

describe('paged list', () => {
  it('follows continue tokens through empty pages until the token is empty; no object lost or doubled', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 25 }), fc.integer({ min: 0, max: 4 }), async (n, limit, emptyEvery) => {
        const { s, c } = await setup({ n, emptyEvery: emptyEvery || undefined });
        const pages: number[] = [];
        const r = await c.list(pods, { limit }, { onPage: (p) => pages.push(p.items) });
        assert.deepEqual(
          names(r.items),
          Array.from({ length: n }, (_, i) => `p${i}`),
        );
        assert.equal(r.pages, s.seen.length);
        assert.equal(
          pages.reduce((a, b) => a + b, 0),
          n,
        );
        assert.equal(r.resourceVersion, '999');
        for (const seen of s.seen.slice(1)) assert.ok(new URL(seen.url, 'http://x').searchParams.get('continue'));
        s.close();
      }),
      { numRuns: 25 },
    );
  });

  it('sends resourceVersion and selectors on the first page only for rv, on every page for selectors', async () => {
    const { s, c } = await setup({ n: 10 });
    await c.list(pods, {
      limit: 4,
      resourceVersion: '0',
      resourceVersionMatch: 'NotOlderThan',
      labelSelector: 'app=web',
      fieldSelector: 'status.phase=Running',
      namespace: 'team a',
    });
    const qs = s.seen.map((x) => new URL(x.url, 'http://x'));
    assert.equal(qs.length, 3);
    assert.equal(qs[0].pathname, '/api/v1/namespaces/team%20a/pods');
    assert.equal(qs[0].searchParams.get('resourceVersion'), '0');
    assert.equal(qs[0].searchParams.get('resourceVersionMatch'), 'NotOlderThan');
    for (const q of qs.slice(1)) {
      assert.equal(q.searchParams.get('resourceVersion'), null);
      assert.equal(q.searchParams.get('resourceVersionMatch'), null);
    }
    for (const q of qs) {
      assert.equal(q.searchParams.get('labelSelector'), 'app=web');
      assert.equal(q.searchParams.get('fieldSelector'), 'status.phase=Running');
      assert.equal(q.searchParams.get('limit'), '4');
    }
  });

  it('on 410 Expired mid-list restarts a fresh paged list, discarding the pages it had (never one unpaged list)', async () => {
    const { s, c } = await setup({ n: 23, expireAt: 2 });
    const sink: KubeObject[] = [];
    let fellBack: KubeApiError | undefined;
    const r = await c.list(pods, { limit: 5, resourceVersion: '0' }, { sink, onFallback: (e) => (fellBack = e) });
    assert.equal(r.items, sink);
    assert.deepEqual(
      names(r.items),
      Array.from({ length: 23 }, (_, i) => `p${i}`),
    );
    assert.equal(r.fellBackToFullList, true);
    assert.equal(r.restarts, 1);
    assert.equal(fellBack?.status, 410);
    const qs = s.seen.map((x) => new URL(x.url, 'http://x').searchParams);
    for (const q of qs) assert.equal(q.get('limit'), '5', 'every request is a page: no unpaged fallback');
    const firsts = qs.filter((q) => !q.get('continue'));
    assert.equal(firsts.length, 2, 'the first page, then the restart');
    assert.equal(firsts[1].get('resourceVersion'), '0', 'the restart reads at the requested resourceVersion');
    assert.equal(r.pages, 2 + 5, 'two pages before the 410, then the five pages of the restart');
  });

  it('restarts at most MAX_LIST_RESTARTS times, then fails with a message that says so', async () => {
    const { s, c } = await setup({ n: 23, expireAll: true });
    const sink: KubeObject[] = [];
    let restarts = 0;
    await assert.rejects(c.list(pods, { limit: 5 }, { sink, onFallback: () => restarts++ }), (e: unknown) => {
      assert.ok(e instanceof KubeApiError && e.status === 410, String(e));
      assert.match((e as Error).message, new RegExp(`expired ${MAX_LIST_RESTARTS + 1} times in a row; the list was restarted ${MAX_LIST_RESTARTS} times`));
      return true;
    });
    assert.equal(restarts, MAX_LIST_RESTARTS);
    const qs = s.seen.map((x) => new URL(x.url, 'http://x').searchParams);
    assert.equal(qs.filter((q) => !q.get('continue')).length, MAX_LIST_RESTARTS + 1);
    for (const q of qs) assert.equal(q.get('limit'), '5');
    assert.deepEqual(names(sink), ['p0', 'p1', 'p2', 'p3', 'p4'], "only the last walk's first page is held");
  });

  it('a restart after an exact resourceVersion read asks for the most recent state (as the reflector relists)', async () => {
    const { s, c } = await setup({ n: 12, expireAt: 1 });
    const r = await c.list(pods, { limit: 5, resourceVersion: '100' });
    assert.equal(r.items.length, 12);
    const firsts = s.seen.map((x) => new URL(x.url, 'http://x').searchParams).filter((q) => !q.get('continue'));
    assert.equal(firsts[0].get('resourceVersion'), '100');
    assert.equal(firsts[1].get('resourceVersion'), null);
  });

  it('a 410 on the first page is an error, as upstream', async () => {
    const s = await startServer((_q, res) => status(res, 410, 'Expired', 'too old resource version'));
    servers.push(s);
    const c = await KubeClient.connect(contextFor(s.url), { qps: 0 });
    clients.push(c);
    await assert.rejects(c.list(pods, { limit: 5, resourceVersion: '1' }), (e: unknown) => e instanceof KubeApiError && e.status === 410);
  });

  it('drops managedFields, and keeps only metadata in metadata-only mode (asking for PartialObjectMetadataList)', async () => {
    const { s, c } = await setup({ n: 3 });
    const full = await c.list(pods, { limit: 2 });
    assert.equal(full.items[0].metadata.managedFields, undefined);
    assert.deepEqual((full.items[0] as any).status, { phase: 'Running' });
    // protobuf first; this server answers JSON, read as such
    const meta = await c.list(pods, { limit: 2, metadataOnly: true });
    assert.equal(s.seen.at(-1)!.headers.accept, PROTOBUF_METADATA_LIST_ACCEPT);
    await c.list(pods, { limit: 2, metadataOnly: true, protobuf: false });
    assert.equal(s.seen.at(-1)!.headers.accept, METADATA_ONLY_ACCEPT);
    assert.deepEqual(meta.items[2], { metadata: { name: 'p2', namespace: 'ns', uid: 'u2', resourceVersion: '102', labels: { i: '0' } } });
    const kept = await c.list(pods, { keepManagedFields: true });
    assert.deepEqual(kept.items[0].metadata.managedFields, [{ manager: 'kubectl' }]);
  });

  it('keeps only metadata even when the server ignores the metadata Accept header', async () => {
    const s = await startServer((_q, res) =>
      json(res, { kind: 'PodList', metadata: { resourceVersion: '5' }, items: [{ metadata: { name: 'a' }, spec: { big: 'x'.repeat(1000) } }] }),
    );
    servers.push(s);
    const c = await KubeClient.connect(contextFor(s.url), { qps: 0 });
    clients.push(c);
    const r = await c.list(pods, { metadataOnly: true });
    assert.deepEqual(r.items, [{ metadata: { name: 'a' } }]);
  });

  it('a response without an items array is a malformed-list error', async () => {
    const s = await startServer((_q, res) => json(res, { kind: 'Status', items: 'nope' }));
    servers.push(s);
    const c = await KubeClient.connect(contextFor(s.url), { qps: 0 });
    clients.push(c);
    await assert.rejects(c.list(pods), (e: any) => e.name === 'KubeTransportError' && e.kind === 'malformed');
  });

  it("reads the continue token from a body's first bytes only when it precedes the items", () => {
    assert.equal(continueFromHead('{"kind":"PodList","metadata":{"resourceVersion":"9","continue":"abc=="},"items":[{"metadata":{"continue":"no"}}'), 'abc==');
    assert.equal(continueFromHead('{"kind":"PodList","metadata":{"resourceVersion":"9"},"items":[{"continue":"no"}]}'), '');
    assert.equal(continueFromHead('{"kind":"PodList","metadata":{"resourceVersion":"9","contin'), undefined);
    // items first (an unstructured list: custom resources): the head cannot tell, never "last page"
    assert.equal(continueFromHead('{"items":[],"metadata":{"continue":"late"}}'), undefined);
    assert.equal(continueFromHead('{"apiVersion":"example.com/v1","items":[{"metadata":{"name":"a"}}'), undefined);
    assert.equal(continueFromHead('{"metadata":{"continue":"a\\u0041b"},"items":[]}'), 'aAb');
  });

  it('pipelines: page N+1 is requested while page N is still arriving; pipeline:false waits', async () => {
    const arrivals: string[] = [];
    // While `holdForNext`, the server finishes a page only once the next page's request has come
    // (bounded: after 5 s it finishes anyway, and the order asserted below fails). A client that
    // does not pipeline never sends it early, so the order says which one it is, at any speed.
    let holdForNext = true;
    const s = await startServer((req, res) => {
      const cont = new URL(req.url!, 'http://x').searchParams.get('continue') ?? '';
      arrivals.push(`req ${cont || 'first'}`);
      const next = cont === '' ? 'p2' : cont === 'p2' ? 'p3' : '';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"${next ? `,"continue":"${next}"` : ''}},"items":[`);
      const nextAsked =
        holdForNext && next
          ? eventually(() => arrivals.includes(`req ${next}`), { description: `the request for ${next}`, timeoutMs: 5000 })
          : Promise.resolve(true);
      void nextAsked
        .catch(() => false)
        .then(() => {
          arrivals.push(`end ${cont || 'first'}`);
          res.end(`{"metadata":{"name":"${cont || 'first'}"}}]}`);
        });
    });
    servers.push(s);
    const c = await KubeClient.connect(contextFor(s.url), { qps: 0 });
    clients.push(c);
    const r = await c.list(pods, { limit: 1 });
    assert.deepEqual(names(r.items), ['first', 'p2', 'p3']);
    assert.ok(arrivals.indexOf('req p2') < arrivals.indexOf('end first'), arrivals.join(', '));
    assert.ok(arrivals.indexOf('req p3') < arrivals.indexOf('end p2'), arrivals.join(', '));
    arrivals.length = 0;
    holdForNext = false;
    const seq = await c.list(pods, { limit: 1, pipeline: false });
    assert.deepEqual(names(seq.items), ['first', 'p2', 'p3']);
    assert.deepEqual(arrivals, ['req first', 'end first', 'req p2', 'end p2', 'req p3', 'end p3']);
  });

  it('a failing page aborts the page fetched ahead of it (the server sees that request go)', async () => {
    const s = await startServer((req, res) => {
      const cont = new URL(req.url!, 'http://x').searchParams.get('continue') ?? '';
      res.writeHead(200, { 'content-type': 'application/json' });
      if (cont === '') {
        res.write('{"kind":"PodList","metadata":{"continue":"p2"},"items":[');
        // cut short (malformed) once page 2 has been asked for ahead (bounded: then it fails below)
        void eventually(() => s.seen.length === 2, { description: 'the request for page 2', timeoutMs: 5000 })
          .catch(() => false)
          .then(() => res.end('{"metadata":'));
      } else {
        res.write('{"kind":"PodList","metadata":{},"items":['); // and hangs
      }
    });
    servers.push(s);
    const c = await KubeClient.connect(contextFor(s.url), { qps: 0 });
    clients.push(c);
    await assert.rejects(c.list(pods, { limit: 1 }), (e: any) => e.kind === 'malformed');
    assert.equal(s.seen.length, 2, 'page 2 had been requested ahead');
    await eventually(() => s.openSockets.size <= 1, { description: 's.openSockets.size <= 1' });
  });
});
