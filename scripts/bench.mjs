#!/usr/bin/env node
// `npm run bench`: builds the CLI and the peer programs, then runs every benchmark section.
// Extra arguments go to each section (e.g. `npm run bench -- --sizes 10000`).
import { spawnSync } from 'node:child_process';
import * as esbuild from 'esbuild';

process.chdir(new URL('..', import.meta.url).pathname);
const sh = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
sh(process.execPath, ['esbuild.config.mjs', '--production']);
await esbuild.build({
  entryPoints: ['bench/peers/naive.ts', 'bench/peers/raw.ts'],
  outdir: '.bench/peers', bundle: true, platform: 'node', target: 'node20', format: 'cjs', minify: true, logLevel: 'warning',
});
const extra = process.argv.slice(2);
sh(process.execPath, ['--import', 'tsx', 'bench/main.ts', ...extra]);
