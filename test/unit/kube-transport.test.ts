import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeClock } from '../../src/core/clock';
import { KubeApiError, KubeTransport, KubeTransportError, TokenBucket, parseRetryAfter } from '../../src/core/kube';
import { b64, contextFor, json, makePki, startServer, startTlsServer, status, tempDir, type TestServer } from './kube-helpers';
import { eventually } from '../support/eventually';

const servers: TestServer[] = [];
const transports: KubeTransport[] = [];
after(async () => {
  transports.forEach((t) => t.close());
  await Promise.all(servers.map((s) => s.close()));
});
async function serve(handler: Parameters<typeof startServer>[0], tls?: Parameters<typeof startServer>[1]) {
  const s = await startServer(handler, tls);
  servers.push(s);
  return s;
}
/** An https:// server trusted by the returned cluster entry: credentials go only over TLS (auth.ts). */
async function serveTls(handler: Parameters<typeof startServer>[0]) {
  const { server, cluster } = await startTlsServer(handler);
  servers.push(server);
  return { s: server, cluster };
}
async function transport(
  s: TestServer,
  opts: Parameters<typeof KubeTransport.create>[1] = {},
  user: Record<string, unknown> = {},
  cluster: Record<string, unknown> = {},
) {
  const t = await KubeTransport.create(contextFor(s.url, user, cluster), { qps: 0, ...opts });
  transports.push(t);
  return t;
}

describe('transport: errors are typed values', () => {
  it('maps a Status body to KubeApiError {status, reason, message} and does not retry a 403', async () => {
    const s = await serve((_q, res) => status(res, 403, 'Forbidden', 'pods is forbidden: User "jane" cannot list resource "pods"'));
    const t = await transport(s);
    await assert.rejects(t.getJson({ path: '/api/v1/pods' }), (e: unknown) => {
      assert.ok(e instanceof KubeApiError);
      assert.deepEqual(
        [e.status, e.reason, e.message, e.path],
        [403, 'Forbidden', 'pods is forbidden: User "jane" cannot list resource "pods"', '/api/v1/pods'],
      );
      return true;
    });
    assert.equal(s.seen.length, 1);
  });

  it('a body that is not JSON is a KubeTransportError("malformed"), not retried', async () => {
    const s = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"kind":"PodList","items":[{"metadata":');
    });
    const t = await transport(s);
    await assert.rejects(
      t.getJson({ path: '/api/v1/pods' }),
      (e: unknown) => e instanceof KubeTransportError && e.kind === 'malformed' && /not valid JSON/.test(e.message),
    );
    assert.equal(s.seen.length, 1);
  });

  it('a non-Status error body still yields a clear error', async () => {
    const s = await serve((_q, res) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('bad gateway from the proxy');
    });
    const t = await transport(s, { retry: { maxBackoffRetries: 0 } });
    await assert.rejects(
      t.getJson({ path: '/apis' }),
      (e: unknown) => e instanceof KubeApiError && e.status === 502 && e.message === 'bad gateway from the proxy',
    );
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    assert.equal(parseRetryAfter('7'), 7);
    assert.equal(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1)), 10);
    assert.equal(parseRetryAfter('soon'), undefined);
    assert.equal(parseRetryAfter(undefined), undefined);
  });
});

