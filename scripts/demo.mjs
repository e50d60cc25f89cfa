#!/usr/bin/env node
// `npm run demo`: the main job on the embedded demo cluster.
//  1. builds the project and starts the demo cluster (its own process; kubeconfig in .demo/kubeconfig);
//  2. opens KubeLoop on it in a real VS Code (scripts/ui.mjs: the desktop `code` when it is on PATH,
//     otherwise code-server in the browser, with the packaged .vsix installed into .demo/);
//  3. prints where to look, and runs until Ctrl-C, then stops everything it started.
// Environment: KUBELOOP_DEMO_PORT (API server, default 6443), KUBELOOP_DEMO_OBJECTS (default 2000),
// KUBELOOP_DEMO_PROFILE (a named size instead, e.g. scale-limit: 5,000 nodes, 150,000 pods, 1,000,000 objects),
// KUBELOOP_DEMO_UI_PORT (code-server, default 8080), KUBELOOP_DEMO_NO_UI=1 (cluster only).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { must as mustRun, openKubeLoop } from './ui.mjs';

process.chdir(new URL('..', import.meta.url).pathname);
const env = process.env;
const dir = resolve('.demo');
const kubeconfig = join(dir, 'kubeconfig');
mkdirSync(join(dir, 'workspace'), { recursive: true });

function must(cmd, args, what) {
  try {
    return mustRun(cmd, args, what);
  } catch (e) {
    console.error(`npm run demo: ${e.message}`);
    process.exit(1);
  }
}

must(process.execPath, ['esbuild.config.mjs'], 'build');
const children = [];
const stopAll = () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
};
process.on('SIGINT', stopAll);
process.on('SIGTERM', stopAll);

const cluster = spawn(
  process.execPath,
  [
    'dist/cli.js',
    'demo-cluster',
    '--port',
    env.KUBELOOP_DEMO_PORT ?? '6443',
    ...(env.KUBELOOP_DEMO_PROFILE ? ['--profile', env.KUBELOOP_DEMO_PROFILE] : ['--objects', env.KUBELOOP_DEMO_OBJECTS ?? '2000']),
    '--kubeconfig-out',
    kubeconfig,
    '--churn',
    '2',
    // something happens in the first minute: a rollout, a Job, a CronJob, probe-me failing (src/demo/story.ts)
    '--story',
  ],
  { stdio: 'inherit' },
);
children.push(cluster);
cluster.on('exit', (code) => {
  stopAll();
  process.exit(code ?? 0);
});
for (let i = 0; i < 600 && !existsSync(kubeconfig); i++) await new Promise((r) => setTimeout(r, 100));
if (!existsSync(kubeconfig)) {
  console.error('npm run demo: the demo cluster did not write its kubeconfig in 60 s');
  stopAll();
  process.exit(1);
}

let where;
try {
  where = openKubeLoop({
    dir,
    kubeconfig,
    port: env.KUBELOOP_DEMO_UI_PORT ?? '8080',
    children,
    noUi: env.KUBELOOP_DEMO_NO_UI ? 'KUBELOOP_DEMO_NO_UI is set' : undefined,
  });
} catch (e) {
  console.error(`npm run demo: ${e.message}`);
  stopAll();
  process.exit(1);
}
console.log(`
KubeLoop demo is up.
  demo cluster kubeconfig: ${kubeconfig}
  KubeLoop:                ${where}
Namespace "story": deployment shop rolls to a new image in 8 s (then every 45 s), job report completes,
cronjob tick runs every minute, pod probe-me fails its liveness probe and restarts.
In VS Code: click the KubeLoop icon in the activity bar, then run "KubeLoop: Load Cluster Resources",
"KubeLoop: Start Sync Loop" and "KubeLoop: Show Timeline" from the command palette (Ctrl+Shift+P).
From a shell: node dist/cli.js load --kubeconfig ${kubeconfig}
              node dist/cli.js sync --kubeconfig ${kubeconfig} -n default
Ctrl-C stops everything.`);
