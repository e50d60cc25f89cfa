/**
 * The demo cluster's kubelet (and scheduler) simulation: makes pods live.
 *
 * startKubelet watches pods in the store. A pod without spec.nodeName is bound round-robin to one
 * of the simulated nodes (a `Scheduled` Event, like default-scheduler), or to the node its required
 * node affinity names by metadata.name (how DaemonSet pods are pinned) when that node exists. A pod on any node gets a
 * SimulatedPod that runs its containers and probes and reports status and Events, all as store writes,
 * so every real client watching the API sees them.
 *
 * Guarantees:
 * - Store callbacks only enqueue; the work runs in a microtask afterwards, never inside the
 *   store's write (so watchers see writes in order) and never throws out of a callback.
 * - Level-triggered: each pod event is handled from the pod as it is now in the store; an add and
 *   an update take the same path.
 * - Cheap for big clusters: a pod whose status already shows it running and ready, with no probe
 *   that can fail and no process that exits, needs nothing simulated and gets no worker or timer.
 * - stop() (or the signal) unsubscribes and cancels every timer; nothing runs afterwards.
 */
import type { DemoObject, ObjectStore } from '../store';
import { realKubeletClock, type KubeletClock } from './kubeletClock';
import { KubeletContext } from './kubeletContext';
import type { LogStore } from './logs';
import { NodeRegistry } from './nodes';
import { PULL_MS, SimulatedPod } from './simulatedPod';
import { alwaysSucceeds, evaluateProbe, resolveProbe, type ContainerSpec, type ProbeType } from './probes';
import { EventRecorder, kubeTimestamp } from './eventRecorder';
import { planProcess } from './runtime';
import { admit, type Rejection } from './admission';
import { Scheduler } from './scheduler';
import { PullPlanner, type ImagePulls } from './imagePulls';
import type { Capacity } from './capacity';
import { qosClassOf } from './status';

export type { KubeletClock } from './kubeletClock';

export interface KubeletOptions {
  signal?: AbortSignal;
  /** Defaults to real time; tests pass core's FakeClock (structurally the same). */
  clock?: KubeletClock;
  /** Simulated seconds per real second (default 1): 10 makes every period and back-off 10x shorter. */
  speed?: number;
  /** Schedule unassigned pods onto this one node only (created if absent). */
  nodeName?: string;
  /** Otherwise onto demo-node-1..n (default 3), created if absent. */
  nodes?: number;
  /** Wall-clock milliseconds at start, for timestamps (default Date.now()). */
  wallStart?: number;
  /** Errors of store writes (a pod deleted under a pending write, ...); default: ignored. */
  onError?: (e: unknown) => void;
  /** Containers' logs are written here (the demo API server serves them from it). */
  logs?: LogStore;
  /** Pulls that take per-image time, queue per node and sometimes fail (./imagePulls.ts); default: PULL_MS each, all succeed. */
  imagePulls?: ImagePulls;
  /** Pods per node, and a node added when they are full (./capacity.ts); default: no limit. */
  capacity?: Capacity;
}

export interface Kubelet {
  stop(): void;
  /** Pods with a live worker, and their pending timers (leak checks in tests). */
  stats(): { workers: number; pendingTimers: number };
}

const PROBES: ProbeType[] = ['liveness', 'readiness', 'startup'];

/**
 * Containers that run forever and whose probes can only succeed: nothing to simulate once running
 * and ready. Cached per containers array (stored objects are frozen, and pods stamped from one
 * template share it), so adopting a big generated cluster checks each template once.
 */
