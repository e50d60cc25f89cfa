import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';

/** Wall time and peak resident memory of one child process, measured by GNU time (wait4 rusage). */
export interface Measurement {
  name: string;
  wallMs: number;
  peakMB: number;
  /** The process's CPU (user + system, its children included), when /usr/bin/time gave it. */
  cpuMs?: number;
  /** CPU another process (runInterleaved's `watch`, e.g. the cluster serving it) used during the run. */
  watchedCpuMs?: number;
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `cmd args` under /usr/bin/time and returns its wall time and peak RSS (ru_maxrss).
 * stdout is kept only up to `keepStdout` bytes (kubectl's -o json output is tens of MB and is
 * discarded as it arrives, so the parent's memory does not disturb the child's figures).
 */
export function measure(
  name: string,
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; keepStdout?: number; signal?: AbortSignal } = {},
): Promise<Measurement> {
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-bench-'));
  const timeFile = join(dir, 'time.txt');
  const keep = opts.keepStdout ?? 1 << 20;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%e %M %U %S', '-o', timeFile, cmd, ...args], {
      env: opts.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: opts.signal,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      if (stdout.length < keep) stdout += b.toString('utf8');
    });
    child.stderr.on('data', (b: Buffer) => {
      if (stderr.length < 1 << 16) stderr += b.toString('utf8');
    });
    child.on('error', (e) => {
      rmSync(dir, { recursive: true, force: true });
      reject(e);
    });
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      let peakKB = NaN;
      let cpuMs: number | undefined;
      try {
        const f = (readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '').split(' ').map(Number);
        peakKB = f[1]!;
        if (Number.isFinite(f[2]) && Number.isFinite(f[3])) cpuMs = (f[2]! + f[3]!) * 1000;
      } catch {
        // time wrote nothing: the figure stays NaN and the table shows it
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({ name, wallMs, peakMB: peakKB / 1024, ...(cpuMs !== undefined ? { cpuMs } : {}), exitCode: code ?? -1, stdout, stderr });
    });
  });
}

/**
 * The median run by wall time (failed runs, those that did not exit `expectedExit`, are left out
 * unless all failed); peak memory is the worst run's.
 */
export function median<M extends Measurement>(ms: M[], expectedExit = 0): M {
  const ok = ms.filter((m) => m.exitCode === expectedExit);
  if (ok.length === 0) return ms[0]!;
  const s = [...ok].sort((a, b) => a.wallMs - b.wallMs);
  return { ...s[Math.floor(s.length / 2)]!, peakMB: Math.max(...ok.map((x) => x.peakMB)) };
}

/** Runs a contender `n` times, one after another, and returns the median with every run; a failure is printed. */
export async function runN(
  n: number,
  name: string,
  cmd: string,
  args: string[],
  /** As runInterleaved's: CPU ms of another process, read around each run. */
  watch?: () => number | undefined,
): Promise<Measurement & { runs: Measurement[] }> {
  const runs: Measurement[] = [];
  for (let i = 0; i < n; i++) runs.push(await watched(watch, () => measure(name, cmd, args)));
  const m = median(runs);
  if (m.exitCode !== 0) console.error(`  ${name} failed (exit ${m.exitCode}):\n${m.stderr.slice(0, 2000)}`);
  return { ...m, runs };
}

/** `run()`, with `watchedCpuMs` set to what `watch` grew by meanwhile (when it read both times). */
async function watched(watch: (() => number | undefined) | undefined, run: () => Promise<Measurement>): Promise<Measurement> {
  const before = watch?.();
  const m = await run();
  const after = watch?.();
  return before !== undefined && after !== undefined ? { ...m, watchedCpuMs: after - before } : m;
}

/**
 * Runs several contenders `n` rounds each, round-robin (A B C, A B C, ...), and returns each one's
 * median. The machine's speed drifts over a bench run; interleaving puts every contender under
 * the same drift, so the ratios between them hold up better than with A A A, B B B.
 */
export async function runInterleaved<K extends string>(
  n: number,
  specs: Record<K, { name: string; cmd: string; args: string[] }>,
  expectedExit: Partial<Record<K, number>> = {},
  /** Read before and after each run (CPU ms of another process, e.g. the cluster): the run's `watchedCpuMs`. */
  watch?: () => number | undefined,
): Promise<Record<K, Measurement & { runs: Measurement[] }>> {
  const keys = Object.keys(specs) as K[];
  const runs = new Map<K, Measurement[]>(keys.map((k) => [k, []]));
  for (let i = 0; i < n; i++) for (const k of keys) runs.get(k)!.push(await watched(watch, () => measure(specs[k].name, specs[k].cmd, specs[k].args)));
  const out = {} as Record<K, Measurement & { runs: Measurement[] }>;
  for (const k of keys) {
    // A contender that is expected to exit non-zero (a load with a dead cluster exits 2) is
    // ranked among its runs that exited so; any other exit is a failure, printed.
    const want = expectedExit[k] ?? 0;
    const all = runs.get(k)!;
    const m = median(all, want);
    if (m.exitCode !== want) console.error(`  ${m.name} failed (exit ${m.exitCode}):\n${m.stderr.slice(0, 2000)}`);
    out[k] = { ...m, runs: all };
  }
  return out;
}

