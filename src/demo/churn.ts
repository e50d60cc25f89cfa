/**
 * Churn: a steady stream of writes at a given rate, as a busy cluster has — ConfigMap data
 * changes, label changes on pods, deployments and services, pods created (bare, unscheduled: the
 * kubelet simulation, if running, schedules and starts them) and pods deleted, and new Events.
 *
 * Guarantees:
 * - Deterministic given the seed, the clock and the store's contents at start (and the writes
 *   others make): targets are drawn with a seeded PRNG from pools kept in the store's event order.
 * - Never touches a pod created by someone else after churn started (a user's probe-me).
 * - Cheap at high rates: pools are kept incrementally from the store's events (O(1) per write),
 *   never by re-listing a type.
 * - Never throws out of a timer or a store callback; a write that loses a race (object deleted
 *   meanwhile) is skipped. stop() or the signal cancels the timer; nothing is written afterwards.
 */
import { realKubeletClock, type KubeletClock } from './kubelet/kubeletClock';
import { Rng } from './generate/prng';
import type { DemoObject, ObjectStore } from './store';

export interface ChurnOptions {
  /** Writes per second (all kinds together). */
  perSecond: number;
  seed: number;
  signal?: AbortSignal;
  /** Defaults to real time; tests pass core's FakeClock. */
  clock?: KubeletClock;
  /** Wall-clock ms at start, for Event timestamps and names (default Date.now()). */
  wallStart?: number;
}

export interface Churn {
  stop(): void;
  stats(): Record<ChurnOp, number> & { failed: number };
}

export type ChurnOp = 'configmapUpdate' | 'labelChange' | 'podCreate' | 'podDelete' | 'eventCreate';

/** Share of each kind of write: creates and deletes of pods balance, so the cluster keeps its size. */
const MIX: [ChurnOp, number][] = [
  ['configmapUpdate', 0.35],
  ['labelChange', 0.25],
  ['podCreate', 0.15],
  ['podDelete', 0.15],
  ['eventCreate', 0.1],
];
const TICK_MS = 100;
const LABELLED: [string, string][] = [
  ['', 'pods'],
  ['apps', 'deployments'],
  ['', 'services'],
];

/** A set of object keys with O(1) add, remove and uniform pick. */
class KeyPool {
  private readonly keys: string[] = [];
  private readonly index = new Map<string, number>();

  add(k: string): void {
    if (this.index.has(k)) return;
    this.index.set(k, this.keys.length);
    this.keys.push(k);
  }

  remove(k: string): void {
    const i = this.index.get(k);
    if (i === undefined) return;
    const last = this.keys.pop()!;
    this.index.delete(k);
    if (i < this.keys.length) {
      this.keys[i] = last;
      this.index.set(last, i);
    }
  }

  pick(rng: Rng): string | undefined {
    return this.keys.length ? this.keys[rng.int(this.keys.length)] : undefined;
  }

  get size(): number {
    return this.keys.length;
  }
}

