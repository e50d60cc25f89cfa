import type { Clock } from '../clock';
import type { TimelineStore } from '../timeline/store';
import { Channel } from './channel';
import { PodConfig } from './config/podconfig';
import { containerIdOf } from './pleg/generic';
import { PLEG_CHANNEL_CAPACITY } from './pleg/relister';
import { PodWorkers, type SyncPodType } from './podworkers';
import { PROBE_CHANNEL_CAPACITY } from './prober/infer';
import { Selector } from './select';
import { ActualStateOfWorld } from './state/actual';
import { DesiredStateOfWorld } from './state/desired';
import { ProbeResultsCache } from './state/probes';
import { ModelSyncer } from './sync';
import { silentLogger, type SyncLogger } from './log';
import type { KubeObject, Pod, PodLifecycleEvent, PodUpdate, ProbeUpdate } from './types';
import { allContainerStatuses, objectKey } from './types';
import { WorkQueue } from './workqueue';

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
}

/**
 * SyncLoop: the kubelet's Kubelet struct, reduced to what the loop needs — the sources' channels,
 * the two sets (desiredStateOfWorld, actualStateOfWorld), the pod workers and their work queue,
 * and the SyncHandler methods syncLoopIteration dispatches to (iteration.ts), housekeeping
 * (housekeeping.ts) and the loop with its error backoff (loop.ts).
 *
 * The handlers only record desired state and hand keys to the pod workers; they never sync inline
 * and never decide anything from the operation type beyond what upstream does (kill on REMOVE).
 */
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
    this.workQueue = new WorkQueue(opts.clock);
    this.podWorkers = new PodWorkers(new ModelSyncer(this.desired, this.actual, this.probeResults), this.workQueue, opts.clock, {
      ...(opts.resyncIntervalMs !== undefined ? { resyncIntervalMs: opts.resyncIntervalMs } : {}),
      ...(opts.backOffPeriodMs !== undefined ? { backOffPeriodMs: opts.backOffPeriodMs } : {}),
      ...(opts.random ? { random: opts.random } : {}),
      onSyncError: (key, err) => this.logger.error(`Error syncing pod, skipping pod="${key}" err=${JSON.stringify(String((err as Error)?.message ?? err))}`),
    });
  }

  /** Housekeeping runs only once every config source has sent its first full list and been handled. */
  allSourcesReady(): boolean {
    return this.podConfig.seenAllSources(this.sourcesSeenByLoop);
  }

  // ---- SyncHandler (upstream kubelet.go HandlePod*) ----

  /** New objects: record them as desired and start their workers, oldest first (upstream sorts by creation time). */
  handlePodAdditions(u: PodUpdate): string[] {
    const pods = [...u.pods].sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));
    return this.record(u, pods, 'create');
  }

  /** Changed objects (and DELETE: a graceful deletion is an update carrying a deletion timestamp). */
  handlePodUpdates(u: PodUpdate): string[] {
    return this.record(u, u.pods, 'update');
  }

  /** Only the status changed. Upstream's kubelet owns pod status, so it only re-checks readiness
   * there; here status is what the view shows, so the object is synced like any other change. */
  handlePodReconcile(u: PodUpdate): string[] {
    return this.record(u, u.pods, 'sync');
  }

  /** Objects gone from the API: no longer desired; their workers terminate them. */
  handlePodRemoves(u: PodUpdate): string[] {
    const keys: string[] = [];
    for (const obj of u.pods) {
      const key = objectKey(obj, u.resource);
      keys.push(key);
      this.desired.remove(key, obj.metadata.uid);
      this.podWorkers.UpdatePod({ updateType: 'kill', key, obj, ...(u.resource ? { resource: u.resource } : {}) });
    }
    return keys;
  }

  /** Syncs desired objects by key (the sync tick, PLEG and probe cases). Unknown keys are skipped. */
  handlePodSyncs(keys: readonly string[]): string[] {
    const done: string[] = [];
    for (const key of keys) {
      const d = this.desired.get(key);
      if (!d) continue;
      done.push(key);
      this.podWorkers.UpdatePod({ updateType: 'sync', key, obj: d.obj, ...(d.resource ? { resource: d.resource } : {}) });
    }
    return done;
  }

  /** PLEG said a container died: drop its recorded probe results (upstream cleans up the container). */
  cleanUpContainerInPod(podUID: string, containerID: string): void {
    const d = this.desired.getByUID(podUID);
    if (!d) return;
    const name = containerNameFor(d.obj as Pod, containerID);
    if (name) this.probeResults.deleteContainer(d.key, name);
  }

  /** Readiness / startup results are recorded before the sync that reads them (upstream statusManager). */
  recordProbeResult(key: string, u: ProbeUpdate): void {
    const d = this.desired.get(key);
    const name = (d && containerNameFor(d.obj as Pod, u.containerId)) ?? u.containerId;
    this.probeResults.set(key, name, u.probe, u.result);
  }

  private record(u: PodUpdate, pods: readonly KubeObject[], updateType: SyncPodType): string[] {
    const keys: string[] = [];
    for (const obj of pods) {
      const key = objectKey(obj, u.resource);
      keys.push(key);
      this.desired.set({ key, obj, source: u.source, ...(u.resource ? { resource: u.resource } : {}) });
      this.podWorkers.UpdatePod({ updateType, key, obj, ...(u.resource ? { resource: u.resource } : {}) });
    }
    return keys;
  }
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
