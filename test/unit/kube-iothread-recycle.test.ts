/**
 * Body buffers going back to the I/O thread (ioThread.ts recycle, ioBuffers.ts): the calling thread
 * returns a page's buffer only once the page is decoded, and the worker writes later pages into
 * those buffers. A real server sends pages of 64 KB and more (the size from which
 * buffers are returned), in protobuf or JSON as the Accept asks, each page's objects its own.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { KubeClient, sharedIoThread, type KubeObject } from '../../src/core/kube';
import { protobufList } from '../../src/demo/server/protobuf-forms';
import type { DemoObject } from '../../src/demo/store';
import { contextFor, startServer, type TestServer } from './kube-helpers';

const pods = { group: '', version: 'v1', resource: 'pods' };
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const PAGE = 300;
const PAGES = 20;
const N = PAGE * PAGES;

/** Every pod's name and labels differ from every other page's, at the same byte offsets of a page (pages of one size, so the worker's pool fits each page in a returned buffer). */
const podOf = (i: number) =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `p${String(i).padStart(6, '0')}-${'abcdefghij'[i % 10].repeat(200)}`,
      namespace: 'ns',
      uid: `u${String(i).padStart(6, '0')}`,
      resourceVersion: String(100_000 + i),
      labels: { page: String(Math.floor(i / PAGE)).padStart(3, '0'), app: `a${i % 7}` },
    },
    spec: { nodeName: `node-${i % 3}`, containers: [{ name: 'c', image: `img-${String(i).padStart(6, '0')}` }] },
    status: { phase: i % 4 === 0 ? 'Pending' : 'Running' },
  }) as unknown as DemoObject;

function podList() {
  const items = Array.from({ length: N }, (_, i) => podOf(i));
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const q = new URL(req.url!, 'http://x').searchParams;
    const pb = String(req.headers.accept ?? '').startsWith(PROTOBUF);
    const start = Number(q.get('continue') ?? 0);
    const next = start + (Number(q.get('limit')) || N);
    const meta = { resourceVersion: '42', ...(next < N ? { continue: String(next) } : {}) };
    const page = items.slice(start, next);
    const body = pb ? protobufList('v1', 'Pod', page, meta) : JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: meta, items: page });
    res.writeHead(200, { 'content-type': pb ? PROTOBUF : 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
}

const servers: TestServer[] = [];
const clients: KubeClient[] = [];
after(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});
async function client(opts: Parameters<typeof KubeClient.connect>[1]) {
  const s = await startServer(podList());
  servers.push(s);
  const c = await KubeClient.connect(contextFor(s.url), { qps: 0, ...opts });
  clients.push(c);
  return c;
}
const snapshot = (items: KubeObject[]) => JSON.stringify(items);

for (const protobuf of [true, false]) {
  describe(`body buffers returned to the I/O thread (${protobuf ? 'protobuf' : 'JSON'} pages)`, () => {
    it('leave every decoded page as it was while later pages are written into them', async () => {
      const streamed = await client({ protobuf });
      const local = await client({ protobuf, ioThread: false });
      const before = sharedIoThread()?.recycled ?? 0;
      // The first page's objects as decoded, before any later page arrived in a returned buffer.
      const sink: KubeObject[] = [];
      let firstSeen = '';
      const got = await streamed.list(pods, { limit: PAGE }, { sink, onPage: (p) => p.index === 0 && (firstSeen = snapshot(sink)) });
      const thread = sharedIoThread();
      assert.ok(thread, 'the I/O thread is up');
      const returned = thread.recycled - before;
      assert.equal(got.pages, PAGES);
      assert.ok(got.bytes / PAGES >= 64 * 1024, `pages of at least 64 KB are returned (${got.bytes / PAGES} bytes each)`);
      assert.equal(streamed.transport.stats.streamedPages, PAGES, 'every page came from the I/O thread');
      // Later pages were written into returned buffers: what was decoded before is untouched.
      assert.ok(returned >= PAGES - 1, `buffers went back for reuse: ${returned}`);
      assert.equal(firstSeen.length > 0 && snapshot(got.items.slice(0, PAGE)), firstSeen);
      const want = await local.list(pods, { limit: PAGE });
      assert.equal(got.items.length, N);
      assert.deepEqual(got.items, want.items, 'the objects the calling thread decodes from its own buffers');
    });
  });
}
