/**
 * A deterministic, realistic-shaped timeline for the timeline tests and the frame benchmark: loads
 * whose tasks run back to back on each worker (start, pages, sometimes retries, finish with an
 * outcome) interleaved with sync-loop iterations from every source. Test data only: the product
 * never generates events.
 */
import type { LoaderTaskEvent, SyncIterationEvent, SyncSource } from '../../src/core/timeline/events';
import type { TimelineItem } from '../../src/shared/protocol';
import { Rng } from '../../src/demo/generate/prng';

const RESOURCES = [
  { group: '', version: 'v1', resource: 'pods' },
  { group: '', version: 'v1', resource: 'configmaps' },
  { group: '', version: 'v1', resource: 'secrets' },
  { group: 'apps', version: 'v1', resource: 'deployments' },
  { group: 'apps', version: 'v1', resource: 'replicasets' },
  { group: 'batch', version: 'v1', resource: 'jobs' },
  { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' },
];
const NAMESPACES = ['default', 'kube-system', 'team-a', 'team-b', undefined];
const SOURCES: SyncSource[] = ['config', 'pleg', 'sync', 'probe', 'housekeeping'];

export interface SyntheticOptions {
  workers?: number;
  seed?: number;
  /** Share of events that are loader task phases (the rest are iterations). */
  taskShare?: number;
  /** A cluster-supplied name to put in some keys and namespaces (e.g. HTML). */
  hostileName?: string;
}

/** `total` events, in time order per emitter, ids 0..total-1 in append order. */
export function syntheticTimeline(total: number, o: SyntheticOptions = {}): TimelineItem[] {
  const prng = new Rng(o.seed ?? 1); // the demo generator's seeded PRNG: the same timeline on every run
  const rand = () => prng.next();
  const workers = o.workers ?? 4;
  const taskShare = o.taskShare ?? 0.3;
  const events: (LoaderTaskEvent | SyncIterationEvent)[] = [];
  // Task events per worker, generated lazily: each worker has a queue of its next phases.
  const workerAt = new Array<number>(workers).fill(0);
  const queues: LoaderTaskEvent[][] = Array.from({ length: workers }, () => []);
  let taskId = 0;
  let load = 1;
  let loopT = 0;
  const nextTask = (w: number): void => {
    const gvr = RESOURCES[Math.floor(rand() * RESOURCES.length)]!;
    const ns = NAMESPACES[Math.floor(rand() * NAMESPACES.length)];
    const namespace = o.hostileName && rand() < 0.05 ? o.hostileName : ns;
    const id = taskId++;
    if (id > 0 && id % 400 === 0) load++;
    const loadId = `load-${load}`;
    const start = workerAt[w]! + rand() * 2;
    const pages = 1 + Math.floor(rand() * 4);
    const base = { kind: 'task' as const, loadId, taskId: id, worker: w, gvr, ...(namespace ? { namespace } : {}) };
    const q: LoaderTaskEvent[] = [{ ...base, phase: 'start', t: start }];
    let t = start;
    let items = 0;
    let retries = 0;
    for (let p = 0; p < pages; p++) {
      t += 2 + rand() * 40;
      if (rand() < 0.03) {
        retries++;
        q.push({ ...base, phase: 'retry', t, status: 429, message: 'Too Many Requests; Retry-After 1s' });
        t += 5 + rand() * 20;
      }
      const count = p === pages - 1 ? Math.floor(rand() * 500) : 500;
      items += count;
      q.push({ ...base, phase: 'page', t, count });
    }
    const r = rand();
    const outcome = r < 0.04 ? 'error' : r < 0.06 ? 'cancelled' : 'ok';
    q.push({
      ...base,
      phase: 'finish',
      t: t + 0.5,
      count: items,
      pages,
      retries,
      durationMs: t + 0.5 - start,
      outcome,
      ...(outcome === 'error' ? { status: 403, message: `${gvr.resource} is forbidden: User "dev" cannot list resource "${gvr.resource}"` } : {}),
    });
    workerAt[w] = t + 0.5;
    queues[w] = q;
  };
  for (let w = 0; w < workers; w++) nextTask(w);
  while (events.length < total) {
    if (rand() < taskShare) {
      // the worker whose next phase is earliest emits it (the store sees appends in time order)
      let w = 0;
      for (let i = 1; i < workers; i++) if (queues[i]![0]!.t < queues[w]![0]!.t) w = i;
      const e = queues[w]!.shift()!;
      events.push(e);
      if (queues[w]!.length === 0) nextTask(w);
    } else {
      loopT += rand() * 4;
      const source = SOURCES[Math.floor(rand() * SOURCES.length)]!;
      const n = Math.floor(rand() * 50);
      const ns = NAMESPACES[n % 4];
      // as the sync loop keys them: a pod `ns/name`, another object `resource:ns/name`, several joined by ','
      const key =
        source === 'housekeeping' || (source === 'sync' && rand() < 0.3)
          ? ''
          : source === 'config' && n % 5 === 0
            ? `configmaps:${ns}/cm-${n},secrets:${ns}/s-${n},+3 more`
            : `${ns}/${o.hostileName && n === 7 ? o.hostileName : `pod-${n}`}`;
      const r = rand();
      events.push({
        kind: 'iteration',
        t: Math.round(loopT * 1000) / 1000,
        source,
        op: source === 'config' ? 'ADD' : source === 'pleg' ? 'ContainerStarted' : source === 'probe' ? 'liveness' : 'tick',
        key,
        handler: source === 'config' ? 'HandlePodAdditions' : source === 'housekeeping' ? 'HandlePodCleanups' : 'HandlePodSyncs',
        durationMs: Math.round(rand() * 2000) / 1000,
        outcome: r < 0.02 ? 'error' : source === 'housekeeping' && r < 0.1 ? 'skipped' : 'ok',
        ...(r < 0.02 ? { message: 'probe failed: HTTP probe failed with statuscode: 500' } : {}),
      });
    }
  }
  return events.map((event, id) => ({ id, event }));
}
