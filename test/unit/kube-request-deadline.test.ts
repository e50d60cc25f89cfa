/**
 * The per-request deadline (TransportOptions.requestTimeoutMs, the CLI's --request-timeout) covers
 * a request's whole answer on both threads: a server that trickles a page a few bytes at a time,
 * for ever, is cut at the deadline ('timeout'), its socket destroyed. Real HTTP server on loopback.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { KubeClient, KubeTransportError } from '../../src/core/kube';
import { contextFor, startServer, type TestServer } from './kube-helpers';
import { eventually } from '../support/eventually';

const servers: TestServer[] = [];
const clients: KubeClient[] = [];
after(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});

/** Headers at once, then one item every 20 ms, never the end. */
function trickle(_req: http.IncomingMessage, res: http.ServerResponse) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[');
  const t = setInterval(() => res.write('{"metadata":{"name":"x"}},'), 20);
  res.on('close', () => clearInterval(t));
}

for (const ioThread of [true, false]) {
  describe(`request deadline (${ioThread ? 'I/O thread' : 'calling thread'})`, () => {
    it('a page that trickles for ever is cut at the deadline', async () => {
      const s = await startServer(trickle);
      servers.push(s);
      const c = await KubeClient.connect(contextFor(s.url), {
        qps: 0,
        ioThread,
        requestTimeoutMs: 300,
        retry: { maxBackoffRetries: 1, backoffBaseMs: 1, backoffMaxMs: 1 },
      });
      clients.push(c);
      await assert.rejects(
        c.list({ group: '', version: 'v1', resource: 'pods' }, { limit: 500 }),
        (e: unknown) => e instanceof KubeTransportError && e.kind === 'timeout' && /no complete response within 300 ms/.test(e.message),
      );
      assert.equal(s.seen.length, 2, 'the first attempt and its one retry');
      await eventually(() => s.closedSockets >= 2, { description: 'both connections closed' });
    });
  });
}
