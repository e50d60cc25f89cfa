import type { Clock } from '../clock';
import { runSteps, runStepsSliced, STEP_ITEMS, type Steps } from '../slice';
import type { TimelineStore } from '../timeline/store';
import { Channel } from './channel';
import { PodConfig } from './config/podconfig';
import { containerIdOf } from './pleg/generic';
import type { PodCache } from './pleg/podcache';
import { PLEG_CHANNEL_CAPACITY } from './pleg/relister';
import { PodWorkers, type PodWorkerSyncRecord, type SyncPodType } from './podworkers';
import { podWorkerMark } from './podworkerlane';
import { iterationNode } from './iterationNode';
import { activeDeadlinePassed, needToReconcilePodReadiness } from './podstatus';
import type { ProbeProgress } from './prober/infer';
import { computeObjectView } from '../rows/objectView';
import { PROBE_CHANNEL_CAPACITY } from './prober/infer';
import { Selector } from './select';
import { ActualStateOfWorld } from './state/actual';
import { DesiredStateOfWorld } from './state/desired';
import { ProbeResultsCache } from './state/probes';
import { ModelSyncer } from './sync';
import { joinKeys, kobjs, kv, silentLogger, type SyncLogger } from './log';
import type { PodLifecycleEvent, PodUpdate, ProbeUpdate } from './types';
import type { StoredObject } from '../kube/objects/types';
import type { Pod } from '../kube/objects/pod';
import { allContainerStatuses } from '../kube/objects/pod';
import { objectKey } from '../kube/objects/objectKey';
import { WorkQueue } from './workqueue';
import type { TimeSlicer } from '../slice';

/** Upstream housekeepingPeriod and housekeepingWarningDuration. */
export const SYNC_PERIOD_MS = 1000;
export const HOUSEKEEPING_PERIOD_MS = 2000;
export const HOUSEKEEPING_WARNING_MS = 1000;

export interface SyncLoopOptions {
  clock: Clock;
  logger?: SyncLogger;
  timeline?: TimelineStore;
  /** Timeline times are relative to this instant on `clock` (default: construction time). */
  origin?: number;
  /** Config sources housekeeping waits for (more are added as they merge). */
  sources?: string[];
  random?: () => number;
  resyncIntervalMs?: number;
  backOffPeriodMs?: number;
  /** Called by every housekeeping pass that runs: the wiring checks its watches here. */
  onHousekeeping?: (signal: AbortSignal) => void | Promise<void>;
  /** The loop skips iterations (with backoff) while this returns an error (upstream runtimeErrors). */
  runtimeErrors?: () => Error | undefined;
  channelCapacities?: { config?: number; pleg?: number; probe?: number };
  /** Housekeeping period (upstream housekeepingPeriod, 2 s); the extension's setting sets it. */
  housekeepingPeriodMs?: number;
  /** The node the loop is scoped to (its sources only deliver pods bound there); named on every timeline event. */
  node?: string;
  /** Wall-clock ms (default Date.now), for activeDeadlineSeconds against status.startTime. */
  wallNow?: () => number;
  /** The prober's progress for a pod UID ("failure n of failureThreshold"), for the pod-worker lane. */
  probeProgress?: (uid: string) => ProbeProgress[];
  /**
   * The PLEG's pod cache: pod workers wait on it before every sync but the first, as upstream
   * (podworkers.ts). The cluster wiring passes its relister's; unset (a bare loop), syncs run at once.
   */
  podCache?: PodCache;
  /** The thread's time slices the pod workers share (default: the host's; tests give an unsliced one, slice.ts). */
  slicer?: Pick<TimeSlicer, 'due'>;
}

