// `npm run bench -- apicost` (issue 10): what `kubeloop sync` costs a real kube-apiserver v1.36
// holding 10,000 pods over 100 namespaces, idle and under 50 changes per second, next to the floor
// a client-go informer set costs for the same selection (bench/peers/informer.ts: list once from
// the watch cache, then watch). Figures are the apiserver's own metrics (/metrics):
// apiserver_request_total by verb and resource, apiserver_response_sizes_sum (list bytes) and
// apiserver_watch_events_sizes_sum (watch bytes), for pods and events only (the bench's own writes
// are PATCH/POST and are left out; no controller or kubelet runs, so nothing else reads pods).
// Contenders run one after the other on the same server; each has a start (spawn until both its
// watches are open and the server has stopped sending), an idle window and a churn window of
// --seconds each.
// Usage: node --import tsx bench/apicost.ts [--pods 10000] [--namespaces 100] [--seconds 120] [--rate 50] [--json FILE]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { METADATA_ONLY_ACCEPT } from '../src/core/kube/listwatch/list';
import { CONSISTENCY_PERIOD_MS } from '../src/core/syncloop/sources/consistency';
import { startControlPlane } from '../lab/controlplane';
import { Api, mapLimit } from '../test/apiserver/support';
import { eventually } from '../test/support/eventually';
import { benchArg, printChecks } from './measure';

const PODS = Number(benchArg('--pods', '10000'));
const NAMESPACES = Number(benchArg('--namespaces', '100'));
const SECONDS = Number(benchArg('--seconds', '120'));
const RATE = Number(benchArg('--rate', '50'));
const OUT = benchArg('--json', '.bench/apicost.json');
const RESOURCES = ['pods', 'events'] as const;
const READ_VERBS = ['LIST', 'GET', 'WATCH'] as const;

/** One /metrics scrape: samples by name, each with its labels. */
type Scrape = Map<string, { labels: Record<string, string>; value: number }[]>;

async function scrape(api: Api): Promise<Scrape> {
  const r = await api.request('GET', '/metrics', undefined, { Accept: 'text/plain' });
  if (r.status !== 200) throw new Error(`/metrics: ${r.status}`);
  const out: Scrape = new Map();
  for (const line of r.text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    const list = out.get(m[1]!) ?? [];
    list.push({ labels, value: Number(m[3]) });
    out.set(m[1]!, list);
  }
  return out;
}

function sum(s: Scrape, name: string, match: (l: Record<string, string>) => boolean): number {
  return (s.get(name) ?? []).filter((x) => match(x.labels)).reduce((a, x) => a + x.value, 0);
}

/** What a window cost, per resource: requests by verb, list bytes, watch bytes. */
interface Cost {
  requests: Record<string, Record<string, number>>;
  listBytes: Record<string, number>;
  watchBytes: Record<string, number>;
}

function costOf(s: Scrape): Cost {
  const c: Cost = { requests: {}, listBytes: {}, watchBytes: {} };
  for (const r of RESOURCES) {
    c.requests[r] = {};
    for (const v of READ_VERBS) c.requests[r]![v] = sum(s, 'apiserver_request_total', (l) => l.resource === r && l.verb === v && !l.subresource);
    c.listBytes[r] = sum(s, 'apiserver_response_sizes_sum', (l) => l.resource === r && (l.verb === 'LIST' || l.verb === 'GET') && !l.subresource);
    // The label is `resource` on current servers (`kind` on older ones).
    c.watchBytes[r] = sum(s, 'apiserver_watch_events_sizes_sum', (l) => l.resource === r || (l.kind ?? '').toLowerCase() === r.slice(0, -1));
  }
  return c;
}

function minus(a: Cost, b: Cost): Cost {
  const c: Cost = { requests: {}, listBytes: {}, watchBytes: {} };
  for (const r of RESOURCES) {
    c.requests[r] = {};
    for (const v of READ_VERBS) c.requests[r]![v] = a.requests[r]![v]! - b.requests[r]![v]!;
    c.listBytes[r] = a.listBytes[r]! - b.listBytes[r]!;
    c.watchBytes[r] = a.watchBytes[r]! - b.watchBytes[r]!;
  }
  return c;
}

const total = (c: Cost, f: 'listBytes' | 'watchBytes') => RESOURCES.reduce((a, r) => a + c[f][r]!, 0);
const lists = (c: Cost) => RESOURCES.reduce((a, r) => a + c.requests[r]!.LIST!, 0);
const openWatches = (s: Scrape, r: string) => sum(s, 'apiserver_longrunning_requests', (l) => l.resource === r && l.verb === 'WATCH');
const mb = (b: number) => (b / 1e6).toFixed(2);

