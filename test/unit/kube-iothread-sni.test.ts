/**
 * The I/O thread's spare connections (KubeTransport.preconnect) present the cluster's
 * tls-server-name, as its requests' own connections do: against a real HTTPS server on 127.0.0.1
 * whose certificate names only kube.example, a spare that asked for no name (or the address) would
 * fail verification and never be warmed.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { KubeClient } from '../../src/core/kube';
import { b64, contextFor, opensslCa, pagedPodList, startServer, tempDir, type TestServer } from './kube-helpers';
import { eventually } from '../support/eventually';

const servers: TestServer[] = [];
const clients: KubeClient[] = [];
after(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});

describe('I/O thread: spare connections and tls-server-name', () => {
  it('spares are dialled with the configured server name, so they verify and carry the lists', async () => {
    const t = tempDir();
    opensslCa(join(t.dir, 'k'), join(t.dir, 'c'), 'kube.example', 'DNS:kube.example');
    const key = readFileSync(join(t.dir, 'k'), 'utf8');
    const cert = readFileSync(join(t.dir, 'c'), 'utf8');
    t.cleanup();
    const names: (string | false | null)[] = [];
    const list = pagedPodList(30);
    const s = await startServer(
      (req, res) => {
        names.push((req.socket as TLSSocket).servername);
        list(req, res);
      },
      { key, cert },
    );
    servers.push(s);
    const c = await KubeClient.connect(contextFor(s.url, {}, { 'certificate-authority-data': b64(cert), 'tls-server-name': 'kube.example' }), { qps: 0 });
    clients.push(c);
    const warm = c.transport.preconnect(() => 2);
    await eventually(() => (c.transport.stats.warmSamples ?? 0) >= 2, { description: 'both spares completed their TLS handshake' });
    warm.stop();
    const r = await c.list({ group: '', version: 'v1', resource: 'pods' }, { limit: 10 });
    assert.equal(r.items.length, 30);
    assert.ok(c.transport.stats.streamedPages >= 1, 'the list went through the I/O thread');
    assert.deepEqual(new Set(names), new Set(['kube.example']));
  });
});