/**
 * SyncLoop: the kubelet's Kubelet struct, reduced to what the loop needs — the sources' channels,
 * the two sets (desiredStateOfWorld, actualStateOfWorld), the pod workers and their work queue,
 * and the SyncHandler methods syncLoopIteration dispatches to (iteration.ts), housekeeping
 * (housekeeping.ts) and the loop with its error backoff (loop.ts).
 *
 * The handlers only record desired state and hand pods to the pod workers (keyed by UID); they never
 * sync inline and never decide anything from the operation type beyond what upstream does (kill on
 * REMOVE; RECONCILE syncs only when readiness needs reconciling). Other kinds never reach them:
 * their informer (runInformer) keeps the model.
 */
/** What an informer's handler did with one update. */
export interface InformerResult {
  handler: 'OnAdd' | 'OnUpdate' | 'OnDelete';
  keys: string[];
}

export class SyncLoop {
  readonly clock: Clock;
  readonly logger: SyncLogger;
  readonly timeline: TimelineStore | undefined;
  readonly origin: number;
  readonly podConfig: PodConfig;
  readonly desired = new DesiredStateOfWorld();
  readonly actual = new ActualStateOfWorld();
  readonly probeResults = new ProbeResultsCache();
  readonly workQueue: WorkQueue;
  readonly podWorkers: PodWorkers;
  /** Sources whose updates the loop has handled at least once (upstream sourcesReady). */
  readonly sourcesSeenByLoop = new Set<string>();
  readonly selector = new Selector();
  readonly channels: {
    config: Channel<PodUpdate>;
    pleg: Channel<PodLifecycleEvent>;
    liveness: Channel<ProbeUpdate>;
    readiness: Channel<ProbeUpdate>;
    startup: Channel<ProbeUpdate>;
  };

  constructor(readonly opts: SyncLoopOptions) {
    this.clock = opts.clock;
    this.logger = opts.logger ?? silentLogger;
    this.timeline = opts.timeline;
    this.origin = opts.origin ?? opts.clock.now();
    const caps = opts.channelCapacities ?? {};
    this.podConfig = new PodConfig(caps.config);
    for (const s of opts.sources ?? []) this.podConfig.addSource(s);
    const probeCap = caps.probe ?? PROBE_CHANNEL_CAPACITY;
    this.channels = {
      config: this.podConfig.updates,
      pleg: new Channel<PodLifecycleEvent>(caps.pleg ?? PLEG_CHANNEL_CAPACITY, 'plegCh'),
      liveness: new Channel<ProbeUpdate>(probeCap, 'livenessManager'),
      readiness: new Channel<ProbeUpdate>(probeCap, 'readinessManager'),
      startup: new Channel<ProbeUpdate>(probeCap, 'startupManager'),
    };
    this.podConfig.informer = (u) => this.runInformer(u);
    this.workQueue = new WorkQueue(opts.clock);
    this.podWorkers = new PodWorkers(new ModelSyncer(this.desired, this.actual, this.probeResults, opts.clock, opts.podCache), this.workQueue, opts.clock, {
      ...(opts.resyncIntervalMs !== undefined ? { resyncIntervalMs: opts.resyncIntervalMs } : {}),
      ...(opts.backOffPeriodMs !== undefined ? { backOffPeriodMs: opts.backOffPeriodMs } : {}),
      ...(opts.random ? { random: opts.random } : {}),
      ...(opts.podCache ? { podCache: opts.podCache } : {}),
      ...(opts.slicer ? { slicer: opts.slicer } : {}),
      onSynced: (r) => this.recordWorkerSync(r),
      onSyncError: (key, err) => this.logger.error(`Error syncing pod, skipping pod="${key}" err=${JSON.stringify(String((err as Error)?.message ?? err))}`),
    });
  }

  /** Housekeeping runs only once every config source has sent its first full list and been handled. */
  allSourcesReady(): boolean {
    return this.podConfig.seenAllSources(this.sourcesSeenByLoop);
  }

  // ---- SyncHandler (upstream kubelet.go HandlePod*) ----

  // The handlers are steps (slice.ts) yielding every STEP_ITEMS objects: a first list of 500,000
  // pods is handled in slices of the thread (the iteration runs them with runStepsSliced).

