/**
 * How "KubeLoop: Start Demo Cluster" starts the embedded demo cluster. No 'vscode' import.
 *
 * Environment variables, read only by that command (for tests and demos; not settings, because a
 * user never needs them and a workspace must not be able to make a cluster misbehave):
 *   KUBELOOP_DEMO_OBJECTS  objects to generate (default 2000)
 *   KUBELOOP_DEMO_SEED     generator seed (default 1)
 *   KUBELOOP_DEMO_CHURN    creates/updates/deletes per second after start (default 1)
 *   KUBELOOP_DEMO_FAULTS   fault rules, the demo server's spec syntax, e.g.
 *                          `latency,verb=list,ms=30000,times=4` (see src/demo/server/faults.ts)
 *   KUBELOOP_DEMO_FORBID   comma-separated group/resource the default user may not use, core as
 *                          `/secrets`, e.g. `/secrets,apps/deployments`
 *   KUBELOOP_DEMO_CONTROLLERS  1 (default) runs the controllers (deployment, replicaset, job, ...),
 *                          each on its own timeline lane; 0 leaves the generated workloads as generated
 * The cluster listens on 127.0.0.1 only, on a free port, over plain HTTP without a token: it holds
 * generated data only and lives as long as the extension host.
 */
import { parseFaultSpec, type FaultRule } from '../../demo';
import { formatCount } from '../../core/formatCount';

export interface DemoSettings {
  objects: number;
  seed: number;
  churnPerSecond: number;
  faults: FaultRule[];
  forbidden: string[];
  controllers: boolean;
}

export const DEMO_DEFAULTS = { objects: 2000, seed: 1, churnPerSecond: 1, controllers: true } as const;

function int(env: NodeJS.ProcessEnv, name: string, dflt: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new Error(`${name} must be a whole number from 0 to ${max}, got "${raw}"`);
  return n;
}

/** The demo cluster's options from the environment. Throws with a message naming the bad variable. */
export function demoSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): DemoSettings {
  let faults: FaultRule[] = [];
  if (env.KUBELOOP_DEMO_FAULTS?.trim()) {
    try {
      faults = parseFaultSpec(env.KUBELOOP_DEMO_FAULTS);
    } catch (e) {
      throw new Error(`KUBELOOP_DEMO_FAULTS: ${(e as Error).message}`);
    }
  }
  const forbidden = (env.KUBELOOP_DEMO_FORBID ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const f of forbidden) if (!/^[a-z0-9.-]*\/[a-z0-9-]+$/.test(f)) throw new Error(`KUBELOOP_DEMO_FORBID: "${f}" is not group/resource (core as /secrets)`);
  return {
    objects: int(env, 'KUBELOOP_DEMO_OBJECTS', DEMO_DEFAULTS.objects, 200_000),
    seed: int(env, 'KUBELOOP_DEMO_SEED', DEMO_DEFAULTS.seed, 2 ** 31),
    churnPerSecond: int(env, 'KUBELOOP_DEMO_CHURN', DEMO_DEFAULTS.churnPerSecond, 1000),
    faults,
    forbidden,
    controllers: int(env, 'KUBELOOP_DEMO_CONTROLLERS', DEMO_DEFAULTS.controllers ? 1 : 0, 1) === 1,
  };
}

/** What the start message says about non-default options, so a slow or failing demo is never a mystery. */
export function describeDemoSettings(s: DemoSettings): string {
  const parts = [`${formatCount(s.objects)} objects`];
  if (s.churnPerSecond) parts.push(`${s.churnPerSecond} change(s)/s`);
  if (s.faults.length) parts.push(`${s.faults.length} fault rule(s) from KUBELOOP_DEMO_FAULTS`);
  if (s.forbidden.length) parts.push(`forbidden: ${s.forbidden.join(', ')}`);
  if (!s.controllers) parts.push('controllers off');
  return parts.join(', ');
}
