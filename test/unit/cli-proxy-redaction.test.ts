/**
 * A proxy password never reaches the CLI's output: proxies that refuse the connection (a real
 * loopback port with nothing listening), a socks proxy, and proxy values that do not parse, from the
 * kubeconfig's proxy-url and from HTTPS_PROXY.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLoad } from '../../src/cli/load';
import { capture } from '../support/capture';
import { tempDir } from './kube-helpers';

/** A loopback port that refuses connections (bound, then closed). */
async function deadPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('proxy credentials in CLI output', () => {
  const dir = tempDir();
  after(() => dir.cleanup());

  const kubeconfig = (proxyUrl: string | undefined) => {
    const f = join(dir.dir, `kc-${Math.random().toString(36).slice(2)}`);
    writeFileSync(
      f,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://api.example.invalid:6443\n    insecure-skip-tls-verify: true\n${proxyUrl ? `    proxy-url: ${JSON.stringify(proxyUrl)}\n` : ''}contexts:\n- name: x\n  context: {cluster: c}\ncurrent-context: x\n`,
    );
    return f;
  };

  it('no output names the password or the user, whatever fails', async () => {
    const port = await deadPort();
    const cases: { proxyUrl?: string; env?: Record<string, string> }[] = [
      { proxyUrl: `http://jane:s3cret-pw@127.0.0.1:${port}` },
      { proxyUrl: `socks5://jane:s3cret-pw@127.0.0.1:${port}` },
      { proxyUrl: 'http://jane:s3cret-pw@[not-an-address' },
      { env: { HTTPS_PROXY: `http://jane:s3cret-pw@127.0.0.1:${port}` } },
      { env: { HTTPS_PROXY: 'ftp://jane:s3cret-pw@proxy.example:1' } },
    ];
    for (const c of cases) {
      const saved = { ...process.env };
      Object.assign(process.env, c.env ?? {});
      const out = capture();
      try {
        const code = await runLoad(['--kubeconfig', kubeconfig(c.proxyUrl), '--no-discovery-cache', '--timeout', '10'], out.io);
        assert.equal(code, 1, JSON.stringify(c));
      } finally {
        for (const k of Object.keys(c.env ?? {})) if (saved[k] === undefined) delete process.env[k];
      }
      const text = out.out + out.err;
      assert.ok(text.length > 0);
      assert.ok(!text.includes('s3cret-pw') && !text.includes('jane'), `${JSON.stringify(c)}: ${text}`);
    }
  });
});