interface Phases {
  name: string;
  start: Cost;
  startSeconds: number;
  idle: Cost;
  churn: Cost;
  churnRate: number;
}

/** What the bench needs to run a contender: the server, its pods, and the children to kill on the way out. */
interface Ctx {
  api: Api;
  kubeconfig: string;
  pods: { ns: string; name: string }[];
  children: Set<ChildProcess>;
  /** Label patches sent so far (each patch a new `gen` label value). */
  gen: number;
}

async function seedPods(api: Api): Promise<Ctx['pods']> {
  const t0 = Date.now();
  const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `cost-${String(i).padStart(3, '0')}`);
  await mapLimit(namespaces, 8, (ns) => api.must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
  const pods = Array.from({ length: PODS }, (_, i) => ({
    ns: namespaces[i % NAMESPACES]!,
    name: `p-${String(Math.floor(i / NAMESPACES)).padStart(5, '0')}`,
  }));
  // No scheduler or kubelet runs: the pods stay Pending, which is all a watch needs.
  await mapLimit(pods, 48, (p) =>
    api.must(
      'POST',
      `/api/v1/namespaces/${p.ns}/pods`,
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: p.name, namespace: p.ns, labels: { app: 'cost', gen: '0' } },
        spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] },
      },
      [201],
    ),
  );
  console.log(`created ${PODS.toLocaleString('en')} pods in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return pods;
}

/** The consistency check's list, as the loop makes it (metadata only, from the watch cache), once, to size it. */
async function consistencyList(api: Api): Promise<{ bytes: number; pages: number }> {
  let bytes = 0;
  let pages = 0;
  for (let token = '', first = true; first || token; first = false) {
    const r = await api.request('GET', `/api/v1/pods?limit=500&${token ? `continue=${encodeURIComponent(token)}` : 'resourceVersion=0'}`, undefined, {
      Accept: METADATA_ONLY_ACCEPT,
    });
    bytes += Buffer.byteLength(r.text);
    pages++;
    token = r.body?.metadata?.continue ?? '';
  }
  return { bytes, pages };
}

/** RATE label patches per second for `seconds`, paced by the clock (a tick every 100 ms), each a MODIFIED event; the rate achieved. */
async function churn(ctx: Ctx, seconds: number): Promise<number> {
  const end = Date.now() + seconds * 1000;
  const perTick = RATE / 10;
  let done = 0;
  let failed = 0;
  let owed = 0;
  let next = 0;
  const inflight = new Set<Promise<unknown>>();
  while (Date.now() < end) {
    owed += perTick;
    while (owed >= 1) {
      owed--;
      const p = ctx.pods[next++ % ctx.pods.length]!;
      const req = ctx.api
        .must('PATCH', `/api/v1/namespaces/${p.ns}/pods/${p.name}`, { metadata: { labels: { gen: String(++ctx.gen) } } }, [200], {
          'Content-Type': 'application/merge-patch+json',
        })
        .then(
          () => done++,
          () => failed++,
        );
      inflight.add(req);
      void req.finally(() => inflight.delete(req));
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await Promise.all(inflight);
  if (failed) console.error(`  ${failed} patches failed`);
  return done / seconds;
}

/**
 * Until the child watches pods and events and has synced: a watch-list's initial events flow on an
 * open watch, so synced is when the server has stopped sending (two scrapes a second apart with the
 * same byte counts; nothing churns yet).
 */
async function untilSynced(api: Api, name: string, child: ChildProcess, baseline: Record<string, number>, stderr: () => string): Promise<void> {
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}: ${stderr()}`);
      const s = await scrape(api);
      return RESOURCES.every((r) => openWatches(s, r) > baseline[r]!);
    },
    { description: `${name} watching pods and events`, timeoutMs: 120_000, maxIntervalMs: 250 },
  );
  let bytes = -1;
  await eventually(
    async () => {
      await new Promise((r) => setTimeout(r, 1000));
      const c = costOf(await scrape(api));
      const now = total(c, 'listBytes') + total(c, 'watchBytes');
      const still = now === bytes;
      bytes = now;
      return still;
    },
    { description: `${name} synced`, timeoutMs: 120_000, maxIntervalMs: 0 },
  );
}

