/**
 * Hostile transports: a server whose certificate is for another name, and a kubeconfig that would
 * send its token to an http:// server. The token must never cross either: the relay counts every
 * Authorization header it receives.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startCase } from './support/fixture';
import { assertLoadedBut, runLoad, runSync } from './support/runs';
import { writeFigures } from './support/figures';

after(() => console.log(writeFigures(__filename)));

describe('hostile transports', () => {
  it('a certificate for another name: kubeloop load and sync refuse the server, say why, and send it nothing', async () => {
    const c = await startCase({ tls: 'wrong-name' });
    try {
      const run = await runLoad('certificate for another name', c, ['--json']);
      assert.equal(run.r.code, 1, run.r.err.slice(-1000));
      // Node's words for it name both: the address asked for and the names the certificate holds
      assert.match(run.r.err, /127\.0\.0\.1[^\n]*(?:kubernetes\.other\.example|altnames|not in the cert)/i);
      const sync = await runSync('certificate for another name', c, {
        watch: [],
        error: /127\.0\.0\.1[^\n]*(?:kubernetes\.other\.example|altnames|not in the cert)/i,
        healthy: [],
      });
      assert.ok(sync.r.code === 2, `sync exit ${sync.r.code} (2: the sources never listed)`);
      assert.equal(c.relay.authorizations, 0, 'no request reached the server with the token');
    } finally {
      await c.stop();
    }
  });

  it('a token for an http:// server: not sent, and the user is told; the anonymous load is whole', async () => {
    const c = await startCase({ tls: 'none' });
    try {
      const base = await c.baseline();
      const run = await runLoad('token on http://', c, ['--json']);
      assert.match(run.r.err, /credentials not sent[^\n]*not https/i);
      assertLoadedBut(run, base, {});
      await runSync('token on http://', c, {
        watch: ['services'],
        error: /credentials not sent[^\n]*not https/i,
        healthy: [
          { group: '', resource: 'pods' },
          { group: '', resource: 'services' },
        ],
      });
      assert.equal(c.relay.authorizations, 0, 'a request carried the token over plain HTTP');
    } finally {
      await c.stop();
    }
  });
});