const quietCache = new WeakMap<object, Map<string, boolean>>();
function runsQuietly(containers: ContainerSpec[], policy: string, podIP: string): boolean {
  let byPolicy = quietCache.get(containers);
  const hit = byPolicy?.get(policy);
  if (hit !== undefined) return hit;
  let quiet = true;
  for (const c of containers) {
    const plan = planProcess(c, policy, false);
    if (plan.exit) quiet = false;
    for (const t of PROBES) {
      const p = resolveProbe(t, c[`${t}Probe`] as never);
      // A probe's success never depends on the pod IP (only its failure message does).
      if (p && !alwaysSucceeds(evaluateProbe(p, c, podIP, plan.files))) quiet = false;
    }
  }
  if (Object.isFrozen(containers)) {
    if (!byPolicy) quietCache.set(containers, (byPolicy = new Map()));
    byPolicy.set(policy, quiet);
  }
  return quiet;
}

/** True when the pod's status already shows what the simulation would converge to. */
function isTerminal(pod: DemoObject): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

export function isSettled(pod: DemoObject): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  const st = pod.status as { phase?: string; podIP?: string; containerStatuses?: any[]; initContainerStatuses?: any[] } | undefined;
  if (!st) return false;
  if (st.phase === 'Succeeded' || st.phase === 'Failed') return true;
  // A deadline (activeDeadlineSeconds) is something to simulate.
  if ((pod.spec as { activeDeadlineSeconds?: unknown } | undefined)?.activeDeadlineSeconds !== undefined) return false;
  if (st.phase !== 'Running' || !st.podIP) return false;
  const spec = (pod.spec ?? {}) as { containers?: ContainerSpec[]; initContainers?: ContainerSpec[]; restartPolicy?: string };
  const policy = spec.restartPolicy ?? 'Always';
  for (const c of spec.containers ?? []) {
    const cs = st.containerStatuses?.find((s) => s?.name === c.name);
    if (!cs?.state?.running || cs.ready !== true || cs.started === false) return false;
  }
  if (!runsQuietly(spec.containers ?? [], policy, st.podIP)) return false;
  for (const c of spec.initContainers ?? []) {
    const cs = st.initContainerStatuses?.find((s) => s?.name === c.name);
    if (c.restartPolicy === 'Always' ? !cs?.state?.running : cs?.state?.terminated?.exitCode !== 0) return false;
  }
  return true;
}
export function startKubelet(store: ObjectStore, opts: KubeletOptions = {}): Kubelet {
  const clock = opts.clock ?? realKubeletClock;
  const speed = opts.speed && opts.speed > 0 ? opts.speed : 1;
  const onError = opts.onError ?? (() => {});
  const wallStart = opts.wallStart ?? Date.now();
  const clockStart = clock.now();
  const wallNow = () => wallStart + (clock.now() - clockStart);
  const nodes = new NodeRegistry(store, () => kubeTimestamp(wallNow()));
  const recorder = new EventRecorder(store, wallNow, onError, () => (clock.now() - clockStart) * speed);
  const pulls = opts.imagePulls ? new PullPlanner(opts.imagePulls, PULL_MS) : undefined;
  const ctx = new KubeletContext(store, clock, speed, wallStart, recorder, nodes, onError, opts.logs, pulls);
  const schedulable = opts.nodeName ? [opts.nodeName] : Array.from({ length: Math.max(1, opts.nodes ?? 3) }, (_, i) => `demo-node-${i + 1}`);
  for (const n of schedulable) {
    try {
      nodes.ensure(n);
    } catch (e) {
      onError(e);
    }
  }
  const autoscale = opts.capacity ? { capacity: opts.capacity, timers: ctx.newTimers() } : undefined;
  const loop = new PodEventLoop(ctx, new Scheduler(store, nodes, recorder, wallNow, schedulable, autoscale));
  loop.start();

  const stop = () => {
    if (!loop.stop()) return;
    opts.signal?.removeEventListener('abort', stop);
  };
  if (opts.signal?.aborted) stop();
  else opts.signal?.addEventListener('abort', stop, { once: true });
  return { stop, stats: () => loop.stats() };
}

/** The kubelet's pod loop: the store's pod events in order, each handled from the pod as it is now. */
class PodEventLoop {
  private readonly workers = new Map<string, SimulatedPod>();
  // A FIFO of pending pod events (head index instead of shift(): the initial list can be large).
  private queue: { pod: DemoObject; deleted: boolean }[] = [];
  private head = 0;
  private drainQueued = false;
  private stopped = false;
  private unsubscribe = () => {};

