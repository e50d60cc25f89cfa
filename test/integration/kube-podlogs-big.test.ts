/**
 * A 100 MiB container log (the demo's generated log: lines computed from their index, never
 * stored) read by `kubeloop logs` as a child process: whole, followed and tailed. The child's
 * peak RSS (VmHWM, written at its exit) stays within a bound far below the log's size, and every
 * byte arrives. The figures are printed as the test's diagnostics.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GENERATED_LINE_BYTES, GENERATED_LOG_ANNOTATION } from '../../src/demo/kubelet/logs';
import { eventually } from '../support/eventually';
import { startTestCluster, type TestCluster } from './demo-support';
import { bundleCli } from '../support/bundleCli';

const LOG_BYTES = 100 * 1024 * 1024;
/** What reading the log may add to the CLI's own peak RSS (the log is 100 MiB). */
const EXTRA_RSS_CAP_MIB = 48;

interface Run {
  code: number | null;
  bytes: number;
  lines: number;
  lastLine: string;
  peakRssMiB: number;
  stderr: string;
}

describe('a 100 MiB log read by kubeloop logs', () => {
  let t: TestCluster;
  let work: string;
  let cli: string;
  before(async () => {
    t = await startTestCluster({ kubelet: true, kubeletSpeed: 10 });
    work = mkdtempSync(join(tmpdir(), 'kubeloop-biglog-'));
    cli = join(work, 'cli-main.js');
    // Bundled as the shipped CLI is, so its RSS is the CLI's and not a TypeScript loader's.
    await bundleCli(cli);
    writeFileSync(
      join(work, 'hwm.cjs'),
      `process.on('exit', () => { const m = /VmHWM:\\s+(\\d+) kB/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8')); require('node:fs').writeFileSync(process.env.HWM_FILE, m ? m[1] : '0'); });`,
    );
    for (const [name, annotations] of [
      ['big', { [GENERATED_LOG_ANNOTATION]: String(LOG_BYTES) }],
      ['small', { [GENERATED_LOG_ANNOTATION]: '1000' }],
    ] as const) {
      t.cluster.store.create('', 'pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'default', annotations },
        spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sh', '-c', 'sleep 36000'] }] },
      });
    }
    await eventually(
      () => ['big', 'small'].every((n) => (t.cluster.store.get('', 'pods', 'default', n)?.status as any)?.containerStatuses?.[0]?.state?.running),
      {
        description: 'both pods running',
        timeoutMs: 20_000,
      },
    );
  });
  after(async () => {
    await t.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** Runs the CLI; the output is counted as it comes, never kept. `stopAfter`: SIGINT once that many bytes arrived (a follow). */
  function run(args: string[], stopAfter?: number): Promise<Run> {
    const hwm = join(work, `hwm-${Math.random().toString(36).slice(2)}`);
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--require', join(work, 'hwm.cjs'), cli, 'logs', '--kubeconfig', t.kubeconfig, ...args], {
        env: { ...process.env, HWM_FILE: hwm },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let bytes = 0;
      let lines = 0;
      let tail = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => {
        bytes += c.length;
        for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) lines++;
        tail = (tail + c.subarray(Math.max(0, c.length - 2 * GENERATED_LINE_BYTES)).toString('latin1')).slice(-2 * GENERATED_LINE_BYTES);
        if (stopAfter !== undefined && bytes >= stopAfter) child.kill('SIGINT');
      });
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('close', (code) => {
        const peakRssMiB = Math.round(Number(readFileSync(hwm, 'utf8')) / 1024);
        resolve({ code, bytes, lines, lastLine: tail.split('\n').at(-2) ?? '', peakRssMiB, stderr });
      });
    });
  }

  it('whole, followed and tailed: every byte arrives, the peak RSS stays far below the log', { timeout: 300_000 }, async (ctx) => {
    const base = await run(['small']);
    assert.equal(base.code, 0, base.stderr);
    assert.equal(base.bytes, 1000);
    const whole = await run(['big']);
    assert.equal(whole.code, 0, whole.stderr);
    assert.equal(whole.bytes, LOG_BYTES);
    assert.equal(whole.lines, LOG_BYTES / GENERATED_LINE_BYTES);
    assert.match(whole.lastLine, /^line 0001048575 abc/);
    const followed = await run(['big', '-f'], LOG_BYTES);
    assert.equal(followed.bytes, LOG_BYTES, followed.stderr);
    const tailed = await run(['big', '--tail', '100000', '--timestamps']);
    assert.equal(tailed.code, 0, tailed.stderr);
    assert.equal(tailed.lines, 100_000);
    ctx.diagnostic(
      `peak RSS (VmHWM) of kubeloop logs: ${base.peakRssMiB} MiB on a 1 kB log; 100 MiB log: whole ${whole.peakRssMiB} MiB, followed ${followed.peakRssMiB} MiB, --tail 100000 ${tailed.peakRssMiB} MiB`,
    );
    for (const [what, r] of [
      ['whole', whole],
      ['followed', followed],
      ['tailed', tailed],
    ] as const) {
      assert.ok(
        r.peakRssMiB - base.peakRssMiB <= EXTRA_RSS_CAP_MIB,
        `${what}: peak RSS ${r.peakRssMiB} MiB, ${r.peakRssMiB - base.peakRssMiB} MiB over the CLI's own ${base.peakRssMiB} MiB`,
      );
    }
  });
});
