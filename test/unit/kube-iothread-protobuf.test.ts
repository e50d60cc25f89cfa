/**
 * Paged lists in protobuf on the I/O thread: the thread asks for protobuf as the calling thread
 * does, reads each page's continue token from its protobuf ListMeta (ioProtobuf.ts) so it walks the
 * whole list itself, and the calling thread decodes each page by its Content-Type. A real server
 * answers in protobuf (the demo cluster's encoder) or JSON, as the Accept asks; a 410 Expired and a
 * body that is no protobuf are the errors they are, as on the calling thread.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import fc from 'fast-check';
import { KubeApiError, KubeClient, KubeTransportError, type KubeObject } from '../../src/core/kube';
import { continueFromProtobufHead, PROTOBUF_ACCEPT } from '../../src/core/kube/protobuf';
import type { StoredObject } from '../../src/core/kube/objects/types';
import { protobufListMeta } from '../../src/core/kube/transport/ioProtobuf';
import { computeObjectView } from '../../src/core/rows/objectView';
import { protobufList, protobufObject, protobufStatus } from '../../src/demo/server/protobuf-forms';
import type { DemoObject } from '../../src/demo/store';
import { contextFor, startServer, type TestServer } from './kube-helpers';

const pods = { group: '', version: 'v1', resource: 'pods' };
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const { tokenOf } = protobufListMeta();

const podOf = (i: number) =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p${i}`, namespace: 'ns', uid: `u${i}`, resourceVersion: String(100 + i), labels: { app: `a${i % 3}` } },
    spec: { nodeName: `node-${i % 3}`, containers: [{ name: 'c', image: 'img' }] },
    status: { phase: i % 4 === 0 ? 'Pending' : 'Running' },
  }) as unknown as DemoObject;

type Fault = 'none' | 'gone' | 'truncated';

/**
 * A paged pod list answered in protobuf when the Accept starts with it, else in JSON; `fault(k)`
 * for the k-th continuation: a 410 Expired Status (in the answer's format) or a protobuf body cut short.
 */
function podList(n: number, fault: (k: number) => Fault = () => 'none') {
  const items = Array.from({ length: n }, (_, i) => podOf(i));
  let continuations = 0;
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const q = new URL(req.url!, 'http://x').searchParams;
    const pb = String(req.headers.accept ?? '').startsWith(PROTOBUF);
    const type = pb ? PROTOBUF : 'application/json';
    let start = 0;
    if (q.get('continue')) {
      const f = fault(++continuations);
      if (f === 'gone') {
        const s = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the continue token expired', reason: 'Expired', code: 410 };
        res.writeHead(410, { 'content-type': type });
        return res.end(pb ? protobufStatus(s as Parameters<typeof protobufStatus>[0]) : JSON.stringify(s));
      }
      start = Number(q.get('continue'));
      if (f === 'truncated') {
        const whole = protobufList('v1', 'Pod', items.slice(start, start + 2), { resourceVersion: '42', continue: 'x' });
        res.writeHead(200, { 'content-type': PROTOBUF });
        return res.end(whole.subarray(0, whole.length - 5));
      }
    }
    const limit = Number(q.get('limit') ?? 0) || n;
    const next = start + limit;
    const meta = { resourceVersion: '42', ...(next < n && q.get('limit') ? { continue: String(next), remainingItemCount: n - next } : {}) };
    const page = items.slice(start, next);
    const body = pb ? protobufList('v1', 'Pod', page, meta) : JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: meta, items: page });
    res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
}

const servers: TestServer[] = [];
const clients: KubeClient[] = [];
after(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});
async function setup(handler: ReturnType<typeof podList>, opts: Parameters<typeof KubeClient.connect>[1] = {}) {
  const s = await startServer(handler);
  servers.push(s);
  const c = await KubeClient.connect(contextFor(s.url), { qps: 0, ...opts });
  clients.push(c);
  return { s, c };
}
const names = (items: KubeObject[]) => items.map((x) => x.metadata.name);
const expected = (n: number) => Array.from({ length: n }, (_, i) => `p${i}`);
const rows = (items: KubeObject[]) =>
  items.map((o) => computeObjectView(o.metadata.name ?? '', { ...o, kind: 'Pod' } as StoredObject, { group: '', resource: 'pods' }));

