/**
 * Credentials against the demo cluster with a token over TLS, through our own transport: exec
 * credential plugins (a real plugin: a small node script this test writes), impersonation, and a
 * context without a user. Each test starts from a kubeconfig file written here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { dump, load } from 'js-yaml';
import { KubeApiError, KubeClient, KubeConfigError, loadKubeContext } from '../../src/core/kube';
import { ExecCredentialProvider } from '../../src/core/kube/config/exec';
import { startDemoCluster, type DemoCluster } from '../../src/demo';
import { eventually } from '../support/eventually';

const TOKEN = 'tok-good-0123456789';
const namespaces = { group: '', version: 'v1', resource: 'namespaces' };
const configmaps = { group: '', version: 'v1', resource: 'configmaps' };
const secrets = { group: '', version: 'v1', resource: 'secrets' };

/** One run of the plugin: what it prints (or does). */
interface Step {
  token?: string;
  /** expirationTimestamp, ms from now at the time of the run. */
  expiresInMs?: number;
  apiVersion?: string;
  fail?: string;
  hang?: boolean;
}

const PLUGIN = `
const fs = require('fs');
const dir = process.argv[2];
const runs = (fs.existsSync(dir + '/runs') ? Number(fs.readFileSync(dir + '/runs', 'utf8')) : 0) + 1;
fs.writeFileSync(dir + '/runs', String(runs));
fs.writeFileSync(dir + '/info-' + runs, process.env.KUBERNETES_EXEC_INFO || '');
fs.writeFileSync(dir + '/pid-' + runs, String(process.pid));
const plan = JSON.parse(fs.readFileSync(dir + '/plan.json', 'utf8'));
const step = plan[Math.min(runs - 1, plan.length - 1)];
if (step.hang) setInterval(() => {}, 1000);
else if (step.fail) { process.stderr.write('login failed: ' + step.fail + '\\n'); process.exit(3); }
else {
  const status = { token: step.token };
  if (step.expiresInMs !== undefined) status.expirationTimestamp = new Date(Date.now() + step.expiresInMs).toISOString();
  process.stdout.write(JSON.stringify({ apiVersion: step.apiVersion || 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status }));
}
`;