/** Until the server holds no more watches on pods and events than before the child started. */
async function untilWatchesClosed(api: Api, name: string, baseline: Record<string, number>): Promise<void> {
  let last = '';
  await eventually(
    async () => {
      const s = await scrape(api);
      last = JSON.stringify(Object.fromEntries(RESOURCES.map((r) => [r, openWatches(s, r)])));
      return RESOURCES.every((r) => openWatches(s, r) <= baseline[r]!);
    },
    { description: `${name}'s watches closed`, timeoutMs: 30_000, maxIntervalMs: 250 },
  ).catch((e) => {
    throw new Error(`${(e as Error).message}: open ${last}, before ${JSON.stringify(baseline)}`);
  });
}

/** One contender: its start until synced, an idle window of `idleSeconds`, a churn window of SECONDS; the server's cost of each. */
async function contender(ctx: Ctx, name: string, cmd: string, args: string[], idleSeconds = SECONDS): Promise<Phases> {
  const { api } = ctx;
  console.log(`\n${name}: ${[cmd, ...args].join(' ').replace(ctx.kubeconfig, 'KUBECONFIG')}`);
  const s0 = await scrape(api);
  const baseline = Object.fromEntries(RESOURCES.map((r) => [r, openWatches(s0, r)]));
  const started = Date.now();
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  ctx.children.add(child);
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr = (stderr + b.toString('utf8')).slice(-4000)));
  const exited = new Promise<number>((r) => child.once('exit', (code) => r(code ?? -1)));
  await untilSynced(api, name, child, baseline, () => stderr);
  const s1 = await scrape(api);
  const startSeconds = (Date.now() - started) / 1000;
  console.log(`  watching after ${startSeconds.toFixed(1)} s; idle ${idleSeconds} s ...`);
  await new Promise((r) => setTimeout(r, idleSeconds * 1000));
  const s2 = await scrape(api);
  console.log(`  churn ${SECONDS} s at ${RATE}/s ...`);
  const churnRate = await churn(ctx, SECONDS);
  // Let the last events reach the watcher before the window closes.
  await new Promise((r) => setTimeout(r, 1000));
  const s3 = await scrape(api);
  child.kill('SIGINT');
  const code = await exited;
  ctx.children.delete(child);
  if (code !== 0 && code !== 130) console.error(`  ${name} exited ${code}: ${stderr.slice(-1000)}`);
  await untilWatchesClosed(api, name, baseline);
  return { name, start: minus(costOf(s1), costOf(s0)), startSeconds, idle: minus(costOf(s2), costOf(s1)), churn: minus(costOf(s3), costOf(s2)), churnRate };
}

const perMin = (x: number) => (x * 60) / SECONDS;

function printPhases(contenders: Phases[]): void {
  const rows = [];
  for (const p of contenders) {
    rows.push({
      contender: p.name,
      phase: `start (${p.startSeconds.toFixed(1)} s)`,
      LIST: lists(p.start),
      'list MB': mb(total(p.start, 'listBytes')),
      'watch MB': mb(total(p.start, 'watchBytes')),
    });
    for (const [phase, c] of [
      ['idle', p.idle],
      [`churn ${p.churnRate.toFixed(0)}/s`, p.churn],
    ] as const) {
      rows.push({
        contender: p.name,
        phase: `${phase}, per min`,
        LIST: perMin(lists(c)).toFixed(2),
        'list MB': mb(perMin(total(c, 'listBytes'))),
        'watch MB': mb(perMin(total(c, 'watchBytes'))),
      });
    }
  }
  console.log('');
  console.table(rows);
}

