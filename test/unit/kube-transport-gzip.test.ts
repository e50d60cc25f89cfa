/**
 * gzip in the transport against real HTTP servers on loopback whose answers the test writes: the
 * transport asks for gzip, inflates plain requests, watches and error bodies, and turns a body that
 * does not inflate (or an encoding it did not ask for) into a clear 'malformed' failure.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { gzipSync } from 'node:zlib';
import { KubeApiError, KubeClient, KubeTransportError, type WatchEvent } from '../../src/core/kube';
import { contextFor, startServer, type TestServer } from './kube-helpers';
import { startNetem } from '../../bench/netem';
import { LOOPBACK_GZIP_MIN_RTT_MS } from '../../src/core/kube/transport/transport';

const servers: TestServer[] = [];
const clients: KubeClient[] = [];
after(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});
async function setup(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void, ioThread = false) {
  const s = await startServer(handler);
  servers.push(s);
  // Loopback servers: asked for explicitly (auto would not ask a server on this machine).
  const c = await KubeClient.connect(contextFor(s.url), { qps: 0, ioThread, retry: { maxBackoffRetries: 0 }, disableCompression: false });
  clients.push(c);
  return { s, c };
}
const gz = (res: http.ServerResponse, code: number, text: string) => {
  const body = gzipSync(text);
  res.writeHead(code, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': body.length });
  res.end(body);
};

describe('transport: gzip', () => {
  it('asks for gzip and inflates a gzip answer; wire and decoded bytes are counted apart', async () => {
    const doc = { kind: 'PodList', metadata: { resourceVersion: '5' }, items: Array.from({ length: 200 }, (_, i) => ({ metadata: { name: `pod-${i}` } })) };
    const text = JSON.stringify(doc);
    const { s, c } = await setup((_q, res) => gz(res, 200, text));
    const r = await c.transport.getJson<typeof doc>({ path: '/api/v1/pods' });
    assert.equal(s.seen[0].headers['accept-encoding'], 'gzip');
    assert.deepEqual(r.body, doc);
    assert.equal(r.bytes, Buffer.byteLength(text));
    const st = c.transport.stats;
    assert.deepEqual([st.bytesReceived, st.wireBytes, st.gzipResponses], [Buffer.byteLength(text), gzipSync(text).length, 1]);
  });

  for (const ioThread of [false, true]) {
    it(`a gzip body that does not inflate is a 'malformed' failure, not retried (${ioThread ? 'I/O thread' : 'loading thread'})`, async () => {
      const { s, c } = await setup((_q, res) => {
        const body = gzipSync('{"kind":"PodList","metadata":{},"items":[]}');
        body[body.length - 6] ^= 0xff; // corrupt the CRC
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(body);
      }, ioThread);
      await assert.rejects(
        c.list({ group: '', version: 'v1', resource: 'pods' }, { limit: 10 }),
        (e: unknown) => e instanceof KubeTransportError && e.kind === 'malformed' && /gzip|inflate/i.test(e.message),
      );
      assert.equal(s.seen.length, 1);
    });
  }

  it('an encoding it did not ask for (br) is a clear malformed failure', async () => {
    const { c } = await setup((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br' });
      res.end('xx');
    });
    await assert.rejects(
      c.transport.getJson({ path: '/api' }),
      (e: unknown) => e instanceof KubeTransportError && e.kind === 'malformed' && /Content-Encoding br/.test(e.message),
    );
  });

  it('a gzip error Status is inflated and read', async () => {
    const { c } = await setup((_q, res) => gz(res, 403, JSON.stringify({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'pods is forbidden' })));
    await assert.rejects(
      c.transport.getJson({ path: '/api/v1/pods' }),
      (e: unknown) => e instanceof KubeApiError && e.status === 403 && e.message === 'pods is forbidden',
    );
  });

  it('a gzip watch stream is inflated as it streams, events in order', async () => {
    const { c } = await setup((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      const lines = ['a', 'b', 'c'].map((n, i) => JSON.stringify({ type: 'ADDED', object: { metadata: { name: n, resourceVersion: String(i + 1) } } }) + '\n');
      res.end(gzipSync(lines.join('')));
    });
    const got: WatchEvent[] = [];
    const end = await c.watch({ group: '', version: 'v1', resource: 'pods' }, { resourceVersion: '0' }, (e) => got.push(e));
    assert.deepEqual(end, { kind: 'closed', events: 3 });
    assert.deepEqual(
      got.map((e) => e.object.metadata.name),
      ['a', 'b', 'c'],
    );
  });

  it('disableCompression sends no Accept-Encoding', async () => {
    const s = await startServer((_q, res) => res.end('{}'));
    servers.push(s);
    const c = await KubeClient.connect(contextFor(s.url), { qps: 0, disableCompression: true });
    clients.push(c);
    await c.transport.getJson({ path: '/api' });
    assert.equal(s.seen[0].headers['accept-encoding'], undefined);
  });

  it("the kubeconfig cluster's disable-compression: true is honoured as client-go honours it; the option overrides it", async () => {
    const s = await startServer((_q, res) => res.end('{}'));
    servers.push(s);
    const ctx = contextFor(s.url, {}, { 'disable-compression': true });
    assert.equal(ctx.disableCompression, true);
    const off = await KubeClient.connect(ctx, { qps: 0 });
    const on = await KubeClient.connect(ctx, { qps: 0, disableCompression: false });
    clients.push(off, on);
    await off.transport.getJson({ path: '/api' });
    await on.transport.getJson({ path: '/api' });
    assert.deepEqual(
      s.seen.map((r) => r.headers['accept-encoding']),
      [undefined, 'gzip'],
    );
  });

  it('auto: a server on this machine is not asked, until a measured round trip says it is a tunnel to somewhere far', async () => {
    const s = await startServer((_q, res) => res.end('{}'));
    servers.push(s);
    const near = await KubeClient.connect(contextFor(s.url), { qps: 0 });
    clients.push(near);
    assert.equal(near.transport.loopback, true);
    // What it asks follows from the round trip measured before each request. Loopback is near, but a
    // busy machine can stretch its round trip past the threshold too (then asking is the rule): the
    // rule is checked, not this machine's speed.
    const nearWants: (string | undefined)[] = [];
    // (A loopback address is judged by request samples alone: rtt.ts's requestRttMs.)
    const decide = () => nearWants.push((near.transport.stats.requestRttMs ?? 0) >= LOOPBACK_GZIP_MIN_RTT_MS ? 'gzip' : undefined);
    decide();
    await near.transport.getJson({ path: '/api' });
    decide();
    await near.transport.probeRtt();
    decide();
    await near.transport.getJson({ path: '/api' });
    assert.equal(nearWants[0], undefined, 'no round trip measured yet: not asked');
    // A relay adding 15 ms each way: a loopback address, a round trip of at least 30 ms.
    const target = new URL(s.url);
    const relay = await startNetem({ target: { host: target.hostname, port: Number(target.port) }, latencyMs: 15, rateBitsPerSec: 0 });
    try {
      const far = await KubeClient.connect(contextFor(`http://${relay.host}:${relay.port}`), { qps: 0 });
      clients.push(far);
      const asked: unknown[] = [];
      const from = s.seen.length;
      await far.transport.getJson({ path: '/api' });
      const rtt = await far.transport.probeRtt();
      assert.ok(rtt !== undefined && rtt >= LOOPBACK_GZIP_MIN_RTT_MS, `rtt ${rtt} ms`);
      await far.transport.getJson({ path: '/api' });
      far.close();
      for (const r of s.seen.slice(from)) asked.push(r.headers['accept-encoding']);
      assert.equal(asked.at(-1), 'gzip', 'asked once the round trip was measured');
      assert.equal(asked[0], undefined, 'not before');
    } finally {
      await relay.close();
    }
    assert.deepEqual(
      s.seen.slice(0, 3).map((r) => r.headers['accept-encoding']),
      nearWants,
      'the near client asked only as its measured round trip said',
    );
  });
});
