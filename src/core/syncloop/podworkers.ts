import type { Clock } from '../clock';
import type { KubeObject, ResourceRef } from './types';
import { jitter, WorkQueue } from './workqueue';

/**
 * podWorkers: upstream pkg/kubelet/pod_workers.go, the concurrency guarantee of the loop.
 *
 * Every key (an object's namespace/name) has at most one worker. A worker drives its object through
 * three states — syncing (the object exists: keep its view current), terminating (it is being
 * deleted or is gone: show that, wait until it is gone), terminated (clean up its view) — and then
 * is finished until housekeeping forgets it.
 *
 *   UpdatePod ──> pendingUpdate (one slot) ──worker──> activeUpdate ──> syncPod / syncTerminatingPod /
 *                                                                       syncTerminatedPod
 *
 * Guarantees (each kept by the code named):
 * - At most one sync per key is in flight: one worker loop per key (`running`), which takes one
 *   pending update at a time (podWorkerLoop).
 * - Only the latest state is guaranteed to be synced, not every intermediate one: UpdatePod
 *   overwrites the single pendingUpdate slot, so a slow sync delays its own key's next sync and
 *   nobody else's, and memory per key is one pending update whatever the update rate.
 * - No key is lost: a worker never leaves a pending update behind (the loop re-checks the slot after
 *   every sync), and after every sync the key is put back on the work queue: on success after the
 *   resync interval (+0..50 % jitter), on error after the backoff period (+0..50 %), on a phase
 *   transition immediately.
 * - Only termination cancels an in-flight sync: the worker's AbortSignal is aborted when the key
 *   becomes terminating (deleted, removed, orphaned) and by stop(); a plain update waits its turn.
 * - A terminating key never syncs as running again. A new object under the same key (new UID)
 *   while the old one terminates is kept in one restart slot and admitted once the old one is
 *   terminated (upstream keys workers by UID; keying by name makes this step explicit).
 */
export type SyncPodType = 'create' | 'update' | 'sync' | 'kill';
export type PodWorkerState = 'syncing' | 'terminating' | 'terminated';

export interface UpdatePodOptions {
  updateType: SyncPodType;
  key: string;
  /** The object; required except for a kill of an object the worker already knows. */
  obj?: KubeObject;
  resource?: ResourceRef;
}

export interface SyncContext {
  signal: AbortSignal;
  key: string;
  obj: KubeObject;
  resource?: ResourceRef;
  updateType: SyncPodType;
}

/** The three sync functions the workers call (upstream podSyncer). Errors are retried with backoff. */
export interface PodSyncer {
  /** Makes the model reflect the object. Returns true when the object reached a terminal state. */
  syncPod(ctx: SyncContext): Promise<boolean | void>;
  /** Shows the object as terminating. Returns true once it is gone (termination complete). */
  syncTerminatingPod(ctx: SyncContext): Promise<boolean>;
  /** Removes what the model holds for the object. */
  syncTerminatedPod(ctx: SyncContext): Promise<void>;
}

export interface PodWorkersOptions {
  /** Upstream resyncInterval (kubelet --sync-frequency default 1 min). */
  resyncIntervalMs?: number;
  /** Upstream backOffPeriod (10 s). */
  backOffPeriodMs?: number;
  random?: () => number;
  onSyncError?: (key: string, err: unknown) => void;
}

export const RESYNC_INTERVAL_MS = 60_000;
export const BACKOFF_PERIOD_MS = 10_000;
export const JITTER_FACTOR = 0.5;

interface PodSyncStatus {
  key: string;
  uid: string | undefined;
  abort: AbortController | undefined;
  /** A worker loop is running (or about to) for this key. */
  running: boolean;
  /** An update is pending or being worked. */
  working: boolean;
  inFlight: boolean;
  pendingUpdate: UpdatePodOptions | undefined;
  activeUpdate: UpdatePodOptions | undefined;
  restartUpdate: UpdatePodOptions | undefined;
  syncedAt: number;
  startedAt: number | undefined;
  terminatingAt: number | undefined;
  terminatedAt: number | undefined;
  /** The worker has seen the termination (no more syncPod for this incarnation). */
  startedTerminating: boolean;
  /** Termination came from the API (deleted, removed) or from being orphaned. */
  deleted: boolean;
  finished: boolean;
}

