/**
 * Rotated credential files under a running client, against a real TLS server that accepts the new
 * credential and refuses the old one: a token-file is read again at most once a minute and at once
 * after a 401 (one 401 per rotation, then the retry carries the new token), and client certificate
 * and key files are read again when they change (new connections present the new certificate).
 * Lists go through the transport's I/O thread, as a long sync loop's relists do.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { FakeClock } from '../../src/core/clock';
import { KubeClient } from '../../src/core/kube';
import { b64, contextFor, makePki, pagedPodList, sharedPki, startServer, status, tempDir, type Pki, type TestServer } from './kube-helpers';

const pods = { group: '', version: 'v1', resource: 'pods' };
const servers: TestServer[] = [];
const clients: KubeClient[] = [];
const dir = tempDir();
after(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
  dir.cleanup();
});

describe('rotated credential files', () => {
  it('token-file: one 401 per rotation and the retry carries the new token; re-read once a minute; an unreadable file keeps the token', async () => {
    const pki = sharedPki();
    let valid = new Set(['tok-1']);
    const list = pagedPodList(5);
    const s = await startServer(
      (req, res) => (valid.has((req.headers.authorization ?? '').replace(/^Bearer /, '')) ? list(req, res) : status(res, 401, 'Unauthorized', 'Unauthorized')),
      { key: pki.serverKey, cert: pki.serverCert },
    );
    servers.push(s);
    const file = join(dir.dir, 'token');
    writeFileSync(file, 'tok-1\n');
    const clock = new FakeClock();
    const c = await KubeClient.connect(contextFor(s.url, { 'token-file': file }, { 'certificate-authority-data': b64(pki.ca) }), { qps: 0, clock });
    clients.push(c);
    const sent = async () => {
      const from = s.seen.length;
      const r = await c.list(pods, { limit: 2 });
      assert.equal(r.items.length, 5);
      return s.seen.slice(from).map((x) => x.headers.authorization);
    };
    assert.deepEqual(await sent(), Array(3).fill('Bearer tok-1'));

    // The token is rotated and the old one revoked at once: one 401, then the new token throughout.
    writeFileSync(file, 'tok-2\n');
    valid = new Set(['tok-2']);
    assert.deepEqual(await sent(), ['Bearer tok-1', ...Array(3).fill('Bearer tok-2')]);

    // Rotated ahead of expiry (both good for a while, as a projected token): taken within the minute, with no 401.
    writeFileSync(file, 'tok-3');
    valid = new Set(['tok-2', 'tok-3']);
    await clock.advance(59_000);
    assert.deepEqual(await sent(), Array(3).fill('Bearer tok-2'));
    await clock.advance(1_000);
    assert.deepEqual(await sent(), Array(3).fill('Bearer tok-3'));

    // A file that cannot be read (mid-rotation) keeps the token in hand.
    rmSync(file);
    await clock.advance(60_000);
    assert.deepEqual(await sent(), Array(3).fill('Bearer tok-3'));
  });

  it('client certificate files: a rotated pair is used for new connections; a key that does not match yet is not taken', async () => {
    const pki = sharedPki();
    const next: Pki = makePki(); // another CA's client pair: the server trusts both CAs, and accepts only the pair it is told to
    const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;
    let accepted = fingerprint(pki.clientCert);
    const list = pagedPodList(4);
    const s = await startServer(
      (req: IncomingMessage, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        return peer.fingerprint256 === accepted ? list(req, res) : status(res, 401, 'Unauthorized', 'Unauthorized');
      },
      { key: pki.serverKey, cert: pki.serverCert, ca: pki.ca + next.ca, requestCert: true },
    );
    servers.push(s);
    const certFile = join(dir.dir, 'client.crt');
    const keyFile = join(dir.dir, 'client.key');
    writeFileSync(certFile, pki.clientCert);
    writeFileSync(keyFile, pki.clientKey);
    const clock = new FakeClock();
    const c = await KubeClient.connect(
      contextFor(s.url, { 'client-certificate': certFile, 'client-key': keyFile }, { 'certificate-authority-data': b64(pki.ca) }),
      { qps: 0, clock },
    );
    clients.push(c);
    const statuses = async () => {
      const from = s.seen.length;
      const r = await c.list(pods, { limit: 2 });
      assert.equal(r.items.length, 4);
      return s.seen.length - from;
    };
    assert.equal(await statuses(), 2);

    // Half a rotation (the new certificate, the old key): not a pair, so the old one stays in use.
    writeFileSync(certFile, next.clientCert);
    await clock.advance(1_000);
    assert.equal(await statuses(), 2);

    // The whole rotation, and the server now takes only the new certificate: one 401, then new connections with it.
    writeFileSync(keyFile, next.clientKey);
    accepted = fingerprint(next.clientCert);
    assert.equal(await statuses(), 3, 'one refused request, then the retry and the next page');
    assert.equal(await statuses(), 2, 'no 401 after the rotation');
  });
});
