/**
 * Writers the demo can plant (`kubeloop demo-cluster --writers`; off by default): namespace
 * `writers` with two misbehaving controllers, so the writers story (core/writers) has something to find.
 *
 *   a fight: `fight-a` and `fight-b`, each with its own field manager, both reconciling the
 *     annotation `demo.kubeloop.dev/owner` of ConfigMap `contested` to their own value, every
 *     `fightPeriodMs` (default 1 s), half a period apart: the field changes hands at every write, as
 *     two controllers (an HPA and a GitOps sync setting replicas) do when both think they own it;
 *   a hot loop: `looping-operator` rewriting the annotation `demo.kubeloop.dev/reconciled` of
 *     ConfigMap `hot` (a counter no row shows) `hotLoopPerSecond` times a second (default 13, the
 *     rate of the operator issue 44 tells of).
 *
 * Each write goes through the store with its manager, so managedFields name the writer as
 * kube-apiserver would (server/managed-fields.ts). ConfigMaps: no controller reacts to them.
 *
 * Guarantees: an object that is missing (deleted by a user) is created again by the next write; a
 * failed write is reported to onError and retried at the next tick; stop() (or the signal) cancels
 * every timer, and nothing is written afterwards.
 */
import { prepareCreate } from './server/defaults';
import { kubeTime, type DemoObject, type ObjectStore } from './store';
import { realKubeletClock, type KubeletClock, type KubeletTimer } from './kubelet/kubeletClock';

export const WRITERS_NAMESPACE = 'writers';
export const FIGHT_ANNOTATION = 'demo.kubeloop.dev/owner';
export const FIGHTERS = ['fight-a', 'fight-b'] as const;
export const HOT_LOOP_MANAGER = 'looping-operator';

export interface WritersOptions {
  clock?: KubeletClock;
  signal?: AbortSignal;
  fightPeriodMs?: number;
  hotLoopPerSecond?: number;
  onError?: (e: unknown) => void;
}

export interface PlantedWriters {
  /** Writes made so far, per manager. */
  readonly writes: Record<string, number>;
  stop(): void;
}

const ns = WRITERS_NAMESPACE;

function configMap(name: string): DemoObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns, labels: { 'app.kubernetes.io/part-of': 'kubeloop-writers' } },
    data: { note: 'written by the demo' },
  };
}

export function startWriters(store: ObjectStore, opts: WritersOptions = {}): PlantedWriters {
  const clock = opts.clock ?? realKubeletClock;
  const onError = opts.onError ?? (() => {});
  const period = opts.fightPeriodMs ?? 1000;
  const hotEvery = 1000 / (opts.hotLoopPerSecond ?? 13);
  const writes: Record<string, number> = {};
  const timers = new Set<KubeletTimer>();
  let stopped = false;

  const ensure = (name: string): DemoObject => {
    if (!store.get('', 'namespaces', undefined, ns))
      store.create(
        '',
        'namespaces',
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { 'kubernetes.io/metadata.name': ns } } },
        { manager: 'kubectl-create' },
      );
    const got = store.get('', 'configmaps', ns, name);
    if (got) return got;
    return store.create('', 'configmaps', prepareCreate(store.type('', 'configmaps')!, configMap(name), 'kubectl-client-side-apply', kubeTime(new Date())));
  };
  /** Sets one annotation of ConfigMap `name` as `manager` (no write when it already holds `value`). */
  const annotate = (name: string, key: string, value: string, manager: string) => {
    const cm = ensure(name);
    const annotations = (cm.metadata.annotations as Record<string, string> | undefined) ?? {};
    if (annotations[key] === value) return;
    store.update('', 'configmaps', { ...cm, metadata: { ...cm.metadata, annotations: { ...annotations, [key]: value } } }, { manager });
    writes[manager] = (writes[manager] ?? 0) + 1;
  };
  const every = (ms: number, first: number, fn: () => void) => {
    const tick = () => {
      timers.delete(t);
      if (stopped) return;
      try {
        fn();
      } catch (e) {
        onError(e);
      }
      t = clock.setTimer(ms, tick);
      timers.add(t);
    };
    let t = clock.setTimer(first, tick);
    timers.add(t);
  };
  FIGHTERS.forEach((manager, i) => every(period, (i * period) / 2, () => annotate('contested', FIGHT_ANNOTATION, manager, manager)));
  let n = 0;
  every(hotEvery, 0, () => annotate('hot', 'demo.kubeloop.dev/reconciled', String(++n), HOT_LOOP_MANAGER));

  const stop = () => {
    if (stopped) return;
    stopped = true;
    for (const t of timers) t.cancel();
    timers.clear();
    opts.signal?.removeEventListener('abort', stop);
  };
  if (opts.signal?.aborted) stop();
  else opts.signal?.addEventListener('abort', stop, { once: true });
  return { writes, stop };
}