function workType(s: PodSyncStatus): PodWorkerState {
  if (s.terminatedAt !== undefined) return 'terminated';
  if (s.terminatingAt !== undefined) return 'terminating';
  return 'syncing';
}

export interface PodSyncSnapshot {
  state: PodWorkerState;
  uid: string | undefined;
  working: boolean;
  inFlight: boolean;
  syncedAt: number;
  startedAt: number | undefined;
  terminatingAt: number | undefined;
  terminatedAt: number | undefined;
  deleted: boolean;
  finished: boolean;
  restartPending: boolean;
}

export interface PodWorkerSync {
  state: PodWorkerState;
  orphan: boolean;
  hasConfig: boolean;
}

export class PodWorkers {
  private readonly podSyncStatuses = new Map<string, PodSyncStatus>();
  private readonly resyncIntervalMs: number;
  private readonly backOffPeriodMs: number;
  private readonly random: () => number;
  private stopped = false;
  /** Counters for tests and the timeline. */
  readonly stats = { syncs: 0, errors: 0, cancelled: 0 };

  constructor(
    private readonly syncer: PodSyncer,
    readonly workQueue: WorkQueue,
    private readonly clock: Clock,
    private readonly opts: PodWorkersOptions = {},
  ) {
    this.resyncIntervalMs = opts.resyncIntervalMs ?? RESYNC_INTERVAL_MS;
    this.backOffPeriodMs = opts.backOffPeriodMs ?? BACKOFF_PERIOD_MS;
    this.random = opts.random ?? Math.random;
  }

  /** Carries a change or a termination to a key's worker. Never blocks; never syncs inline. */
  UpdatePod(options: UpdatePodOptions): void {
    if (this.stopped) return;
    const now = this.clock.now();
    const uid = options.obj?.metadata.uid;
    let status = this.podSyncStatuses.get(options.key);
    if (!status) {
      if (!options.obj) return; // a kill for a key we never knew: nothing to terminate
      status = newStatus(options.key, uid, now);
      this.podSyncStatuses.set(options.key, status);
    }

    if (uid !== undefined && status.uid !== undefined && uid !== status.uid) {
      if (options.updateType === 'kill') return; // a stale removal of an incarnation we no longer track
      // A new incarnation under this name: the old one must terminate first.
      status.restartUpdate = { ...options, updateType: 'create' };
      if (status.finished) return this.admitRestart(status);
      if (status.terminatingAt === undefined) {
        status.terminatingAt = now;
        status.deleted = true;
        this.requeueLastPodUpdate(status);
        status.abort?.abort(new Error(`terminating ${options.key}: replaced by a new object`));
      }
      return;
    }
    if (status.finished) return; // finished until housekeeping forgets it

    let becameTerminating = false;
    if (status.terminatingAt === undefined) {
      if (options.updateType === 'kill' || options.obj?.metadata.deletionTimestamp != null) {
        status.terminatingAt = now;
        status.deleted = true;
        becameTerminating = true;
      }
    }

    // The single slot: the newest update replaces the pending one; a kill without an object keeps
    // the last object we know of.
    const obj = options.obj ?? status.pendingUpdate?.obj ?? status.activeUpdate?.obj;
    const resource = options.resource ?? status.pendingUpdate?.resource ?? status.activeUpdate?.resource;
    status.pendingUpdate = { ...options, ...(obj ? { obj } : {}), ...(resource ? { resource } : {}) };
    status.uid ??= uid;
    status.working = true;
    this.ensureWorker(status);

    if (becameTerminating) status.abort?.abort(new Error(`terminating ${options.key}`));
  }

