/**
 * A far-away demo cluster for the remote tests: the demo cluster over HTTPS with a token, the
 * netem relay (bench/netem.ts) in front of it adding `latencyMs` each way, and a kubeconfig at
 * `far` that points at the relay (same loopback address, so the serving certificate still
 * matches). `close()` stops the relay, then the cluster.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { startNetem, type Netem } from '../../bench/netem';
import { kubeconfigViaRelay, serverOf } from '../../bench/relay-kubeconfig';
import { demo, type Fixture } from './loader-helpers';

export interface FarDemo {
  fx: Fixture;
  relay: Netem;
  /** The kubeconfig whose server is the relay. */
  far: string;
  close(): Promise<void>;
}

export async function farDemo(objects: number, token: string, latencyMs: number): Promise<FarDemo> {
  const fx = await demo(objects, { token });
  const server = serverOf(fx.kubeconfig);
  assert.equal(server.protocol, 'https:');
  const relay = await startNetem({ target: { host: server.hostname, port: Number(server.port) }, latencyMs, rateBitsPerSec: 400e6 });
  const far = join(fx.dir, 'kubeconfig-remote');
  kubeconfigViaRelay(fx.kubeconfig, relay, far);
  return {
    fx,
    relay,
    far,
    async close() {
      await relay.close();
      await fx.stop();
    },
  };
}

const CLI = resolve(__dirname, '..', '..', 'dist', 'cli.js');

/** `kubeloop load --json` (dist/cli.js, page size 200, no discovery cache): its JSON, or a rejection with its stderr. */
export function cliLoadJson<T>(kubeconfig: string, extra: string[] = []): Promise<T> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [CLI, 'load', '--kubeconfig', kubeconfig, '--json', '--page-size', '200', '--no-discovery-cache', ...extra], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b));
    child.stderr.on('data', (b: Buffer) => (err += b));
    child.on('close', (code) => (code === 0 ? res(JSON.parse(out.trim().split('\n').pop()!) as T) : rej(new Error(`kubeloop load exited ${code}: ${err}`))));
  });
}