describe("the I/O thread's protobuf ListMeta reader", () => {
  it('gives the token once the whole ListMeta is in the head (where the walker would), and the same token', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.constant(''), fc.string({ minLength: 1, maxLength: 300 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 40 })),
        fc.option(fc.integer({ min: 1, max: 2 ** 50 }), { nil: undefined }),
        fc.integer({ min: 0, max: 3 }),
        (token, remaining, n) => {
          const meta = {
            resourceVersion: '123456',
            ...(token ? { continue: token } : {}),
            ...(remaining !== undefined ? { remainingItemCount: remaining } : {}),
          };
          const body = protobufList(
            'v1',
            'Pod',
            Array.from({ length: n }, (_, i) => podOf(i)),
            meta,
          );
          const want = Buffer.from(token, 'utf8').toString('utf8'); // lone surrogates as the wire has them
          let known = -1;
          for (let k = 0; k <= body.length; k++) {
            const t = tokenOf(body.toString('latin1', 0, k));
            if (t === undefined) assert.equal(known, -1, `undefined again at byte ${k}`);
            else {
              assert.equal(t, want, `the token at byte ${k}`);
              if (known < 0) known = k;
            }
          }
          assert.ok(known > 0, 'known by the end of the body');
          // the calling thread's reader (protobuf/head.ts) knows it at the same byte (it reads varints of at most 5 bytes)
          if ((remaining ?? 0) < 2 ** 35) {
            assert.equal(continueFromProtobufHead(body.subarray(0, known)), want);
            assert.equal(continueFromProtobufHead(body.subarray(0, known - 1)), undefined);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('says null, never a token, for what is no protobuf list: a single object, a Status, JSON, garbage', () => {
    const pod = protobufObject('v1', 'Pod', podOf(1), false);
    const status = protobufStatus({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'gone',
      reason: 'Expired',
      code: 410,
    } as Parameters<typeof protobufStatus>[0]);
    for (const [what, body] of [
      ['a Pod (its field 1 is ObjectMeta: its namespace would read as a token)', pod],
      ['a Status', status],
      ['JSON', Buffer.from('{"kind":"PodList","metadata":{"continue":"x"},"items":[]}')],
      ['a bad envelope tag', Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x1a, 0x01, 0x41])],
    ] as const)
      assert.equal(tokenOf(Buffer.from(body).toString('latin1')), null, what);
    assert.equal(tokenOf('k8s'), undefined, 'a prefix of the magic: too few bytes to tell');
  });
});

describe('paged lists in protobuf on the I/O thread', () => {
  it('are asked for in protobuf and walked by the thread to the end: the objects and rows JSON gives', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 7 }), fc.boolean(), async (n, limit, pipeline) => {
        const pb = await setup(podList(n));
        const js = await setup(podList(n), { protobuf: false });
        const a = await pb.c.list(pods, { limit, pipeline });
        const b = await js.c.list(pods, { limit, pipeline });
        assert.deepEqual(names(a.items), expected(n));
        assert.deepEqual(rows(a.items), rows(b.items));
        assert.deepEqual([a.pages, a.resourceVersion], [b.pages, b.resourceVersion]);
        assert.ok(a.bytes < b.bytes || n === 0, `protobuf pages are smaller: ${a.bytes} vs ${b.bytes} bytes`);
        assert.deepEqual(
          pb.s.seen.map((x) => x.headers.accept),
          Array<string>(a.pages).fill(PROTOBUF_ACCEPT),
          'every page asked in protobuf, one request per page',
        );
        assert.ok(js.s.seen.every((x) => x.headers.accept === 'application/json'));
        // The thread read every token from the protobuf ListMeta: no page was left to this thread.
        assert.equal(pb.c.transport.stats.streamedPages, a.pages);
        assert.equal(js.c.transport.stats.streamedPages, b.pages);
        assert.equal(pb.c.transport.stats.inFlight, 0);
        pb.c.close();
        js.c.close();
      }),
      { numRuns: 12 },
    );
  });

  it('a protobuf 410 Expired mid-list is read as Expired, and the list restarts on the thread: exact objects', async () => {
    const { s, c } = await setup(podList(14, (k) => (k === 2 ? 'gone' : 'none')));
    const fallbacks: KubeApiError[] = [];
    const r = await c.list(pods, { limit: 4 }, { onFallback: (e) => fallbacks.push(e) });
    assert.deepEqual(names(r.items), expected(14));
    assert.deepEqual(
      fallbacks.map((e) => [e.status, e.reason, e.message]),
      [[410, 'Expired', 'the continue token expired']],
    );
    assert.equal(r.restarts, 1);
    // 3 requests before the 410 (2 pages and the 410), then the 4 pages of the restart, all streamed
    assert.deepEqual(
      s.seen.map((x) => x.headers.accept),
      Array<string>(3 + 4).fill(PROTOBUF_ACCEPT),
      'every page asked in protobuf, the 410 answered in it',
    );
    assert.equal(c.transport.stats.streamedPages, 2 + 4);
  });

  it('a protobuf page cut short fails the list as malformed, naming protobuf, with the pages before it kept', async () => {
    const { c } = await setup(podList(10, (k) => (k === 1 ? 'truncated' : 'none')));
    const sink: KubeObject[] = [];
    await assert.rejects(
      c.list(pods, { limit: 3, pipeline: false }, { sink }),
      (e: unknown) => e instanceof KubeTransportError && e.kind === 'malformed' && /not valid Kubernetes protobuf/.test(e.message),
    );
    assert.deepEqual(names(sink), expected(3));
  });
});