const keyOf = (o: DemoObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const splitKey = (k: string): [string | undefined, string] => {
  const i = k.indexOf('/');
  return [k.slice(0, i) || undefined, k.slice(i + 1)];
};

export function startChurn(store: ObjectStore, opts: ChurnOptions): Churn {
  const clock = opts.clock ?? realKubeletClock;
  const rng = new Rng(opts.seed);
  const stats = { configmapUpdate: 0, labelChange: 0, podCreate: 0, podDelete: 0, eventCreate: 0, failed: 0 };
  const { pools, unsubscribe } = trackPools(store);
  const wallStart = opts.wallStart ?? Date.now();
  const clockStart = clock.now();
  const writer = new ChurnWriter(store, rng, pools, () => wallStart + (clock.now() - clockStart));

  let stopped = false;
  let timer: { cancel(): void } | undefined;
  let owed = 0;
  function one(): void {
    const op = pickOp(rng);
    try {
      if (writer.write(op)) stats[op]++;
    } catch {
      stats.failed++;
    }
  }
  function tick(): void {
    timer = undefined;
    if (stopped) return;
    owed += (opts.perSecond * TICK_MS) / 1000;
    for (; owed >= 1 && !stopped; owed--) one();
    if (!stopped) timer = clock.setTimer(TICK_MS, tick);
  }

  const stop = () => {
    if (stopped) return;
    stopped = true;
    timer?.cancel();
    timer = undefined;
    unsubscribe();
    opts.signal?.removeEventListener('abort', stop);
  };
  if (opts.signal?.aborted || !(opts.perSecond > 0)) stop();
  else {
    opts.signal?.addEventListener('abort', stop, { once: true });
    timer = clock.setTimer(TICK_MS, tick);
  }
  return { stop, stats: () => ({ ...stats }) };
}

function pickOp(rng: Rng): ChurnOp {
  let x = rng.next();
  for (const [op, w] of MIX) if ((x -= w) < 0) return op;
  return MIX[MIX.length - 1]![0];
}

/** A pool per tracked type, filled from the store now and kept from its events until unsubscribe(). */
function trackPools(store: ObjectStore): { pools: Map<string, KeyPool>; unsubscribe: () => void } {
  const pools = new Map<string, KeyPool>();
  const tracked = ['/configmaps', '/pods', 'apps/deployments', '/services', '/namespaces'];
  for (const t of tracked) {
    const [group, resource] = t.split('/') as [string, string];
    const pool = new KeyPool();
    pools.set(t, pool);
    if (store.type(group, resource)) for (const o of store.list(group, resource).items) pool.add(keyOf(o));
  }
  const unsubscribe = store.subscribe((e) => {
    const pool = pools.get(`${e.group}/${e.resource}`);
    if (!pool) return;
    // Pods someone else creates later (a user's probe-me) are never churned: only those present
    // at start and those churn creates.
    if (e.type === 'ADDED' && (e.resource !== 'pods' || e.object.metadata.labels?.app === 'churn')) pool.add(keyOf(e.object));
    else if (e.type === 'DELETED') pool.remove(keyOf(e.object));
  });
  return { pools, unsubscribe };
}

/** The writes themselves; each draws from the one seeded rng in a fixed order, so a run replays. */
class ChurnWriter {
  private serial = 0;

  constructor(
    private readonly store: ObjectStore,
    private readonly rng: Rng,
    private readonly pools: Map<string, KeyPool>,
    private readonly wallMs: () => number,
  ) {}

  /** Performs one write of the given kind; false when there was nothing to write to. */
  write(op: ChurnOp): boolean {
    switch (op) {
      case 'configmapUpdate':
        return this.configmapUpdate();
      case 'labelChange':
        return this.labelChange();
      case 'podCreate':
        return this.podCreate();
      case 'podDelete':
        return this.podDelete();
      case 'eventCreate':
        return this.eventCreate();
    }
  }

  private configmapUpdate(): boolean {
    const k = this.pools.get('/configmaps')!.pick(this.rng);
    const cur = k && this.store.get('', 'configmaps', ...splitKey(k));
    if (!cur) return false;
    const data = { ...((cur.data as Record<string, string> | undefined) ?? {}), 'churn.revision': `${++this.serial}-${this.rng.alnum(8)}` };
    this.store.update('', 'configmaps', { ...cur, data });
    return true;
  }

  private labelChange(): boolean {
    const [group, resource] = LABELLED[this.rng.int(LABELLED.length)]!;
    const k = this.pools.get(`${group}/${resource}`)!.pick(this.rng);
    const cur = k && this.store.get(group, resource, ...splitKey(k));
    if (!cur) return false;
    const labels = { ...(cur.metadata.labels ?? {}), 'churn.kubeloop.dev/revision': String(++this.serial) };
    this.store.update(group, resource, { ...cur, metadata: { ...cur.metadata, labels } });
    return true;
  }

  private podCreate(): boolean {
    const ns = this.pools.get('/namespaces')!.pick(this.rng)?.slice(1);
    if (!ns || !this.store.type('', 'pods')) return false;
    const name = `churn-${this.rng.suffix(5)}-${++this.serial}`;
    this.store.create('', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns, labels: { app: 'churn', 'churn.kubeloop.dev/serial': String(this.serial) } },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'registry.k8s.io/e2e-test-images/agnhost:2.47',
            args: ['netexec', '--http-port=8080'],
            ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
            readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 },
          },
        ],
        restartPolicy: 'Always',
      },
      status: { phase: 'Pending' },
    });
    return true;
  }

  private podDelete(): boolean {
    const k = this.pools.get('/pods')!.pick(this.rng);
    if (!k) return false;
    this.store.delete('', 'pods', ...splitKey(k));
    return true;
  }

  private eventCreate(): boolean {
    const k = this.pools.get('/pods')!.pick(this.rng);
    const pod = k && this.store.get('', 'pods', ...splitKey(k));
    if (!pod || !this.store.type('', 'events')) return false;
    const now = new Date(this.wallMs()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    this.store.create('', 'events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: `${pod.metadata.name}.${(BigInt(Math.floor(this.wallMs())) * 1_000_000n + BigInt(++this.serial)).toString(16)}`,
        namespace: pod.metadata.namespace,
      },
      involvedObject: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid },
      reason: 'Pulled',
      message: 'Container image "registry.k8s.io/e2e-test-images/agnhost:2.47" already present on machine',
      source: { component: 'kubelet', host: String((pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '') },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type: 'Normal',
      eventTime: null,
      reportingComponent: 'kubelet',
      reportingInstance: '',
    });
    return true;
  }
}
