/**
 * The review requests (src/core/kube/access/selfSubject.ts) over the transport's postJson, against a real HTTP
 * server on loopback: what is sent (POST, JSON body, the user's credentials), how answers are read,
 * that 429 with Retry-After is retried and a 4xx is not, and that an abort ends the request at once.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import { FakeClock } from '../../src/core/clock';
import { KubeApiError, KubeTransport, selfSubjectAccessReview, selfSubjectRulesReview, whoAmI } from '../../src/core/kube';
import { contextFor, startTlsServer, status, type TestServer } from './kube-helpers';
import { eventually } from '../support/eventually';

const servers: TestServer[] = [];
const transports: KubeTransport[] = [];
after(async () => {
  transports.forEach((t) => t.close());
  await Promise.all(servers.map((s) => s.close()));
});

function body(req: IncomingMessage): Promise<any> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
  });
}

async function setup(handler: Parameters<typeof startTlsServer>[0], clock?: FakeClock, extra: { disableCompression?: boolean } = {}) {
  // TLS: the token is sent only to an https:// server (auth.ts)
  const { server: s, cluster } = await startTlsServer(handler);
  servers.push(s);
  const t = await KubeTransport.create(contextFor(s.url, { token: 'tok-123' }, cluster), { qps: 0, ...(clock ? { clock } : {}), ...extra });
  transports.push(t);
  return { s, t };
}

const created = (res: import('node:http').ServerResponse, doc: unknown) => {
  res.writeHead(201, { 'content-type': 'application/json' });
  res.end(JSON.stringify(doc));
};

describe('access reviews', () => {
  it('SelfSubjectAccessReview: POSTs the attributes with the credentials, reads status.allowed; the cluster scope sends no namespace', async () => {
    const sent: { method?: string; url?: string; auth?: string; type?: string; doc: any }[] = [];
    const { t } = await setup(async (req, res) => {
      const doc = await body(req);
      sent.push({ method: req.method, url: req.url, auth: req.headers.authorization, type: req.headers['content-type'], doc });
      created(res, { ...doc, status: { allowed: doc.spec.resourceAttributes.namespace === 'team-a' } });
    });
    const inNs = await selfSubjectAccessReview(t, { verb: 'list', group: '', resource: 'configmaps', namespace: 'team-a' });
    const across = await selfSubjectAccessReview(t, { verb: 'list', group: '*', resource: '*' });
    assert.deepEqual([inNs.allowed, across.allowed], [true, false]);
    assert.deepEqual(
      sent.map((x) => [x.method, x.url, x.auth, x.type]),
      [
        ['POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', 'Bearer tok-123', 'application/json'],
        ['POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', 'Bearer tok-123', 'application/json'],
      ],
    );
    assert.deepEqual(sent[1]!.doc, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'list', group: '*', resource: '*' } },
    });
  });

  it('SelfSubjectRulesReview: rules with missing lists read as empty; incomplete and evaluationError kept; a 400 is a KubeApiError, not retried', async () => {
    let calls = 0;
    const { t } = await setup(async (req, res) => {
      calls++;
      const doc = await body(req);
      if (!doc.spec.namespace) return status(res, 400, 'BadRequest', 'no namespace on request');
      created(res, {
        ...doc,
        status: {
          resourceRules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'] }],
          nonResourceRules: [],
          incomplete: true,
          evaluationError: 'webhook',
        },
      });
    });
    const r = await selfSubjectRulesReview(t, 'team-a');
    assert.deepEqual(r, {
      namespace: 'team-a',
      resourceRules: [
        { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: [] },
        { verbs: ['get'], apiGroups: [], resources: [], resourceNames: [] },
      ],
      incomplete: true,
      evaluationError: 'webhook',
    });
    await assert.rejects(
      selfSubjectRulesReview(t, ''),
      (e: unknown) => e instanceof KubeApiError && e.status === 400 && e.message === 'no namespace on request',
    );
    assert.equal(calls, 2, 'the 400 was not retried');
  });

  it('a gzip answer (the transport asks for gzip) is inflated and counted as wire and decoded bytes', async () => {
    let asked: string | undefined;
    const { t } = await setup(
      async (req, res) => {
        const doc = await body(req);
        asked = req.headers['accept-encoding'] as string | undefined;
        // Rules long enough that a server above its compression threshold would gzip them.
        const rules = Array.from({ length: 2000 }, (_, i) => ({ verbs: ['list'], apiGroups: [''], resources: [`r${i}`] }));
        const raw = Buffer.from(JSON.stringify({ ...doc, status: { resourceRules: rules, nonResourceRules: [], incomplete: false } }));
        const gz = gzipSync(raw);
        res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(gz.length) });
        res.end(gz);
      },
      undefined,
      { disableCompression: false },
    );
    const before = { ...t.stats };
    const r = await selfSubjectRulesReview(t, 'team-a');
    assert.equal(asked, 'gzip');
    assert.equal(r.resourceRules.length, 2000);
    assert.equal(r.resourceRules[1999]!.resources[0], 'r1999');
    assert.equal(t.stats.gzipResponses - before.gzipResponses, 1);
    assert.ok(t.stats.wireBytes - before.wireBytes < t.stats.bytesReceived - before.bytesReceived, 'fewer bytes on the wire than decoded');
  });

  it('429 with Retry-After is waited out (on the clock) and retried; whoAmI reads the user name and says undefined on a failure', async () => {
    const clock = new FakeClock();
    let n = 0;
    const { t } = await setup(async (req, res) => {
      const doc = await body(req);
      if (req.url!.includes('selfsubjectreviews') && n++ === 0) return status(res, 429, 'TooManyRequests', 'slow down', { 'Retry-After': '2' });
      if (req.url!.includes('selfsubjectreviews')) return created(res, { ...doc, status: { userInfo: { username: 'alice' } } });
      status(res, 404, 'NotFound', 'the server could not find the requested resource');
    }, clock);
    const who = whoAmI(t);
    await eventually(() => clock.pendingTimers() === 1, { description: 'clock.pendingTimers() === 1' }); // the 429 arrived: the Retry-After wait is on the clock
    await clock.advance(2000);
    assert.equal(await who, 'alice');
    assert.equal(n, 2);
    const t2 = (await setup((_req, res) => status(res, 404, 'NotFound', 'no such API'))).t;
    assert.equal(await whoAmI(t2), undefined);
  });

  it('an abort ends a review that gets no answer at once, and its socket is closed', async () => {
    const { s, t } = await setup(() => {
      // never answers
    });
    const ac = new AbortController();
    const p = selfSubjectRulesReview(t, 'team-a', ac.signal);
    await eventually(() => s.seen.length === 1, { description: 's.seen.length === 1' });
    const reason = new Error('stop');
    ac.abort(reason);
    await assert.rejects(p, (e: unknown) => e === reason);
    await eventually(() => s.openSockets.size === 0, { description: 's.openSockets.size === 0' });
    assert.equal(t.stats.inFlight, 0);
  });
});
