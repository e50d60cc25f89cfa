// Coalescing section of `npm run bench` (issue 4): how many updates per second the pod workers take
// in, and how many syncs that costs, when updates arrive faster than syncs finish. Each key's worker
// holds one pending update, so a burst of N updates to one key costs at most two syncs (the one in
// flight and the newest), and the last update is always the one synced.
// Usage: node --expose-gc --import tsx bench/podworkers.ts [--keys 1000] [--updates 500000] [--sync-us 0,200]
// (--sync-us: the CPU work each sync does, one run per value; 0 measures the machinery alone)
import { realClock } from '../src/core/clock';
import { PodWorkers, type SyncContext } from '../src/core/syncloop/podworkers';
import { WorkQueue } from '../src/core/syncloop/workqueue';
import type { StoredObject } from '../src/core/kube/objects/types';
import { benchArg } from './measure';

const arg = (name: string, dflt: number) => Number(benchArg(name, String(dflt)));
const KEYS = arg('--keys', 1000);
const UPDATES = arg('--updates', 500_000);
const SYNC_US_LIST = benchArg('--sync-us', '0,200').split(',').map(Number);

const spin = (us: number) => {
  const end = performance.now() + us / 1000;
  while (performance.now() < end);
};

async function run(SYNC_US: number) {
  const lastSent = new Map<string, number>();
  const lastSynced = new Map<string, number>();
  let inFlight = 0;
  let maxInFlightPerKey = 0;
  const active = new Map<string, number>();
  const syncer = {
    async syncPod(ctx: SyncContext) {
      const n = (active.get(ctx.key) ?? 0) + 1;
      active.set(ctx.key, n);
      maxInFlightPerKey = Math.max(maxInFlightPerKey, n);
      inFlight++;
      await new Promise((r) => setImmediate(r));
      spin(SYNC_US); // the work of recomputing one object's view
      lastSynced.set(ctx.key, Number(ctx.obj.metadata.resourceVersion));
      active.set(ctx.key, n - 1);
      inFlight--;
    },
    async syncTerminatingPod() {
      return true;
    },
    async syncTerminatedPod() {},
  };
  const workers = new PodWorkers(syncer, new WorkQueue(realClock), realClock);
  const obj = (key: string, rv: number): StoredObject =>
    ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: key, namespace: 'bench', uid: `uid-${key}`, resourceVersion: String(rv) } }) as StoredObject;
  (globalThis as { gc?: () => void }).gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  let seed = 7;
  for (let i = 1; i <= UPDATES; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const key = `p${seed % KEYS}`;
    lastSent.set(key, i);
    workers.UpdatePod({ updateType: lastSynced.has(key) ? 'update' : 'create', key, obj: obj(key, i) });
    if (i % 1000 === 0) await new Promise((r) => setImmediate(r)); // let the workers run between bursts
  }
  const sent = performance.now() - t0;
  while ([...lastSent].some(([k, v]) => lastSynced.get(k) !== v)) await new Promise((r) => setTimeout(r, 5));
  const done = performance.now() - t0;
  (globalThis as { gc?: () => void }).gc?.();
  const heapAfter = process.memoryUsage().heapUsed;
  workers.stop();
  console.log(`\n## pod workers: ${UPDATES.toLocaleString('en')} updates over ${KEYS} keys, each sync ~${SYNC_US} us of work`);
  console.table([
    {
      'updates/s taken in': Math.round(UPDATES / (sent / 1000)).toLocaleString('en'),
      'updates/s end to end': Math.round(UPDATES / (done / 1000)).toLocaleString('en'),
      syncs: workers.stats.syncs,
      'updates per sync': (UPDATES / workers.stats.syncs).toFixed(1),
      'max syncs of one key at once': maxInFlightPerKey,
      'heap growth MB': ((heapAfter - heapBefore) / 2 ** 20).toFixed(1),
    },
  ]);
  const ok = maxInFlightPerKey === 1 && inFlight === 0;
  console.log(`${ok ? 'MEETS ' : 'MISSES'} one sync per key at a time, and every key's last update was the one synced`);
}
async function main() {
  for (const us of SYNC_US_LIST) await run(us);
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
