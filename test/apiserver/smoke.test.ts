// Smoke test of the real control plane harness: TLS with the generated CA,
// token auth, RBAC, and a create/list round trip through etcd.
// Run: node --import tsx --test test/apiserver/smoke.test.ts
// (the first run builds kube-apiserver from source: allow ~10-20 minutes).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as https from 'node:https';
import { startControlPlane } from '../../lab/controlplane';

interface Res {
  status: number;
  json: any; // parsed Kubernetes JSON; shape checked by the asserts
}

function call(server: string, ca: Buffer, token: string, method: string, p: string, body?: unknown): Promise<Res> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      `${server}${p}`,
      {
        method,
        ca, // real verification: no rejectUnauthorized:false here
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
          ...(data ? { 'Content-Type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

test('real kube-apiserver + etcd on loopback', { timeout: 30 * 60_000 }, async (t) => {
  const cp = await startControlPlane({
    extraUsers: [{ name: 'nobody', token: 'nobody-token-123', groups: ['kubeloop:testers'] }],
  });
  t.after(() => cp.stop());

  // The CA comes from the kubeconfig, as any client (kubectl, client-node) would read it.
  const kubeconfig = fs.readFileSync(cp.kubeconfigPath, 'utf8');
  const caPath = /certificate-authority: "(.+)"/.exec(kubeconfig)?.[1];
  assert.ok(caPath, `kubeconfig has no certificate-authority:\n${kubeconfig}`);
  const ca = fs.readFileSync(caPath);
  const admin = (method: string, p: string, body?: unknown): Promise<Res> => call(cp.server, ca, cp.adminToken, method, p, body);

  const version = await admin('GET', '/version');
  assert.equal(version.status, 200);
  assert.match(version.json.gitVersion, /^v1\.\d+\.\d+/);
  t.diagnostic(`server ${cp.server} version ${version.json.gitVersion}`);

  const namespaces = await admin('GET', '/api/v1/namespaces');
  assert.equal(namespaces.status, 200);
  const names = namespaces.json.items.map((n: { metadata: { name: string } }) => n.metadata.name);
  assert.ok(names.includes('default'), `namespaces: ${names}`);

  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'smoke' }, data: { hello: 'world' } };
  const created = await admin('POST', '/api/v1/namespaces/default/configmaps', cm);
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const listed = await admin('GET', '/api/v1/namespaces/default/configmaps');
  assert.equal(listed.status, 200);
  const smoke = listed.json.items.find((c: { metadata: { name: string } }) => c.metadata.name === 'smoke');
  assert.deepEqual(smoke?.data, { hello: 'world' });

  // Authenticated but bound to nothing: RBAC must say 403 (not 401).
  const denied = await call(cp.server, ca, cp.tokens.nobody, 'GET', '/api/v1/namespaces/default/secrets');
  assert.equal(denied.status, 403, JSON.stringify(denied.json));

  await cp.stop();
  assert.equal(fs.existsSync(cp.dir), false, 'stop() removes the temp dir');
  await cp.stop(); // idempotent
});