  /**
   * Housekeeping's reconciliation with the desired set (key -> UID). Workers of keys no longer
   * desired (or desired under another UID) are driven to termination; finished ones are forgotten.
   * Returns the workers that remain; the caller re-adds desired keys missing from it.
   */
  SyncKnownPods(desired: ReadonlyMap<string, string>, forgotten?: string[]): Map<string, PodWorkerSync> {
    const out = new Map<string, PodWorkerSync>();
    for (const status of [...this.podSyncStatuses.values()]) {
      const orphan = desired.get(status.key) !== status.uid;
      if (orphan && this.removeTerminatedWorker(status)) {
        forgotten?.push(status.key);
        continue;
      }
      out.set(status.key, { state: workType(status), orphan, hasConfig: !!(status.activeUpdate?.obj ?? status.pendingUpdate?.obj) });
    }
    return out;
  }

  /** Aborts every in-flight sync and accepts no more updates. */
  stop(): void {
    this.stopped = true;
    for (const s of this.podSyncStatuses.values()) s.abort?.abort(new Error('pod workers stopped'));
  }

  state(key: string): PodWorkerState | undefined {
    const s = this.podSyncStatuses.get(key);
    return s ? workType(s) : undefined;
  }

  /** A read-only snapshot of a key's podSyncStatus (for the timeline and tree tooltips). */
  snapshot(key: string): PodSyncSnapshot | undefined {
    const s = this.podSyncStatuses.get(key);
    if (!s) return undefined;
    return {
      state: workType(s),
      uid: s.uid,
      working: s.working,
      inFlight: s.inFlight,
      syncedAt: s.syncedAt,
      startedAt: s.startedAt,
      terminatingAt: s.terminatingAt,
      terminatedAt: s.terminatedAt,
      deleted: s.deleted,
      finished: s.finished,
      restartPending: s.restartUpdate !== undefined,
    };
  }

  isWorking(key: string): boolean {
    return this.podSyncStatuses.get(key)?.working ?? false;
  }

  isFinished(key: string): boolean {
    return this.podSyncStatuses.get(key)?.finished ?? false;
  }

  /** Pending-update slots in use (each key has at most one). */
  get pendingCount(): number {
    let n = 0;
    for (const s of this.podSyncStatuses.values()) if (s.pendingUpdate) n++;
    return n;
  }

  get inFlightCount(): number {
    let n = 0;
    for (const s of this.podSyncStatuses.values()) if (s.inFlight) n++;
    return n;
  }

  get size(): number {
    return this.podSyncStatuses.size;
  }

  /** True when no worker has anything to do (for tests that wait for quiescence). */
  get idle(): boolean {
    for (const s of this.podSyncStatuses.values()) if (s.working || s.running) return false;
    return true;
  }

  private ensureWorker(status: PodSyncStatus): void {
    if (status.running) return;
    status.running = true;
    void this.podWorkerLoop(status);
  }

  /** Consumes the pending update; undefined when there is none or the worker was forgotten. */
  private startPodSync(status: PodSyncStatus): { work: PodWorkerState; ctx: SyncContext } | undefined {
    if (this.podSyncStatuses.get(status.key) !== status || this.stopped) return undefined;
    const update = status.pendingUpdate;
    if (!update) {
      status.working = false;
      return undefined;
    }
    status.pendingUpdate = undefined;
    const work = workType(status);
    if (!status.abort || status.abort.signal.aborted) status.abort = new AbortController();
    status.startedAt ??= this.clock.now();
    status.activeUpdate = update;
    if (work !== 'syncing') status.startedTerminating = true;
    const obj = update.obj!;
    return { work, ctx: { signal: status.abort.signal, key: status.key, obj, updateType: update.updateType, ...(update.resource ? { resource: update.resource } : {}) } };
  }

