// Bundles the three programs of the project:
//  - dist/extension.js: the VS Code extension host entry ('vscode' stays external, it is provided by the host)
//  - dist/cli.js:       the headless command line (`kubeloop load|sync|demo-cluster`): a launcher of
//                       dist/cli-main.js that compiles it through V8's code cache
//  - dist/webview/timeline.js: the timeline webview script (browser platform, no Node APIs)
// and copies the demo cluster's OpenAPI v3 documents (src/demo/data/openapi, gzipped data the bundles
// read at run time from dist/openapi, next to themselves: src/demo/server/openapiData.ts).
// Usage: node esbuild.config.mjs [--watch] [--production]
import * as esbuild from 'esbuild';
import { cpSync, existsSync, rmSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  sourcemap: !production,
  // KUBELOOP_BUILD_NO_MINIFY=1: a production build with its names kept, for the bench's
  // --heap-profile and --profile (a profile of minified code names its frames `Y`, `ib`, ...).
  minify: production && !process.env.KUBELOOP_BUILD_NO_MINIFY,
  logLevel: 'info',
};

const builds = [
  // dist/cli.js is a small launcher that loads dist/cli-main.js through V8's code cache
  {
    ...common,
    entryPoints: ['src/cli/launcher.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    banner: { js: '#!/usr/bin/env node' },
  },
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli-main.js', platform: 'node', target: 'node20', format: 'cjs' },
];
if (existsSync('src/vscode/extension.ts')) {
  builds.push({
    ...common,
    entryPoints: ['src/vscode/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode'],
  });
}
if (existsSync('src/vscode/timeline/webview/main.ts')) {
  builds.push({
    ...common,
    entryPoints: ['src/vscode/timeline/webview/main.ts'],
    outfile: 'dist/webview/timeline.js',
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
  });
}

rmSync('dist/openapi', { recursive: true, force: true });
cpSync('src/demo/data/openapi', 'dist/openapi', { recursive: true });

if (watch) {
  const ctxs = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(ctxs.map((c) => c.watch()));
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