describe('transport: retries', () => {
  it('honours Retry-After on 429 through the Clock, then succeeds', async () => {
    let n = 0;
    const s = await serve((_q, res) => (++n <= 2 ? status(res, 429, 'TooManyRequests', 'slow down', { 'retry-after': '3' }) : json(res, { ok: true })));
    const clock = new FakeClock();
    const t = await transport(s, { clock });
    const retries: number[] = [];
    const p = t.getJson<{ ok: boolean }>({ path: '/api/v1/pods', onRetry: (i) => retries.push(i.delayMs) });
    await eventually(() => clock.pendingTimers() === 1, { description: 'clock.pendingTimers() === 1' });
    await clock.advance(2999);
    assert.equal(s.seen.length, 1, 'no retry before Retry-After has passed');
    await clock.advance(1);
    await eventually(() => clock.pendingTimers() === 1 && s.seen.length === 2, { description: 'clock.pendingTimers() === 1 && s.seen.length === 2' });
    await clock.advance(3000);
    const r = await p;
    assert.deepEqual([r.body, r.retries, retries], [{ ok: true }, 2, [3000, 3000]]);
  });

  it('gives up after 10 Retry-After retries, as client-go does', async () => {
    const s = await serve((_q, res) => status(res, 503, 'ServiceUnavailable', 'busy', { 'retry-after': '0' }));
    const t = await transport(s);
    await assert.rejects(t.getJson({ path: '/api' }), (e: unknown) => e instanceof KubeApiError && e.status === 503 && e.retryAfterSeconds === 0);
    assert.equal(s.seen.length, 11);
  });

  it('backs off exponentially (with jitter) on 5xx without Retry-After, bounded', async () => {
    const s = await serve((_q, res) => status(res, 500, 'InternalError', 'etcd leader changed'));
    const clock = new FakeClock();
    const t = await transport(s, { clock, retry: { maxBackoffRetries: 3, backoffBaseMs: 100, random: () => 0 } });
    const delays: number[] = [];
    const p = t.getJson({ path: '/api', onRetry: (i) => delays.push(i.delayMs) });
    for (let i = 1; i <= 3; i++) {
      await eventually(() => s.seen.length === i && clock.pendingTimers() === 1, { description: 's.seen.length === i && clock.pendingTimers() === 1' });
      await clock.advance(1000);
    }
    await assert.rejects(p, (e: unknown) => e instanceof KubeApiError && e.status === 500);
    assert.deepEqual(delays, [50, 100, 200]); // ceiling 100, 200, 400; random 0 takes the lower half's edge
    assert.equal(s.seen.length, 4);
  });

  it('retries a reset connection and succeeds', async () => {
    let n = 0;
    const s = await serve((req, res) => (++n === 1 ? req.socket.destroy() : json(res, { ok: 1 })));
    const t = await transport(s, { retry: { backoffBaseMs: 1 } });
    const kinds: string[] = [];
    const r = await t.getJson({ path: '/api', onRetry: (i) => kinds.push((i.error as KubeTransportError).kind) });
    assert.deepEqual([r.retries, kinds], [1, ['reset']]);
  });

  it('a per-request timeout destroys the request and is reported as a timeout', async () => {
    const s = await serve(() => {}); // never answers
    const clock = new FakeClock();
    const t = await transport(s, { clock, requestTimeoutMs: 500, retry: { maxBackoffRetries: 0 } });
    const p = t.getJson({ path: '/api' });
    await eventually(() => s.seen.length === 1, { description: 's.seen.length === 1' });
    await clock.advance(500);
    await assert.rejects(p, (e: unknown) => e instanceof KubeTransportError && e.kind === 'timeout');
    await eventually(() => s.openSockets.size === 0, { description: 's.openSockets.size === 0' });
    assert.equal(clock.pendingTimers(), 0);
  });
});

describe('transport: cancellation and connections', () => {
  it('abort while the body is streaming rejects at once with the reason and closes the socket', async () => {
    let bodyStarted = false;
    const s = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":[', () => (bodyStarted = true)); // and never finishes
    });
    const t = await transport(s);
    const ac = new AbortController();
    const p = t.getJson({ path: '/api/v1/pods', signal: ac.signal });
    // The headers and the body's first bytes are on their way (handed to the socket) when it aborts.
    await eventually(() => s.seen.length === 1 && bodyStarted, { description: 'the server to have sent the headers and the first body bytes' });
    const reason = new Error('user pressed Ctrl-C');
    ac.abort(reason);
    await assert.rejects(p, (e) => e === reason);
    await eventually(() => s.closedSockets === 1, { description: 's.closedSockets === 1' });
    assert.equal(t.stats.inFlight, 0);
  });

  it('an aborted signal rejects before any request is sent', async () => {
    const s = await serve((_q, res) => json(res, {}));
    const t = await transport(s);
    const ac = new AbortController();
    ac.abort(new Error('already'));
    await assert.rejects(t.getJson({ path: '/api', signal: ac.signal }), /already/);
    assert.equal(s.seen.length, 0);
  });

  it('reuses one keep-alive connection for sequential requests, and close() ends it', async () => {
    const s = await serve((_q, res) => json(res, { ok: 1 }));
    const t = await transport(s);
    for (let i = 0; i < 20; i++) await t.getJson({ path: '/api' });
    assert.equal(s.connections, 1);
    t.close();
    await eventually(() => s.openSockets.size === 0, { description: 's.openSockets.size === 0' });
  });
});

