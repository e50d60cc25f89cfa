/**
 * gzip on the wire, against the demo cluster over real sockets: the transport asks for gzip, the
 * demo cluster (like kube-apiserver) compresses answers above 128 KiB, and every page arrives
 * inflated and exact, whether the I/O thread walked it or this thread did. Bytes are counted on
 * both ends: what the server wrote, and what the client received on the wire.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeClient } from '../../src/core/kube';
import { GZIP_THRESHOLD_BYTES } from '../../src/demo/server/exchange';
import { demo, type Fixture } from './loader-helpers';

const CONFIGMAPS = { group: '', version: 'v1', resource: 'configmaps', namespaced: true } as const;

describe('remote: gzip on the wire', () => {
  let fx: Fixture;
  before(async () => {
    fx = await demo(12_000, { tls: true, token: 'gzip-test-token' });
  });
  after(async () => {
    await fx.stop();
  });

  const want = () => new Set(fx.cluster.store.list('', 'configmaps').items.map((o) => o.metadata.uid));

  /** Lists every configmap in pages of 500 and returns what both ends counted. */
  async function listCounting(client: KubeClient) {
    const s0 = { ...fx.cluster.stats };
    const sizes: number[] = [];
    const r = await client.list(CONFIGMAPS, { limit: 500 }, { onPage: (p) => void sizes.push(p.bytes) });
    const s1 = fx.cluster.stats;
    return {
      r,
      /** Pages the server had to compress (over the threshold). */
      big: sizes.filter((b) => b > GZIP_THRESHOLD_BYTES).length,
      sent: s1.bodyBytesSent - s0.bodyBytesSent,
      plain: s1.bodyBytesUncompressed - s0.bodyBytesUncompressed,
      serverGzip: s1.gzipResponses - s0.gzipResponses,
    };
  }

  for (const ioThread of [true, false]) {
    it(`pages over 128 KiB come gzipped and are inflated exactly (${ioThread ? 'I/O thread' : 'loading thread'})`, async () => {
      // Loopback: the transport would not ask on its own (see wantsGzip); these cases are about gzip.
      const client = await fx.client({ ioThread, disableCompression: false });
      const { r, big, sent, plain, serverGzip } = await listCounting(client);
      const st = client.transport.stats;
      assert.equal(st.streamedPages > 0, ioThread, 'the pages came the way this case is about');
      assert.ok(r.pages >= 3, `several pages (${r.pages})`);
      assert.deepEqual(new Set(r.items.map((o) => o.metadata.uid)), want());
      assert.equal(r.items.length, want().size);
      // A full page of 500 configmaps is over the threshold and was compressed; a short last one may not be.
      assert.ok(big >= r.pages - 1 && big >= 2, `${big} of ${r.pages} pages over the threshold`);
      assert.equal(serverGzip, big);
      assert.equal(st.gzipResponses, big);
      // What the server wrote is what the client received; the decoded size is the uncompressed one.
      assert.equal(st.wireBytes, sent);
      assert.equal(st.bytesReceived, plain);
      assert.equal(r.bytes, plain);
      assert.ok(st.wireBytes * 4 < st.bytesReceived, `compressed ${st.wireBytes} of ${st.bytesReceived} bytes`);
    });
  }

  it('disableCompression: no Accept-Encoding, nothing compressed, the same objects', async () => {
    const client = await fx.client({ disableCompression: true });
    const { r, sent, plain, serverGzip } = await listCounting(client);
    assert.equal(serverGzip, 0);
    assert.equal(sent, plain);
    assert.equal(client.transport.stats.gzipResponses, 0);
    assert.equal(client.transport.stats.wireBytes, client.transport.stats.bytesReceived);
    assert.deepEqual(new Set(r.items.map((o) => o.metadata.uid)), want());
  });

  it('answers under the threshold are not compressed (discovery), and decode the same', async () => {
    const client = await fx.client({ disableCompression: false });
    const s0 = fx.cluster.stats.gzipResponses;
    const res = await client.transport.getJson<{ resources: unknown[] }>({ path: '/api/v1' });
    assert.ok(res.bytes < GZIP_THRESHOLD_BYTES);
    assert.ok(Array.isArray(res.body.resources) && res.body.resources.length > 10);
    assert.equal(fx.cluster.stats.gzipResponses - s0, 0);
    assert.equal(client.transport.stats.gzipResponses, 0);
  });

  it('auto (the default) asks a server on this machine for nothing: compression would only cost both ends CPU', async () => {
    const client = await fx.client();
    assert.equal(client.transport.loopback, true);
    const { r, sent, plain, serverGzip } = await listCounting(client);
    assert.equal(serverGzip, 0);
    assert.equal(sent, plain);
    assert.deepEqual(new Set(r.items.map((o) => o.metadata.uid)), want());
  });
});
