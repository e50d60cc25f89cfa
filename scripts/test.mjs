#!/usr/bin/env node
// The project's test driver: `node scripts/test.mjs <tier>` with tier one of
// lint | unit | integration | hostile | apiserver | e2e | all.
// `lint` (also `npm run lint`) is eslint (the house's import boundaries and bug rules, eslint.config.mjs)
// and knip (unused files, exports and dependencies, knip.json); `all` runs it first, as its own fast tier.
// Every tier runs under Node's own test runner (node:test) with tsx for TypeScript.
// `all` also type-checks and builds first, and ends with one aggregated line
// "N passed, N failed" so a reader (and CI) sees the whole suite's verdict at the end.
// Exit status: 0 only when every tier ran and nothing failed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
process.chdir(root);

/**
 * Per tier: folder, per-test timeout (ms), a wall-clock limit for the whole tier (ms), and the set-up
 * scripts it needs before it runs (each caches outside the repo and is near-instant when warm: the
 * client-go check program and the Python client's venv are the real clients the integration and
 * apiserver tiers run against the demo cluster and kube-apiserver). The tier limit is a watchdog: a test process that spins (a busy loop cannot
 * be interrupted by node:test's own timeouts) is killed with its whole process group and the tier
 * fails, so a stuck test costs minutes, never CI's whole budget.
 */
const TIERS = {
  unit: { dir: 'test/unit', timeout: 120_000, limit: 10 * 60_000 },
  integration: {
    dir: 'test/integration',
    timeout: 180_000,
    limit: 15 * 60_000,
    needsBuild: true,
    setup: ['scripts/build-clientgo.sh', 'scripts/setup-python-client.sh'],
  },
  // Bad peers (test/hostile): each file writes its runs' figures to .test-artifacts/hostile/, summed
  // after the tier into one line (hostileSummary). A whole file is one node:test test, hence its timeout.
  hostile: { dir: 'test/hostile', timeout: 600_000, limit: 12 * 60_000, figures: '.test-artifacts/hostile', summary: hostileSummary },
  apiserver: {
    dir: 'test/apiserver',
    timeout: 600_000,
    limit: 25 * 60_000,
    setup: ['scripts/build-controlplane.sh', 'scripts/build-clientgo.sh', 'scripts/setup-python-client.sh'],
  },
  e2e: { dir: 'test/e2e', timeout: 900_000, limit: 25 * 60_000, needsBuild: true, setup: ['scripts/install-code-server.sh'] },
};

function findTests(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findTests(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  return r.status ?? 1;
}

let built = false;
function build() {
  if (built) return 0;
  built = true;
  return run(process.execPath, ['esbuild.config.mjs']);
}

/** Runs a command in its own process group; kills the group when it outlives `limitMs`. */
function runGuarded(label, cmd, args, opts, limitMs) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', detached: true, ...opts });
    const timer = setTimeout(() => {
      console.error(`\n!! ${label}: still running after ${limitMs / 1000} s: killing its process group`);
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, limitMs);
    const onSignal = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      process.exit(130);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // the runner is gone: take down anything it left behind in its group (browsers, servers)
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // nothing left
      }
      resolve(signal ? 1 : (code ?? 1));
    });
  });
}

/**
 * The hostile tier's figures, from the files its tests wrote: cases, runs, crashes, hangs, the worst
 * time to the error and the worst peak RSS (each with its case).
 */
