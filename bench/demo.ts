import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Starts the embedded demo cluster in its own process (so its memory and CPU are not counted
 * against the client being measured) and resolves once its kubeconfig is written.
 * Served as a real cluster is: HTTPS with a bearer token. Callers that need a cluster that holds
 * still (the same object count for every contender) pass '--no-kubelet' in `extra`, since the
 * kubelet simulation keeps writing Events for crash-looping pods. The controllers never run here
 * (`--no-controllers`): they would reconcile the generated workloads while a contender loads them.
 */
export async function startDemoProcess(
  objects: number,
  seed: number,
  extra: string[] = [],
): Promise<{ kubeconfig: string; url: string; pid: number; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-bench-demo-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--max-old-space-size=8192',
      'dist/cli.js',
      'demo-cluster',
      '--port',
      '0',
      '--objects',
      String(objects),
      '--seed',
      String(seed),
      '--kubeconfig-out',
      kubeconfig,
      '--token',
      `bench-${process.pid}`,
      '--no-controllers',
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 300_000;
  while (!existsSync(kubeconfig) || !/https?:\/\/\S+/.test(out)) {
    if (child.exitCode !== null) throw new Error(`demo cluster exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`demo cluster did not come up in 300 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const url = /https?:\/\/\S+/.exec(out)![0];
  return { kubeconfig, url, pid: child.pid!, stop };
}
