import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

/** Runs a contender `n` times, one after another, and returns the median; a failure is printed. */
export async function runN(n: number, name: string, cmd: string, args: string[]): Promise<Measurement> {
  const runs: Measurement[] = [];
  for (let i = 0; i < n; i++) runs.push(await measure(name, cmd, args));
  const m = median(runs);
  if (m.exitCode !== 0) console.error(`  ${name} failed (exit ${m.exitCode}):\n${m.stderr.slice(0, 2000)}`);
  return m;
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
  for (let i = 0; i < n; i++)
    for (const k of keys) {
      const before = watch?.();
      const m = await measure(specs[k].name, specs[k].cmd, specs[k].args);
      const after = watch?.();
      runs.get(k)!.push(before !== undefined && after !== undefined ? { ...m, watchedCpuMs: after - before } : m);
    }
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

/** One row per contender: wall time, peak memory, and wall time relative to `base`. */
export function printTable(results: Record<string, Measurement>, base: Measurement): void {
  console.table(
    Object.values(results).map((m) => ({
      contender: m.name,
      'wall s': (m.wallMs / 1000).toFixed(2),
      'peak MB': m.peakMB.toFixed(0),
      'wall vs KubeLoop': `${ratio(m, base).toFixed(2)}x`,
      exit: m.exitCode,
    })),
  );
}

/** A target: what it says, whether it was met, and the measured figure. */
export type Check = readonly [what: string, pass: boolean, figure: string];

export function printChecks(checks: readonly Check[], suffix = ''): void {
  for (const [what, pass, figure] of checks) console.log(`${pass ? 'MEETS ' : 'MISSES'} ${what}: ${figure}${suffix}`);
}

/** Runs one bench section per size, writes every size's summary to `outFile` as JSON, and exits 1 on a failure. */
export function runSizes<T>(sizes: number[], benchSize: (n: number) => Promise<T>, outFile: string): void {
  (async () => {
    const all: T[] = [];
    for (const n of sizes) all.push(await benchSize(n));
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(outFile, JSON.stringify(all, null, 2));
    console.log(`\nresults written to ${outFile}`);
  })().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
