/**
 * `kubeloop load --context A --context B ...` against several demo clusters over real sockets, in
 * one kubeconfig: three that answer, one that hangs (a socket that accepts and never answers),
 * one whose every request answers 503. The three load with exact counts (the same as each loaded
 * alone), the two dead ones are reported with their reason within 5 s, and never delay the others.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from '../../src/cli/load';
import { capture } from '../support/capture';
import { mergeKubeconfigs } from '../support/kubeconfigs';
import { demo, type Fixture } from './loader-helpers';

const SIZES = { alpha: 1500, beta: 600, gamma: 200 } as const;

describe('kubeloop load with several contexts', () => {
  const fx: Record<string, Fixture> = {};
  let hung: Server;
  const held: Socket[] = [];
  let dir: string;
  let kubeconfig: string;

  before(async () => {
    for (const [name, n] of Object.entries(SIZES)) fx[name] = await demo(n);
    fx.flaky = await demo(50);
    fx.flaky.cluster.faults.add({ kind: 'error', status: 503 });
    hung = createServer((s) => held.push(s)); // accepts, reads, never answers
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    const port = (hung.address() as { port: number }).port;
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-multi-'));
    kubeconfig = join(dir, 'kubeconfig');
    mergeKubeconfigs(
      [
        ...Object.keys(SIZES).map((name) => ({ name, file: fx[name]!.kubeconfig })),
        { name: 'flaky', file: fx.flaky.kubeconfig },
        { name: 'hung', server: `https://127.0.0.1:${port}` },
      ],
      kubeconfig,
    );
  });
  after(async () => {
    held.forEach((s) => s.destroy());
    hung?.close();
    for (const f of Object.values(fx)) await f.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function loadAlone(name: string): Promise<number> {
    const c = capture();
    const code = await runLoad(['--kubeconfig', kubeconfig, '--context', name, '--json', '--no-discovery-cache'], c.io);
    assert.equal(code, 0, c.err);
    return JSON.parse(c.out).objects as number;
  }

  it('loads the live clusters with exact counts and reports the hung and the 503 one within 5 s', { timeout: 60_000 }, async () => {
    const c = capture();
    const args = ['--kubeconfig', kubeconfig, '--json', '--no-discovery-cache', '--lanes', '6'];
    for (const name of ['alpha', 'hung', 'beta', 'flaky', 'gamma']) args.push('--context', name);
    const code = await runLoad(args, c.io);
    assert.equal(code, 2, 'some cluster failed: exit status 2');
    const doc = JSON.parse(c.out);
    assert.deepEqual(
      doc.clusters.map((k: { context: string }) => k.context),
      ['alpha', 'hung', 'beta', 'flaky', 'gamma'],
    );
    const by = Object.fromEntries(doc.clusters.map((k: { context: string }) => [k.context, k]));
    for (const name of Object.keys(SIZES)) {
      assert.equal(by[name].outcome, 'ok', `${name}: ${by[name].error ?? ''}`);
      assert.equal(by[name].unreachable, false);
      assert.ok(by[name].settledMs < 4_000, `${name} did not wait for the dead clusters (${by[name].settledMs} ms)`);
      // the generator makes about as many objects as asked, plus the system namespaces and nodes
      assert.ok(by[name].objects >= SIZES[name as keyof typeof SIZES] * 0.9, `${name}: ${by[name].objects} objects`);
    }
    for (const name of ['hung', 'flaky']) {
      assert.equal(by[name].outcome, 'failed');
      assert.equal(by[name].unreachable, true);
      assert.ok(by[name].settledMs <= 5_000, `${name} reported after ${by[name].settledMs} ms`);
    }
    assert.match(by.hung.error, /no answer from context "hung" within 4 s/);
    // 503s are retried with jittered back-off: the retries may run out a little before the 4 s
    // deadline, or as it passes, before its timer has run (then the message says the elapsed 4.0 s)
    assert.match(by.flaky.error, /no answer from context "flaky" within (4|[0-4]\.\d) s; last error: GET \/\S*: 503 /);
    // Exact counts: each live cluster alone gives the same number.
    for (const name of Object.keys(SIZES)) assert.equal(by[name].objects, await loadAlone(name), `${name}: same count alone`);
    assert.equal(doc.objects, by.alpha.objects + by.beta.objects + by.gamma.objects);
  });

  it('a cluster whose retries of 503s run out before the deadline is reported unreachable at once, with the 503', { timeout: 60_000 }, async () => {
    // The back-off (5 retries, 3.1-6.2 s in all) ends well before a 30 s deadline.
    const c = capture();
    const args = ['--kubeconfig', kubeconfig, '--json', '--no-discovery-cache', '--reach-timeout', '30', '--context', 'gamma', '--context', 'flaky'];
    assert.equal(await runLoad(args, c.io), 2);
    const [gamma, flaky] = JSON.parse(c.out).clusters;
    assert.equal(gamma.outcome, 'ok');
    assert.equal(flaky.outcome, 'failed');
    assert.equal(flaky.unreachable, true, flaky.error);
    assert.ok(flaky.settledMs < 15_000, `reported after ${flaky.settledMs} ms, not at the retries' end`);
    assert.match(flaky.error, /^no answer from context "flaky" within \d+(\.\d)? s; last error: GET \/\S*: 503 ServiceUnavailable/);
  });

  it('a context that cannot be set up is reported, and the others still load', { timeout: 30_000 }, async () => {
    const c = capture();
    const code = await runLoad(['--kubeconfig', kubeconfig, '--context', 'gamma', '--context', 'no-such-context', '--json', '--no-discovery-cache'], c.io);
    assert.equal(code, 2);
    const doc = JSON.parse(c.out);
    assert.equal(doc.clusters[0].outcome, 'ok');
    assert.equal(doc.clusters[1].outcome, 'failed');
    assert.match(doc.clusters[1].error, /no-such-context/);
  });

  it('--all-contexts and --context together are a usage error', async () => {
    const c = capture();
    assert.equal(await runLoad(['--kubeconfig', kubeconfig, '--all-contexts', '--context', 'alpha'], c.io), 1);
    assert.match(c.err, /--all-contexts and --context: give one or the other/);
  });
});