  private async podWorkerLoop(status: PodSyncStatus): Promise<void> {
    // Start on a later microtask: UpdatePod's caller (the loop iteration) finishes first, and several
    // UpdatePods in one iteration coalesce into the slot before the worker reads it.
    await Promise.resolve();
    try {
      for (;;) {
        const next = this.startPodSync(status);
        if (!next) return;
        const { work, ctx } = next;
        let err: unknown;
        let terminal = false;
        let terminated = false;
        status.inFlight = true;
        this.stats.syncs++;
        try {
          if (work === 'terminated') await this.syncer.syncTerminatedPod(ctx);
          else if (work === 'terminating') terminated = await this.syncer.syncTerminatingPod(ctx);
          else terminal = (await this.syncer.syncPod(ctx)) === true;
        } catch (e) {
          err = e;
        } finally {
          status.inFlight = false;
        }

        let phaseTransition = false;
        if (err !== undefined && ctx.signal.aborted) {
          this.stats.cancelled++; // termination cancelled it; the kill is already pending
        } else if (err !== undefined) {
          this.stats.errors++;
          this.opts.onSyncError?.(status.key, err);
        } else if (work === 'terminated') {
          this.completeTerminated(status);
          return;
        } else if (work === 'terminating' && terminated) {
          status.terminatedAt = this.clock.now();
          this.requeueLastPodUpdate(status);
          phaseTransition = true;
        } else if (terminal && status.terminatingAt === undefined) {
          status.terminatingAt = this.clock.now();
          this.requeueLastPodUpdate(status);
          phaseTransition = true;
        }
        this.completeWork(status, phaseTransition, err);
      }
    } finally {
      status.running = false;
      // An update that raced the loop's exit (none can in one thread, but stay safe) gets a worker.
      if (status.pendingUpdate && this.podSyncStatuses.get(status.key) === status && !this.stopped) this.ensureWorker(status);
    }
  }

  private completeWork(status: PodSyncStatus, phaseTransition: boolean, err: unknown): void {
    if (this.podSyncStatuses.get(status.key) !== status) return;
    if (phaseTransition) this.workQueue.enqueue(status.key, 0);
    else if (err === undefined) this.workQueue.enqueue(status.key, jitter(this.resyncIntervalMs, JITTER_FACTOR, this.random));
    else this.workQueue.enqueue(status.key, jitter(this.backOffPeriodMs, JITTER_FACTOR, this.random));
    if (!status.pendingUpdate) status.working = false;
  }

  private completeTerminated(status: PodSyncStatus): void {
    status.finished = true;
    status.working = false;
    status.pendingUpdate = undefined;
    if (status.restartUpdate) this.admitRestart(status);
  }

  /** The old incarnation is finished: forget it and start the new one from its restart slot. */
  private admitRestart(status: PodSyncStatus): void {
    const next = status.restartUpdate!;
    this.podSyncStatuses.delete(status.key);
    this.UpdatePod(next);
  }

  /** Replays the last update so the worker runs the next phase even without a new message. */
  private requeueLastPodUpdate(status: PodSyncStatus): void {
    if (status.pendingUpdate || !status.activeUpdate) return;
    status.pendingUpdate = { ...status.activeUpdate };
    status.working = true;
    this.ensureWorker(status);
  }

  private removeTerminatedWorker(status: PodSyncStatus): boolean {
    if (!status.finished) {
      status.deleted = true;
      if (status.startedAt === undefined) {
        // Never started: nothing to tear down; the worker exits when it finds its status gone.
      } else {
        if (status.terminatingAt === undefined) {
          status.terminatingAt = this.clock.now();
          status.abort?.abort(new Error(`terminating ${status.key}: no longer desired`));
        }
        this.requeueLastPodUpdate(status);
        return false;
      }
    }
    this.podSyncStatuses.delete(status.key);
    this.workQueue.forget(status.key);
    // A new incarnation waiting for this one starts now (the caller sees it as a desired key to re-add).
    if (status.restartUpdate) this.UpdatePod(status.restartUpdate);
    return true;
  }
}

function newStatus(key: string, uid: string | undefined, now: number): PodSyncStatus {
  return {
    key,
    uid,
    abort: undefined,
    running: false,
    working: false,
    inFlight: false,
    pendingUpdate: undefined,
    activeUpdate: undefined,
    restartUpdate: undefined,
    syncedAt: now,
    startedAt: undefined,
    terminatingAt: undefined,
    terminatedAt: undefined,
    startedTerminating: false,
    deleted: false,
    finished: false,
  };
}

/** Upstream updateType names, for logs. */
export function syncPodTypeName(t: SyncPodType): string {
  return { create: 'SyncPodCreate', update: 'SyncPodUpdate', sync: 'SyncPodSync', kill: 'SyncPodKill' }[t];
}