describe('transport: authentication through client-node', () => {
  it('sends the bearer token over TLS; the token never appears in errors', async () => {
    const { s, cluster } = await serveTls((req, res) =>
      req.headers.authorization === 'Bearer s3cr3t-token' ? status(res, 401, 'Unauthorized', 'Unauthorized') : json(res, {}),
    );
    const t = await transport(s, {}, { token: 's3cr3t-token' }, cluster);
    await assert.rejects(t.getJson({ path: '/api' }), (e: unknown) => e instanceof KubeApiError && e.status === 401 && !e.message.includes('s3cr3t'));
    assert.equal(s.seen[0].headers.authorization, 'Bearer s3cr3t-token');
    assert.equal(s.seen.length, 2, 'one credential refresh and retry after a 401');
  });

  it('sends basic auth and impersonation headers', async () => {
    const { s, cluster } = await serveTls((_q, res) => json(res, {}));
    const t = await transport(s, {}, { username: 'admin', password: 'pw', as: 'jane' }, cluster);
    await t.getJson({ path: '/api' });
    assert.equal(s.seen[0].headers.authorization, 'Basic ' + b64('admin:pw'));
    assert.equal(s.seen[0].headers['impersonate-user'], 'jane');
  });

  it('runs an exec credential plugin and sends its token', async () => {
    const d = tempDir();
    const script = join(d.dir, 'cred.js');
    writeFileSync(
      script,
      `process.stdout.write(JSON.stringify({apiVersion:'client.authentication.k8s.io/v1',kind:'ExecCredential',status:{token:'from-exec',expirationTimestamp:'2099-01-01T00:00:00Z'}}))`,
    );
    const { s, cluster } = await serveTls((_q, res) => json(res, {}));
    const t = await transport(
      s,
      {},
      { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [script], interactiveMode: 'Never' } },
      cluster,
    );
    await t.getJson({ path: '/api' });
    await t.getJson({ path: '/api' });
    assert.deepEqual(
      s.seen.map((x) => x.headers.authorization),
      ['Bearer from-exec', 'Bearer from-exec'],
    );
    d.cleanup();
  });

  it('verifies the server against the kubeconfig CA and presents the client certificate', async () => {
    const pki = makePki();
    const s = await serve(
      (req, res) => {
        const cert = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
        json(res, { cn: cert?.subject?.CN });
      },
      { key: pki.serverKey, cert: pki.serverCert, ca: pki.ca, requestCert: true },
    );
    const t = await transport(
      s,
      {},
      { 'client-certificate-data': b64(pki.clientCert), 'client-key-data': b64(pki.clientKey) },
      { 'certificate-authority-data': b64(pki.ca) },
    );
    const r = await t.getJson<{ cn: string }>({ path: '/api' });
    assert.equal(r.body.cn, 'tester');
    // Without the CA the server is not trusted: a TLS failure, not retried.
    const untrusted = await transport(s, {}, { 'client-certificate-data': b64(pki.clientCert), 'client-key-data': b64(pki.clientKey) });
    await assert.rejects(untrusted.getJson({ path: '/api' }), (e: unknown) => e instanceof KubeTransportError && e.kind === 'tls');
    // insecure-skip-tls-verify accepts it.
    const insecure = await transport(
      s,
      {},
      { 'client-certificate-data': b64(pki.clientCert), 'client-key-data': b64(pki.clientKey) },
      { 'insecure-skip-tls-verify': true },
    );
    assert.equal((await insecure.getJson<{ cn: string }>({ path: '/api' })).body.cn, 'tester');
  });
});

describe('TokenBucket', () => {
  it('lets a burst through at once, then one request per 1/QPS, in call order', async () => {
    const clock = new FakeClock();
    const b = new TokenBucket(10, 3, clock);
    const at: number[] = [];
    const all = Array.from({ length: 6 }, () => b.take().then(() => at.push(clock.now())));
    await clock.advance(1000);
    await Promise.all(all);
    assert.deepEqual(at, [0, 0, 0, 100, 200, 300]);
    assert.equal(clock.pendingTimers(), 0);
  });

  it('an aborted wait rejects with the reason and gives its reservation back', async () => {
    const clock = new FakeClock();
    const b = new TokenBucket(1, 1, clock);
    await b.take();
    const ac = new AbortController();
    const waiting = b.take(ac.signal);
    ac.abort(new Error('cancel'));
    await assert.rejects(waiting, /cancel/);
    assert.equal(clock.pendingTimers(), 0);
    await clock.advance(1000);
    const t0 = clock.now();
    await b.take(); // the refilled token is there: no wait
    assert.equal(clock.now(), t0);
  });

  it('rejects nonsense settings', () => {
    const clock = new FakeClock();
    assert.throws(() => new TokenBucket(0, 1, clock), RangeError);
    assert.throws(() => new TokenBucket(5, 0, clock), RangeError);
    assert.throws(() => new TokenBucket(5, 1.5, clock), RangeError);
  });
});
