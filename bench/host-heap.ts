// The extension host's own part in plain Node, for finding what its live heap holds under churn:
// the tree's load into the model, then the sync loop as the extension starts it (SyncRunner over the
// loaded types, its timeline and log), on the extension bench's cluster (100,000 objects, 10,000 pods
// in a-big) under the extension bench's churn over HTTP. Every --every seconds a full collection and
// the heap after it (what is live, not V8's sawtooth), with each V8 space's live and committed size
// (what V8 keeps beyond the live part after a full GC); --snap writes heap snapshots at those seconds
// of churn (0: after the load, and once the loop has settled), to compare two of them in Chrome DevTools (Comparison view) or by script.
// No VS Code here: what the workbench keeps in the host (ExtHostTreeView's record of every tree item)
// is not in these figures.
// --profile scale-limit: the demo's named size instead of --objects (5,000 nodes, 150,000 pods, about
// 1,000,000 objects; give the host --max-old-space-size to match). --kubeconfig FILE: a demo cluster
// already running (`kubeloop demo-cluster --no-kubelet --no-controllers --big-namespace a-big:10000
// --token T`), so runs before and after a change see one cluster and a million objects are generated once.
// Usage: node --expose-gc --import tsx bench/host-heap.ts [--objects 100000 | --profile scale-limit]
//        [--churn 500] [--seconds 300] [--every 30] [--snap 60,270] [--snap-dir .bench/heap]
import * as http from 'node:http';
import * as https from 'node:https';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { KubeClient } from '../src/core/kube/client';
import { loadKubeContext } from '../src/core/kube/config/kubeconfig';
import { TimelineStore } from '../src/core/timeline/store';
import { silentLog } from '../src/app/logger';
import { runLoad } from '../src/app/load/loadRunner';
import { ResourceModel } from '../src/app/model/resourceModel';
import { defaultSettings } from '../src/app/settings';
import { SyncRunner } from '../src/app/sync/syncRunner';
import { informerTypes } from '../src/app/sync/informerTypes';
import { startDemoProcess } from './demo';
import { startHttpChurn } from './httpChurn';
import { namespacedNames, requestBase } from './types';
import { benchArg } from './measure';

const num = (name: string, dflt: number) => Number(benchArg(name, String(dflt)));
const OBJECTS = num('--objects', 100_000);
const PROFILE = benchArg('--profile', '');
const KUBECONFIG = benchArg('--kubeconfig', '');
const CHURN = num('--churn', 500);
const SECONDS = num('--seconds', 300);
const EVERY = num('--every', 30);
const SNAPS = benchArg('--snap', '').split(',').filter(Boolean).map(Number);
const SNAP_DIR = resolve(benchArg('--snap-dir', '.bench/heap'));
const BIG_NS = 'a-big';
const mb = (n: number) => (n / 2 ** 20).toFixed(1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

function snap(name: string): void {
  mkdirSync(SNAP_DIR, { recursive: true });
  console.log(`  heap snapshot: ${writeHeapSnapshot(join(SNAP_DIR, `host-heap-${name}.heapsnapshot`))}`);
}

async function main(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const demo = KUBECONFIG
    ? { kubeconfig: KUBECONFIG, stop: async () => undefined }
    : await startDemoProcess(OBJECTS, 7, ['--no-kubelet', '--big-namespace', `${BIG_NS}:10000`, ...(PROFILE ? ['--profile', PROFILE] : [])]);
  const base = await requestBase(demo.kubeconfig);
  const agent = new (base.server.protocol === 'https:' ? https.Agent : http.Agent)({ keepAlive: true, maxSockets: 8 });
  const client = await KubeClient.connect(loadKubeContext({ kubeconfig: demo.kubeconfig }));
  const life = new AbortController();
  try {
    const model = new ResourceModel();
    const timeline = new TimelineStore();
    const common = { contextName: 'bench', model, timeline, log: silentLog, origin: 0 };
    await runLoad({ ...common, client, settings: defaultSettings(), loadId: 'bench', signal: life.signal });
    gc();
    const loaded = process.memoryUsage();
    console.log(`loaded: ${model.objectCount} objects, heap after a full GC ${mb(loaded.heapUsed)} MB, RSS ${mb(loaded.rss)} MB (the model alone)`);
    // --snap 0: what the model alone holds, and (below) what it holds with the loop settled: compared,
    // the loop's own holders.
    if (SNAPS.includes(0)) snap('loaded');
    const runner = new SyncRunner({ ...common, client, namespaces: [], types: informerTypes(model), syncPeriodSeconds: 60, pageSize: 500 });
    try {
      while (!runner.sourcesReady()) await sleep(500);
      gc();
      const synced = process.memoryUsage();
      console.log(
        `loaded and syncing: ${model.objectCount} objects, heap after a full GC ${mb(synced.heapUsed)} MB, RSS ${mb(synced.rss)} MB (peak ${mb(process.resourceUsage().maxRSS * 1024)}); the loop's part ${((synced.heapUsed - loaded.heapUsed) / model.objectCount).toFixed(0)} bytes per object`,
      );
      if (SNAPS.includes(0)) snap('synced');
      // The churn's targets, after the figures above: every pod and ConfigMap, listed in pages.
      const pods = await namespacedNames(base, '/api/v1/pods', agent);
      const configmaps = await namespacedNames(base, '/api/v1/configmaps', agent);
      const namespaces = [...new Set(pods.map((p) => p.split('/')[0]!))].filter((n) => n !== BIG_NS);
      const churn = startHttpChurn(base, CHURN, { pods, configmaps, bigNamespace: BIG_NS, namespaces, protect: new Set() });
      const t0 = Date.now();
      try {
        for (let s = EVERY; s <= SECONDS; s += EVERY) {
          await sleep(t0 + s * 1000 - Date.now());
          gc();
          const m = process.memoryUsage();
          console.log(
            `${s} s of churn: heap after a full GC ${mb(m.heapUsed)} MB (reserved ${mb(m.heapTotal)}), RSS ${mb(m.rss)} MB, ${model.objectCount} objects`,
          );
          // Where the reserve is: each V8 space's used / committed size (a space's free part is kept for reuse).
          const spaces = getHeapSpaceStatistics().filter((x) => x.space_size >= 2 ** 20);
          console.log(`  spaces, used / committed MB: ${spaces.map((x) => `${x.space_name} ${mb(x.space_used_size)} / ${mb(x.space_size)}`).join(', ')}`);
          if (SNAPS.includes(s)) snap(`${s}s`);
        }
      } finally {
        await churn.stop();
        console.log(`churn: ${JSON.stringify(churn.stats())}`);
      }
    } finally {
      await runner.stop();
    }
  } finally {
    life.abort();
    client.close();
    agent.destroy();
    await demo.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
