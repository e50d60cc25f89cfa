/**
 * `kubeloop` as a real child process, watched the way the hostile tier needs:
 * - The CLI is the bundle of src/cli/main.ts (esbuild, as dist/cli-main.js is built), run by this
 *   Node with a preload that (a) marks stdout and stderr as terminals, so the CLI takes its TTY path
 *   (cli/terminal.ts decides on `isTTY`) while the test still reads both through pipes, and (b)
 *   writes the process's peak RSS (VmHWM of /proc/self/status, worker threads included) to a file
 *   at exit.
 * - A watchdog samples /proc/<pid>/status every 100 ms: the peak is the larger of its samples and
 *   the exit figure, and a child past `killRssMiB` is killed at once (a case with no cap must not
 *   take the shared machine's memory) and reported `overCap`.
 * - `hangAfterMs`: a child still running then is killed and reported `hung`.
 * - `crashed`: ended by a signal nobody sent, an exit status the CLI does not document, or an
 *   uncaught error's stack / V8's out-of-memory report on stderr.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

const root = join(__dirname, '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'kubeloop-hostile-cli-'));
const PRELOAD = join(work, 'preload.cjs');
writeFileSync(
  PRELOAD,
  `const { isMainThread } = require('node:worker_threads');
if (isMainThread) {
  process.stdout.isTTY = true;
  process.stderr.isTTY = true;
  process.on('exit', () => {
    try {
      const m = /VmHWM:\\s+(\\d+) kB/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'));
      if (m && process.env.KUBELOOP_HOSTILE_HWM) require('node:fs').writeFileSync(process.env.KUBELOOP_HOSTILE_HWM, m[1]);
    } catch {}
  });
}
`,
);

let bundle: Promise<string> | undefined;
/** The CLI bundle, built once per test process. */
export function cliBundle(): Promise<string> {
  bundle ??= esbuild
    .build({
      entryPoints: [join(root, 'src', 'cli', 'main.ts')],
      outfile: join(work, 'cli-main.js'),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      logLevel: 'warning',
    })
    .then(() => join(work, 'cli-main.js'));
  return bundle;
}

const helps = new Map<string, Promise<string>>();
/** What `kubeloop <command> --help` prints (which flags this CLI has). */
export function cliHelp(command: string): Promise<string> {
  if (!helps.has(command))
    helps.set(
      command,
      cliBundle().then(
        (cli) =>
          new Promise<string>((resolve) =>
            execFile(process.execPath, [cli, command, '--help'], { cwd: root, timeout: 60_000 }, (_e, stdout, stderr) => resolve(`${stdout}${stderr}`)),
          ),
      ),
    );
  return helps.get(command)!;
}

/** Exit statuses the CLI documents (load: 0, 1, 2, 130; sync: 0, 1, 2, 3). */
const DOCUMENTED = new Set([0, 1, 2, 3, 130]);
const CRASH_TEXT = /^\s+at .+:\d+:\d+\)?$|JavaScript heap out of memory|Maximum call stack size exceeded|Unhandled|FATAL ERROR/m;

export interface Child {
  child: ChildProcess;
  /** stdout and stderr so far. */
  readonly out: string;
  readonly err: string;
  readonly startedAt: number;
  /** Resolves when the child has exited and its figures are final. */
  done: Promise<ChildResult>;
  /** Ends the child as Ctrl-C would (SIGINT). */
  interrupt(): void;
}

export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
  ms: number;
  peakRssMiB: number;
  hung: boolean;
  overCap: boolean;
  crashed: boolean;
}

export interface ChildOptions {
  hangAfterMs: number;
  killRssMiB: number;
  /** XDG_CACHE_HOME of the child: nothing cached by another case is read. */
  cacheDir: string;
}

function statusKiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0; // gone
  }
}

export async function startCli(args: string[], o: ChildOptions): Promise<Child> {
  const cli = await cliBundle();
  const hwmFile = join(mkdtempSync(join(work, 'run-')), 'hwm');
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: o.cacheDir, KUBELOOP_HOSTILE_HWM: hwmFile, KUBECONFIG: '' };
  for (const k of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy', 'NODE_OPTIONS']) delete env[k];
  const startedAt = Date.now();
  const child = spawn(process.execPath, ['--require', PRELOAD, cli, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  let peakKiB = 0;
  let hung = false;
  let overCap = false;
  let killedByUs = false;
  const kill = () => {
    killedByUs = true;
    child.kill('SIGKILL');
  };
  const sampler = setInterval(() => {
    if (child.pid === undefined) return;
    peakKiB = Math.max(peakKiB, statusKiB(child.pid, 'VmHWM'));
    if (statusKiB(child.pid, 'VmRSS') > o.killRssMiB * 1024) {
      overCap = true;
      kill();
    }
  }, 100);
  const deadline = setTimeout(() => {
    hung = true;
    kill();
  }, o.hangAfterMs);
  const done = new Promise<ChildResult>((resolve) => {
    child.on('close', (code, signal) => {
      clearInterval(sampler);
      clearTimeout(deadline);
      try {
        peakKiB = Math.max(peakKiB, Number(readFileSync(hwmFile, 'utf8')) || 0);
      } catch {
        // killed: no exit figure, the samples stand
      }
      const ms = Date.now() - startedAt;
      const crashed = (signal !== null && !killedByUs && signal !== 'SIGINT') || (code !== null && !DOCUMENTED.has(code)) || CRASH_TEXT.test(err);
      resolve({ code, signal, out, err, ms, peakRssMiB: Math.round(peakKiB / 102.4) / 10, hung, overCap, crashed });
    });
  });
  return {
    child,
    get out() {
      return out;
    },
    get err() {
      return err;
    },
    startedAt,
    done,
    interrupt: () => child.kill('SIGINT'),
  };
}
