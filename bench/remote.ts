// Remote-cluster section of `npm run bench` (issue 9): the load as it goes to a cluster far away.
// Every client talks to the server through bench/netem.ts, a TCP relay on loopback that adds
// --latency-ms each way (default 50 ms, so 100 ms a round trip) and caps each direction at
// --rate-mbit (default 50 Mbit/s); TLS stays end-to-end. The relay counts the bytes each
// contender moves in each direction. Contenders: KubeLoop (`node dist/cli.js load --json`, full
// objects and metadata-only), the naive client-node peer, and kubectl v1.34 (`get <all types> -A
// -o json --chunk-size=500`, once per target, cut off after --kubectl-timeout seconds and then
// reported as "> N s"). Targets: about 20,000 objects on a real kube-apiserver + etcd, and 100,000
// on the demo cluster. As in every section the figures are ratios against peers in the same run.
// Usage: node --expose-gc --import tsx bench/remote.ts [--quick] [--latency-ms 50] [--rate-mbit 50]
//   [--demo-objects 100000] [--apiserver-objects 20000] [--repeats 3] [--kubectl-timeout 300] [--json FILE]
// --quick: 10,000 demo objects only, one run each (a smoke run); --apiserver-objects 0 / --demo-objects 0
// skip that target.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { benchArg, measure, median, objectsOf, printChecks, type Check, type Measurement } from './measure';
import { startDemoProcess } from './demo';
import { startNetem, type Netem } from './netem';
import { kubeconfigViaRelay, serverOf } from './relay-kubeconfig';
import { startSeededControlPlane } from './realserver';
import { discoverTypes, getJson, kubectlGetAllArgs, listPath, requestBase, withoutEventAlias, type BenchType } from './types';
import { kubectlBinary } from '../test/support/kubectl';

const arg = benchArg;
const quick = process.argv.includes('--quick');
const latencyMs = Number(arg('--latency-ms', '50'));
const rateMbit = Number(arg('--rate-mbit', '50'));
const demoObjects = Number(arg('--demo-objects', quick ? '10000' : '100000'));
const apiserverObjects = Number(arg('--apiserver-objects', quick ? '0' : '20000'));
const repeats = Number(arg('--repeats', quick ? '1' : '3'));
const kubectlTimeoutS = Number(arg('--kubectl-timeout', '300'));
const outFile = arg('--json', '.bench/remote.json');
const PAGE = 500;
/** The fixed-lanes row's concurrency (Kyverno's default); the KubeLoop rows run without --concurrency (the latency-aware default). */
const CONCURRENCY = 4;
/** `timeout`'s exit status when the command outlived its time (124: ended by TERM; 137: by KILL 5 s later). */
const TIMED_OUT = [124, 137];

interface Run extends Measurement {
  up: number;
  down: number;
  connections: number;
}

interface Spec {
  name: string;
  cmd: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

/** One measured run through the relay, with the bytes it moved (counted once all its connections have closed). */
async function measured(relay: Netem, s: Spec): Promise<Run> {
  if (!(await relay.idle(30_000))) console.warn(`  warning: connections of an earlier run still open before ${s.name}`);
  const before = relay.stats();
  const m = await measure(s.name, s.cmd, s.args, { env: s.env });
  if (!(await relay.idle(30_000))) console.warn(`  warning: ${s.name}'s connections still open 30 s after it exited; its bytes may be short`);
  const after = relay.stats();
  return { ...m, up: after.up - before.up, down: after.down - before.down, connections: after.connections - before.connections };
}

/** Round-robin `n` rounds over `specs` (as measure.ts's runInterleaved); the median run of each, failures printed. */
async function interleaved<K extends string>(relay: Netem, n: number, specs: Record<K, Spec>): Promise<Record<K, Run>> {
  const keys = Object.keys(specs) as K[];
  const runs = new Map<K, Run[]>(keys.map((k) => [k, []]));
  for (let i = 0; i < n; i++) for (const k of keys) runs.get(k)!.push(await measured(relay, specs[k]));
  const out = {} as Record<K, Run>;
  for (const k of keys) {
    const m = median(runs.get(k)!);
    if (m.exitCode !== 0) console.error(`  ${m.name} failed (exit ${m.exitCode}):\n${m.stderr.slice(0, 2000)}`);
    out[k] = m;
  }
  return out;
}

/** What the server holds: a plain un-paged GET per type, straight to the server (not through the relay). */
async function countOnServer(kubeconfig: string, types: BenchType[]): Promise<number> {
  const base = await requestBase(kubeconfig);
  const agent = new (base.server.protocol === 'https:' ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: 4 });
  try {
    let n = 0;
    for (const t of types) n += (await getJson(base, listPath(t), agent)).items.length;
    return n;
  } finally {
    agent.destroy();
  }
}

