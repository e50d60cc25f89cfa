/**
 * A host that replaces Node's http.request / https.request, as VS Code's extension host does for
 * its proxy support (`http.proxySupport` "override", the default): each request is given an agent
 * of the host's, made per request and without keep-alive. Requests of the transport go through
 * their own agent regardless (agentRequest.ts): a run of requests shares one kept-alive connection,
 * where through the host's functions each would open (and TLS-handshake) a connection of its own.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { KubeClient } from '../../src/core/kube';
import { b64, contextFor, makePki, pagedPodList, startServer, type TestServer } from './kube-helpers';

const pods = { group: '', version: 'v1', resource: 'pods' };
const servers: TestServer[] = [];
const clients: KubeClient[] = [];

// The modules' CommonJS exports, the objects a host patches (ES module namespaces are read-only views of them).
const load = createRequire(`${process.cwd()}/`);
const http = load('node:http') as typeof import('node:http');
const https = load('node:https') as typeof import('node:https');

/** Calls that reached the host's replacement functions. */
let hostCalls = 0;
const originals = { http: http.request, https: https.request };

type RequestFn = typeof import('node:http').request;
/** Like the host's patch: the caller's agent is replaced by a fresh one without keep-alive, its TLS material and the rest passed on. */
function hostPatched(original: RequestFn, AgentClass: typeof import('node:http').Agent): RequestFn {
  return function patched(this: unknown, ...args: unknown[]) {
    hostCalls++;
    const at = args.findIndex((a) => a !== null && typeof a === 'object' && !(a instanceof URL));
    const given = (at >= 0 ? args[at] : {}) as import('node:http').RequestOptions & { agent?: import('node:http').Agent & { options?: object } };
    // The agent's TLS material stays (VS Code passes the caller's CA on); the agent does not.
    const tls = (given.agent?.options ?? {}) as Record<string, unknown>;
    const keep = Object.fromEntries(['ca', 'cert', 'key', 'secureContext', 'rejectUnauthorized'].filter((k) => tls[k] !== undefined).map((k) => [k, tls[k]]));
    const options = { ...keep, ...given, agent: new AgentClass({ keepAlive: false }) };
    if (at >= 0) args[at] = options;
    else args.splice(typeof args[0] === 'function' ? 0 : 1, 0, options);
    return (original as (...a: unknown[]) => import('node:http').ClientRequest).apply(this, args);
  } as RequestFn;
}

before(() => {
  Object.assign(http, { request: hostPatched(originals.http, http.Agent) });
  Object.assign(https, { request: hostPatched(originals.https, https.Agent) });
  syncBuiltinESMExports(); // importers of the ES modules see the replacements too
});
after(async () => {
  Object.assign(http, { request: originals.http });
  Object.assign(https, { request: originals.https });
  syncBuiltinESMExports();
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});

describe('requests in a host that replaces http.request / https.request', () => {
  it('a paged list over TLS on the calling thread keeps one connection for all its pages', async () => {
    const pki = makePki();
    const s = await startServer(pagedPodList(60), { key: pki.serverKey, cert: pki.serverCert });
    servers.push(s);
    const c = await KubeClient.connect(contextFor(s.url, {}, { 'certificate-authority-data': b64(pki.ca) }), { qps: 0, ioThread: false });
    clients.push(c);
    const before = hostCalls;
    const r = await c.list(pods, { limit: 5, pipeline: false });
    assert.equal(r.items.length, 60);
    assert.equal(s.seen.length, 12, `twelve pages: ${s.seen.length} requests`);
    assert.equal(s.connections, 1, `${s.seen.length} requests took ${s.connections} connections (${hostCalls - before} went through the host's functions)`);
  });

  it('plain HTTP: a run of requests shares one connection too', async () => {
    const s = await startServer(pagedPodList(3));
    servers.push(s);
    const c = await KubeClient.connect(contextFor(s.url), { qps: 0, ioThread: false });
    clients.push(c);
    for (let i = 0; i < 8; i++) assert.equal((await c.list(pods, {})).items.length, 3);
    assert.equal(s.connections, 1, `8 requests took ${s.connections} connections`);
  });
});
