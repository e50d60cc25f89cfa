// The tree's load into the ResourceModel in plain Node, on the extension bench's cluster (100,000
// objects, 10,000 pods in a-big): what the model costs the host beyond the loader. Per round:
// - loader alone: runLoad into a model whose applyResult takes nothing (the loader and the views);
// - load: runLoad into a fresh model (the loader and the model together);
// - load + owner index: the same with the owner index beside the model (app/relations), as the
//   extension loads;
// - replay: one load's results (already transformed, as the loader hands them over) applied to a
//   fresh model, so the model's own CPU and GC are measured without the network.
// With --compare DIR the same rounds run, interleaved, for the checkout in DIR (its own model, tree,
// load runner and client, so its transport and I/O thread too; e.g. a worktree of main), in this
// process, against the same demo cluster: the two are measured under the same load of the machine.
// Each figure: CPU of the process (user+system: the I/O thread and V8's GC threads included), of
// the main thread alone (Linux: the host's share; the profile of --main-profile PREFIX), GC
// pause time of the main isolate (perf_hooks 'gc' entries, wall time: inflated on a loaded machine),
// and the model's live heap: heap after a full GC with the model held, less the heap after a full
// GC once it is let go. Only the load's heap is the model's own: a replay's results stay alive, and
// a model that shares their views would look smaller.
// Usage: node --expose-gc --import tsx bench/model-load.ts [--objects 100000] [--rounds 5]
//        [--compare /tmp/old-checkout] [--main-profile /tmp/prof]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import * as kubeClient from '../src/core/kube/client';
import * as kubeconfig from '../src/core/kube/config/kubeconfig';
import * as timelineStore from '../src/core/timeline/store';
import * as logger from '../src/app/logger';
import * as loadRunner from '../src/app/load/loadRunner';
import * as resourceModel from '../src/app/model/resourceModel';
import * as settings from '../src/app/settings';
import * as relations from '../src/app/relations/relations';
import type { LoadTaskResult } from '../src/core/loader/types';
import { startDemoProcess } from './demo';
import { benchArg } from './measure';

const num = (name: string, dflt: number) => Number(benchArg(name, String(dflt)));
const OBJECTS = num('--objects', 100_000);
const ROUNDS = num('--rounds', 5);
const COMPARE = benchArg('--compare', '');
const PROFILE = benchArg('--main-profile', '');
const mb = (n: number) => (n / 2 ** 20).toFixed(1);

// GC entries arrive after the fact: each is kept with its start, and a window sums those inside it.
const gcs: { start: number; ms: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push({ start: e.startTime, ms: e.duration });
}).observe({ entryTypes: ['gc'] });
const gcBetween = (t0: number, t1: number) => gcs.filter((g) => g.start >= t0 && g.start < t1).reduce((n, g) => n + g.ms, 0);
const turn = () => new Promise((r) => setTimeout(r, 20));

/** What a checkout gives the bench: its model, its load runner and what that needs. */
interface Checkout {
  name: string;
  ResourceModel: typeof resourceModel.ResourceModel;
  runLoad: typeof loadRunner.runLoad;
  defaultSettings: typeof settings.defaultSettings;
  TimelineStore: typeof timelineStore.TimelineStore;
  silentLog: typeof logger.silentLog;
  Relations: typeof relations.Relations;
  KubeClient: typeof kubeClient.KubeClient;
  loadKubeContext: typeof kubeconfig.loadKubeContext;
}

async function checkoutAt(dir: string): Promise<Checkout> {
  const at = (p: string) => import(resolve(dir, p));
  return {
    name: dir,
    ...((await at('src/app/model/resourceModel.ts')) as typeof resourceModel),
    ...((await at('src/app/load/loadRunner.ts')) as typeof loadRunner),
    ...((await at('src/app/settings.ts')) as typeof settings),
    ...((await at('src/core/timeline/store.ts')) as typeof timelineStore),
    ...((await at('src/app/logger.ts')) as typeof logger),
    ...((await at('src/app/relations/relations.ts')) as typeof relations),
    ...((await at('src/core/kube/client.ts')) as typeof kubeClient),
    ...((await at('src/core/kube/config/kubeconfig.ts')) as typeof kubeconfig),
  };
}

