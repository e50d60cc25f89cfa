/**
 * The lab's cluster process (scripts/lab.mjs starts it, as `npm run lab`): a real control plane
 * and N hollow nodes (./lab.ts), the demo's story on it (namespace `story`: a Deployment rolling
 * every 45 s, a Job, a CronJob, and the study guide's probe-me on the first node), until SIGINT or
 * SIGTERM, then everything is stopped and removed.
 *
 *   node --import tsx lab/main.ts [--nodes N] [--kubeconfig-out FILE] [--no-story] [--info-out FILE]
 *
 * Writes the lab's kubeconfig (context kubeloop-lab, with each node's kubelet log named in its
 * kubeloop.dev/kubelet-logs extension) to --kubeconfig-out, and, to --info-out, a JSON file with
 * the nodes, their log files and control endpoints (for scripts and the curious). Prints one line
 * "lab ready in N ms" once everything runs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Api } from './api';
import { startLab } from './lab';
import { ROLLOUT_EVERY_MS, FIRST_ROLLOUT_MS, rolledShop, storyObjects } from '../src/demo/story';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      nodes: { type: 'string', default: '3' },
      'kubeconfig-out': { type: 'string' },
      'info-out': { type: 'string' },
      'no-story': { type: 'boolean' },
    },
  });
  const n = Number(values.nodes);
  if (!Number.isInteger(n) || n < 1 || n > 20) throw new Error(`--nodes must be 1..20, got ${values.nodes}`);
  const started = Date.now();
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error('stopped'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const lab = await startLab({ nodes: Array.from({ length: n }, (_, i) => `lab-${i + 1}`), signal: stop.signal });
  try {
    if (values['kubeconfig-out']) {
      fs.mkdirSync(path.dirname(values['kubeconfig-out']), { recursive: true });
      fs.copyFileSync(lab.kubeconfigPath, values['kubeconfig-out']);
      fs.chmodSync(values['kubeconfig-out'], 0o600);
    }
    if (values['info-out']) {
      const info = {
        kubeconfig: values['kubeconfig-out'] ?? lab.kubeconfigPath,
        nodes: lab.kubelets.nodes.map((k) => ({ name: k.name, log: k.logPath, control: k.controlUrl })),
      };
      fs.writeFileSync(values['info-out'], `${JSON.stringify(info, null, 2)}\n`);
    }
    const api = Api.admin(lab.cp);
    let timer: NodeJS.Timeout | undefined;
    if (!values['no-story']) {
      for (const o of storyObjects(lab.kubelets.nodes[0]!.name)) {
        const ns = o.object.metadata.namespace;
        const where = `${o.group ? `/apis/${o.group}/v1` : '/api/v1'}${ns ? `/namespaces/${ns}` : ''}/${o.resource}`;
        await api.must('POST', where, o.object, [201, 409]);
      }
      // The shop Deployment rolls as in the demo: first after FIRST_ROLLOUT_MS, then every ROLLOUT_EVERY_MS.
      let rollouts = 0;
      const rollout = async () => {
        try {
          const d = await api.must('GET', '/apis/apps/v1/namespaces/story/deployments/shop');
          await api.must('PUT', '/apis/apps/v1/namespaces/story/deployments/shop', rolledShop(d, rollouts));
          rollouts++;
        } catch (e) {
          process.stderr.write(`lab: the story's rollout failed (tried again in ${ROLLOUT_EVERY_MS / 1000} s): ${(e as Error).message}\n`);
        }
        if (!stop.signal.aborted) timer = setTimeout(() => void rollout(), ROLLOUT_EVERY_MS);
      };
      timer = setTimeout(() => void rollout(), FIRST_ROLLOUT_MS);
    }
    process.stdout.write(`lab ready in ${Date.now() - started} ms\n`);
    await new Promise<void>((resolve) => (stop.signal.aborted ? resolve() : stop.signal.addEventListener('abort', () => resolve(), { once: true })));
    clearTimeout(timer);
    api.close();
  } finally {
    await lab.stop();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`lab: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
