#!/usr/bin/env node
// Builds the production bundles and packages the extension as a .vsix with @vscode/vsce.
// Usage: node scripts/package-vsix.mjs [--out path.vsix]   (default: kubeloop-<version>.vsix)
// The last line of stdout is the .vsix path.
//
// Guarantees: the .vsix holds only the extension bundle, the webview bundle, run-time media and the
// manifest/docs (checked against an allow-list before packaging, so a stray source file or secret in
// the tree cannot ship); and its bundles are fresh from this run's build.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
process.chdir(root);
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const outIdx = process.argv.indexOf('--out');
const out = outIdx > 0 ? process.argv[outIdx + 1] : `${pkg.name}-${pkg.version}.vsix`;

/** The bundles the .vsix carries: they must come out of this build. */
const BUNDLES = ['dist/extension.js', 'dist/webview/timeline.js'];
/** Data the extension's demo cluster reads at run time (copied by the build, not bundled). */
const DATA = ['dist/openapi/index.json'];
/** Everything the .vsix may contain (paths as `vsce ls` prints them). */
const ALLOWED = [
  /^dist\/extension\.js$/,
  /^dist\/webview\/[\w.-]+\.js$/,
  /^dist\/openapi\/[\w.-]+\.json(\.gz)?$/,
  /^media\/[\w./-]+\.(svg|png|css|md)$/,
  /^package\.json$/,
  /^README\.md$/i,
  /^CHANGELOG\.md$/i,
  /^LICENSE(\.txt)?$/i,
  /^demo\/[\w./-]+\.(json|ya?ml)$/,
];

function fail(msg) {
  console.error(`package-vsix: ${msg}`);
  process.exit(1);
}
function run(args, opts = {}) {
  return spawnSync(process.execPath, args, { encoding: 'utf8', ...opts });
}

const started = Date.now() - 1000; // file-time granularity
const build = run(['esbuild.config.mjs', '--production'], { stdio: ['ignore', 'inherit', 'inherit'] });
const fresh = (f) => existsSync(f) && statSync(f).mtimeMs >= started;
if (build.status !== 0) {
  // esbuild.config.mjs builds every program of the project at once; a failure in one the .vsix does
  // not carry (e.g. the CLI) is reported, but does not stop packaging fresh extension bundles.
  if (!BUNDLES.every(fresh)) fail('the build failed (see above)');
  console.error('package-vsix: WARNING: the build reported errors in bundles the .vsix does not carry (see above)');
}
for (const f of BUNDLES) if (!fresh(f)) fail(`the build did not produce a fresh ${f}`);

const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
// No --allow-missing-repository / --skip-license: package.json names the repository and LICENSE ships, so
// vsce has nothing to ask (it would stop for an answer on stdin, which CI does not have: stdin is closed).
const flags = ['--no-dependencies'];
const ls = run([vsce, 'ls', '--no-dependencies']);
if (ls.status !== 0) fail(`vsce ls failed:\n${ls.stderr}`);
const files = ls.stdout
  .split('\n')
  .map((l) => l.trim())
  .filter(Boolean);
const stray = files.filter((f) => !ALLOWED.some((re) => re.test(f)));
if (stray.length) fail(`files not on the allow-list would ship (fix .vscodeignore): ${stray.join(', ')}`);
for (const f of [...BUNDLES, ...DATA, 'package.json']) if (!files.includes(f)) fail(`${f} would be missing from the .vsix`);

const pack = run([vsce, 'package', ...flags, '-o', out], { stdio: ['ignore', 'pipe', 'pipe'] });
// vsce's own lines (its WARNINGs among them) go to stderr, where test/e2e/package.test.ts reads them.
process.stderr.write(pack.stdout + pack.stderr);
if (pack.status !== 0) fail('vsce package failed (see above)');
console.error(`package-vsix: ${files.length} files: ${files.join(', ')}`);
console.log(out);
