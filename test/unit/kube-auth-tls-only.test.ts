/**
 * Credentials only over TLS, as kubectl: clientcmd reads a user's credentials only for an https://
 * server. A real plain-HTTP server on loopback sees no Authorization header for a token, a
 * token-file, basic auth or an exec plugin (which is not even run), while impersonation headers
 * still go; one line says so, naming the context and the kinds of credential, never a secret.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeTransport } from '../../src/core/kube';
import { credentialsWithheld } from '../../src/core/kube/transport/auth';
import { Connections } from '../../src/app/connection/connection';
import { runLoad } from '../../src/cli/load';
import { capture } from '../support/capture';
import { contextFor, json, kubeconfigYaml, startServer, tempDir, type TestServer } from './kube-helpers';

const servers: TestServer[] = [];
const transports: KubeTransport[] = [];
const dir = tempDir();
after(async () => {
  transports.forEach((t) => t.close());
  await Promise.all(servers.map((s) => s.close()));
  dir.cleanup();
});

/** A minimal API server: discovery of one type (pods) and an empty list of it. */
async function plainServer() {
  const s = await startServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (path === '/api') return json(res, { kind: 'APIVersions', versions: ['v1'] });
    if (path === '/apis') return json(res, { kind: 'APIGroupList', apiVersion: 'v1', groups: [] });
    if (path === '/api/v1')
      return json(res, { kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'pods', namespaced: true, kind: 'Pod', verbs: ['list', 'watch'] }] });
    if (path === '/api/v1/pods') return json(res, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] });
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}');
  });
  servers.push(s);
  return s;
}

describe('credentials only over TLS', () => {
  it('an http:// server gets no token, token-file, basic auth or exec credential; impersonation still goes', async () => {
    const s = await plainServer();
    const marker = join(dir.dir, 'plugin-ran');
    const plugin = join(dir.dir, 'cred.js');
    writeFileSync(
      plugin,
      `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran'); process.stdout.write(JSON.stringify({apiVersion:'client.authentication.k8s.io/v1',kind:'ExecCredential',status:{token:'exec-s3cret'}}))`,
    );
    const tokenFile = join(dir.dir, 'token');
    writeFileSync(tokenFile, 'file-s3cret\n');
    const users: [string, Record<string, unknown>][] = [
      ['token', { token: 'tok-s3cret', as: 'jane' }],
      ['token-file', { 'token-file': tokenFile, as: 'jane' }],
      ['basic auth', { username: 'admin', password: 'pw-s3cret', as: 'jane' }],
      [
        'exec plugin',
        { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [plugin], interactiveMode: 'Never' }, as: 'jane' },
      ],
    ];
    for (const [kind, user] of users) {
      const ctx = contextFor(s.url, user);
      const t = await KubeTransport.create(ctx, { qps: 0 });
      transports.push(t);
      const before = s.seen.length;
      await t.getJson({ path: '/api' });
      const seen = s.seen.slice(before);
      assert.deepEqual(
        seen.map((x) => [x.headers.authorization, x.headers['impersonate-user']]),
        [[undefined, 'jane']],
        kind,
      );
      const line = credentialsWithheld(ctx);
      assert.ok(line, kind);
      assert.match(line, new RegExp(`^context "ctx": credentials not sent \\(${kind}\\): the server http://127\\.0\\.0\\.1:\\d+ is not https://`));
      assert.ok(!/s3cret|pw-/.test(line), line);
    }
    assert.equal(existsSync(marker), false, 'the exec plugin was not run');
  });

  it('nothing is said for an https:// server or a context without credentials', () => {
    assert.equal(credentialsWithheld(contextFor('https://127.0.0.1:1', { token: 't' })), undefined);
    assert.equal(credentialsWithheld(contextFor('http://127.0.0.1:1', { as: 'jane' })), undefined);
  });

  it('the CLI and the extension say it once per context', async () => {
    const s = await plainServer();
    const kubeconfig = join(dir.dir, 'kubeconfig');
    writeFileSync(kubeconfig, kubeconfigYaml(s.url, { token: 'tok-s3cret' }));
    const c = capture();
    assert.equal(await runLoad(['--kubeconfig', kubeconfig, '--no-discovery-cache'], c.io), 0, c.err);
    assert.equal(c.err.match(/credentials not sent/g)?.length, 1, c.err);
    assert.ok(!(c.out + c.err).includes('s3cret'));
    assert.ok(s.seen.every((x) => x.headers.authorization === undefined));

    const warned: string[] = [];
    const conns = new Connections(() => ({ requestTimeoutMs: 5000 }), { warn: (m) => warned.push(m) });
    try {
      await conns.get({ kubeconfig });
      await conns.get({ kubeconfig });
      conns.close(); // reopened (a reload, a namespace change): said once per context, not per connection
      await conns.get({ kubeconfig });
      assert.equal(warned.length, 1, warned.join('\n'));
      assert.match(warned[0]!, /context "ctx": credentials not sent \(token\)/);
    } finally {
      conns.close();
    }
  });
});
