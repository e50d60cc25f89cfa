/**
 * `kubeloop load` and remote clusters, against the demo cluster over a real socket: the --json
 * document reports the bytes on the wire (gzip) and decoded, and whether discovery came from the
 * disk cache; the cache is used on the next run and bypassed with --no-discovery-cache.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from '../../src/cli/load';
import { demo, type Fixture } from './loader-helpers';

describe('kubeloop load: remote-cluster behaviour', () => {
  let fx: Fixture;
  let cacheHome: string;
  let saved: string | undefined;
  before(async () => {
    fx = await demo(8000);
    cacheHome = mkdtempSync(join(tmpdir(), 'kubeloop-cli-cache-'));
    saved = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cacheHome;
  });
  after(async () => {
    if (saved === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = saved;
    await fx.stop();
    rmSync(cacheHome, { recursive: true, force: true });
  });

  async function load(...extra: string[]) {
    let out = '';
    let err = '';
    const code = await runLoad(['--kubeconfig', fx.kubeconfig, '--include', 'configmaps,events', '--json', ...extra], {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
    });
    assert.equal(code, 0, err);
    return JSON.parse(out);
  }
  const discovery = () => fx.cluster.stats.requestsByVerb.discovery ?? 0;

  it('reports wire and decoded bytes; discovery is cached on disk for the next run, or bypassed', async () => {
    const n0 = discovery();
    // The demo cluster is on loopback, where auto asks for no gzip: this case is about gzip.
    const first = await load('--compression', 'always');
    assert.equal(first.discoveryCached, false);
    assert.equal(discovery() - n0, 2);
    assert.ok(first.transport.gzipResponses > 0);
    assert.ok(first.transport.wireBytes * 3 < first.transport.bytesReceived, JSON.stringify(first.transport));
    assert.equal(first.transport.proxied, false);
    assert.ok(readdirSync(join(cacheHome, 'kubeloop', 'discovery')).length === 1);

    const n1 = discovery();
    const second = await load('--compression', 'always');
    assert.equal(second.discoveryCached, true);
    assert.equal(discovery() - n1, 0);
    assert.equal(second.objects, first.objects);

    const n2 = discovery();
    const third = await load('--no-discovery-cache', '--disable-compression');
    assert.equal(third.discoveryCached, false);
    assert.equal(discovery() - n2, 2);
    assert.equal(third.transport.gzipResponses, 0);
    assert.equal(third.transport.wireBytes, third.transport.bytesReceived);
    assert.equal(third.objects, first.objects);

    // auto (the default), on loopback: nothing asked, nothing compressed; a bad mode is a usage error.
    const fourth = await load();
    assert.equal(fourth.transport.gzipResponses, 0);
    assert.equal(fourth.transport.wireBytes, fourth.transport.bytesReceived);
    assert.equal(fourth.objects, first.objects);
    let err = '';
    const bad = await runLoad(['--kubeconfig', fx.kubeconfig, '--compression', 'sometimes'], {
      stdout: { write: () => undefined },
      stderr: { write: (s: string) => (err += s) },
    });
    assert.equal(bad, 1);
    assert.match(err, /--compression must be auto, always or never, got "sometimes"/);
  });
});