function hostileSummary(dir) {
  const runs = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .flatMap((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')).runs)
    : [];
  if (runs.length === 0) return 'hostile: no figures written';
  const worst = (k) => runs.reduce((a, b) => (b[k] > a[k] ? b : a));
  const ms = worst('msToError');
  const rss = worst('peakRssMiB');
  return (
    `hostile: ${new Set(runs.map((r) => r.case)).size} cases, ${runs.length} runs, crashes ${runs.filter((r) => r.crashed).length}, ` +
    `hangs ${runs.filter((r) => r.hung).length}, worst time to the error ${(ms.msToError / 1000).toFixed(1)} s (${ms.case}, ${ms.command}), ` +
    `worst peak RSS ${rss.peakRssMiB} MiB (${rss.case}, ${rss.command})`
  );
}

/** The lint tier: each linter is one check, passed or failed. */
const LINTERS = [
  ['eslint', ['node_modules/eslint/bin/eslint.js', '--max-warnings=0', '.']],
  ['knip', ['node_modules/knip/bin/knip.js', '--no-progress']],
  // the formatter's verdict (.prettierrc.json; Markdown and the generated package.json are left as written)
  ['prettier', ['node_modules/prettier/bin/prettier.cjs', '--check', '--log-level', 'warn', '.']],
  // docs/architecture.md's dependency graph is the code's (dependency-cruiser over src/, media/, lab/)
  ['arch-graph', ['scripts/arch-graph.mjs', '--check']],
  // docs/benchmarks.md's charts and their captions are what the benches' results files (docs/bench-data) give
  ['bench-charts', ['scripts/bench-charts.mjs', '--check']],
];

async function runLint() {
  console.log(`\n== lint: ${LINTERS.map(([n]) => n).join(', ')}`);
  let pass = 0;
  let fail = 0;
  for (const [label, args] of LINTERS) {
    const status = await runGuarded(`lint ${label}`, process.execPath, args, {}, Number(process.env.KUBELOOP_TIER_LIMIT_MS) || 10 * 60_000);
    console.log(`${status === 0 ? 'ok' : 'FAILED'}: ${label}`);
    if (status === 0) pass++;
    else fail++;
  }
  return { pass, fail, ok: fail === 0 };
}

async function runTier(name) {
  if (name === 'lint') return runLint();
  const tier = TIERS[name];
  const files = findTests(tier.dir);
  if (files.length === 0) {
    console.log(`\n== ${name}: no tests in ${tier.dir}`);
    return { pass: 0, fail: 0, ok: true };
  }
  console.log(`\n== ${name}: ${files.length} file(s)`);
  if (tier.needsBuild && build() !== 0) return { pass: 0, fail: 1, ok: false };
  for (const setup of tier.setup ?? []) {
    if (!existsSync(setup)) continue;
    // the scripts print what they made on stdout (for the tests); only their progress is shown here
    if (run('bash', [setup], { stdio: ['ignore', 'ignore', 'inherit'] }) !== 0) {
      console.error(`${name}: set-up ${setup} failed`);
      return { pass: 0, fail: 1, ok: false };
    }
  }
  mkdirSync('.test-artifacts', { recursive: true });
  if (tier.figures) rmSync(tier.figures, { recursive: true, force: true });
  const tap = join('.test-artifacts', `${name}.tap`);
  const status = await runGuarded(
    `tier ${name}`,
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      `--test-timeout=${tier.timeout}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tap}`,
      ...files.map((f) => relative(root, f)),
    ],
    { env: { ...process.env, KUBELOOP_TEST_TIER: name } },
    Number(process.env.KUBELOOP_TIER_LIMIT_MS) || tier.limit,
  );
  if (tier.summary) console.log(`\n${tier.summary(tier.figures)}`);
  const text = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
  const count = (k) => Number((text.match(new RegExp(`^# ${k} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
  const pass = count('pass');
  const fail = count('fail') + count('cancelled');
  return { pass, fail: status !== 0 && fail === 0 ? 1 : fail, ok: status === 0 };
}

const which = process.argv[2] ?? 'all';
const names = which === 'all' ? ['lint', ...Object.keys(TIERS)] : [which];
if (!names.every((n) => n === 'lint' || n in TIERS)) {
  console.error(`unknown tier ${which}; use one of lint, ${Object.keys(TIERS).join(', ')}, all`);
  process.exit(1);
}
let ok = true;
if (which === 'all') {
  console.log('== typecheck');
  if (run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.', '--noEmit']) !== 0) ok = false;
  if (build() !== 0) ok = false;
}
let pass = 0;
let fail = ok ? 0 : 1;
for (const n of names) {
  const r = await runTier(n);
  pass += r.pass;
  fail += r.fail;
  ok &&= r.ok;
}
console.log(`\n${pass} passed, ${fail} failed`);
process.exit(ok && fail === 0 ? 0 : 1);
