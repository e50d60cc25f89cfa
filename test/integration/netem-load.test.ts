/**
 * The remote-cluster bench's set-up, small: the netem relay (bench/netem.ts) in front of the demo
 * cluster served over HTTPS with a token, a kubeconfig pointed at the relay, and a real `kubeloop
 * load` (the built dist/cli.js, as the bench runs it) plus kubectl through it. TLS goes end to end
 * through the relay and the serving certificate still matches; every count is exact; the relay saw
 * the bytes. Small latency and cap, a few thousand objects: fast.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { Netem } from '../../bench/netem';
import { kubeconfigViaRelay } from '../../bench/relay-kubeconfig';
import { farDemo, type FarDemo } from './netem-support';
import { runKubectl } from '../support/kubectl';
import type { Fixture } from './loader-helpers';

const CLI = resolve(__dirname, '..', '..', 'dist', 'cli.js');
const LATENCY_MS = 5;

function load(kubeconfig: string, extra: string[] = []): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [CLI, 'load', '--kubeconfig', kubeconfig, '--json', '--page-size', '200', ...extra], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b));
    child.stderr.on('data', (b: Buffer) => (err += b));
    child.on('close', (code) => res({ code, out, err }));
  });
}

describe('kubeloop load through the netem relay', () => {
  let fx: Fixture;
  let relay: Netem;
  let far: string;
  let remote: FarDemo;
  before(async () => {
    remote = await farDemo(3000, 'netem-test-token', LATENCY_MS);
    ({ fx, relay, far } = remote);
  });
  after(async () => {
    await remote?.close();
  });

  it('loads every object, full and metadata-only, with the counts the store holds', async () => {
    for (const extra of [[], ['--metadata-only']]) {
      const before = relay.stats();
      const r = await load(far, extra);
      assert.equal(r.code, 0, r.err);
      const j = JSON.parse(r.out.trim().split('\n').pop()!);
      assert.equal(j.server, `https://${relay.host}:${relay.port}`, 'the load went to the relay');
      assert.equal(j.failed.length, 0);
      for (const t of j.types) assert.equal(t.count, fx.cluster.store.count(t.group, t.resource), `${t.resource}.${t.group}`);
      const total = j.types.reduce((n: number, t: { group: string; resource: string }) => n + fx.cluster.store.count(t.group, t.resource), 0);
      assert.equal(j.objects, total);
      assert.ok(total >= 2500, `${total} objects`); // 3,000 generated, less the Events alias left out
      assert.equal(await relay.idle(10_000), true, "the client's connections closed");
      const after = relay.stats();
      assert.ok(after.connections > before.connections, 'the client connected through the relay');
      // Every body byte the client received (gzip-compressed where the server compressed) crossed the relay, inside TLS.
      assert.ok(j.transport.wireBytes > total * 20, `${j.transport.wireBytes} body bytes for ${total} objects`);
      assert.ok(after.down - before.down > j.transport.wireBytes, `${after.down - before.down} bytes down, ${j.transport.wireBytes} body bytes`);
      assert.ok(after.up - before.up > 0);
    }
  });

  it("kubectl through the relay sees the same pods (its TLS verification passes on the relay's port)", async () => {
    const r = await runKubectl(['get', 'pods', '-A', '-o', 'name', '--chunk-size=200'], { kubeconfig: far });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, fx.cluster.store.count('', 'pods'));
  });

  it("refuses a kubeconfig whose server is not on the relay's address", () => {
    assert.throws(() => kubeconfigViaRelay(fx.kubeconfig, { host: '::1', port: relay.port }, join(fx.dir, 'x')), /is not on the relay's address ::1/);
  });
});
