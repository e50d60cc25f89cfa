/**
 * A demo cluster in a process of its own (`kubeloop demo-cluster` from dist/), for a cluster too big
 * to share the test's heap and event loop: the scale-limit profile holds about 6 GB while it serves.
 *
 * Guarantees:
 * - Resolves once the process has printed its `objects:` line, which it prints only after the
 *   kubeconfig is written and the server listens; rejects with the process's output if it exits
 *   first or the signal aborts, having ended the process and removed its folder.
 * - `stop()` ends the process (SIGTERM, then waits for its exit) and removes the kubeconfig's
 *   folder; safe to call more than once. A process left by a crashed test run is killed on 'exit'.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './paths';

export interface DemoProcess {
  kubeconfig: string;
  url: string;
  /** What the cluster's store holds, as it printed it (every type, also those a load skips). */
  storeObjects: number;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `kubeloop demo-cluster --port 0 --token T --kubeconfig-out F ...args`; `heapMB` is the
 * process's --max-old-space-size (a million generated objects and their encoded forms need GBs).
 */
export async function startDemoProcess(args: string[], opts: { heapMB: number; signal: AbortSignal }): Promise<DemoProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-e2e-demo-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const child = spawn(
    process.execPath,
    [
      `--max-old-space-size=${opts.heapMB}`,
      'dist/cli.js',
      'demo-cluster',
      '--port',
      '0',
      '--token',
      `e2e-${process.pid}`,
      '--kubeconfig-out',
      kubeconfig,
      ...args,
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let stopped = false;
  const stop = async () => {
    if (!stopped) {
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      process.off('exit', killOnExit);
      rmSync(dir, { recursive: true, force: true });
    }
  };
  let out = '';
  try {
    const printed = await new Promise<{ url: string; objects: number }>((resolve, reject) => {
      const onData = (b: Buffer) => {
        out += b.toString();
        const url = /^demo cluster: (https:\/\/\S+)$/m.exec(out);
        const objects = /^objects: +(\d+)$/m.exec(out);
        if (url && objects) resolve({ url: url[1]!, objects: Number(objects[1]) });
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', (b: Buffer) => (out += b.toString()));
      child.once('exit', (code, sig) => reject(new Error(`demo cluster exited with ${code ?? sig} before serving:\n${out.slice(-2000)}`)));
      opts.signal.addEventListener('abort', () => reject(new Error(`demo cluster not serving: ${String(opts.signal.reason)}\n${out.slice(-2000)}`)), {
        once: true,
      });
      if (opts.signal.aborted) reject(new Error(`demo cluster not started: ${String(opts.signal.reason)}`));
    });
    return { kubeconfig, url: printed.url, storeObjects: printed.objects, pid: child.pid!, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
