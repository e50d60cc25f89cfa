/**
 * Table lists walked by the I/O thread, against a real node:http server: the items (metadata and
 * cells) are those the calling thread makes of the same pages, with managedFields cut on the
 * thread so fewer bytes reach the parsing thread; a 403 and a malformed page fail with the same
 * messages as on the calling thread; a cancelled list reaches the thread (the server sees the
 * connection of the page it was still sending go).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { sharedIoThread, type KubeClient, type KubeObject } from '../../src/core/kube';
import { tableRowOf } from '../../src/core/kube/listwatch/table';
import { eventually } from '../support/eventually';
import { serverAndClient, status } from './kube-helpers';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const N = 23;
const LIMIT = 5;

type Fault = 'none' | 'forbidden' | 'malformed' | 'hang';

/** A paged pods Table (includeObject=Metadata) whose rows carry managedFields; `fault(k)` for the k-th continuation. */
function tableServer(fault: (k: number) => Fault = () => 'none') {
  let continuations = 0;
  const rows = Array.from({ length: N }, (_, i) => ({
    cells: [`p${i}`, `${i % 2}/1`, i % 3 ? 'Running' : 'CrashLoopBackOff', i % 4, '5m'],
    ...(i === 7 ? { conditions: [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'done "quoted" ]' }] } : {}),
    object: {
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: {
        name: `p${i}`,
        namespace: 'ns',
        uid: `0000000${i % 10}-0000-4000-8000-00000000000${i % 10}`,
        resourceVersion: String(100 + i),
        labels: { app: 'web', managedFields: 'a label, kept' },
        managedFields: [
          {
            manager: 'kubelet',
            operation: 'Update',
            subresource: 'status',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:status': { 'k:{"type":"Ready"}': { '.': {} } } },
          },
          { manager: 'kube-controller-manager', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:ownerReferences': { '.': {}, 'k:{"uid":"x]"}': {} } } } },
        ],
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-uid', controller: true }],
      },
    },
  }));
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const q = new URL(req.url!, 'http://x').searchParams;
    let start = 0;
    if (q.get('continue')) {
      const f = fault(++continuations);
      if (f === 'forbidden') return status(res, 403, 'Forbidden', 'pods is forbidden: User "u" cannot list resource "pods"');
      start = Number(q.get('continue'));
      if (f === 'malformed') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"continue":""},"rows":[{"cells":["x"],"object":{"metadata":{"name":"x"');
      }
      if (f === 'hang') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.write('{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{');
      }
    }
    const next = start + LIMIT;
    const body = JSON.stringify({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '42', ...(next < N ? { continue: String(next) } : {}) },
      columnDefinitions: ['Name', 'Ready', 'Status', 'Restarts', 'Age'].map((name) => ({ name, type: 'string', format: '', description: name, priority: 0 })),
      rows: rows.slice(start, next),
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
}

const connect = serverAndClient({ qps: 0, retry: { backoffBaseMs: 1, backoffMaxMs: 5 } });

/** What the tree reads of an item: its metadata and its row's cells and conditions. */
const seen = (o: KubeObject) => ({ metadata: o.metadata, row: tableRowOf(o) });

async function both(fault?: (k: number) => Fault): Promise<{ io: KubeClient; here: KubeClient; s: Awaited<ReturnType<typeof connect>>['s'] }> {
  const handler = tableServer(fault);
  const { s, c: io } = await connect(handler);
  const { c: here } = await connect(tableServer(fault), { ioThread: false });
  return { io, here, s };
}

describe('Table lists on the I/O thread', () => {
  it('give the items the calling thread gives, every page through the thread, managedFields cut before the parsing thread', async () => {
    const { io, here } = await both();
    const a = await io.list(PODS, { namespace: 'ns', limit: LIMIT, transfer: 'table' });
    const b = await here.list(PODS, { namespace: 'ns', limit: LIMIT, transfer: 'table' });
    assert.equal(a.items.length, N);
    assert.deepEqual(a.items.map(seen), b.items.map(seen));
    assert.equal(a.resourceVersion, '42');
    assert.ok(a.items.every((o) => o.metadata.managedFields === undefined && o.metadata.labels?.managedFields === 'a label, kept'));
    assert.equal(io.transport.stats.streamedPages, a.pages, 'every page came through the thread');
    assert.equal(a.pages, Math.ceil(N / LIMIT));
    // a page's size is the server's, trimmed or not (the load's API cost and seats are read from it)
    assert.equal(a.bytes, b.bytes);
  });

  it("the thread's stream hands over Table pages without their rows' managedFields only when asked to", async () => {
    const { io } = await both();
    const first = async (trimTable: boolean) => {
      const spec = { path: '/api/v1/namespaces/ns/pods', accept: 'application/json;as=Table;v=v1;g=meta.k8s.io', prefetch: false };
      const stream = await io.transport.openListStream({ ...spec, query: { limit: LIMIT }, nextQuery: { limit: LIMIT }, trimTable });
      assert.ok(stream, 'a stream on the thread');
      try {
        const page = await stream.next();
        return { page, rows: (page.body as { rows: { object: { metadata: KubeObject['metadata'] } }[] }).rows };
      } finally {
        stream.close();
      }
    };
    const cut = await first(true);
    const whole = await first(false);
    assert.equal(cut.rows.length, LIMIT);
    assert.ok(cut.rows.every((r) => r.object.metadata.managedFields === undefined && r.object.metadata.labels?.managedFields === 'a label, kept'));
    assert.ok(whole.rows.every((r) => r.object.metadata.managedFields?.length === 2));
    assert.deepEqual(
      cut.rows.map((r) => r.object.metadata),
      whole.rows.map((r) => ({ ...r.object.metadata, managedFields: undefined })).map(({ managedFields: _, ...m }) => m),
    );
    assert.equal(cut.page.bytes, whole.page.bytes, "the page's size as the server sent it");
    assert.equal(cut.page.token, '5');
  });

  it('keepManagedFields: the thread cuts nothing', async () => {
    const { io } = await both();
    const a = await io.list(PODS, { namespace: 'ns', limit: LIMIT, transfer: 'table', keepManagedFields: true });
    assert.equal(a.items.length, N);
    assert.ok(a.items.every((o) => o.metadata.managedFields?.length === 2));
  });

  for (const [fault, pattern] of [
    ['forbidden', /pods is forbidden/],
    ['malformed', /not valid JSON|Unexpected end|malformed|JSON/i],
  ] as const) {
    it(`a ${fault} page fails the list with the message the calling thread gives`, async () => {
      const { io, here } = await both((k) => (k === 2 ? fault : 'none'));
      const a = await io.list(PODS, { namespace: 'ns', limit: LIMIT, transfer: 'table' }).then(
        () => assert.fail('listed'),
        (e: Error) => e,
      );
      const b = await here.list(PODS, { namespace: 'ns', limit: LIMIT, transfer: 'table' }).then(
        () => assert.fail('listed'),
        (e: Error) => e,
      );
      assert.match(a.message, pattern);
      assert.equal(a.name, b.name);
      assert.equal(a.message, b.message);
      assert.ok(io.transport.stats.streamedPages >= 1, 'the first pages came through the thread');
    });
  }

  it('a cancelled list reaches the thread: the page it was reading is dropped and its connection closed', async () => {
    const { io, s } = await both((k) => (k === 2 ? 'hang' : 'none'));
    const ac = new AbortController();
    const reason = new Error('cancelled by the test');
    const listed = io.list(PODS, { namespace: 'ns', limit: LIMIT, transfer: 'table', pipeline: false }, { signal: ac.signal });
    // the hanging page has been asked for: three requests (two pages answered, the third hangs)
    await eventually(() => s.seen.length >= 3 && s.openSockets.size > 0, { description: 'the hanging page requested', timeoutMs: 20_000 });
    const closedBefore = s.closedSockets;
    ac.abort(reason);
    await assert.rejects(listed, (e) => e === reason);
    await eventually(() => s.closedSockets > closedBefore, { description: 'the server saw the hanging request go', timeoutMs: 20_000 });
    await eventually(() => (sharedIoThread()?.streams ?? 0) === 0, { description: 'no stream left open on the thread', timeoutMs: 20_000 });
  });
});