/** The `objects` field of the JSON a contender prints last (KubeLoop's --json, the peers'). */
export function objectsOf(m: Measurement): number | undefined {
  try {
    return JSON.parse(m.stdout.trim().split('\n').pop() ?? '').objects;
  } catch {
    return undefined;
  }
}

/** The value after `--name` on this bench's command line, or `dflt`. */
export function benchArg(name: string, dflt: string): string {
  const argv = process.argv.slice(2);
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : dflt;
}

/** How many times slower `a` was than `b` (wall time). */
export const ratio = (a: Measurement, b: Measurement): number => a.wallMs / b.wallMs;

/** One row per contender: wall time, peak memory, wall time relative to `base`, and CPU (its own; the cluster's) where measured. */
export function printTable(results: Record<string, Measurement>, base: Measurement): void {
  console.table(
    Object.values(results).map((m) => ({
      contender: m.name,
      'wall s': (m.wallMs / 1000).toFixed(2),
      'peak MB': m.peakMB.toFixed(0),
      'wall vs KubeLoop': `${ratio(m, base).toFixed(2)}x`,
      'CPU s': m.cpuMs !== undefined ? (m.cpuMs / 1000).toFixed(2) : '-',
      'cluster CPU s': m.watchedCpuMs !== undefined ? (m.watchedCpuMs / 1000).toFixed(2) : '-',
      exit: m.exitCode,
    })),
  );
}

/** A target: what it says, whether it was met, and the measured figure. */
export type Check = readonly [what: string, pass: boolean, figure: string];

export function printChecks(checks: readonly Check[], suffix = ''): void {
  for (const [what, pass, figure] of checks) console.log(`${pass ? 'MEETS ' : 'MISSES'} ${what}: ${figure}${suffix}`);
}

/** One run of a contender as the results file keeps it: what the charts and the tables are drawn from. */
export interface Sample {
  wallMs: number;
  /** The contender's own CPU (user + system, its children included). */
  cpuMs: number | null;
  /** The cluster's CPU meanwhile (the demo process serving it), when the bench watched it. */
  clusterCpuMs: number | null;
  peakMB: number;
  exit: number;
}

export const sampleOf = (m: Measurement): Sample => ({
  wallMs: Math.round(m.wallMs),
  cpuMs: m.cpuMs !== undefined ? Math.round(m.cpuMs) : null,
  clusterCpuMs: m.watchedCpuMs !== undefined ? Math.round(m.watchedCpuMs) : null,
  peakMB: Math.round(m.peakMB),
  exit: m.exitCode,
});

/** A contender in the results file: its name, its median run (by wall time; peak is the worst run's) and every run. */
export function contenderOf(m: Measurement & { runs?: Measurement[] }): { name: string; median: Sample; runs: Sample[] } {
  return { name: m.name, median: sampleOf(m), runs: (m.runs ?? [m]).map(sampleOf) };
}

/** Jiffies the whole machine spent busy and in all, from /proc/stat (Linux). */
function machineJiffies(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3]! - (f[4] ?? 0), total }; // idle and iowait are not busy
}

/**
 * How busy the machine was over `run()`, by every process (the bench's and anyone else's): the
 * load average before and after, and the fraction of all cores busy. A figure measured while other
 * work held the cores is slower than a quiet machine's; the ratios within one run hold up better.
 */
export async function withMachineLoad<T>(run: () => Promise<T>): Promise<{ result: T; load: { before: number[]; after: number[]; busyPct: number } }> {
  const before = loadavg();
  const j0 = machineJiffies();
  const result = await run();
  const j1 = machineJiffies();
  const busyPct = Math.round((100 * (j1.busy - j0.busy)) / Math.max(1, j1.total - j0.total));
  return { result, load: { before: before.map((x) => +x.toFixed(2)), after: loadavg().map((x) => +x.toFixed(2)), busyPct } };
}

/** What a results file says of where and when it was measured. */
export function benchMeta(bench: string): Record<string, unknown> {
  return {
    bench,
    command: `npm run bench -- ${bench} ${process.argv.slice(2).join(' ')}`.trim(),
    date: new Date().toISOString(),
    node: process.version,
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGB: Math.round(totalmem() / 2 ** 30),
      platform: `${process.platform}-${process.arch}`,
    },
  };
}

/**
 * Runs one bench section per size, writes every size's summary to `outFile` as JSON (`meta`: the
 * machine, date, node version and command; `sizes`: one entry per size, with the machine's load
 * over it), and exits 1 on a failure.
 */
export function runSizes<T>(sizes: number[], benchSize: (n: number) => Promise<T>, outFile: string, bench: string): void {
  (async () => {
    const meta = benchMeta(bench);
    const all: (T & { machineLoad: unknown })[] = [];
    for (const n of sizes) {
      const { result, load } = await withMachineLoad(() => benchSize(n));
      all.push({ ...result, machineLoad: load });
    }
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(outFile, JSON.stringify({ meta, sizes: all }, null, 2) + '\n');
    console.log(`\nresults written to ${outFile}`);
  })().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