/** The targets, from the three runs and the consistency list's size; returns the figures the results file keeps. */
function judge(kubeloop: Phases, floor: Phases, shortened: Phases, shortPeriod: number, consistency: { bytes: number; pages: number }) {
  // Idle over 5 minutes: the start, five idle minutes and, for KubeLoop, the one consistency list
  // its 5-minute period adds (sized above; the window is shorter than the period).
  const fiveMin = (p: Phases, extra: number) =>
    total(p.start, 'listBytes') + total(p.start, 'watchBytes') + 5 * perMin(total(p.idle, 'listBytes') + total(p.idle, 'watchBytes')) + extra;
  const periodsPer5Min = (5 * 60_000) / CONSISTENCY_PERIOD_MS;
  const kl5 = fiveMin(kubeloop, periodsPer5Min * consistency.bytes);
  const floor5 = fiveMin(floor, 0);
  const idleListsPerType5 = Math.max(...RESOURCES.map((r) => 5 * perMin(kubeloop.idle.requests[r]!.LIST!) + (r === 'pods' ? periodsPer5Min : 0)));
  const churnBytes = (p: Phases) => perMin(total(p.churn, 'listBytes') + total(p.churn, 'watchBytes'));
  const churnRatio = churnBytes(kubeloop) / churnBytes(floor);
  console.log(`consistency list (metadata only, watch cache): ${mb(consistency.bytes)} MB every ${CONSISTENCY_PERIOD_MS / 60_000} min`);
  console.log(`idle, 5 minutes from start: KubeLoop ${mb(kl5)} MB, floor ${mb(floor5)} MB`);
  // Each consistency list is consistency.pages LIST requests; a period allows its own list and one
  // confirmation, and a window of W seconds holds at most floor(W / P) + 1 periods' lists.
  const churnChecks = shortened.churn.requests.pods!.LIST! / consistency.pages;
  const allowedChecks = 2 * (Math.floor(SECONDS / shortPeriod) + 1);
  console.log(
    `consistency check under churn (period ${shortPeriod} s, ${SECONDS} s window): ${churnChecks.toFixed(1)} lists (${shortened.churn.requests.pods!.LIST} LIST requests of ${consistency.pages} page(s)), ${mb(total(shortened.churn, 'listBytes'))} MB`,
  );
  printChecks([
    [
      'idle: at most one list per type per 5 minutes (after the start)',
      idleListsPerType5 <= 1,
      `${idleListsPerType5.toFixed(2)} (measured idle lists + the consistency period)`,
    ],
    ["idle: under 2x the floor's bytes over 5 minutes", kl5 / floor5 < 2, `${(kl5 / floor5).toFixed(2)}x`],
    [
      `churn (${RATE}/s): within 1.5x of the floor's bytes per minute`,
      churnRatio <= 1.5,
      `${churnRatio.toFixed(2)}x (${mb(churnBytes(kubeloop))} vs ${mb(churnBytes(floor))} MB/min)`,
    ],
    [
      `churn: the consistency check lists at most twice per period (a list and one confirmation)`,
      churnChecks <= allowedChecks,
      `${churnChecks.toFixed(1)} lists in ${SECONDS} s at a ${shortPeriod}-s period (at most ${allowedChecks})`,
    ],
  ]);
  return { kl5, floor5, churnRatio, churnChecks };
}

async function main() {
  console.log(
    `\n## apicost: ${PODS.toLocaleString('en')} pods over ${NAMESPACES} namespaces on a real kube-apiserver; idle and churn windows of ${SECONDS} s, churn ${RATE} changes/s`,
  );
  const cp = await startControlPlane();
  const api = Api.admin(cp, 48);
  const children = new Set<ChildProcess>();
  try {
    const ctx: Ctx = { api, kubeconfig: cp.kubeconfigPath, pods: await seedPods(api), children, gen: 0 };
    const consistency = await consistencyList(api);
    const node = process.execPath;
    const kubeloop = await contender(ctx, 'kubeloop sync', node, ['dist/cli.js', 'sync', '--kubeconfig', cp.kubeconfigPath, '--json']);
    const floor = await contender(ctx, 'informer floor (list once + watch)', node, ['.bench/peers/informer.js', cp.kubeconfigPath]);
    // The churn window is shorter than the 5-minute consistency period, so the runs above never see
    // the check under churn (where it once listed every 2 s). This run shortens the period so the
    // window spans several, no idle window; the server counts its pod LISTs during the churn.
    const shortPeriod = Math.max(10, Math.round(SECONDS / 5));
    const shortened = await contender(
      ctx,
      `kubeloop sync, consistency period ${shortPeriod} s`,
      node,
      ['dist/cli.js', 'sync', '--kubeconfig', cp.kubeconfigPath, '--json', '--consistency-period', String(shortPeriod)],
      0,
    );
    printPhases([kubeloop, floor]);
    const figures = judge(kubeloop, floor, shortened, shortPeriod, consistency);
    mkdirSync(dirname(OUT), { recursive: true });
    const results = {
      pods: PODS,
      namespaces: NAMESPACES,
      seconds: SECONDS,
      rate: RATE,
      consistencyBytes: consistency.bytes,
      consistencyPages: consistency.pages,
      kubeloop,
      floor,
      kl5: figures.kl5,
      floor5: figures.floor5,
      churnRatio: figures.churnRatio,
      shortPeriod,
      shortened,
      churnChecks: figures.churnChecks,
    };
    writeFileSync(OUT, JSON.stringify(results, null, 2));
    console.log(`\nresults written to ${OUT}`);
  } finally {
    for (const c of children) c.kill('SIGKILL');
    api.close();
    await cp.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
