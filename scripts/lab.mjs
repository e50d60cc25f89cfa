#!/usr/bin/env node
// `npm run lab`: KubeLoop on a real cluster with real kubelets, no container runtime needed.
//  1. builds the project and the lab's binaries (scripts/build-controlplane.sh: etcd,
//     kube-apiserver, kube-controller-manager, kube-scheduler and hollow-kubelet from Go modules,
//     cached in ~/.cache/kubeloop; about 12 minutes the first time, instant after);
//  2. starts the lab (lab/main.ts: the control plane, three hollow nodes lab-1..lab-3, each the real
//     kubelet at -v=4 over a fake runtime, and the demo's story; kubeconfig in .lab/kubeconfig);
//  3. opens KubeLoop on it in a real VS Code (scripts/ui.mjs), prints where to look, and runs until
//     Ctrl-C, then stops everything it started.
// Environment: KUBELOOP_LAB_NODES (default 3), KUBELOOP_LAB_UI_PORT (code-server, default 8081),
// KUBELOOP_LAB_NO_UI=1 (cluster only).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { must as mustRun, openKubeLoop } from './ui.mjs';

process.chdir(new URL('..', import.meta.url).pathname);
const env = process.env;
const dir = resolve('.lab');
const kubeconfig = join(dir, 'kubeconfig');
const info = join(dir, 'lab.json');
mkdirSync(dir, { recursive: true });
rmSync(info, { force: true });

function must(cmd, args, what) {
  try {
    return mustRun(cmd, args, what);
  } catch (e) {
    console.error(`npm run lab: ${e.message}`);
    process.exit(1);
  }
}

must(process.execPath, ['esbuild.config.mjs'], 'build');
console.log('npm run lab: the lab binaries (built from Go modules the first time: about 12 minutes; cached after) ...');
must('bash', ['scripts/build-controlplane.sh'], 'building the lab binaries');
const children = [];
const stopAll = () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
};
process.on('SIGINT', stopAll);
process.on('SIGTERM', stopAll);

const cluster = spawn(
  process.execPath,
  ['--import', 'tsx', 'lab/main.ts', '--nodes', env.KUBELOOP_LAB_NODES ?? '3', '--kubeconfig-out', kubeconfig, '--info-out', info],
  { stdio: 'inherit' },
);
children.push(cluster);
cluster.on('exit', (code) => {
  stopAll();
  process.exit(code ?? 0);
});
for (let i = 0; i < 1800 && !existsSync(info); i++) await new Promise((r) => setTimeout(r, 100));
if (!existsSync(info)) {
  console.error('npm run lab: the lab did not come up in 3 minutes');
  stopAll();
  process.exit(1);
}
const lab = JSON.parse(readFileSync(info, 'utf8'));
let where;
try {
  where = openKubeLoop({
    dir,
    kubeconfig,
    port: env.KUBELOOP_LAB_UI_PORT ?? '8081',
    children,
    noUi: env.KUBELOOP_LAB_NO_UI ? 'KUBELOOP_LAB_NO_UI is set' : undefined,
  });
} catch (e) {
  console.error(`npm run lab: ${e.message}`);
  stopAll();
  process.exit(1);
}
const first = lab.nodes[0].name;
console.log(`
KubeLoop lab is up: a real control plane and ${lab.nodes.length} real kubelets (hollow nodes: no containers run).
  kubeconfig (context kubeloop-lab): ${kubeconfig}
  kubelet logs (-v=4):               ${lab.nodes.map((n) => `${n.name} ${n.log}`).join('\n                                     ')}
  KubeLoop:                          ${where}
Namespace "story" as in the demo: deployment shop rolls every 45 s, job report, cronjob tick, and the study
guide's probe-me on ${first}, failing its liveness probe.
In VS Code: "KubeLoop: Load Cluster Resources", "KubeLoop: Sync Loop: Choose Node" (${first}), "KubeLoop: Start
Sync Loop", "KubeLoop: Show Timeline": the kubelet ${first} lane is the real kubelet's own log, under the lanes
KubeLoop infers from the API.
From a shell: node dist/cli.js sync --kubeconfig ${kubeconfig} --node ${first} --compare --duration 120
              KUBECONFIG=${kubeconfig} kubectl get pods -A
Ctrl-C stops everything.`);
