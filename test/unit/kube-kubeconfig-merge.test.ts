/**
 * KUBECONFIG with several files, merged as kubectl (client-go's clientcmd loading rules) merges
 * them, with relative paths resolved against the folder of the file that holds them; and the
 * cluster's TLS settings kept for a context without a user, over a real TLS server.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { KubeClient, KubeConfigError, KubeTransport, listContextNames, loadKubeContext } from '../../src/core/kube';
import { listContexts, loadContext } from '../../src/app/connection/connection';
import { b64, json, makePki, opensslCa, startServer, tempDir, type TestServer } from './kube-helpers';

const t = tempDir();
const servers: TestServer[] = [];
const transports: KubeTransport[] = [];
const clients: KubeClient[] = [];
after(async () => {
  transports.forEach((x) => x.close());
  clients.forEach((x) => x.close());
  await Promise.all(servers.map((s) => s.close()));
  t.cleanup();
});
const write = (rel: string, text: string) => {
  const p = join(t.dir, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
};

describe('KUBECONFIG merging (clientcmd)', () => {
  const first = write(
    'one/config',
    `apiVersion: v1
kind: Config
preferences:
  colors: true
clusters:
- name: shared
  cluster: { server: "https://first.example", certificate-authority: certs/ca.crt }
users:
- name: shared-user
  user: { token-file: secrets/token }
- name: exec-user
  user:
    exec: { apiVersion: client.authentication.k8s.io/v1, command: ./bin/cred, interactiveMode: Never }
- name: path-user
  user:
    exec: { apiVersion: client.authentication.k8s.io/v1, command: cred-helper, interactiveMode: Never }
contexts:
- name: shared-ctx
  context: { cluster: shared, user: shared-user, namespace: from-first }
`,
  );
  write('one/secrets/token', 'token-from-one\n');
  const second = write(
    'two/config',
    `apiVersion: v1
kind: Config
current-context: second-ctx
preferences:
  colors: false
  extensions:
  - name: ext-a
    extension: { x: 1 }
clusters:
- name: shared
  cluster: { server: "https://second.example", insecure-skip-tls-verify: true }
- name: only-second
  cluster: { server: "https://only-second.example", certificate-authority: ca/other.crt }
users:
- name: shared-user
  user: { token: token-from-two }
- name: second-user
  user: { client-certificate: keys/client.crt, client-key: keys/client.key }
contexts:
- name: shared-ctx
  context: { cluster: only-second, user: second-user }
- name: second-ctx
  context: { cluster: only-second, user: second-user }
`,
  );
  const third = write(
    'three/config',
    `current-context: third-ctx\nclusters:\n- name: c3\n  cluster: { server: "https://third.example" }\ncontexts:\n- name: third-ctx\n  context: { cluster: c3 }\n`,
  );
  const env = { KUBECONFIG: [first, join(t.dir, 'missing'), second, third].join(delimiter) };

  it('each name is won whole by the first file that defines it; current-context by the first that sets one', () => {
    const ctx = loadKubeContext({ env, context: 'shared-ctx' });
    assert.equal(ctx.server, 'https://first.example', 'the first file\'s cluster "shared"');
    assert.equal(ctx.cluster.skipTLSVerify, false, "the second file's entry is not merged into it field by field");
    assert.equal(ctx.namespace, 'from-first');
    assert.equal(ctx.user?.token?.trim(), 'token-from-one', "the first file's user, its token-file read");
    assert.deepEqual(listContextNames({ env }), { names: ['shared-ctx', 'second-ctx', 'third-ctx'], current: 'second-ctx' });
    assert.equal(loadKubeContext({ env }).name, 'second-ctx');
  });

  it('the extension resolves a target through the same loader (process KUBECONFIG, same merge and paths)', () => {
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = env.KUBECONFIG;
    try {
      assert.deepEqual(listContexts({}), listContextNames({ env }));
      const viaExtension = loadContext({ context: 'second-ctx' });
      assert.equal(viaExtension.server, 'https://only-second.example');
      assert.equal(viaExtension.cluster.caFile, join(t.dir, 'two', 'ca', 'other.crt'));
      assert.equal(loadContext({ context: 'shared-ctx' }).user?.token?.trim(), 'token-from-one');
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  });

  it('preferences: each field from the first file that sets it, extensions by name', () => {
    const ctx = loadKubeContext({ env });
    assert.equal(ctx.preferences.colors, true);
    assert.deepEqual(ctx.preferences.extensions, [{ name: 'ext-a', extension: { x: 1 } }]);
  });

  it('relative paths are resolved against the folder of the file that holds them, not the working directory', () => {
    const one = loadKubeContext({ env, context: 'shared-ctx' });
    assert.equal(one.cluster.caFile, join(t.dir, 'one', 'certs', 'ca.crt'));
    const two = loadKubeContext({ env, context: 'second-ctx' });
    assert.equal(two.cluster.caFile, join(t.dir, 'two', 'ca', 'other.crt'));
    assert.equal(two.user?.certFile, join(t.dir, 'two', 'keys', 'client.crt'));
    assert.equal(two.user?.keyFile, join(t.dir, 'two', 'keys', 'client.key'));
  });

  it("an exec command with a path separator is resolved against its file's folder; a bare name is left for PATH", () => {
    const extra = write(
      'one/extra',
      `contexts:\n- name: e\n  context: { cluster: shared, user: exec-user }\n- name: p\n  context: { cluster: shared, user: path-user }\n`,
    );
    const e = { KUBECONFIG: [extra, first].join(delimiter) };
    assert.equal(loadKubeContext({ env: e, context: 'e' }).exec?.command, join(t.dir, 'one', 'bin', 'cred'));
    assert.equal(loadKubeContext({ env: e, context: 'p' }).exec?.command, 'cred-helper');
  });

  it('exec entries are checked as client-go checks them: apiVersion, v1 needs interactiveMode, v1beta1 defaults it', () => {
    const f = write(
      'execcheck/config',
      `clusters:\n- name: c\n  cluster: { server: "https://x.example" }\nusers:
- name: v1-no-mode\n  user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: cred } }
- name: beta\n  user: { exec: { apiVersion: client.authentication.k8s.io/v1beta1, command: cred, provideClusterInfo: true, env: [{ name: A, value: b }] } }
- name: alpha\n  user: { exec: { apiVersion: client.authentication.k8s.io/v1alpha1, command: cred } }
contexts:\n- name: v1-no-mode\n  context: { cluster: c, user: v1-no-mode }\n- name: beta\n  context: { cluster: c, user: beta }\n- name: alpha\n  context: { cluster: c, user: alpha }\n`,
    );
    assert.throws(
      () => loadKubeContext({ kubeconfig: f, context: 'v1-no-mode' }),
      (err: unknown) => err instanceof KubeConfigError && /interactiveMode must be Never, IfAvailable or Always \(v1 requires it\)/.test(err.message),
    );
    assert.throws(
      () => loadKubeContext({ kubeconfig: f, context: 'alpha' }),
      (err: unknown) => err instanceof KubeConfigError && /v1alpha1" is not supported/.test(err.message),
    );
    const beta = loadKubeContext({ kubeconfig: f, context: 'beta' }).exec;
    assert.deepEqual([beta?.interactiveMode, beta?.provideClusterInfo, beta?.env], ['IfAvailable', true, [{ name: 'A', value: 'b' }]]);
  });

  it('as-uid, as-groups and as-user-extra are read with as; without as they are refused, never dropped', () => {
    const f = write(
      'imp/config',
      `clusters:\n- name: c\n  cluster: { server: "https://x.example" }\nusers:\n- name: u\n  user: { token: t, as: jane, as-uid: "42", as-groups: [dev, ops], as-user-extra: { scopes: [a, b] } }\n- name: v\n  user: { token: t, as-groups: [dev] }\ncontexts:\n- name: u\n  context: { cluster: c, user: u }\n- name: v\n  context: { cluster: c, user: v }\n`,
    );
    assert.deepEqual(loadKubeContext({ kubeconfig: f, context: 'u' }).impersonate, {
      user: 'jane',
      uid: '42',
      groups: ['dev', 'ops'],
      extra: { scopes: ['a', 'b'] },
    });
    assert.throws(
      () => loadKubeContext({ kubeconfig: f, context: 'v' }),
      (err: unknown) => err instanceof KubeConfigError && /impersonate only together with "as"/.test(err.message),
    );
  });
});

describe("a context without a user keeps its cluster's TLS settings", () => {
  /** A server certificate for the DNS name kube.internal only (not for 127.0.0.1), signed by the test CA. */
  const namedServer = () => {
    const d = tempDir();
    const p = (n: string) => join(d.dir, n);
    const ossl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
    opensslCa(p('ca.key'), p('ca.crt'), 'named-ca');
    ossl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', p('s.key'), '-out', p('s.csr'), '-subj', '/CN=kube.internal');
    writeFileSync(p('s.ext'), 'subjectAltName=DNS:kube.internal\n');
    ossl(
      'x509',
      '-req',
      '-in',
      p('s.csr'),
      '-CA',
      p('ca.crt'),
      '-CAkey',
      p('ca.key'),
      '-CAcreateserial',
      '-out',
      p('s.crt'),
      '-days',
      '2',
      '-extfile',
      p('s.ext'),
    );
    const r = (n: string) => readFileSync(p(n), 'utf8');
    const out = { ca: r('ca.crt'), cert: r('s.crt'), key: r('s.key') };
    d.cleanup();
    return out;
  };
  const tls = namedServer();

  for (const [what, contextUser, users] of [
    ['no user key', '', ''],
    ['an empty user name', 'user: ""', ''],
    ['a user entry that is empty', 'user: nobody', 'users:\n- name: nobody\n  user: {}\n'],
  ] as const) {
    it(`${what}: certificate-authority-data and tls-server-name apply; insecure-skip-tls-verify too`, async () => {
      const s = await startServer((_q, res) => json(res, { ok: true }), { key: tls.key, cert: tls.cert });
      servers.push(s);
      const f = write(
        `nouser-${servers.length}`,
        `clusters:\n- name: c\n  cluster:\n    server: ${s.url}\n    certificate-authority-data: ${b64(tls.ca)}\n    tls-server-name: kube.internal\n- name: i\n  cluster:\n    server: ${s.url}\n    insecure-skip-tls-verify: true\n${users}contexts:\n- name: ctx\n  context: { cluster: c ${contextUser ? `, ${contextUser}` : ''} }\n- name: insecure\n  context: { cluster: i ${contextUser ? `, ${contextUser}` : ''} }\ncurrent-context: ctx\n`,
      );
      const verified = await KubeTransport.create(loadKubeContext({ kubeconfig: f }), { qps: 0 });
      transports.push(verified);
      assert.deepEqual((await verified.getJson({ path: '/api' })).body, { ok: true });
      const insecure = await KubeTransport.create(loadKubeContext({ kubeconfig: f, context: 'insecure' }), { qps: 0 });
      transports.push(insecure);
      assert.deepEqual((await insecure.getJson({ path: '/api' })).body, { ok: true });
    });
  }
});