type Model = resourceModel.ResourceModel;

interface Figures {
  cpuMs: number;
  /** CPU of the main thread alone (Linux: /proc; undefined elsewhere). */
  mainMs?: number;
  /** CPU of the busiest thread besides the main one (the I/O thread; Linux only). */
  otherMs?: number;
  gcMs: number;
  heapBytes: number;
  objects: number;
}

/** Runs `fill` into a fresh model; CPU and GC while it runs, then the model's live heap. */
async function measure(c: Checkout, fill: (m: Model) => Promise<void> | void, profile?: string): Promise<Figures> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  let model: Model | undefined = new c.ResourceModel();
  model.retarget({ context: 'bench' });
  await turn(); // the forced collection's entry delivered before the window opens
  const session = profile ? await startProfile() : undefined;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpuMs();
  const threads0 = threadCpuMs();
  await fill(model);
  const cpu = process.cpuUsage(cpu0);
  const main1 = mainThreadCpuMs();
  const threads1 = threadCpuMs();
  const t1 = performance.now();
  if (session) await stopProfile(session, profile!);
  const mainMs = main0 !== undefined && main1 !== undefined ? main1 - main0 : undefined;
  let otherMs: number | undefined;
  for (const [tid, ms] of threads1) if (tid !== process.pid) otherMs = Math.max(otherMs ?? 0, ms - (threads0.get(tid) ?? 0));
  await turn();
  const gcTook = gcBetween(t0, t1);
  // Two collections: the first may only start sweeping what the load left.
  gc();
  gc();
  const held = process.memoryUsage().heapUsed;
  const objects = model.objectCount;
  model = undefined;
  gc();
  gc();
  const base = process.memoryUsage().heapUsed;
  return {
    cpuMs: (cpu.user + cpu.system) / 1000,
    gcMs: gcTook,
    heapBytes: held - base,
    objects,
    ...(mainMs !== undefined ? { mainMs } : {}),
    ...(otherMs !== undefined ? { otherMs } : {}),
  };
}

async function startProfile(): Promise<Session> {
  const s = new Session();
  s.connect();
  await s.post('Profiler.enable');
  await s.post('Profiler.setSamplingInterval', { interval: 500 });
  await s.post('Profiler.start');
  return s;
}

async function stopProfile(s: Session, file: string): Promise<void> {
  const { profile } = await s.post('Profiler.stop');
  s.disconnect();
  writeFileSync(file, JSON.stringify(profile));
}

/**
 * CPU time (user + system) of this process's main thread, from Linux's /proc (its task id is the
 * pid; clock ticks of 10 ms): the host's share of a load, without the I/O thread's or GC helpers'.
 */
function mainThreadCpuMs(task = process.pid): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime, stime (fields 14, 15), at 100 ticks/s
  } catch {
    return undefined;
  }
}

/** CPU time of each thread of this process by its task id (Linux; empty elsewhere). */
function threadCpuMs(): Map<number, number> {
  const out = new Map<number, number>();
  try {
    for (const t of readdirSync('/proc/self/task')) {
      const ms = mainThreadCpuMs(Number(t));
      if (ms !== undefined) out.set(Number(t), ms);
    }
  } catch {
    // not Linux
  }
  return out;
}

const line = (what: string, f: Figures) =>
  `${what}: ${f.objects} objects, CPU ${f.cpuMs.toFixed(0)} ms${f.mainMs !== undefined ? ` (main thread ${f.mainMs.toFixed(0)} ms)` : ''}${f.otherMs !== undefined ? ` (busiest other thread ${f.otherMs.toFixed(0)} ms)` : ''}, GC ${f.gcMs.toFixed(0)} ms, model heap ${mb(f.heapBytes)} MB`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

