/**
 * The lab's child processes (etcd, kube-apiserver, the controller manager and scheduler, hollow
 * kubelets), launched one way: output straight to a log file (no pipe to drain; its tail explains a
 * failure), the pid appended to the control plane's pids file (its watchdog kills every pid listed
 * there if this process dies without stopping them).
 *
 * Guarantees: `exited` always resolves, never rejects (a spawn failure is written to the log and
 * counts as exit code -1; a death by signal as -1); terminate() sends SIGTERM, then SIGKILL after
 * 5 s, and resolves once the process is gone; it is idempotent. waitWhileRunning() is bounded by its
 * deadline and ends at once when one of the processes exits, with every log's tail in its error (a
 * PortRaceError when the dead one's port was taken, so the caller can launch it again).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { eventually } from '../test/support/eventually';

export interface LabProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** undefined while it runs; null when it exited without a code or signal (never seen). */
  exitCode: number | null | undefined;
  exited: Promise<void>;
}

export interface LaunchOptions {
  name: string;
  logFile: string;
  /** Where the pid is appended for the watchdog. */
  pidsFile: string;
  env?: NodeJS.ProcessEnv;
}

export function launch(binary: string, args: readonly string[], opts: LaunchOptions): LabProcess {
  const fd = fs.openSync(opts.logFile, 'a');
  const child = spawn(binary, args, { stdio: ['ignore', fd, fd], ...(opts.env ? { env: opts.env } : {}) });
  fs.closeSync(fd);
  if (child.pid) fs.appendFileSync(opts.pidsFile, `${child.pid}\n`);
  const p: LabProcess = { name: opts.name, child, logFile: opts.logFile, exitCode: undefined, exited: Promise.resolve() };
  p.exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      p.exitCode = code ?? (signal ? -1 : null);
      resolve();
    });
    child.on('error', (e) => {
      fs.appendFileSync(opts.logFile, `spawn failed: ${e.message}\n`);
      p.exitCode = -1;
      resolve();
    });
  });
  return p;
}

export async function terminate(p: LabProcess): Promise<void> {
  if (p.exitCode !== undefined) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 5000);
  await p.exited;
  clearTimeout(timer);
}

/** The last n lines of a process's log, headed by its name ("" when the log is gone). */
export function logTail(p: LabProcess, n = 30): string {
  let text = '';
  try {
    text = fs.readFileSync(p.logFile, 'utf8');
  } catch {
    /* removed with the control plane's dir */
  }
  return `--- last ${n} lines of ${p.name} ---\n${text.trimEnd().split('\n').slice(-n).join('\n')}`;
}

/**
 * A process that died during start-up because a port it was given was taken between freePorts()
 * and its own bind (freePorts is racy by nature; kubelets, for one, exit 1 on it): the caller may
 * launch that process again on fresh ports. `process` is the one that died.
 */
export class PortRaceError extends Error {
  constructor(
    message: string,
    readonly process: LabProcess,
  ) {
    super(message);
  }
}

/** A port-in-use line as Go's net package prints it ("bind: address already in use"). */
export const PORT_IN_USE = /address already in use/;

/**
 * Waits (eventually, checks at most 200 ms apart) until ok() resolves, bounded by the start
 * deadline; a process that exits ends the wait at once: with a PortRaceError when its log says
 * a port was taken, else an error naming it. Either way the logs' tails follow, the dead
 * process's last (the end of the message is what a truncated CI excerpt shows).
 */
export async function waitWhileRunning(
  what: string,
  all: LabProcess[],
  deadline: number,
  signal: AbortSignal | undefined,
  ok: () => Promise<void>,
): Promise<void> {
  const died = new AbortController();
  let dead: LabProcess | undefined;
  try {
    await eventually(
      async () => {
        dead = all.find((x) => x.exitCode !== undefined);
        if (dead) {
          died.abort(new Error(`${dead.name} exited (code ${dead.exitCode}) while waiting for ${what}`));
          return false; // eventually then rejects with the abort's reason
        }
        await ok();
        return true;
      },
      {
        description: what,
        timeoutMs: Math.max(1, deadline - Date.now()),
        signal: signal ? AbortSignal.any([signal, died.signal]) : died.signal,
        maxIntervalMs: 200,
      },
    );
  } catch (e) {
    const order = dead ? [...all.filter((p) => p !== dead), dead] : all;
    const message = `${(e as Error).message}\n${order.map((p) => logTail(p)).join('\n')}`;
    if (dead && PORT_IN_USE.test(logTail(dead, 200))) throw new PortRaceError(`port race: ${message}`, dead);
    throw new Error(message);
  }
}

/** Bind :0 on loopback n times at once (so they differ), then release. Racy by nature; see controlplane.ts's PortRaceError. */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const s = net.createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}