  constructor(
    private readonly ctx: KubeletContext,
    private readonly scheduler: Scheduler,
  ) {}

  start(): void {
    const { store } = this.ctx;
    this.unsubscribe = store.subscribe((e) => {
      if (e.group === '' && e.resource === 'pods') this.enqueue(e.object, e.type === 'DELETED');
    });
    if (store.type('', 'pods')) for (const pod of store.list('', 'pods').items) this.enqueue(pod, false);
  }

  /** False when already stopped. */
  stop(): boolean {
    if (this.stopped) return false;
    this.stopped = true;
    this.unsubscribe();
    this.scheduler.stop();
    for (const w of this.workers.values()) w.stop();
    this.workers.clear();
    this.queue = [];
    this.head = 0;
    return true;
  }

  stats(): { workers: number; pendingTimers: number } {
    return { workers: this.workers.size, pendingTimers: [...this.workers.values()].reduce((n, w) => n + w.pendingTimers, 0) };
  }

  private enqueue(pod: DemoObject, deleted: boolean): void {
    this.queue.push({ pod, deleted });
    if (!this.drainQueued) {
      this.drainQueued = true;
      queueMicrotask(() => this.drain());
    }
  }

  private drain(): void {
    this.drainQueued = false;
    while (this.head < this.queue.length && !this.stopped) {
      const item = this.queue[this.head++]!;
      try {
        this.handle(item.pod, item.deleted);
      } catch (e) {
        this.ctx.onError(e);
      }
    }
    this.queue = [];
    this.head = 0;
  }

  private handle(eventPod: DemoObject, deleted: boolean): void {
    const { store, nodes } = this.ctx;
    const uid = eventPod.metadata.uid ?? '';
    if (deleted) {
      this.workers.get(uid)?.stop();
      this.workers.delete(uid);
      this.scheduler.forget(uid);
      return;
    }
    const pod = store.get('', 'pods', eventPod.metadata.namespace, eventPod.metadata.name);
    if (!pod || pod.metadata.uid !== uid) return; // gone or replaced: its own events follow
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    if (!nodeName) return this.scheduler.schedule(pod);
    const existing = this.workers.get(uid);
    if (existing) return existing.update(pod);
    if (isSettled(pod)) return;
    if (!pod.metadata.deletionTimestamp && !isTerminal(pod) && !(pod.status as { containerStatuses?: unknown[] } | undefined)?.containerStatuses) {
      // Admission, before anything runs: a pod the node cannot take is failed, and gets no worker.
      nodes.ensure(nodeName);
      const node = store.get('', 'nodes', undefined, nodeName);
      const rejection = node ? admit(pod, node) : undefined;
      if (rejection) return this.reject(pod, nodeName, rejection);
    }
    const w = new SimulatedPod(this.ctx, pod);
    this.workers.set(uid, w);
    w.begin();
  }

  /** upstream rejectPod: a Warning Event with the reason, and the pod Failed ("Pod was rejected: ..."). */
  private reject(pod: DemoObject, nodeName: string, r: Rejection): void {
    this.ctx.recorder.record(
      { kind: 'Pod', apiVersion: 'v1', name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid },
      'Warning',
      r.reason,
      r.message,
      { component: 'kubelet', host: nodeName },
    );
    const st = (pod.status ?? {}) as Record<string, unknown>;
    const qosClass = qosClassOf(((pod.spec as { containers?: ContainerSpec[] } | undefined)?.containers ?? []) as ContainerSpec[]);
    this.ctx.store.update(
      '',
      'pods',
      { ...pod, status: { ...st, phase: 'Failed', reason: r.reason, message: `Pod was rejected: ${r.message}`, qosClass } },
      { subresource: 'status', manager: 'kubelet' },
    );
  }
}