function summary(what: string, fs: Figures[]): void {
  const heap = median(fs.map((f) => f.heapBytes));
  const objects = median(fs.map((f) => f.objects));
  console.log(
    `${what}, median of ${fs.length}: CPU ${median(fs.map((f) => f.cpuMs)).toFixed(0)} ms${fs[0]?.mainMs !== undefined ? ` (main thread ${median(fs.map((f) => f.mainMs!)).toFixed(0)} ms)` : ''}, GC ${median(fs.map((f) => f.gcMs)).toFixed(0)} ms, model heap ${mb(heap)} MB (${objects ? mb((heap / objects) * 1e5) : '-'} MB per 100k rows)`,
  );
}

async function main(): Promise<void> {
  if (!(globalThis as { gc?: () => void }).gc) throw new Error('run with node --expose-gc');
  const here: Checkout = {
    name: 'this checkout',
    ...resourceModel,
    ...loadRunner,
    ...settings,
    ...timelineStore,
    ...logger,
    ...relations,
    ...kubeClient,
    ...kubeconfig,
  };
  const checkouts = [here, ...(COMPARE ? [await checkoutAt(COMPARE)] : [])];
  const demo = await startDemoProcess(OBJECTS, 7, ['--no-kubelet', '--big-namespace', 'a-big:10000']);
  // Each checkout its own client: its transport, lists and I/O thread are part of what is compared.
  const clients = new Map<Checkout, kubeClient.KubeClient>();
  for (const c of checkouts) clients.set(c, await c.KubeClient.connect(c.loadKubeContext({ kubeconfig: demo.kubeconfig })));
  const life = new AbortController();
  try {
    const load = (c: Checkout, model: Model, id: string, kept?: LoadTaskResult[], withRelations = false) =>
      c.runLoad({
        ...(withRelations ? { relations: new c.Relations(model) } : {}),
        contextName: 'bench',
        model: {
          rescope: (ns) => model.rescope(ns),
          registerTypes: (t) => model.registerTypes(t),
          applyResult: (r) => {
            kept?.push(r);
            model.applyResult(r);
          },
          retainFailures: (k) => model.retainFailures(k),
          retainTypes: (k) => model.retainTypes(k),
        },
        timeline: new c.TimelineStore(),
        log: c.silentLog,
        origin: 0,
        client: clients.get(c)!,
        settings: c.defaultSettings(),
        loadId: id,
        signal: life.signal,
      });
    const figures = checkouts.map(() => ({ bare: [] as Figures[], load: [] as Figures[], related: [] as Figures[], replay: [] as Figures[] }));
    const results = new Map<Checkout, LoadTaskResult[]>();
    for (let i = 0; i < ROUNDS; i++) {
      for (const [k, c] of checkouts.entries()) {
        const f = figures[k]!;
        f.bare.push(
          await measure(c, async (model) => {
            model.applyResult = () => undefined;
            await load(c, model, `bare-${i}`);
          }),
        );
        if (i === 0) {
          // The replay's results: one load kept (not measured).
          const kept: LoadTaskResult[] = [];
          const warm = new c.ResourceModel();
          warm.retarget({ context: 'bench' });
          await load(c, warm, 'replay', kept);
          results.set(c, kept);
        }
        f.load.push(await measure(c, async (model) => void (await load(c, model, `load-${i}`))));
        const profile = PROFILE ? `${PROFILE}-${k}-${i}.cpuprofile` : undefined;
        f.related.push(await measure(c, async (model) => void (await load(c, model, `related-${i}`, undefined, true)), profile));
        f.replay.push(
          await measure(c, (model) => {
            for (const r of results.get(c)!) model.applyResult(r);
          }),
        );
        console.log(`round ${i + 1}, ${c.name}:`);
        console.log(line('  loader alone', f.bare.at(-1)!));
        console.log(line('  load', f.load.at(-1)!));
        console.log(line('  load + owner index', f.related.at(-1)!));
        console.log(line('  replay', f.replay.at(-1)!));
      }
    }
    for (const [k, c] of checkouts.entries()) {
      console.log(`${c.name}:`);
      summary('  loader alone', figures[k]!.bare);
      summary('  load into the model', figures[k]!.load);
      summary('  load + owner index (as the extension)', figures[k]!.related);
      summary('  replay (the model alone)', figures[k]!.replay);
    }
  } finally {
    life.abort();
    for (const c of clients.values()) c.close();
    await demo.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
