#!/usr/bin/env node
// `npm run demo`: builds the project, starts the embedded demo cluster and opens the product on it.
// Runs until Ctrl-C, then stops everything it started.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

process.chdir(new URL('..', import.meta.url).pathname);
const build = spawnSync(process.execPath, ['esbuild.config.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const dir = resolve('.demo');
mkdirSync(dir, { recursive: true });
const kubeconfig = join(dir, 'kubeconfig');
const port = process.env.KUBELOOP_DEMO_PORT ?? '6443';
const objects = process.env.KUBELOOP_DEMO_OBJECTS ?? '2000';
const cluster = spawn(process.execPath, ['dist/cli.js', 'demo-cluster', '--port', port, '--objects', objects, '--kubeconfig-out', kubeconfig, '--churn', '2'],
  { stdio: 'inherit' });
const stop = () => cluster.kill('SIGINT');
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
cluster.on('exit', (code) => process.exit(code ?? 0));
console.log(`\nKubeLoop demo: the demo cluster's kubeconfig is ${kubeconfig}`);
console.log(`Try: node dist/cli.js load --kubeconfig ${kubeconfig}`);
console.log(`     KUBECONFIG=${kubeconfig} kubectl get pods -A`);
