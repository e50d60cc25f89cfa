/**
 * Helpers for the kube-* unit tests: a real HTTP(S) server on loopback whose handler a test writes
 * (no mocked HTTP), kubeconfig files in a temp dir, and an openssl-made CA with server and client
 * certificates for the TLS / client-certificate tests.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { KubeClient, loadKubeContext } from '../../src/core/kube';
import type { ClientOptions } from '../../src/core/kube/client';

export interface TestServer {
  url: string;
  /** Every request seen: method, url, headers. */
  seen: { url: string; headers: http.IncomingHttpHeaders }[];
  connections: number;
  openSockets: Set<Socket>;
  /** Resolves when a socket closes (for abort tests). */
  closedSockets: number;
  close(): Promise<void>;
}

export async function startServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  tls?: { key: string; cert: string; ca?: string; requestCert?: boolean },
): Promise<TestServer> {
  const s: TestServer = { url: '', seen: [], connections: 0, openSockets: new Set(), closedSockets: 0, close: async () => {} };
  const wrapped = (req: http.IncomingMessage, res: http.ServerResponse) => {
    s.seen.push({ url: req.url ?? '', headers: req.headers });
    handler(req, res);
  };
  const server = tls
    ? https.createServer({ key: tls.key, cert: tls.cert, ca: tls.ca, requestCert: tls.requestCert, rejectUnauthorized: !!tls.requestCert }, wrapped)
    : http.createServer(wrapped);
  server.on(tls ? 'secureConnection' : 'connection', (sock: Socket) => {
    s.connections++;
    s.openSockets.add(sock);
    sock.on('close', () => {
      s.openSockets.delete(sock);
      s.closedSockets++;
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  s.url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  s.close = () =>
    new Promise<void>((r) => {
      for (const sock of s.openSockets) sock.destroy();
      server.close(() => r());
    });
  return s;
}

export function tempDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-kube-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A minimal kubeconfig with one context named `ctx` (more via extra YAML). */
export function kubeconfigYaml(server: string, user: Record<string, unknown> = {}, cluster: Record<string, unknown> = {}): string {
  const u = Object.entries(user)
    .map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`)
    .join('\n');
  const c = Object.entries(cluster)
    .map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`)
    .join('\n');
  return `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster:
    server: ${server}
${c}
contexts:
- name: ctx
  context:
    cluster: c1
    user: u1
current-context: ctx
users:
- name: u1
  user:
${u || '    {}'}
`;
}

/** A KubeContext for a server with the given user entry, via a real kubeconfig file. */
export function contextFor(server: string, user: Record<string, unknown> = {}, cluster: Record<string, unknown> = {}) {
  const t = tempDir();
  const file = join(t.dir, 'config');
  writeFileSync(file, kubeconfigYaml(server, user, cluster));
  try {
    return loadKubeContext({ kubeconfig: file });
  } finally {
    t.cleanup();
  }
}

export interface Pki {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/**
 * A self-signed P-256 CA valid for 2 days, its key and certificate written to `key` and `crt`
 * (openssl); `san` (e.g. `IP:127.0.0.1`) makes it fit to serve on that address too.
 */
export function opensslCa(key: string, crt: string, cn: string, san?: string): void {
  const args = [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    crt,
    '-days',
    '2',
    '-subj',
    `/CN=${cn}`,
    ...(san ? ['-addext', `subjectAltName=${san}`] : []),
  ];
  execFileSync('openssl', args, { stdio: 'pipe' });
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate (CN=tester), made by openssl. */
export function makePki(): Pki {
  const t = tempDir();
  const p = (n: string) => join(t.dir, n);
  const ossl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  try {
    opensslCa(p('ca.key'), p('ca.crt'), 'test-ca');
    for (const [name, subj, ext] of [
      ['server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1'],
      ['client', '/CN=tester', 'extendedKeyUsage=clientAuth'],
    ] as const) {
      ossl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', p(`${name}.key`), '-out', p(`${name}.csr`), '-subj', subj);
      writeFileSync(p(`${name}.ext`), ext + '\n');
      ossl(
        'x509',
        '-req',
        '-in',
        p(`${name}.csr`),
        '-CA',
        p('ca.crt'),
        '-CAkey',
        p('ca.key'),
        '-CAcreateserial',
        '-out',
        p(`${name}.crt`),
        '-days',
        '2',
        '-extfile',
        p(`${name}.ext`),
      );
    }
    const r = (n: string) => readFileSync(p(n), 'utf8');
    return { ca: r('ca.crt'), serverCert: r('server.crt'), serverKey: r('server.key'), clientCert: r('client.crt'), clientKey: r('client.key') };
  } finally {
    t.cleanup();
  }
}

export const b64 = (s: string) => Buffer.from(s).toString('base64');

let shared: Pki | undefined;
/** One PKI for every test of a process that only needs some TLS server (made once: openssl is slow). */
export function sharedPki(): Pki {
  return (shared ??= makePki());
}

/**
 * A real HTTPS server on loopback (sharedPki's server certificate) and the kubeconfig cluster entry
 * that trusts it: credentials are sent only over TLS (auth.ts), so a test of credentials needs one.
 */
export async function startTlsServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<{ server: TestServer; cluster: Record<string, unknown> }> {
  const pki = sharedPki();
  const server = await startServer(handler, { key: pki.serverKey, cert: pki.serverCert });
  return { server, cluster: { 'certificate-authority-data': b64(pki.ca) } };
}

export function status(res: http.ServerResponse, code: number, reason: string, message: string, headers: Record<string, string> = {}, details?: object): void {
  res.writeHead(code, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code, details }));
}

export function json(res: http.ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export type ListFault = 'none' | 'throttle' | 'reset' | 'hang' | 'gone' | 'forbidden';

/**
 * A paged pod list of `n` pods named `${prefix}0`...; `fault(k)` decides what the k-th continuation
 * request (1-based) gets, once: an answer, a 429, a reset mid-page, a hang, a 410 or a 403.
 */
export function pagedPodList(n: number, fault: (k: number) => ListFault = () => 'none', prefix = 'p') {
  const items = Array.from({ length: n }, (_, i) => ({
    metadata: { name: `${prefix}${i}`, namespace: 'ns', uid: `${prefix}u${i}` },
    spec: { nodeName: `node-${i % 3}` },
  }));
  let continuations = 0;
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const q = new URL(req.url!, 'http://x').searchParams;
    let start = 0;
    if (q.get('continue')) {
      const k = ++continuations;
      const f = fault(k);
      if (f === 'throttle') return status(res, 429, 'TooManyRequests', 'slow down', { 'retry-after': '0' });
      if (f === 'gone') return status(res, 410, 'Expired', 'The provided continue parameter is too old to display a consistent list result.');
      if (f === 'forbidden') return status(res, 403, 'Forbidden', 'pods is forbidden');
      if (f === 'hang') return void res.writeHead(200, { 'content-type': 'application/json' });
      start = Number(q.get('continue'));
      if (f === 'reset') {
        res.writeHead(200, { 'content-type': 'application/json' });
        // reset once the partial page has been handed to the socket
        return void res.write('{"kind":"PodList","metadata":{', () => req.socket.destroy());
      }
    }
    const limit = Number(q.get('limit') ?? 0) || n;
    const next = start + limit;
    const body = JSON.stringify({
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '42', continue: next < n && q.get('limit') ? String(next) : undefined },
      items: items.slice(start, next),
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
}

/**
 * A file's way to get a real server and a client connected to it: each call starts a server with
 * `handler` and connects a client with `base` options (and `extra`); every server and client made is
 * closed after the file's tests. Call once at the top of a test file.
 */
export function serverAndClient(base: ClientOptions) {
  const servers: TestServer[] = [];
  const clients: KubeClient[] = [];
  after(async () => {
    clients.forEach((c) => c.close());
    await Promise.all(servers.map((s) => s.close()));
  });
  return async (handler: (req: http.IncomingMessage, res: http.ServerResponse) => void, extra: ClientOptions = {}) => {
    const s = await startServer(handler);
    servers.push(s);
    const c = await KubeClient.connect(contextFor(s.url), { ...base, ...extra });
    clients.push(c);
    return { s, c };
  };
}
