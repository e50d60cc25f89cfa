/**
 * Remote-cluster transport against a real kube-apiserver v1.36 (APIResponseCompression is on by
 * default): the transport asks for gzip and the server compresses answers over its 128 KiB
 * threshold; pages arrive inflated and exact on both threads, and the counters tell wire bytes from
 * decoded ones. Also: the apiserver leaves small answers alone, and a client that does not ask
 * gets no gzip. And the discovery cache round-trips the real server's aggregated discovery.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, listableResources, loadKubeContext } from '../../src/core/kube';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { Api, mapLimit } from './support';

const NS = 'remote-gzip';
const COUNT = 600;
const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps' };

describe('remote transport against a real kube-apiserver', () => {
  let cp: ControlPlane;
  let api: Api;
  let cacheDir: string;
  const clients: KubeClient[] = [];
  before(async () => {
    cp = await startControlPlane();
    api = Api.admin(cp, 16);
    cacheDir = mkdtempSync(join(tmpdir(), 'kubeloop-apiserver-disc-'));
    await api.must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, [201]);
    await mapLimit(
      Array.from({ length: COUNT }, (_, i) => i),
      16,
      (i) =>
        api.must(
          'POST',
          `/api/v1/namespaces/${NS}/configmaps`,
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { text: `${i} `.repeat(120) } },
          [201],
        ),
    );
  });
  after(async () => {
    clients.forEach((c) => c.close());
    api?.close();
    await cp?.stop();
    rmSync(cacheDir, { recursive: true, force: true });
  });
  const connect = async (opts: Parameters<typeof KubeClient.connect>[1] = {}) => {
    const c = await KubeClient.connect(loadKubeContext({ kubeconfig: cp.kubeconfigPath }), opts);
    clients.push(c);
    return c;
  };

  for (const ioThread of [true, false]) {
    it(`lists over 128 KiB come gzipped from kube-apiserver and are inflated exactly (${ioThread ? 'I/O thread' : 'loading thread'})`, async () => {
      const c = await connect({ ioThread, disableCompression: false }); // loopback: asked explicitly
      const sizes: number[] = [];
      const r = await c.list(CONFIGMAPS, { namespace: NS, limit: 250 }, { onPage: (p) => void sizes.push(p.bytes) });
      const plain = await api.must('GET', `/api/v1/namespaces/${NS}/configmaps`);
      assert.deepEqual(new Set(r.items.map((o) => o.metadata.uid)), new Set((plain.items as { metadata: { uid: string } }[]).map((o) => o.metadata.uid)));
      assert.equal(r.items.length, COUNT);
      const st = c.transport.stats;
      assert.equal(st.streamedPages > 0, ioThread);
      const big = sizes.filter((b) => b > 128 * 1024).length;
      assert.ok(big >= 2, `pages over the threshold: ${sizes.join(', ')}`);
      assert.equal(st.gzipResponses, big, 'exactly the pages over 128 KiB came gzipped');
      assert.ok(st.wireBytes * 4 < st.bytesReceived, `${st.wireBytes} bytes on the wire for ${st.bytesReceived} decoded`);
    });
  }

  it('without asking (disableCompression) nothing is compressed; small answers never are', async () => {
    const c = await connect({ disableCompression: true });
    const r = await c.list(CONFIGMAPS, { namespace: NS, limit: 500 });
    assert.equal(r.items.length, COUNT);
    assert.equal(c.transport.stats.gzipResponses, 0);
    assert.equal(c.transport.stats.wireBytes, c.transport.stats.bytesReceived);
    const small = await connect({ disableCompression: false });
    await small.list(CONFIGMAPS, { namespace: NS, limit: 5 });
    assert.equal(small.transport.stats.gzipResponses, 0);
  });

  it("the disk cache holds the real server's discovery: the second client asks nothing and plans the same types", async () => {
    const first = await connect({ discoveryCache: { dir: cacheDir } });
    const d1 = await first.discover();
    const second = await connect({ discoveryCache: { dir: cacheDir } });
    const before = second.transport.stats.requests;
    const d2 = await second.discover();
    assert.equal(second.transport.stats.requests - before, 0);
    assert.ok(d2.cachedAgeMs !== undefined);
    const names = (d: typeof d1) =>
      listableResources(d)
        .map((x) => `${x.resource}.${x.group}/${x.version}`)
        .sort();
    assert.deepEqual(names(d2), names(d1));
    assert.ok(names(d2).includes('configmaps./v1'));
  });
});