/** The concurrency KubeLoop's --json says it ran with, and what it chose it from when it chose. */
function lanesOf(m: Measurement): { concurrency: number; auto: { rttMs: number | null; lanes: number } | null } | undefined {
  try {
    const j = JSON.parse(m.stdout.trim().split('\n').pop() ?? '') as { concurrency: number; concurrencyAuto: { rttMs: number | null; lanes: number } | null };
    return { concurrency: j.concurrency, auto: j.concurrencyAuto ?? null };
  } catch {
    return undefined;
  }
}

/** How many list pages KubeLoop's --json says it fetched. */
function pagesOf(m: Measurement): number | undefined {
  try {
    return (JSON.parse(m.stdout.trim().split('\n').pop() ?? '').types as { pages: number }[]).reduce((n, t) => n + t.pages, 0);
  } catch {
    return undefined;
  }
}

const timedOut = (m: Measurement) => TIMED_OUT.includes(m.exitCode);
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
const wall = (m: Measurement) => (timedOut(m) ? `> ${kubectlTimeoutS}` : (m.wallMs / 1000).toFixed(2));

type Results = Record<'kubeloop' | 'kubeloop4' | 'kubeloopMeta' | 'naive' | 'kubectl', Run>;

/** Every contender through the relay: KubeLoop's rows and the naive peer round-robin, then kubectl once. */
async function runContenders(relay: Netem, dir: string, far: string, types: BenchType[], typesFile: string): Promise<Results> {
  const node = process.execPath;
  const kl = ['dist/cli.js', 'load', '--kubeconfig', far, '--page-size', String(PAGE), '--json'];
  const fast = await interleaved(relay, repeats, {
    kubeloop: { name: 'KubeLoop (full objects, default lanes)', cmd: node, args: kl },
    kubeloop4: { name: `KubeLoop (full objects, --concurrency ${CONCURRENCY})`, cmd: node, args: [...kl, '--concurrency', String(CONCURRENCY)] },
    kubeloopMeta: { name: 'KubeLoop (metadata-only)', cmd: node, args: [...kl, '--metadata-only'] },
    naive: { name: 'naive client-node, sequential', cmd: node, args: ['.bench/peers/naive.js', far, typesFile] },
  });
  // kubectl as its users run it: discovery from its disk cache, warmed here through the relay
  // (unmeasured; the cache is keyed by server address), so its run is the lists alone.
  const kubectl = await kubectlBinary();
  const kenv = { PATH: process.env.PATH ?? '', HOME: dir, KUBECACHEDIR: join(dir, 'kube-cache') };
  const warm = await measure('kubectl api-resources (warms the discovery cache)', kubectl, ['--kubeconfig', far, 'api-resources', '-o', 'name'], {
    env: kenv,
  });
  if (warm.exitCode !== 0) console.error(`  kubectl api-resources failed (exit ${warm.exitCode}): ${warm.stderr.slice(0, 1000)}`);
  await relay.idle(30_000);
  const kube = await measured(relay, {
    name: `kubectl v1.34 get -A -o json --chunk-size=${PAGE}`,
    cmd: 'timeout',
    args: ['-k', '5', String(kubectlTimeoutS), kubectl, ...kubectlGetAllArgs(far, types, PAGE)],
    env: kenv,
  });
  if (kube.exitCode !== 0 && !timedOut(kube)) console.error(`  kubectl failed (exit ${kube.exitCode}):\n${kube.stderr.slice(0, 2000)}`);
  if (timedOut(kube)) console.log(`  kubectl did not finish in ${kubectlTimeoutS} s and was stopped: its time is a lower bound, its bytes a part`);
  return { ...fast, kubectl: kube };
}

