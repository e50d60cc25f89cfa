/**
 * Facts the client relies on, checked against a real kube-apiserver v1.36 + etcd, through our own
 * transport (KubeClient) where it matters:
 * - core v1 events and events.events.k8s.io are the same objects (one storage), so the loader
 *   loads one of them;
 * - a custom resource's list is encoded with sorted keys (apiVersion, items, kind, metadata), and
 *   the I/O thread still walks every page of it;
 * - impersonation from the kubeconfig (as, as-groups, as-uid, as-user-extra) arrives whole: the
 *   server sees the impersonated identity (SelfSubjectReview) and a 403 names the impersonated user.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import { join } from 'node:path';
import { KubeApiError, KubeClient, loadKubeContext } from '../../src/core/kube';
import { ClusterLoader } from '../../src/core/loader';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { Api, createCrd } from './support';

describe('real kube-apiserver: events, custom-resource lists, impersonation', () => {
  let cp: ControlPlane;
  let api: Api;
  const clients: KubeClient[] = [];
  before(async () => {
    cp = await startControlPlane();
    api = Api.admin(cp);
  });
  after(async () => {
    clients.forEach((c) => c.close());
    await cp?.stop();
  });
  const connect = async (file = cp.kubeconfigPath) => {
    const c = await KubeClient.connect(loadKubeContext({ kubeconfig: file }));
    clients.push(c);
    return c;
  };

  it('core v1 events and events.events.k8s.io list the same objects; the loader loads core events only', async () => {
    for (let i = 0; i < 3; i++) {
      await api.must('POST', '/api/v1/namespaces/default/events', {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `ev-${i}`, namespace: 'default' },
        involvedObject: { kind: 'Pod', name: `p-${i}`, namespace: 'default' },
        reason: 'Tested',
        message: `event ${i}`,
        type: 'Normal',
        firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        count: 1,
        source: { component: 'kubeloop-test' },
      });
    }
    const c = await connect();
    const core = await c.list({ group: '', version: 'v1', resource: 'events' }, { namespace: 'default' });
    const v1 = await c.list({ group: 'events.k8s.io', version: 'v1', resource: 'events' }, { namespace: 'default' });
    const uids = (l: typeof core) => l.items.map((o) => o.metadata.uid).sort();
    assert.ok(core.items.length >= 3);
    assert.deepEqual(uids(v1), uids(core), 'one storage, two APIs');
    const { summary, results } = await new ClusterLoader(c, { include: ['events', 'events.events.k8s.io', 'configmaps'], exclude: ['configmaps'] }).load();
    assert.equal(results.length, 2, 'both when both are named');
    assert.deepEqual(summary.skippedTypes, []);
    const byDefault = await new ClusterLoader(c, { exclude: ['secrets'] }).load();
    assert.deepEqual(
      byDefault.summary.skippedTypes.map((s) => `${s.resource}.${s.group}`),
      ['events.events.k8s.io'],
    );
    assert.ok(!byDefault.results.some((r) => r.task.gvr.group === 'events.k8s.io'));
  });

  it('a custom resource list puts items before metadata; every page is still walked by the I/O thread', async () => {
    await createCrd(api, { group: 'correct.kubeloop.io', kind: 'Thing', plural: 'things', scope: 'Namespaced' });
    for (let i = 0; i < 45; i++) {
      await api.must('POST', '/apis/correct.kubeloop.io/v1/namespaces/default/things', {
        apiVersion: 'correct.kubeloop.io/v1',
        kind: 'Thing',
        metadata: { name: `t-${String(i).padStart(2, '0')}` },
        spec: { i },
      });
    }
    const raw = await api.request('GET', '/apis/correct.kubeloop.io/v1/namespaces/default/things?limit=5');
    assert.deepEqual(Object.keys(JSON.parse(raw.text)), ['apiVersion', 'items', 'kind', 'metadata']);
    const typed = await api.request('GET', '/api/v1/namespaces?limit=1');
    assert.deepEqual(Object.keys(JSON.parse(typed.text)), ['kind', 'apiVersion', 'metadata', 'items']);
    const c = await connect();
    const before = c.transport.stats.streamedPages;
    const r = await c.list({ group: 'correct.kubeloop.io', version: 'v1', resource: 'things' }, { limit: 5 });
    assert.equal(r.items.length, 45);
    assert.equal(r.pages, 9);
    assert.equal(c.transport.stats.streamedPages - before, 9, 'every page through the I/O thread');
  });

  it('impersonation from the kubeconfig arrives whole; a 403 names the impersonated user', async () => {
    const file = join(cp.dir, 'kubeconfig-impersonating');
    const q = JSON.stringify;
    writeFileSync(
      file,
      `apiVersion: v1
kind: Config
clusters:
- name: kubeloop
  cluster: { server: ${q(cp.server)}, certificate-authority: ${q(cp.caFile)} }
users:
- name: admin-as-jane
  user:
    token: ${q(cp.adminToken)}
    as: jane
    as-uid: uid-42
    as-groups: [dev, ops]
    as-user-extra: { scopes: [read, write] }
contexts:
- name: jane
  context: { cluster: kubeloop, user: admin-as-jane }
current-context: jane
`,
      { mode: 0o600 },
    );
    const c = await connect(file);
    await assert.rejects(c.list({ group: '', version: 'v1', resource: 'secrets' }), (e: unknown) => {
      assert.ok(e instanceof KubeApiError && e.status === 403, String(e));
      assert.match(e.message, /User "jane" cannot list resource "secrets"/);
      return true;
    });
    // What the server made of the headers our auth sends (a create the transport cannot make, sent
    // with exactly those headers): the identity `kubectl auth whoami` would show.
    const auth = (c.transport as unknown as { auth: { headers(): Promise<Record<string, string | string[]>> } }).auth;
    const review = await post(
      cp,
      '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      await auth.headers(),
    );
    assert.equal(review.status.userInfo.username, 'jane');
    assert.equal(review.status.userInfo.uid, 'uid-42');
    assert.deepEqual(
      review.status.userInfo.groups.filter((g: string) => g !== 'system:authenticated'),
      ['dev', 'ops'],
    );
    assert.deepEqual(review.status.userInfo.extra, { scopes: ['read', 'write'] });
  });
});

/** A POST with the given headers (lists sent as one header line per value), over TLS verified against the cluster CA. */
function post(cp: ControlPlane, p: string, body: unknown, headers: Record<string, string | string[]>): Promise<any> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${cp.server}${p}`,
      {
        method: 'POST',
        ca: readFileSync(cp.caFile),
        headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(data)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (x: Buffer) => chunks.push(x));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 201) reject(new Error(`POST ${p}: ${res.statusCode} ${text}`));
          else resolve(JSON.parse(text));
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}