describe('credentials against the demo cluster (TLS, token)', () => {
  let cluster: DemoCluster;
  let root: string;
  let seq = 0;
  const clients: KubeClient[] = [];
  before(async () => {
    cluster = await startDemoCluster({ token: TOKEN, kubelet: false, forbidden: ['/secrets'] });
    root = mkdtempSync(join(tmpdir(), 'kubeloop-exec-it-'));
    writeFileSync(join(root, 'plugin.js'), PLUGIN);
    const cms = Array.from({ length: 900 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${String(i).padStart(4, '0')}`, namespace: 'default' },
      data: { i: String(i) },
    }));
    for (const o of cms) cluster.store.create('', 'configmaps', o);
  });
  after(async () => {
    clients.forEach((c) => c.close());
    await cluster.stop();
    rmSync(root, { recursive: true, force: true });
  });

  /** A folder with the plugin's plan and a kubeconfig whose user is `user` (its own folder, away from the cwd). */
  type UserEntry = Record<string, unknown> | ((dir: string) => Record<string, unknown>) | undefined;
  const setup = (entry: UserEntry, plan: Step[] = []) => {
    const dir = join(root, `case-${++seq}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
    const kc = load(cluster.kubeconfig()) as any;
    kc.clusters[0].cluster.extensions = [{ name: 'client.authentication.k8s.io/exec', extension: { audience: 'kubeloop-test', region: 'lab-1' } }];
    const user = typeof entry === 'function' ? entry(dir) : entry;
    if (user === undefined) delete kc.contexts[0].context.user;
    else kc.users[0].user = user;
    const file = join(dir, 'kubeconfig');
    writeFileSync(file, dump(kc));
    return {
      dir,
      file,
      runs: () => (existsSync(join(dir, 'runs')) ? Number(readFileSync(join(dir, 'runs'), 'utf8')) : 0),
      info: (n: number) => JSON.parse(readFileSync(join(dir, `info-${n}`), 'utf8')),
    };
  };
  const execUser = (dir: string, extra: Record<string, unknown> = {}) => ({
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: process.execPath,
      args: [join(root, 'plugin.js'), dir],
      interactiveMode: 'Never',
      ...extra,
    },
  });
  const connect = async (file: string) => {
    const c = await KubeClient.connect(loadKubeContext({ kubeconfig: file }), { retry: { backoffBaseMs: 5, backoffMaxMs: 20 } });
    clients.push(c);
    return c;
  };

  for (const apiVersion of ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1']) {
    it(`exec ${apiVersion}: KUBERNETES_EXEC_INFO carries the cluster when provideClusterInfo is set`, async () => {
      const a = setup((dir) => ({ exec: { ...execUser(dir).exec, apiVersion, provideClusterInfo: true } }), [{ token: TOKEN, apiVersion }]);
      const c = await connect(a.file);
      assert.ok((await c.list(namespaces)).items.length >= 4);
      const info = a.info(1);
      assert.equal(info.apiVersion, apiVersion);
      assert.equal(info.kind, 'ExecCredential');
      assert.equal(info.spec.interactive, false);
      assert.equal(info.spec.cluster.server, cluster.url);
      const ca = (load(cluster.kubeconfig()) as any).clusters[0].cluster['certificate-authority-data'];
      assert.equal(info.spec.cluster['certificate-authority-data'], ca);
      assert.deepEqual(info.spec.cluster.config, { audience: 'kubeloop-test', region: 'lab-1' }, "the cluster's exec extension");

      const b = setup((dir) => ({ exec: { ...execUser(dir).exec, apiVersion } }), [{ token: TOKEN, apiVersion }]);
      await (await connect(b.file)).list(namespaces);
      assert.equal(b.info(1).spec.cluster, undefined, 'no cluster info unless asked for');
      assert.equal(b.info(1).spec.interactive, false);
    });
  }

  it("a relative exec command is resolved against the kubeconfig's folder; a bare name is looked up on PATH", async () => {
    const s = setup({ token: 'unused' }, [{ token: TOKEN }]);
    mkdirSync(join(s.dir, 'bin'));
    const wrapper = `#!/bin/sh\nexec "${process.execPath}" "${join(root, 'plugin.js')}" "$@"\n`;
    writeFileSync(join(s.dir, 'bin', 'kube-cred'), wrapper);
    chmodSync(join(s.dir, 'bin', 'kube-cred'), 0o755);
    const kc = load(readFileSync(s.file, 'utf8')) as any;
    kc.users[0].user = { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'bin/kube-cred', args: [s.dir], interactiveMode: 'Never' } };
    writeFileSync(s.file, dump(kc));
    assert.notEqual(process.cwd(), s.dir);
    const ctx = loadKubeContext({ kubeconfig: s.file });
    assert.equal(ctx.exec?.command, join(s.dir, 'bin', 'kube-cred'));
    await (await connect(s.file)).list(namespaces);
    assert.equal(s.runs(), 1);

    kc.users[0].user.exec.command = 'kube-cred';
    writeFileSync(s.file, dump(kc));
    assert.equal(loadKubeContext({ kubeconfig: s.file }).exec?.command, 'kube-cred', 'a bare name stays a name');
    const path = process.env.PATH;
    process.env.PATH = `${join(s.dir, 'bin')}${delimiter}${path}`;
    try {
      await (await connect(s.file)).list(namespaces);
    } finally {
      process.env.PATH = path;
    }
    assert.equal(s.runs(), 2);
  });

  it('a credential without expirationTimestamp is kept until a 401; concurrent 401s share one plugin run', async () => {
    const s = setup((dir) => execUser(dir), [{ token: 'tok-revoked' }, { token: TOKEN }]);
    const c = await connect(s.file);
    assert.equal(s.runs(), 1);
    // Every request gets 401 with the first token; one shared run gets the second for all of them.
    const lists = await Promise.all(Array.from({ length: 6 }, () => c.list(namespaces)));
    for (const l of lists) assert.ok(l.items.length >= 4);
    assert.equal(s.runs(), 2, 'one refresh for six refused requests');
    for (let i = 0; i < 5; i++) await c.list(namespaces);
    assert.equal(s.runs(), 2, 'a credential without expiry is not fetched again while it works');
  });

  it('a plugin that never answers is killed after the timeout, with a message that says so', async () => {
    const s = setup(undefined);
    const ctx = loadKubeContext({ kubeconfig: s.file });
    // A shell that records its pid, then becomes a sleep that would outlive the test (same pid).
    const hang = {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: '/bin/sh',
      args: ['-c', `echo $$ > "${join(s.dir, 'pid')}"; exec sleep 600`],
      env: [],
      provideClusterInfo: false,
      interactiveMode: 'Never' as const,
    };
    const p = new ExecCredentialProvider(hang, { server: ctx.server }, { timeoutMs: 1500 });
    await assert.rejects(p.get(), (e: unknown) => e instanceof KubeConfigError && /no credential within 1500 ms \(killed\)/.test(e.message));
    const pid = Number(readFileSync(join(s.dir, 'pid'), 'utf8'));
    assert.ok(pid > 0);
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await eventually(() => !alive(), { description: `the plugin process ${pid} to be gone` });
  });

  it("a caller's abort ends its own wait at once; the shared run goes on and serves the others", async () => {
    const s = setup(undefined);
    const ctx = loadKubeContext({ kubeconfig: s.file });
    const cred = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: TOKEN } });
    // The plugin answers only once the test has seen the aborted wait end (a file it waits for).
    const go = join(s.dir, 'go');
    const slow = {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: '/bin/sh',
      args: ['-c', `while [ ! -e "${go}" ]; do sleep 0.02; done; printf '%s' '${cred}'`],
      env: [],
      provideClusterInfo: false,
      interactiveMode: 'Never' as const,
    };
    const p = new ExecCredentialProvider(slow, { server: ctx.server }, { timeoutMs: 30_000 });
    const ac = new AbortController();
    const aborted = p.get(ac.signal);
    const other = p.get();
    ac.abort(new Error('user cancelled'));
    await assert.rejects(aborted, /user cancelled/);
    writeFileSync(go, '');
    assert.equal((await other).token, TOKEN);
    assert.equal(p.runs, 1, 'one run for both callers');
  });

  it('a refresh that fails in the middle of a streamed list fails that list clearly, never an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    const fault = cluster.faults.add({ kind: 'latency', latencyMs: 120, verb: 'list', resource: 'configmaps' });
    try {
      const s = setup((dir) => execUser(dir), [{ token: TOKEN, expiresInMs: 1500 }, { fail: 'session expired' }]);
      const c = await connect(s.file);
      assert.ok(c.transport.listStreams, 'pages are walked by the I/O thread');
      const pages: number[] = [];
      await assert.rejects(c.list(configmaps, { namespace: 'default', limit: 10 }, { onPage: (p) => pages.push(p.index) }), (e: unknown) => {
        assert.ok(e instanceof KubeConfigError, `expected a KubeConfigError, got ${String(e)}`);
        assert.match(e.message, /exec plugin ".*": exited with status 3: login failed: session expired/);
        return true;
      });
      assert.ok(pages.length > 0 && pages.length < 90, `failed mid-list (${pages.length} pages taken)`);
      assert.equal(s.runs(), 2);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(unhandled, []);
    } finally {
      cluster.faults.remove(fault);
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('impersonation: user, uid, every group and every extra value arrive; a 403 names the impersonated user', async () => {
    const s = setup({
      token: TOKEN,
      as: 'jane',
      'as-uid': 'uid-42',
      'as-groups': ['dev', 'ops'],
      'as-user-extra': { scopes: ['read', 'write'], 'example.com/team': ['blue'] },
    });
    const c = await connect(s.file);
    const want = { user: 'jane', uid: 'uid-42', groups: ['dev', 'ops'], extra: { scopes: ['read', 'write'], 'example.com/team': ['blue'] } };
    await c.list(namespaces);
    assert.deepEqual(cluster.stats.lastImpersonation, want, 'a request of the calling thread');
    cluster.stats.lastImpersonation = undefined;
    const before = c.transport.stats.streamedPages;
    await c.list(configmaps, { namespace: 'default', limit: 100 });
    assert.ok(c.transport.stats.streamedPages - before >= 9, 'pages walked by the I/O thread');
    assert.deepEqual(cluster.stats.lastImpersonation, want, "the I/O thread's requests carry it too");
    await assert.rejects(
      c.list(secrets),
      (e: unknown) => e instanceof KubeApiError && e.status === 403 && /User "jane" cannot list resource "secrets"/.test(e.message),
    );
    const bad = setup({ token: TOKEN, 'as-groups': ['dev'] });
    assert.throws(
      () => loadKubeContext({ kubeconfig: bad.file }),
      (e: unknown) => e instanceof KubeConfigError && /impersonate only together with "as"/.test(e.message),
    );
  });

  it("a context without a user keeps its cluster's CA (TLS verified; the server then says 401, not a TLS error)", async () => {
    const s = setup(undefined);
    const c = await connect(s.file);
    await assert.rejects(c.list(namespaces), (e: unknown) => e instanceof KubeApiError && e.status === 401);
  });
});