  /** New pods: record them as desired and start their workers, oldest first (upstream sorts by creation time). */
  *handlePodAdditions(u: PodUpdate): Steps<string[]> {
    // RFC 3339 times in one form (the API server's) sort as strings; localeCompare took ~10x longer.
    const created = (p: StoredObject) => p.metadata.creationTimestamp ?? '';
    const pods = [...u.pods].sort((a, b) => (created(a) < created(b) ? -1 : created(a) > created(b) ? 1 : 0));
    return yield* this.record(u, pods, 'create');
  }

  /** Changed pods (and DELETE: a graceful deletion is an update carrying a deletion timestamp). */
  *handlePodUpdates(u: PodUpdate): Steps<string[]> {
    return yield* this.record(u, u.pods, 'update');
  }

  /**
   * Only the status changed (upstream HandlePodReconcile): the pod manager takes the new pod, and
   * the pod is synced only when its readiness needs reconciling (NeedToReconcilePodReadiness: a
   * pod with readiness gates whose Ready condition is not the one the kubelet would generate).
   * Most RECONCILEs are the kubelet's own status writes coming back; the PLEG and the prober
   * report what they mean, before them (sources/sinks.ts). Returns the keys synced.
   */
  *handlePodReconcile(u: PodUpdate): Steps<string[]> {
    const synced: string[] = [];
    let n = 0;
    for (const obj of u.pods) {
      if (++n % STEP_ITEMS === 0) yield;
      const key = objectKey(obj, u.resource);
      this.desired.set({ key, obj, source: u.source, ...(u.resource ? { resource: u.resource } : {}) });
      const shown = this.actual.get(key);
      if (!needToReconcilePodReadiness(obj as Pod)) {
        // No sync. The tree's row still shows the API's latest status (as kubectl would), refreshed
        // in place: a model update, not a pod-worker sync.
        if (shown?.uid === obj.metadata.uid) this.actual.set(computeObjectView(key, obj, u.resource, this.probeResults.get(obj.metadata.uid), shown));
        const rejected = admissionRejection(obj as Pod);
        if (rejected && this.podWorkers.isKnown(obj.metadata.uid)) {
          // The kubelet never started a worker for it; ours started at the ADD (it could not know).
          this.podWorkers.forget(obj.metadata.uid);
          this.logger.info(`Pod was rejected by the kubelet's admission, as its status says: no worker${kv({ pod: key, reason: rejected })}`, 2);
        }
        continue;
      }
      synced.push(key);
      this.podWorkers.UpdatePod({ updateType: 'sync', key, obj, ...(u.resource ? { resource: u.resource } : {}) });
    }
    return synced;
  }

  /** Pods gone from the API: no longer desired; their workers terminate them (a finished one is cleaned up here). */
  *handlePodRemoves(u: PodUpdate): Steps<string[]> {
    const keys: string[] = [];
    for (const obj of u.pods) {
      if (keys.length % STEP_ITEMS === STEP_ITEMS - 1) yield;
      const key = objectKey(obj, u.resource);
      const uid = obj.metadata.uid;
      keys.push(key);
      this.desired.remove(key, uid);
      const state = this.podWorkers.state(uid);
      if (state === undefined || this.podWorkers.isFinished(uid)) {
        // Its containers had already stopped (a completed pod, a graceful deletion): nothing runs.
        this.actual.delete(key, uid);
        this.probeResults.delete(uid);
        continue;
      }
      this.podWorkers.UpdatePod({ updateType: 'kill', key, obj, ...(u.resource ? { resource: u.resource } : {}) });
    }
    return keys;
  }

  /** Syncs desired pods by key (the sync tick, PLEG and probe cases). Unknown keys are skipped. */
  handlePodSyncs(keys: readonly string[]): string[] {
    return runSteps(this.podSyncsSteps(keys));
  }

