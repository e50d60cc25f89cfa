/**
 * The demo's story, started as `npm run demo` starts the cluster (scripts/demo.mjs: `demo-cluster
 * --objects 2000 --churn 2 --story`, its own process), seen through a real kubectl v1.34 over a real
 * socket: within the first minute the Deployment rolls to a new ReplicaSet (and `kubectl rollout
 * status` sees it finish), the Job is Complete, probe-me restarts after failing its liveness probe,
 * and the CronJob has made a Job. Every wait is for a state, bounded.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { runKubectl } from '../support/kubectl';

const root = join(__dirname, '..', '..');
/** The flags scripts/demo.mjs gives the cluster (its port and kubeconfig aside). */
const DEMO_FLAGS = ['--objects', '2000', '--churn', '2', '--story'];

describe('npm run demo: the story of the first minute', () => {
  let child: ChildProcess;
  let dir: string;
  let kubeconfig: string;
  let started: number;
  let url: string;
  const since = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  const kubectl = async (args: string[]) => {
    const r = await runKubectl(args, { kubeconfig, timeoutMs: 70_000 });
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const json = async (args: string[]) => JSON.parse(await kubectl([...args, '-o', 'json', '-n', 'story']));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-story-'));
    kubeconfig = join(dir, 'kubeconfig');
    started = performance.now();
    child = spawn(
      process.execPath,
      ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts'), 'demo-cluster', '--port', '0', '--kubeconfig-out', kubeconfig, ...DEMO_FLAGS],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
    await eventually(() => /story: +namespace "story"/.test(out) && /Press Ctrl-C/.test(out) && (url = /demo cluster: (\S+)/.exec(out)?.[1] ?? ''), {
      description: `the demo cluster up with its story (output: ${JSON.stringify(out)})`,
      timeoutMs: 60_000,
    });
  });
  after(async () => {
    if (child && child.exitCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('within a minute: a rollout to a new ReplicaSet, a Job Complete, probe-me restarted, a CronJob Job', async () => {
    const minute = { timeoutMs: 60_000, maxIntervalMs: 500 };
    const seen: Record<string, string> = {};

    // the Deployment rolls: a second ReplicaSet, revision 2, the new image; then rollout status finishes
    const rolled = await eventually(
      async () => {
        const rs = (await json(['get', 'replicasets', '-l', 'app=shop'])).items as {
          metadata: { annotations: Record<string, string> };
          spec: { template: { spec: { containers: { image: string }[] } } };
        }[];
        return rs.length >= 2 ? rs : undefined;
      },
      { ...minute, description: 'a second ReplicaSet of deployment shop' },
    );
    seen.rollout = since();
    const revs = rolled.map((r) => r.metadata.annotations['deployment.kubernetes.io/revision']).sort();
    assert.deepEqual(revs, ['1', '2']);
    assert.deepEqual(rolled.map((r) => r.spec.template.spec.containers[0]!.image).sort(), ['nginx:1.27', 'nginx:1.28']);
    const status = await kubectl(['rollout', 'status', 'deployment/shop', '-n', 'story', '--timeout=60s']);
    assert.match(status, /deployment "shop" successfully rolled out/);
    seen.rolledOut = since();
    // what the extension's controller lanes read from this process: the rollout, reconcile by reconcile
    type Logged = { seq: number; controller: string; key: string; created?: string[] };
    const log = { records: [] as Logged[] };
    for (let after = 0; ;) {
      const page = (await (await fetch(`${url}/_demo/reconciles?after=${after}`)).json()) as { records: Logged[] };
      if (!page.records.length) break;
      log.records.push(...page.records);
      after = page.records[page.records.length - 1]!.seq;
    }
    assert.ok(
      log.records.some(
        (r) => r.controller === 'deployment' && r.key === 'deployments.apps:story/shop' && r.created?.some((k) => k.startsWith('replicasets.apps:story/shop-')),
      ),
      'the deployment controller creating the new ReplicaSet',
    );
    assert.ok(
      log.records.some(
        (r) => r.controller === 'replicaset' && r.key.startsWith('replicasets.apps:story/shop-') && r.created?.some((k) => k.startsWith('pods:story/shop-')),
      ),
    );

    // the Job completes
    await kubectl(['wait', '--for=condition=Complete', 'job/report', '-n', 'story', '--timeout=60s']);
    const job = await json(['get', 'job', 'report']);
    assert.equal(job.status.succeeded, 2);
    seen.jobComplete = since();

    // probe-me fails its liveness probe and is restarted
    const restarts = await eventually(
      async () => {
        const pod = await json(['get', 'pod', 'probe-me']);
        const n = pod.status.containerStatuses?.[0]?.restartCount ?? 0;
        return n >= 1 ? n : undefined;
      },
      { ...minute, description: 'probe-me restarted' },
    );
    assert.ok(restarts >= 1);
    const events = await kubectl([
      'get',
      'events',
      '-n',
      'story',
      '--field-selector',
      'involvedObject.name=probe-me',
      '-o',
      'custom-columns=REASON:.reason',
      '--no-headers',
    ]);
    assert.match(events, /^Unhealthy$/m);
    assert.match(events, /^Killing$/m);
    seen.probeMeRestarted = since();

    // the CronJob has made a Job at the start of a minute (at most a minute away)
    await eventually(
      async () => {
        const jobs = (await json(['get', 'jobs', '-l', 'app=tick'])).items as {
          metadata: { name: string; ownerReferences?: { kind: string; name: string }[] };
        }[];
        return jobs.some((j) => /^tick-\d+$/.test(j.metadata.name) && j.metadata.ownerReferences?.[0]?.kind === 'CronJob') ? true : undefined;
      },
      {
        ...minute,
        timeoutMs: 75_000,
        description: 'a Job of cronjob tick',
      },
    );
    seen.cronJobJob = since();
    console.log(`story states reached after start: ${JSON.stringify(seen)}`);
  });
});
