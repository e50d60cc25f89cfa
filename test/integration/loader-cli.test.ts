/**
 * `kubeloop load` against the demo cluster: in-process through runLoad, and as a real subprocess of
 * the bundled CLI (built here with esbuild exactly as esbuild.config.mjs builds dist/cli.js).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLoad } from '../../src/cli/load';
import { ClusterLoader } from '../../src/core/loader';
import { demo, type Fixture } from './loader-helpers';
import { eventually } from '../support/eventually';
import { capture } from '../support/capture';
import { bundleCli } from '../support/bundleCli';

function run(
  cmd: string,
  args: string[],
  onSpawn?: (child: ReturnType<typeof spawn>) => void,
): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b));
    child.stderr.on('data', (b: Buffer) => (err += b));
    child.on('close', (code, signal) => resolve({ code, signal, out, err }));
    onSpawn?.(child);
  });
}

describe('kubeloop load', () => {
  let fx: Fixture;
  let cli: string;
  before(async () => {
    fx = await demo(2500, { forbidden: ['/secrets'] });
    cli = join(fx.dir, 'cli.js');
    // Bundled as the shipped CLI is, so its RSS is the CLI's and not a TypeScript loader's.
    await bundleCli(cli);
  });
  after(async () => {
    await fx.stop();
  });

  it('--json prints one object with the documented fields; exit 2 when a type fails (403)', async () => {
    const c = capture();
    const code = await runLoad(['--kubeconfig', fx.kubeconfig, '--json', '--page-size', '100', '--concurrency', '3'], c.io);
    assert.equal(code, 2, c.err);
    const lines = c.out.trim().split('\n');
    assert.equal(lines.length, 1, 'one JSON line');
    const j = JSON.parse(lines[0]);
    for (const k of [
      'context',
      'server',
      'concurrency',
      'pageSize',
      'metadataOnly',
      'durationMs',
      'resourceTypes',
      'tasks',
      'results',
      'objects',
      'failed',
      'types',
    ])
      assert.ok(k in j, k);
    assert.deepEqual([j.context, j.server, j.concurrency, j.pageSize, j.metadataOnly], ['kubeloop-demo', fx.cluster.url, 3, 100, false]);
    // --forbid /secrets: the access reviews already say so, and no list of secrets is sent.
    assert.deepEqual(j.failed, [
      { group: '', version: 'v1', resource: 'secrets', namespace: null, status: 403, reason: 'Forbidden', message: j.failed[0].message, forbidden: 'review' },
    ]);
    assert.match(j.failed[0].message, /forbidden/);
    assert.equal(j.results, j.tasks);
    const expected = j.types.filter((t: any) => t.outcome === 'ok').reduce((n: number, t: any) => n + fx.cluster.store.count(t.group, t.resource), 0);
    assert.equal(j.objects, expected);
    const pods = j.types.find((t: any) => t.resource === 'pods');
    assert.deepEqual(
      Object.keys(pods).sort(),
      ['count', 'durationMs', 'group', 'namespace', 'namespaced', 'outcome', 'pages', 'resource', 'retries', 'version', 'worker'].sort(),
    );
    assert.equal(pods.count, fx.cluster.store.count('', 'pods'));
    assert.equal(pods.pages, Math.ceil(pods.count / 100));
    assert.ok(pods.worker >= 0 && pods.worker < 3);
  });

  it('prints a table and a summary line; exit 0 when every type loads', async () => {
    const c = capture();
    const code = await runLoad(['--kubeconfig', fx.kubeconfig, '--exclude', 'secrets', '-n', 'default', '--metadata-only'], c.io);
    assert.equal(code, 0, c.err);
    assert.match(c.out, /^TYPE\s+VERSION\s+NAMESPACE\s+COUNT\s+PAGES\s+RETRIES\s+DURATION\s+WORKER\s+STATUS$/m);
    assert.match(c.out, /^pods\s+v1\s+default\s+\d+\s+1\s+0\s+[\d.]+s\s+\d\s+ok$/m);
    assert.match(c.out, /^nodes\s+v1\s+-\s+3\s+/m);
    assert.match(
      c.out,
      /^Loaded [\d,]+ objects of \d+ task\(s\) over \d+ types in [\d.]+ s, 4 workers \(auto: RTT [\d.]+ ms\), page size 500, metadata only; \d+ requests, 0 retries\.$/m,
    );
  });

  it('the table and --json give, type by type, the counts and pages of a load that decodes every object (the command counts items, decoding none)', async () => {
    const args = ['--kubeconfig', fx.kubeconfig, '--exclude', 'secrets', '--page-size', '100', '--concurrency', '3'];
    const t = capture();
    assert.equal(await runLoad(args, t.io), 0, t.err);
    const fromTable = t.out
      .split('\n')
      .slice(1)
      .filter((l) => / ok$/.test(l))
      .map((l) => l.split(/\s+/))
      .map(([type, , ns, count, pages]) => `${type} ${ns === '-' || ns === '*' ? '' : ns}: ${count} in ${pages}`)
      .sort();
    const j = capture();
    assert.equal(await runLoad([...args, '--json'], j.io), 0, j.err);
    const doc = JSON.parse(j.out) as { objects: number; types: { group: string; resource: string; namespace: string | null; count: number; pages: number }[] };
    const fromJson = doc.types.map((r) => `${r.group ? `${r.resource}.${r.group}` : r.resource} ${r.namespace ?? ''}: ${r.count} in ${r.pages}`).sort();
    const decoded = await new ClusterLoader(await fx.client(), { exclude: ['secrets'], pageSize: 100, concurrency: 3 }).load();
    assert.ok(
      decoded.results.some((r) => r.task.gvr.resource === 'pods' && r.items.some((o) => o.metadata.name)),
      'that load decodes objects',
    );
    const want = decoded.results
      .map(
        (r) => `${r.task.gvr.group ? `${r.task.gvr.resource}.${r.task.gvr.group}` : r.task.gvr.resource} ${r.task.namespace ?? ''}: ${r.count} in ${r.pages}`,
      )
      .sort();
    assert.ok(want.length > 30, `types: ${want.length}`);
    assert.deepEqual(fromTable, want);
    assert.deepEqual(fromJson, want);
    assert.equal(doc.objects, decoded.summary.objects);
  });

  it('fatal errors exit 1 with a clear message: missing kubeconfig, broken YAML, unknown context, bad flag, unreachable server', async () => {
    const cases: [string[], RegExp][] = [
      [['--kubeconfig', join(fx.dir, 'absent')], /absent: file not found/],
      [['--kubeconfig', fx.kubeconfig, '--context', 'prod'], /unknown context "prod" \(known: kubeloop-demo\)/],
      [['--kubeconfig', fx.kubeconfig, '--concurrency', '99'], /concurrency must be an integer from 1 to 32, got 99/],
      [['--kubeconfig', fx.kubeconfig, '--page-size', 'many'], /--page-size: expected an integer, got "many"/],
      [['--frobnicate'], /unknown flag "--frobnicate"/],
    ];
    const broken = join(fx.dir, 'broken');
    writeFileSync(broken, 'clusters: [\n  - name: x\n  bad');
    cases.push([['--kubeconfig', broken], /broken: invalid YAML/]);
    const unreachable = join(fx.dir, 'unreachable');
    writeFileSync(unreachable, fx.cluster.kubeconfig().replace(fx.cluster.url, 'http://127.0.0.1:1'));
    cases.push([['--kubeconfig', unreachable], /cannot load from http:\/\/127\.0\.0\.1:1 .*cannot connect/]);
    for (const [args, re] of cases) {
      const c = capture();
      assert.equal(await runLoad(args, c.io), 1, args.join(' '));
      assert.match(c.err, re);
      assert.doesNotMatch(c.err, /Bearer|token:/);
    }
  });

  it('an interrupt cancels in-flight requests, prints what was loaded, and exits 130', async () => {
    const id = fx.cluster.faults.add({ kind: 'hang', verb: 'list', resource: 'configmaps' });
    try {
      const ac = new AbortController();
      const c = capture();
      const p = runLoad(['--kubeconfig', fx.kubeconfig, '--include', 'configmaps,pods,nodes', '--concurrency', '3'], { ...c.io, signal: ac.signal });
      await eventually(() => fx.cluster.stats.inflight >= 1 && c.out === '' && fx.cluster.stats.requestsByResource['pods'] !== undefined, {
        description: 'the hung list',
        timeoutMs: 10_000,
      });
      ac.abort(new Error('interrupted by Ctrl-C'));
      assert.equal(await p, 130);
      // How many of pods and nodes finished before the cancel depends on the machine's speed; what
      // is guaranteed: the hung list is cancelled, every task is accounted for, finished ones print.
      const m = /^Interrupted: loaded [\d,]+ objects of (\d) task\(s\) over 3 types before the cancel; (\d) task\(s\) cancelled/m.exec(c.out);
      assert.ok(m, c.out);
      assert.equal(Number(m[1]) + Number(m[2]), 3);
      assert.ok(Number(m[2]) >= 1, 'the hung list is among the cancelled');
      assert.match(c.out, /^configmaps\s+v1\s+\*\s+0\s+0\s+0\s+[\d.]+s\s+\d\s+cancelled$/m);
      assert.match(c.out, /^pods\s+v1\s+\*\s+\d+\s+\d+\s+0\s+[\d.]+s\s+\d\s+(ok|cancelled)$/m);
    } finally {
      fx.cluster.faults.remove(id);
    }
  });

  it('the bundled CLI as a subprocess: --json and exit 2, then SIGINT during a hung list exits 130 with output', async () => {
    const r = await run(process.execPath, [cli, 'load', '--kubeconfig', fx.kubeconfig, '--json']);
    assert.equal(r.code, 2, r.err);
    const j = JSON.parse(r.out.trim());
    assert.equal(j.failed.length, 1);
    assert.ok(j.objects > 2000);

    const id = fx.cluster.faults.add({ kind: 'hang', verb: 'list', resource: 'configmaps' });
    try {
      const before = fx.cluster.stats.abortedRequests;
      const t0 = Date.now();
      let sent = 0;
      const r2 = await run(process.execPath, [cli, 'load', '--kubeconfig', fx.kubeconfig, '--json'], (child) => {
        void eventually(() => fx.cluster.stats.inflight >= 1 && fx.cluster.stats.requestsByResource['configmaps'] > 0, {
          description: 'the hung list',
          timeoutMs: 20_000,
        }).then(() => {
          sent = Date.now();
          child.kill('SIGINT');
        });
      });
      assert.equal(r2.code, 130, r2.err);
      assert.ok(Date.now() - sent < 3000, 'exited promptly after SIGINT');
      assert.match(r2.err, /interrupted: cancelling in-flight requests/);
      const j2 = JSON.parse(r2.out.trim());
      assert.equal(j2.outcome, 'cancelled');
      assert.ok(j2.cancelled >= 1);
      await eventually(() => fx.cluster.stats.abortedRequests > before, { description: 'the server to see the request abandoned', timeoutMs: 5000 });
      assert.ok(Date.now() - t0 < 30_000);
    } finally {
      fx.cluster.faults.remove(id);
    }
  });
});