const wire = (r: Run) => r.up + r.down;

/** The table and the targets; returns what each contender counted. */
function printResults(results: Results, onServer: number) {
  const base = results.kubeloop;
  const kube = results.kubectl;
  console.table(
    Object.values(results).map((r) => ({
      contender: r.name,
      'wall s': wall(r),
      'peak MB': r.peakMB.toFixed(0),
      'MB down': mb(r.down),
      'MB up': (r.up / 1e6).toFixed(2),
      conns: r.connections,
      'wall vs KubeLoop': `${timedOut(r) ? '> ' : ''}${(r.wallMs / base.wallMs).toFixed(2)}x`,
      'bytes vs kubectl': `${(wire(r) / wire(kube)).toFixed(2)}x${timedOut(kube) ? ' (kubectl cut off)' : ''}`,
      exit: r.exitCode,
    })),
  );
  const seen = {
    server: onServer,
    kubeloop: objectsOf(results.kubeloop),
    kubeloop4: objectsOf(results.kubeloop4),
    meta: objectsOf(results.kubeloopMeta),
    naive: objectsOf(results.naive),
  };
  const speedup = kube.wallMs / base.wallMs;
  const bytes = wire(base) / wire(kube);
  const checks: Check[] = [
    [`kubectl / KubeLoop >= 10x (wall)`, speedup >= 10, `${timedOut(kube) ? '> ' : ''}${speedup.toFixed(2)}x`],
    [
      `KubeLoop bytes / kubectl bytes <= 1.2x (both directions)`,
      !timedOut(kube) && bytes <= 1.2,
      `${bytes.toFixed(2)}x (${mb(wire(base))} MB vs ${mb(wire(kube))} MB)${timedOut(kube) ? ', kubectl cut off' : ''}`,
    ],
    [
      `metadata-only bytes / kubectl bytes <= 1.2x`,
      !timedOut(kube) && wire(results.kubeloopMeta) / wire(kube) <= 1.2,
      `${(wire(results.kubeloopMeta) / wire(kube)).toFixed(2)}x`,
    ],
    [
      `every count equals the server's (plain GET per type)`,
      seen.kubeloop === onServer && seen.kubeloop4 === onServer && seen.meta === onServer && seen.naive === onServer,
      JSON.stringify(seen),
    ],
  ];
  printChecks(checks);
  return seen;
}

/** Where KubeLoop's time went: round trips against the link, lanes, connections. */
function printInfo(results: Results) {
  const base = results.kubeloop;
  const link = (rateMbit * 1e6) / 8;
  const pages = pagesOf(base);
  const lanes = lanesOf(base);
  if (pages !== undefined && lanes !== undefined) {
    const floor = Math.ceil(pages / lanes.concurrency) * 2 * latencyMs;
    const why = lanes.auto ? ` (chosen from a measured RTT of ${lanes.auto.rttMs} ms)` : '';
    console.log(
      `info: KubeLoop listed ${pages} pages, ${lanes.concurrency} at a time${why}: at least ${(floor / 1000).toFixed(1)} s of round trips before discovery and the link`,
    );
  }
  console.log(`info: default lanes / --concurrency ${CONCURRENCY} = ${(base.wallMs / results.kubeloop4.wallMs).toFixed(2)}x (wall)`);
  console.log(
    `info: naive / KubeLoop = ${(results.naive.wallMs / base.wallMs).toFixed(2)}x (wall); the naive peer opens ${results.naive.connections} connections, KubeLoop ${base.connections}, kubectl ${results.kubectl.connections}`,
  );
  console.log(
    `info: at ${rateMbit} Mbit/s, KubeLoop's ${mb(base.down)} MB down need ${(base.down / link).toFixed(1)} s on the link alone; one round trip is ${2 * latencyMs} ms`,
  );
}

