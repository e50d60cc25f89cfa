/**
 * Proxies, against the demo cluster over TLS (with a token) and a real CONNECT proxy written in the
 * test, both on loopback. The cluster is addressed as https://demo.kubeloop.test:PORT, a name only
 * the proxy can resolve: a request that did not go through the proxy cannot reach the cluster.
 * Checked: HTTPS_PROXY (and https_proxy) is honoured for discovery, paged lists on the I/O thread
 * and watches; NO_PROXY entries (domain suffix, host:port) send requests direct; loopback servers are
 * never proxied from the environment; the kubeconfig's proxy-url wins over the environment;
 * proxy credentials are sent and never shown.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { KubeClient, KubeTransportError, loadKubeContext } from '../../src/core/kube';
import { ClusterLoader } from '../../src/core/loader';
import { startDemoCluster, type DemoCluster } from '../../src/demo';
import { generateObjects } from '../../src/demo/generator';
import { startConnectProxy, type ConnectProxy } from '../support/connectProxy';

const NAME = 'demo.kubeloop.test';

describe('remote: proxies', () => {
  let cluster: DemoCluster;
  let proxy: ConnectProxy;
  let dir: string;
  const clients: KubeClient[] = [];
  before(async () => {
    cluster = await startDemoCluster({ kubelet: false, token: 'proxy-test-token' });
    generateObjects(cluster.store, { objects: 3000, seed: 5 });
    proxy = await startConnectProxy({ hosts: { [NAME]: '127.0.0.1' } });
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-proxy-it-'));
  });
  after(async () => {
    clients.forEach((c) => c.close());
    await proxy.close();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const port = () => new URL(cluster.url).port;
  /** A kubeconfig for the cluster under another host name (its certificate is checked for localhost). */
  function kubeconfig(host: string, cluster2: Record<string, unknown> = {}): string {
    const doc = load(cluster.kubeconfig()) as { clusters: { cluster: Record<string, unknown> }[] };
    Object.assign(doc.clusters[0].cluster, { server: `https://${host}:${port()}`, 'tls-server-name': 'localhost' }, cluster2);
    const file = join(dir, `kc-${Math.random().toString(36).slice(2)}`);
    writeFileSync(file, dump(doc));
    return file;
  }
  async function connect(file: string, env: NodeJS.ProcessEnv, ioThread?: boolean) {
    const c = await KubeClient.connect(loadKubeContext({ kubeconfig: file }), { env, ioThread, retry: { maxBackoffRetries: 0 } });
    clients.push(c);
    return c;
  }
  const configmaps = () => cluster.store.list('', 'configmaps').items.length;

  it('HTTPS_PROXY: discovery, paged lists on the I/O thread and watches all go through the proxy', async () => {
    const before = { connects: proxy.connects.length, server: cluster.stats.totalConnections };
    const c = await connect(kubeconfig(NAME), { HTTPS_PROXY: proxy.url });
    assert.equal(c.transport.proxy?.href, `${proxy.url}/`);
    const { summary } = await new ClusterLoader(c, { include: ['configmaps'], pageSize: 100 }).load();
    assert.equal(summary.outcome, 'ok');
    assert.equal(summary.objects, configmaps());
    assert.ok(c.transport.stats.streamedPages > 0, 'the I/O thread walked the pages, through the proxy');
    const ac = new AbortController();
    const w = c.watch({ group: '', version: 'v1', resource: 'configmaps' }, { resourceVersion: '0' }, () => ac.abort(new Error('got one')), ac.signal);
    assert.equal((await w).kind, 'aborted');
    const tunnels = proxy.connects.slice(before.connects);
    assert.ok(tunnels.length >= 2, `a tunnel per connection (${tunnels.length})`);
    assert.ok(tunnels.every((t) => t === `${NAME}:${port()}`));
    // every connection the server accepted came through the proxy
    assert.equal(cluster.stats.totalConnections - before.server, tunnels.length);
  });

  it('lower-case https_proxy is honoured too; HTTP_PROXY alone is not used for an https server', async () => {
    const c = await connect(kubeconfig(NAME), { https_proxy: proxy.url }, false);
    const n = proxy.connects.length;
    const r = await c.list({ group: '', version: 'v1', resource: 'configmaps' }, { limit: 500 });
    assert.equal(r.items.length, configmaps());
    assert.ok(proxy.connects.length > n);
    const direct = await connect(kubeconfig(NAME), { HTTP_PROXY: proxy.url }, false);
    await assert.rejects(
      direct.transport.getJson({ path: '/api' }),
      (e: unknown) => e instanceof KubeTransportError && e.kind === 'connect' && /ENOTFOUND|EAI_AGAIN/.test(e.message),
    );
  });

  it('NO_PROXY: a domain suffix sends the request direct; an entry for another port does not', async () => {
    for (const noProxy of ['.kubeloop.test', 'kubeloop.test', `${NAME}:${port()}`, '*']) {
      const n = proxy.connects.length;
      const c = await connect(kubeconfig(NAME), { HTTPS_PROXY: proxy.url, NO_PROXY: `example.com, ${noProxy}` }, false);
      assert.equal(c.transport.proxy, undefined, noProxy);
      // direct: the name resolves nowhere but at the proxy
      await assert.rejects(c.transport.getJson({ path: '/api' }), (e: unknown) => e instanceof KubeTransportError && e.kind === 'connect', noProxy);
      assert.equal(proxy.connects.length, n, `${noProxy}: nothing went through the proxy`);
    }
    for (const noProxy of [`${NAME}:1`, 'other.test', 'test.kubeloop']) {
      const c = await connect(kubeconfig(NAME), { HTTPS_PROXY: proxy.url, no_proxy: noProxy }, false);
      const res = await c.transport.getJson<{ kind: string }>({ path: '/api' });
      assert.ok(res.body.kind, noProxy);
    }
  });

  it('a loopback server is never proxied from the environment, whatever NO_PROXY says', async () => {
    const n = proxy.connects.length;
    for (const host of ['127.0.0.1', 'localhost']) {
      const c = await connect(kubeconfig(host), { HTTPS_PROXY: 'http://127.0.0.1:1' }, true);
      assert.equal(c.transport.proxy, undefined);
      const r = await c.list({ group: '', version: 'v1', resource: 'configmaps' }, { limit: 200 });
      assert.equal(r.items.length, configmaps());
    }
    assert.equal(proxy.connects.length, n);
  });

  it("the kubeconfig's proxy-url wins over the environment (and applies to loopback too), with its credentials", async () => {
    const authed = await startConnectProxy({ hosts: { [NAME]: '127.0.0.1' }, auth: 'jane:s3cr:t' });
    try {
      const url = `http://jane:s3cr%3At@127.0.0.1:${authed.port}`;
      for (const host of [NAME, '127.0.0.1']) {
        const c = await connect(kubeconfig(host, { 'proxy-url': url }), { HTTPS_PROXY: 'http://127.0.0.1:1', NO_PROXY: '*' });
        const { summary } = await new ClusterLoader(c, { include: ['configmaps'], pageSize: 100 }).load();
        assert.equal(summary.objects, configmaps(), host);
        assert.ok(c.transport.stats.streamedPages > 0);
      }
      assert.ok(authed.connects.length >= 2);
      assert.ok(authed.credentials.every((x) => x === 'jane:s3cr:t'));
      // wrong credentials: a clear connect failure that names the proxy, never its password
      const bad = await connect(kubeconfig(NAME, { 'proxy-url': `http://jane:wrong-pass@127.0.0.1:${authed.port}` }), {});
      await assert.rejects(bad.transport.getJson({ path: '/api' }), (e: unknown) => {
        assert.ok(e instanceof KubeTransportError && e.kind === 'connect', String(e));
        assert.match(e.message, /refused CONNECT .*407/);
        assert.ok(!e.message.includes('wrong-pass'), e.message);
        return true;
      });
    } finally {
      await authed.close();
    }
  });

  it('a proxy setting that is not an address is a clear configuration error', async () => {
    await assert.rejects(connect(kubeconfig(NAME), { HTTPS_PROXY: 'http://bad host:99' }), /invalid proxy address/);
  });
});