  /** handlePodSyncs as steps (slice.ts): the sync tick's thousands of due pods at 100,000 pods. */
  *podSyncsSteps(keys: readonly string[]): Steps<string[]> {
    const done: string[] = [];
    for (let i = 0; i < keys.length; i++) {
      if (i % STEP_ITEMS === STEP_ITEMS - 1) yield;
      const key = keys[i]!;
      const d = this.desired.get(key);
      if (!d) continue;
      done.push(key);
      this.podWorkers.UpdatePod({ updateType: 'sync', key, obj: d.obj, ...(d.resource ? { resource: d.resource } : {}) });
    }
    return done;
  }

  /**
   * The sync tick's pods (upstream getPodsToSync): those whose work-queue deadline passed, and
   * those a PodSyncLoopHandler wants synced — the activeDeadlineHandler: a pod past its
   * spec.activeDeadlineSeconds since status.startTime, not yet terminal.
   */
  podsToSync(): { keys: string[]; deadlineExceeded: string[] } {
    // Upstream walks every pod and asks both questions of each; the same set comes from the due
    // keys and the pods with a deadline alone (indexes), which at 100,000 pods is the difference
    // between a few keys and a walk of them all every second.
    const due = this.workQueue.getWork();
    const keys: string[] = [];
    const deadlineExceeded: string[] = [];
    const dueUIDs = new Set<string>();
    for (const uid of due) {
      const d = this.desired.podByUID(uid);
      if (!d) continue;
      keys.push(d.key);
      dueUIDs.add(uid);
    }
    const wallNow = (this.opts.wallNow ?? Date.now)();
    for (const d of this.desired.podsWithActiveDeadline()) {
      if (dueUIDs.has(d.obj.metadata.uid) || !activeDeadlinePassed(d.obj as Pod, wallNow)) continue;
      keys.push(d.key);
      deadlineExceeded.push(d.key);
    }
    return { keys, deadlineExceeded };
  }

  /**
   * A non-pod object changed (a ConfigMap, a Deployment, ...): the kubelet's config sources never
   * deliver these; they are kept live by their own informer, whose handler updates the model
   * directly (client-go ResourceEventHandler OnAdd / OnUpdate / OnDelete), without pod workers.
   */
  handleInformerUpdate(u: PodUpdate): InformerResult {
    return runSteps(this.informerUpdateSteps(u));
  }

  /** handleInformerUpdate as steps (slice.ts). */
  *informerUpdateSteps(u: PodUpdate): Steps<InformerResult> {
    const handler = u.op === 'ADD' ? 'OnAdd' : u.op === 'REMOVE' ? 'OnDelete' : 'OnUpdate';
    const keys: string[] = [];
    for (const obj of u.pods) {
      if (keys.length % STEP_ITEMS === STEP_ITEMS - 1) yield;
      const key = objectKey(obj, u.resource);
      keys.push(key);
      if (handler === 'OnDelete') {
        this.desired.remove(key, obj.metadata.uid);
        this.actual.delete(key, obj.metadata.uid);
        continue;
      }
      this.desired.set({ key, obj, source: u.source, ...(u.resource ? { resource: u.resource } : {}) });
      this.actual.set(computeObjectView(key, obj, u.resource));
    }
    return { handler, keys };
  }

  /**
   * One informer event batch (a non-pod kind's merged update): its handler runs at once, outside
   * the loop's select (an informer calls its handlers from its own goroutine), logs one line and
   * appends one 'informer' mark to the timeline. The source counts as seen for housekeeping.
   */
  async runInformer(u: PodUpdate): Promise<void> {
    const start = this.clock.now();
    const { handler, keys } = u.pods.length > STEP_ITEMS ? await runStepsSliced(this.informerUpdateSteps(u)) : this.handleInformerUpdate(u);
    const resource = u.resource ? (u.resource.group ? `${u.resource.resource}.${u.resource.group}` : u.resource.resource) : '';
    // V(4): client-go's informers log nothing per event; this line is ours, one per batch, and at
    // heavy churn (hundreds a second) it would flood the output channel. The timeline's informer
    // lane has every batch.
    this.logger.info(`Informer ${handler}${kv({ resource, source: u.source })} objects=${kobjs(keys)}`, 4);
    this.sourcesSeenByLoop.add(u.source);
    this.timeline?.append({
      kind: 'iteration',
      t: round3(start - this.origin),
      durationMs: round3(this.clock.now() - start),
      source: 'informer',
      op: u.op,
      key: joinKeys(keys),
      handler,
      outcome: 'ok',
    });
  }