const runJson = (r: Run) => ({
  wallMs: Math.round(r.wallMs),
  peakMB: Math.round(r.peakMB),
  bytesDown: r.down,
  bytesUp: r.up,
  connections: r.connections,
  exit: r.exitCode,
  timedOut: timedOut(r),
});

async function benchTarget(label: string, kubeconfig: string, stop: () => Promise<void>) {
  console.log(`\n## ${label}, through the relay: ${latencyMs} ms each way, ${rateMbit} Mbit/s each direction`);
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-bench-remote-'));
  const server = serverOf(kubeconfig);
  let relay: Netem | undefined;
  try {
    relay = await startNetem({ target: { host: server.hostname, port: Number(server.port) }, latencyMs, rateBitsPerSec: rateMbit * 1e6 });
    const types = withoutEventAlias(await discoverTypes(kubeconfig));
    const typesFile = join(dir, 'types.json');
    writeFileSync(typesFile, JSON.stringify(types));
    const onServer = await countOnServer(kubeconfig, types);
    console.log(`${server.origin}: ${types.length} listable resource types, ${onServer.toLocaleString('en')} objects; relay on ${relay.host}:${relay.port}`);
    const far = join(dir, 'kubeconfig-remote');
    kubeconfigViaRelay(kubeconfig, relay, far);
    const results = await runContenders(relay, dir, far, types, typesFile);
    const seen = printResults(results, onServer);
    printInfo(results);
    return {
      target: label,
      latencyMs,
      rateMbit,
      objects: onServer,
      types: types.length,
      counts: seen,
      kubectlTimeoutS,
      results: Object.fromEntries(Object.entries(results).map(([k, r]) => [k, runJson(r)])),
    };
  } finally {
    await relay?.close();
    await stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const bad = [
    ['--latency-ms', latencyMs, latencyMs >= 0],
    ['--rate-mbit', rateMbit, rateMbit > 0],
    ['--demo-objects', demoObjects, Number.isInteger(demoObjects) && demoObjects >= 0],
    ['--apiserver-objects', apiserverObjects, Number.isInteger(apiserverObjects) && apiserverObjects >= 0],
    ['--repeats', repeats, Number.isInteger(repeats) && repeats >= 1],
    ['--kubectl-timeout', kubectlTimeoutS, kubectlTimeoutS > 0],
  ].filter(([, , ok]) => !ok);
  if (bad.length)
    throw new Error(
      `bad arguments: ${bad.map(([flag, v]) => `${flag} ${v}`).join(', ')} (latency >= 0, rate > 0, object counts and repeats whole numbers, timeout > 0 s)`,
    );
  const all = [];
  if (apiserverObjects > 0) {
    console.log(`\n(starting a real kube-apiserver + etcd and creating about ${apiserverObjects.toLocaleString('en')} objects)`);
    const s = await startSeededControlPlane(apiserverObjects);
    all.push(await benchTarget(`about ${apiserverObjects.toLocaleString('en')} objects on a real kube-apiserver`, s.cp.kubeconfigPath, s.stop));
  }
  if (demoObjects > 0) {
    const demo = await startDemoProcess(demoObjects, 7, ['--no-kubelet']);
    all.push(await benchTarget(`${demoObjects.toLocaleString('en')} objects on the demo cluster`, demo.kubeconfig, demo.stop));
  }
  mkdirSync(dirname(resolve(outFile)), { recursive: true });
  writeFileSync(outFile, JSON.stringify(all, null, 2));
  console.log(`\nresults written to ${outFile}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