describe('exec plugin client certificates', () => {
  it('a client certificate from the plugin is presented to the server', async () => {
    const pki = makePki();
    const s = await startServer(
      (req, res) => {
        const cn = (req.socket as import('node:tls').TLSSocket).getPeerCertificate()?.subject?.CN ?? null;
        json(
          res,
          req.url?.startsWith('/api/v1/pods')
            ? { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [{ metadata: { name: cn } }] }
            : { cn },
        );
      },
      { key: pki.serverKey, cert: pki.serverCert, ca: pki.ca, requestCert: true },
    );
    servers.push(s);
    const script = write(
      'certplugin/cred.js',
      `process.stdout.write(JSON.stringify({apiVersion:'client.authentication.k8s.io/v1beta1',kind:'ExecCredential',status:{clientCertificateData:${JSON.stringify(pki.clientCert)},clientKeyData:${JSON.stringify(pki.clientKey)}}}))`,
    );
    const f = write(
      'certplugin/config',
      `clusters:\n- name: c\n  cluster:\n    server: ${s.url}\n    certificate-authority-data: ${b64(pki.ca)}\nusers:\n- name: u\n  user:\n    exec: { apiVersion: client.authentication.k8s.io/v1beta1, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(script)}] }\ncontexts:\n- name: ctx\n  context: { cluster: c, user: u }\ncurrent-context: ctx\n`,
    );
    const tr = await KubeTransport.create(loadKubeContext({ kubeconfig: f }), { qps: 0, ioThread: false });
    transports.push(tr);
    assert.equal((await tr.getJson<{ cn: string }>({ path: '/api' })).body.cn, 'tester');
    // ...and by the I/O thread, which walks paged lists on its own connections
    const c = await KubeClient.connect(loadKubeContext({ kubeconfig: f }), { qps: 0 });
    clients.push(c);
    const l = await c.list({ group: '', version: 'v1', resource: 'pods' }, { limit: 10 });
    assert.equal(c.transport.stats.streamedPages, 1);
    assert.equal(l.items[0].metadata.name, 'tester');
  });
});
