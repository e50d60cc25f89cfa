/** Runs a program to completion; a non-zero exit is an Error whose message carries the output's tail. */
import { spawn } from 'node:child_process';

export interface RunResult {
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, signal: opts.signal, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, sig) => {
      if (code === 0) return resolvePromise({ stdout, stderr });
      const tail = (stdout + stderr).split('\n').slice(-30).join('\n');
      reject(new Error(`${cmd} ${args.join(' ')} exited with ${code ?? sig}:\n${tail}`));
    });
  });
}
