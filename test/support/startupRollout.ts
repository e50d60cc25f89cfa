/**
 * What the two 100-pod rollout tests share (test/integration/startup-rollout.test.ts on the demo
 * cluster, test/apiserver/startup-rollout.test.ts on kube-apiserver with real kubelets): the
 * Deployment, the wait for it to settle, the checks every live report must pass, `kubeloop` as a
 * child process (the recorder among its uses), and the report read back from a recording.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readStartupRecorded, type StartupRead } from '../../src/app/startup/readStartup';
import type { StartupGroup, StartupSelection } from '../../src/core/startup/report';
import type { Bound, PodStartup } from '../../src/core/startup/podStartup';
import { eventually } from './eventually';

const root = join(__dirname, '..', '..');
const never = new AbortController().signal;

/** Deployment `name`: `replicas` pods of one container `web`, Ready once its readiness probe answers. */
export function deploymentOf(namespace: string, name: string, replicas: number, web: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', ...web }] } },
    },
  };
}

/** Waits until `read` (a GET of the Deployment) shows every replica updated, ready and available for its generation. */
export async function rolloutSettled(read: () => Promise<any>, replicas: number, timeoutMs: number): Promise<void> {
  await eventually(
    async () => {
      const d = await read();
      const s = d.status ?? {};
      if (s.observedGeneration === d.metadata.generation && s.updatedReplicas === replicas && s.readyReplicas === replicas && s.availableReplicas === replicas)
        return true;
      throw new Error(`status: ${JSON.stringify(s)}`);
    },
    { description: `the rollout settled: ${replicas} updated, ready and available replicas`, timeoutMs, maxIntervalMs: 50 },
  );
}

/**
 * The checks of a live report read `elapsedMs` after Deployment `shop` settled: read within 1 s, no
 * warning, one group (the Deployment's, with its ReplicaSet) of `replicas` pods. Returns that group.
 */
export function rolloutGroup(live: StartupRead | { error: string }, elapsedMs: number, replicas: number): StartupGroup {
  if ('error' in live) assert.fail(live.error);
  assert.ok(elapsedMs < 1000, `the report took ${elapsedMs.toFixed(0)} ms after the rollout settled`);
  assert.deepEqual(live.warnings, []);
  assert.equal(live.groups.length, 1);
  const g = live.groups[0]!;
  assert.equal(g.owner, 'deployment/shop');
  assert.match(g.rollout ?? '', /^replicaset\/shop-[a-z0-9]+$/);
  assert.equal(g.pods.length, replicas);
  return g;
}

/** A pod's bounds, first to last. */
export const boundsOf = (p: PodStartup): Bound[] => [p.phases[0]!.from, ...p.phases.map((ph) => ph.to)];

/** Every image pull of the group's pods, as their Pulled Events state them. */
export const pullsOf = (g: StartupGroup) => g.pods.flatMap((p) => p.phases.find((ph) => ph.name === 'imagePull')!.pulls ?? []);

/** `kubeloop ARGS` as a child process, from the sources (tsx). */
export function kubeloop(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; out: string; err: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts'), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  return { child, done: new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err }))) };
}

/**
 * `kubeloop sync --namespace NS --record FILE` running: returned once its watches are open, which is
 * when it has written its first keyframe (the recording exists). `stop()` ends it with SIGTERM (the
 * recording closed cleanly) and fails unless it ended well.
 */
export async function startRecorder(kubeconfig: string, namespace: string, recording: string) {
  const recorder = kubeloop(['sync', '--kubeconfig', kubeconfig, '--namespace', namespace, '--record', recording]);
  await eventually(() => existsSync(recording) || recorder.child.exitCode !== null, {
    description: 'kubeloop sync --record writing its recording',
    timeoutMs: 60_000,
  });
  assert.equal(recorder.child.exitCode, null, 'the recorder runs');
  return {
    kill: () => recorder.child.kill('SIGKILL'),
    stop: async () => {
      recorder.child.kill('SIGTERM');
      const rec = await recorder.done;
      assert.ok(rec.code === 0 || rec.code === null, rec.err);
    },
  };
}

/** As JSON writes it: a live report's rows make their bounds, so both sides hold the same shapes. */
const plain = (groups: StartupGroup[]): unknown => JSON.parse(JSON.stringify(groups));

/**
 * The report read from the recording's end is the live one: the same groups, and for every pod the
 * same phases with the same bounds (time, how, source), retries, pulls and kubelet SLI.
 */
export async function assertRecordingAgrees(recording: string, sel: StartupSelection, live: StartupGroup[]): Promise<StartupGroup[]> {
  const rec = await readStartupRecorded(recording, sel, never, undefined, 'bounds');
  if ('error' in rec) assert.fail(rec.error);
  assert.deepEqual(rec.warnings, []);
  assert.deepEqual(plain(rec.groups), plain(live));
  return rec.groups;
}