  /**
   * PLEG said a container died: drop that instance's recorded probe results (upstream cleans up the
   * container). Only its own: a restarted container's new instance keeps its results.
   */
  cleanUpContainerInPod(podUID: string, containerID: string): void {
    const d = this.desired.getByUID(podUID);
    if (!d) return;
    const pod = (this.opts.podCache?.latest(podUID) ?? d.obj) as Pod;
    const name = containerNameFor(pod, containerID) ?? containerNameFor(d.obj as Pod, containerID);
    if (name) this.probeResults.deleteContainer(podUID, name, containerID);
  }

  /** Readiness / startup results are recorded before the sync that reads them (upstream statusManager). */
  recordProbeResult(key: string, u: ProbeUpdate): void {
    const d = this.desired.get(key);
    const name = u.container ?? (d && containerNameFor(d.obj as Pod, u.containerId)) ?? u.containerId;
    this.probeResults.set(u.podUID, name, u.probe, u.result, u.containerId);
  }

  private *record(u: PodUpdate, pods: readonly StoredObject[], updateType: SyncPodType): Steps<string[]> {
    const keys: string[] = [];
    for (const obj of pods) {
      if (keys.length % STEP_ITEMS === STEP_ITEMS - 1) yield;
      const key = objectKey(obj, u.resource);
      keys.push(key);
      this.desired.set({ key, obj, source: u.source, ...(u.resource ? { resource: u.resource } : {}) });
      this.podWorkers.UpdatePod({ updateType, key, obj, ...(u.resource ? { resource: u.resource } : {}) });
      // The row shows the object as the API has it now, as kubectl would (a model update, not a
      // sync): the worker's sync is paced by the PLEG (up to a second away), and a finished worker
      // (a completed pod) takes no more updates at all, as upstream. A pod not shown yet waits for
      // its worker's first sync, which does not wait.
      const shown = this.actual.get(key);
      if (shown?.uid === obj.metadata.uid) this.actual.set(computeObjectView(key, obj, u.resource, this.probeResults.get(obj.metadata.uid), shown));
    }
    return keys;
  }

  /** A finished pod-worker sync as one 'podworker' mark on the timeline. */
  private recordWorkerSync(r: PodWorkerSyncRecord): void {
    const mark = podWorkerMark(r, this.origin, this.opts.probeProgress?.(r.uid));
    // The worker's pod is on one node (or none yet): its marks name it as the iterations do.
    const node = iterationNode(this, r.key);
    if (node) mark.node = node;
    this.timeline?.append(mark);
  }
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/**
 * The reason the kubelet's admission rejected the pod (upstream rejectPod: phase Failed, the reason,
 * a message "Pod was rejected: ..."), when its status says so and no container ever ran; else undefined.
 */
export function admissionRejection(pod: Pod): string | undefined {
  const s = pod.status;
  if (s?.phase !== 'Failed' || !s.message?.startsWith('Pod was rejected: ')) return undefined;
  if (allContainerStatuses(pod).some((c) => c.containerID || c.lastState?.terminated)) return undefined;
  return s.reason ?? 'rejected';
}

/** The container name a container ID (runtime ID or name) refers to, from the pod's statuses. */
export function containerNameFor(pod: Pod, containerID: string): string | undefined {
  for (const c of allContainerStatuses(pod)) {
    if (c.name === containerID) return c.name;
    if (c.containerID && containerIdOf(c.containerID) === containerID) return c.name;
    const last = c.lastState?.terminated?.containerID;
    if (last && containerIdOf(last) === containerID) return c.name;
  }
  const specNames = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => c.name);
  return specNames.includes(containerID) ? containerID : undefined;
}
