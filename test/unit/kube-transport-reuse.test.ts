/**
 * What a watch request resends, as client-go's Request.Watch does, so that a watch resumes across
 * a rolling apiserver restart (test/apiserver/syncloop.test.ts found both on a real kube-apiserver):
 * a request on a keep-alive socket the server meanwhile dropped (resent on another connection),
 * and a 503 "apiserver is shutting down" with Retry-After (resent after the wait, on the clock).
 * A failure on a fresh connection, or an error without Retry-After, stays a failure.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import type { Socket } from 'node:net';
import { FakeClock } from '../../src/core/clock';
import { KubeClient } from '../../src/core/kube';
import { contextFor, startServer, status, type TestServer } from './kube-helpers';
import { eventually } from '../support/eventually';

const pods = { group: '', version: 'v1', resource: 'pods' };
const servers: TestServer[] = [];
const clients: KubeClient[] = [];
after(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});

/** A server that answers a socket's first request and drops the socket, unanswered, at its second. */
async function dropsReusedSockets(onFresh: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const served = new WeakSet<Socket>();
  const s = await startServer((req, res) => {
    if (served.has(req.socket)) return void req.socket.destroy();
    served.add(req.socket);
    onFresh(req, res);
  });
  servers.push(s);
  const c = await KubeClient.connect(contextFor(s.url), { qps: 0 });
  clients.push(c);
  return { s, c };
}

describe('a watch on a stale keep-alive socket', () => {
  it('is resent on a fresh connection and streams as usual', async () => {
    const { s, c } = await dropsReusedSockets((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.includes('watch=1')) res.end(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '12' } } })}\n`);
      else res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '11' }, items: [] }));
    });
    await c.list(pods, {}); // leaves one idle keep-alive socket in the pool
    const got: string[] = [];
    const end = await c.watch(pods, { resourceVersion: '11' }, (e) => got.push(`${e.type}:${e.object.metadata.resourceVersion}`));
    assert.deepEqual(end, { kind: 'closed', events: 1 });
    assert.deepEqual(got, ['ADDED:12']);
    assert.equal(s.seen.length, 3, 'list, the watch on the stale socket, the watch resent');
    assert.equal(s.connections, 2);
  });

  it('a connection reset on a fresh socket is not retried: the watch ends with an error value', async () => {
    const { s, c } = await dropsReusedSockets((req) => req.socket.destroy());
    const end = await c.watch(pods, { resourceVersion: '11' }, () => undefined);
    assert.equal(end.kind, 'error');
    assert.equal(s.seen.length, 1);
  });
});

describe('a watch answered 503 with Retry-After (an apiserver shutting down)', () => {
  it('waits as told, on the clock, and reopens; without Retry-After it fails at once', async () => {
    let n = 0;
    const s = await startServer((req, res) => {
      n++;
      if (n === 1) return status(res, 503, 'ServiceUnavailable', 'apiserver is shutting down', { 'Retry-After': '1' });
      if (req.url?.includes('resourceVersion=99')) return status(res, 503, 'ServiceUnavailable', 'no Retry-After here');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '12' } } })}\n`);
    });
    servers.push(s);
    const clock = new FakeClock();
    const c = await KubeClient.connect(contextFor(s.url), { qps: 0, clock });
    clients.push(c);
    const watching = c.watch(pods, { resourceVersion: '11' }, () => undefined);
    await eventually(() => n === 1 && clock.pendingTimers() === 1, { description: 'n === 1 && clock.pendingTimers() === 1' });
    assert.equal(s.seen.length, 1, 'nothing resent before the wait');
    await clock.advance(1000);
    assert.deepEqual(await watching, { kind: 'closed', events: 1 });
    assert.equal(c.transport.stats.retries, 1);
    const end = await c.watch(pods, { resourceVersion: '99' }, () => undefined);
    assert.equal(end.kind, 'error');
    assert.equal(s.seen.length, 3);
  });
});
