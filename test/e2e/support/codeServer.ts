/**
 * code-server: a real VS Code server build with a real Node extension host (see
 * scripts/install-code-server.sh for why it is code-server and this version).
 *
 * Guarantee: `CodeServer.stop()` ends the server's whole process group (server, extension host,
 * file watcher, pty host) and is safe to call more than once; a server left running by a crashed
 * test process is ended by the process 'exit' hook.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { codeServerExe, e2eArtifactsDir, repoRoot } from './paths';
import { run } from './run';
import { eventually } from '../../support/eventually';

/** The code-server executable, installing it first when the cache does not have it. */
export async function ensureCodeServer(signal?: AbortSignal): Promise<string> {
  if (existsSync(codeServerExe)) return codeServerExe;
  const { stdout } = await run('bash', [join(repoRoot, 'scripts', 'install-code-server.sh')], { signal });
  const exe = stdout.trim().split('\n').pop()!;
  if (!existsSync(exe)) throw new Error(`install-code-server.sh reported ${exe}, which does not exist`);
  return exe;
}

export interface CodeServerDirs {
  userDataDir: string;
  extensionsDir: string;
  /** code-server's own config file (kept out of ~/.config so runs do not share state). */
  configFile: string;
}

/** `code-server --install-extension`: the way that registers it in the extensions dir's extensions.json. */
export async function installExtension(exe: string, vsix: string, dirs: CodeServerDirs, signal?: AbortSignal): Promise<void> {
  const { stdout } = await run(
    exe,
    ['--config', dirs.configFile, '--user-data-dir', dirs.userDataDir, '--extensions-dir', dirs.extensionsDir, '--install-extension', vsix, '--force'],
    { signal },
  );
  if (!/successfully installed/i.test(stdout)) throw new Error(`code-server did not confirm the install:\n${stdout}`);
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) killGroup(child);
});
// code-server runs in its own process group (so stop() can end its helpers too); that also means an
// interrupted test run must end it itself, or it would outlive the run.
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    for (const child of live) killGroup(child);
    process.exit(sig === 'SIGINT' ? 130 : 143);
  });
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL'); // negative pid: the group started with detached: true
  } catch {
    // already gone
  }
}

export interface CodeServer {
  url: string;
  logFile: string;
  stop(): Promise<void>;
}

export interface StartOptions extends CodeServerDirs {
  exe: string;
  /** Names the log file: .test-artifacts/e2e/code-server-<name>.log */
  name: string;
  folder: string;
  signal?: AbortSignal;
  /** How long to wait for "HTTP server listening". */
  timeoutMs?: number;
  /** Extra environment for code-server and so for its extension host (e.g. KUBELOOP_DEMO_* variables). */
  env?: Record<string, string>;
}

/** Starts code-server on a free loopback port (port 0, read back from its log) and waits until it answers. */
export async function startCodeServer(opts: StartOptions): Promise<CodeServer> {
  mkdirSync(e2eArtifactsDir, { recursive: true });
  const logFile = join(e2eArtifactsDir, `code-server-${opts.name}.log`);
  const logStream = createWriteStream(logFile);
  const child = spawn(
    opts.exe,
    [
      '--config',
      opts.configFile,
      '--auth',
      'none',
      '--bind-addr',
      '127.0.0.1:0',
      '--user-data-dir',
      opts.userDataDir,
      '--extensions-dir',
      opts.extensionsDir,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      opts.folder,
    ],
    { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } },
  );
  live.add(child);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      const timer = setTimeout(() => killGroup(child), 5000);
      await exited;
      clearTimeout(timer);
    }
    killGroup(child); // children that outlived the server
    live.delete(child);
    logStream.end();
  };

  let output = '';
  try {
    const url = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new Error(`code-server did not start listening within ${opts.timeoutMs ?? 60_000} ms`)), opts.timeoutMs ?? 60_000);
      const onData = (d: Buffer) => {
        logStream.write(d);
        output += d.toString();
        const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\/?/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolveUrl(m[1]!);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code, sig) => {
        clearTimeout(timer);
        reject(new Error(`code-server exited (${code ?? sig}) before listening:\n${output.slice(-3000)}`));
      });
      opts.signal?.addEventListener('abort', () => reject(opts.signal!.reason), { once: true });
    });
    await waitForHealthy(url, opts.signal);
    return { url, logFile, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Waits until code-server's /healthz answers 200 (bounded, 30 s): the state "serving", asked of the
 * server itself. Each check is one request; the caller's signal aborts it and the wait at once.
 */
async function waitForHealthy(url: string, signal?: AbortSignal): Promise<void> {
  await eventually(
    async () => {
      const res = await fetch(`${url}/healthz`, { signal });
      await res.body?.cancel();
      if (!res.ok) throw new Error(`/healthz answered ${res.status}`);
      return true;
    },
    { description: `${url}/healthz to answer OK`, timeoutMs: 30_000, signal },
  );
}
