import { hostSlicer, type TimeSlicer } from '../slice';
import type { Clock } from '../clock';
import { allContainerStatuses, type Pod } from '../kube/objects/pod';
import type { StoredObject } from '../kube/objects/types';
import { type ResourceRef } from '../kube/objects/objectKey';
import type { PodCache } from './pleg/podcache';
import { jitter, WorkQueue } from './workqueue';

/**
 * podWorkers: upstream pkg/kubelet/pod_workers.go, the concurrency guarantee of the loop.
 *
 * Every object UID has at most one worker (as upstream: two incarnations of one name — a
 * StatefulSet pod recreated, a force delete and a new pod — are two workers, with their own
 * results and their own timeline). A worker drives its object through three states — syncing (keep
 * its view current), terminating (its containers are stopping: it is being deleted, or it reached a
 * terminal phase), terminated (its containers have stopped; clean up) — and is then finished until
 * housekeeping forgets it, once the object is no longer desired.
 *
 *   UpdatePod ──> pendingUpdate (one slot) ──worker──> activeUpdate ──> syncPod / syncTerminatingPod /
 *                                                                       syncTerminatedPod
 *
 * Guarantees (each kept by the code named):
 * - At most one sync per UID is in flight: one worker loop per UID (`running`), which takes one
 *   pending update at a time (podWorkerLoop).
 * - Only the latest state is guaranteed to be synced, not every intermediate one: UpdatePod
 *   overwrites the single pendingUpdate slot (`coalesced` counts the updates it replaced), so a slow
 *   sync delays its own pod's next sync and nobody else's; memory per UID is one pending update.
 * - No pod is lost: a worker never leaves a pending update behind (the loop re-checks the slot
 *   after every sync), and after every sync the UID is put back on the work queue: on success after
 *   the resync interval (+0..50 % jitter), on error after the backoff period (+0..50 %), on a phase
 *   transition immediately.
 * - Syncs are paced by the PLEG, as upstream: before every sync but a worker's first, the worker
 *   waits until the pod cache holds something observed after its last sync
 *   (podCache.GetNewerThan: the pod's containers seen changing, or a relist finished). Updates that
 *   arrive meanwhile coalesce in the pending slot. Without a pod cache (a bare loop in tests) syncs
 *   run at once.
 * - Only termination cancels an in-flight sync: the worker's AbortSignal is aborted when the pod
 *   becomes terminating (deleted, removed, orphaned), when a terminating pod's grace period is
 *   shortened (the termination restarts with the shorter one), and by stop().
 * - A terminating pod never syncs as running again. syncPod reporting a terminal phase (Succeeded,
 *   Failed: upstream isTerminal) starts termination without any deletion: terminated is reached
 *   when the containers have stopped, before (and independently of) the API delete.
 */
export type SyncPodType = 'create' | 'update' | 'sync' | 'kill';
export type PodWorkerState = 'syncing' | 'terminating' | 'terminated';

export interface UpdatePodOptions {
  updateType: SyncPodType;
  /** The object's key (namespace/name), for the syncer and logs. */
  key: string;
  /** The object; required except for a kill of an object the worker already knows. */
  obj?: StoredObject;
  /** The UID (default: obj.metadata.uid; a kill without either finds the live worker of `key`). */
  uid?: string;
  resource?: ResourceRef;
}

export interface SyncContext {
  signal: AbortSignal;
  key: string;
  uid: string;
  obj: StoredObject;
  resource?: ResourceRef;
  updateType: SyncPodType;
  /** While terminating: the grace period the termination runs with (seconds), if known. */
  gracePeriodSeconds?: number;
}

/** The result of a terminating sync: done once the containers have stopped. */
export interface TerminationResult {
  done: boolean;
  /** True when the workstation could not see the containers stop and assumed it (the pod vanished). */
  inferred?: boolean;
}

/** The three sync functions the workers call (upstream podSyncer). Errors are retried with backoff. */
export interface PodSyncer {
  /** Makes the model reflect the object. Returns true when the pod reached a terminal phase (isTerminal). */
  syncPod(ctx: SyncContext): Promise<boolean | void>;
  /** Follows the termination. Returns true (or done) once the containers have stopped. */
  syncTerminatingPod(ctx: SyncContext): Promise<boolean | TerminationResult>;
  /** Cleans up after the containers stopped. */
  syncTerminatedPod(ctx: SyncContext): Promise<void>;
}

/** One finished sync of one worker (the timeline's pod-worker lane). */
export interface PodWorkerSyncRecord {
  key: string;
  uid: string;
  /** The state the sync ran in. */
  work: PodWorkerState;
  /** The state after it. */
  state: PodWorkerState;
  updateType: SyncPodType;
  startedAt: number;
  durationMs: number;
  /** How long the worker waited for the pod cache (the PLEG's next relist) before this sync, ms. */
  waitedMs: number;
  outcome: 'ok' | 'error' | 'cancelled';
  /** Updates the pending slot replaced before this sync took it: this sync stood for coalesced + 1. */
  coalesced: number;
  /** When the work queue next makes it due (clock ms), if queued. */
  nextDueAt: number | undefined;
  gracePeriodSeconds?: number;
  inferred?: boolean;
  error?: string;
}

export interface PodWorkersOptions {
  /** Upstream resyncInterval (kubelet --sync-frequency default 1 min). */
  resyncIntervalMs?: number;
  /** Upstream backOffPeriod (10 s). */
  backOffPeriodMs?: number;
  random?: () => number;
  onSyncError?: (key: string, err: unknown) => void;
  /**
   * The PLEG's pod cache the workers wait on before every sync but the first (upstream
   * podCache.GetNewerThan(uid, lastSyncTime)). Unset: no wait.
   */
  podCache?: Pick<PodCache, 'wait' | 'remove'>;
  /** Called after every sync a worker finishes (the pod-worker lane). Must not throw. */
  onSynced?: (r: PodWorkerSyncRecord) => void;
  /** The thread's time slices the workers share (default: hostSlicer; slice.ts). */
  slicer?: Pick<TimeSlicer, 'due'>;
}

export const RESYNC_INTERVAL_MS = 60_000;
export const BACKOFF_PERIOD_MS = 10_000;
export const JITTER_FACTOR = 0.5;

interface PodSyncStatus {
  key: string;
  uid: string;
  /** The running sync's context, only while it runs: aborting it cancels that sync. */
  abort: PodSyncContext | undefined;
  /** A worker loop is running (or about to) for this UID. */
  running: boolean;
  /** An update is pending or being worked. */
  working: boolean;
  inFlight: boolean;
  pendingUpdate: UpdatePodOptions | undefined;
  /** Updates the pending slot replaced since a sync last took it. */
  coalesced: number;
  activeUpdate: UpdatePodOptions | undefined;
  syncedAt: number;
  /** When the last sync returned (upstream lastSyncTime); undefined before the first. */
  lastSyncTime: number | undefined;
  startedAt: number | undefined;
  terminatingAt: number | undefined;
  terminatedAt: number | undefined;
  /** The grace period of the termination (seconds): only ever shortened. */
  gracePeriodSeconds: number | undefined;
  /** Termination came from the API (deleted, removed) or from being orphaned, not a terminal phase. */
  deleted: boolean;
  /** Termination came from a terminal phase (Succeeded / Failed). */
  terminal: boolean;
  finished: boolean;
  syncs: number;
}

function workType(s: PodSyncStatus): PodWorkerState {
  if (s.terminatedAt !== undefined) return 'terminated';
  if (s.terminatingAt !== undefined) return 'terminating';
  return 'syncing';
}

export interface PodSyncSnapshot {
  key: string;
  uid: string;
  state: PodWorkerState;
  working: boolean;
  inFlight: boolean;
  /** The pending slot holds an update. */
  pending: boolean;
  /** Updates replaced in the slot since the last sync took one. */
  coalesced: number;
  syncedAt: number;
  startedAt: number | undefined;
  terminatingAt: number | undefined;
  terminatedAt: number | undefined;
  gracePeriodSeconds: number | undefined;
  deleted: boolean;
  terminal: boolean;
  finished: boolean;
  syncs: number;
  nextDueAt: number | undefined;
}

export interface PodWorkerSync {
  key: string;
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

  /** Carries a change or a termination to a pod's worker. Never blocks; never syncs inline. */
  UpdatePod(options: UpdatePodOptions): void {
    if (this.stopped) return;
    const now = this.clock.now();
    const uid = options.uid ?? options.obj?.metadata.uid ?? this.liveUidOf(options.key);
    if (uid === undefined) return;
    let status = this.podSyncStatuses.get(uid);
    if (!status) {
      if (!options.obj) return; // a kill for a pod we never knew: nothing to terminate
      status = newStatus(options.key, uid, now);
      if (isTerminalPhase(options.obj) && !anyContainerRunning(options.obj)) {
        // First seen already terminal, nothing running (a finished Job's pod at start, a pod the
        // kubelet's admission rejected): nothing to stop. As upstream, it starts terminated: its
        // worker runs SyncTerminatedPod alone.
        status.terminatingAt = status.terminatedAt = now;
        status.terminal = true;
      }
      this.podSyncStatuses.set(uid, status);
    }
    if (status.finished) return; // finished until housekeeping forgets it

    // The object this update is about (a kill without one: the last we know of).
    const pod = options.obj ?? status.pendingUpdate?.obj ?? status.activeUpdate?.obj;
    const meta = pod?.metadata;
    let becameTerminating = false;
    if (status.terminatingAt === undefined) {
      if (options.updateType === 'kill' || meta?.deletionTimestamp != null) {
        // Marked for graceful deletion, or removed: begin teardown.
        status.terminatingAt = now;
        status.deleted = true;
        becameTerminating = true;
      } else if (isTerminalPhase(pod)) {
        // In a terminal phase (Succeeded, Failed): begin teardown, without any deletion.
        status.terminatingAt = now;
        status.terminal = true;
        becameTerminating = true;
      }
    } else if (options.updateType === 'kill' || meta?.deletionTimestamp != null) {
      status.deleted = true;
    }
    // Once terminating, every update is a kill whose grace period can only decrease.
    let shortened = false;
    if (status.terminatingAt !== undefined && status.terminatedAt === undefined && pod) {
      const g = effectiveGracePeriod(status.gracePeriodSeconds, pod);
      shortened = status.gracePeriodSeconds !== undefined && g !== status.gracePeriodSeconds;
      status.gracePeriodSeconds = g;
    }

    // The single slot: the newest update replaces the pending one; a kill without an object keeps
    // the last object we know of.
    const obj = options.obj ?? status.pendingUpdate?.obj ?? status.activeUpdate?.obj;
    const resource = options.resource ?? status.pendingUpdate?.resource ?? status.activeUpdate?.resource;
    if (status.pendingUpdate) status.coalesced++;
    // Built field by field, not spread: one shared hidden class for every pending update (see makeView).
    const pending: UpdatePodOptions = { updateType: options.updateType, key: options.key, uid };
    if (obj) pending.obj = obj;
    if (resource) pending.resource = resource;
    status.pendingUpdate = pending;
    status.working = true;
    this.ensureWorker(status);

    if (becameTerminating) status.abort?.abort(new Error(`terminating ${options.key}`));
    else if (shortened && status.inFlight)
      status.abort?.abort(new Error(`terminating ${options.key}: grace period shortened to ${status.gracePeriodSeconds}s`));
  }

  /**
   * Housekeeping's reconciliation with the desired set (UID -> key). Workers of UIDs no longer
   * desired are driven to termination; finished ones are forgotten. Returns the workers that
   * remain, by UID; the caller re-adds desired UIDs missing from it.
   */
  SyncKnownPods(desired: { has(uid: string): boolean }, forgotten?: string[]): Map<string, PodWorkerSync> {
    const out = new Map<string, PodWorkerSync>();
    this.syncKnownPods(desired, forgotten, (uid, key, state, orphan, hasConfig) => out.set(uid, { key, state, orphan, hasConfig }));
    return out;
  }

  /**
   * SyncKnownPods without building its map: `each` hears every worker that remains. Housekeeping
   * runs this every 2 s over every pod worker (20,000 at 100,000 objects): the map and its entries,
   * made and dropped each time, were the largest share of what the loop left for the major GC.
   */
  syncKnownPods(
    desired: { has(uid: string): boolean },
    forgotten: string[] | undefined,
    each: (uid: string, key: string, state: PodWorkerState, orphan: boolean, hasConfig: boolean) => void,
  ): void {
    // Deleting the entry being visited is safe for a Map iterator; nothing is added during the walk.
    for (const status of this.podSyncStatuses.values()) {
      const orphan = !desired.has(status.uid);
      if (orphan && this.removeTerminatedWorker(status)) {
        forgotten?.push(status.key);
        continue;
      }
      each(status.uid, status.key, workType(status), orphan, !!(status.activeUpdate?.obj ?? status.pendingUpdate?.obj));
    }
  }

  /**
   * Drops a worker as if it never existed (its in-flight sync aborted, its queue entry forgotten):
   * for a pod the kubelet's admission rejected, for which the kubelet never started one.
   */
  forget(uid: string): void {
    const status = this.podSyncStatuses.get(uid);
    if (!status) return;
    status.abort?.abort(new Error(`forgotten ${status.key}`));
    status.pendingUpdate = undefined;
    status.working = false;
    this.podSyncStatuses.delete(uid);
    this.workQueue.forget(uid);
    this.opts.podCache?.remove(uid);
  }

  /** Aborts every in-flight sync and accepts no more updates. */
  stop(): void {
    this.stopped = true;
    for (const s of this.podSyncStatuses.values()) s.abort?.abort(new Error('pod workers stopped'));
  }

  state(uid: string): PodWorkerState | undefined {
    const s = this.podSyncStatuses.get(uid);
    return s ? workType(s) : undefined;
  }

  /** A read-only snapshot of a worker's podSyncStatus (the timeline's pod-worker lane, tests). */
  snapshot(uid: string): PodSyncSnapshot | undefined {
    const s = this.podSyncStatuses.get(uid);
    return s ? this.snap(s) : undefined;
  }

  /** Every worker's snapshot, oldest first. */
  snapshots(): PodSyncSnapshot[] {
    return [...this.podSyncStatuses.values()].map((s) => this.snap(s));
  }

  /** The UIDs of the workers of one key (two while one incarnation terminates and the next syncs). */
  uidsOf(key: string): string[] {
    const out: string[] = [];
    for (const s of this.podSyncStatuses.values()) if (s.key === key) out.push(s.uid);
    return out;
  }

  /** A worker exists for uid (in any state, until it is forgotten). */
  isKnown(uid: string): boolean {
    return this.podSyncStatuses.has(uid);
  }

  isWorking(uid: string): boolean {
    return this.podSyncStatuses.get(uid)?.working ?? false;
  }

  isFinished(uid: string): boolean {
    return this.podSyncStatuses.get(uid)?.finished ?? false;
  }

  /** Pending-update slots in use (each UID has at most one). */
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

  private snap(s: PodSyncStatus): PodSyncSnapshot {
    return {
      key: s.key,
      uid: s.uid,
      state: workType(s),
      working: s.working,
      inFlight: s.inFlight,
      pending: s.pendingUpdate !== undefined,
      coalesced: s.coalesced,
      syncedAt: s.syncedAt,
      startedAt: s.startedAt,
      terminatingAt: s.terminatingAt,
      terminatedAt: s.terminatedAt,
      gracePeriodSeconds: s.gracePeriodSeconds,
      deleted: s.deleted,
      terminal: s.terminal,
      finished: s.finished,
      syncs: s.syncs,
      nextDueAt: this.workQueue.deadline(s.uid),
    };
  }

  /** The UID of the one unfinished worker of `key` (a kill that names only the key). */
  private liveUidOf(key: string): string | undefined {
    let found: string | undefined;
    for (const s of this.podSyncStatuses.values()) if (s.key === key && !s.finished) found = s.uid;
    return found;
  }

  private ensureWorker(status: PodSyncStatus): void {
    if (status.running) return;
    status.running = true;
    void this.podWorkerLoop(status);
  }

  /** Consumes the pending update; undefined when there is none or the worker was forgotten. */
  private startPodSync(status: PodSyncStatus): { work: PodWorkerState; ctx: PodSyncContext; coalesced: number } | undefined {
    if (this.podSyncStatuses.get(status.uid) !== status || this.stopped) return undefined;
    const update = status.pendingUpdate;
    if (!update) {
      status.working = false;
      return undefined;
    }
    status.pendingUpdate = undefined;
    const coalesced = status.coalesced;
    status.coalesced = 0;
    const work = workType(status);
    status.startedAt ??= this.clock.now();
    status.activeUpdate = update;
    const ctx = new PodSyncContext(
      status.key,
      status.uid,
      update.obj!,
      update.updateType,
      update.resource,
      work !== 'syncing' ? status.gracePeriodSeconds : undefined,
    );
    status.abort = ctx;
    return { work, ctx, coalesced };
  }

  private async podWorkerLoop(status: PodSyncStatus): Promise<void> {
    // Start on a later microtask: UpdatePod's caller (the loop iteration) finishes first, and several
    // UpdatePods in one iteration coalesce into the slot before the worker reads it.
    await Promise.resolve();
    try {
      for (;;) {
        // Tens of thousands of workers starting at once (a first list) share the thread in slices.
        const turn = (this.opts.slicer ?? hostSlicer).due();
        if (turn) await turn;
        const next = this.startPodSync(status);
        if (!next) return;
        const { work, ctx, coalesced } = next;
        const asked = this.clock.now();
        let err: unknown;
        let terminal = false;
        let terminated: TerminationResult = { done: false };
        status.inFlight = true;
        let began = asked;
        try {
          // Wait until the PLEG has seen the pod after our last sync (not before the first sync).
          const cache = this.opts.podCache;
          if (cache && status.lastSyncTime !== undefined) {
            const w = cache.wait(status.uid, status.lastSyncTime);
            ctx.onAbort((reason) => w.cancel(reason));
            await w.done;
            began = this.clock.now();
          }
          this.stats.syncs++;
          status.syncs++;
          if (work === 'terminated') await this.syncer.syncTerminatedPod(ctx);
          else if (work === 'terminating') {
            const r = await this.syncer.syncTerminatingPod(ctx);
            terminated = typeof r === 'boolean' ? { done: r } : r;
          } else terminal = (await this.syncer.syncPod(ctx)) === true;
        } catch (e) {
          err = e;
        } finally {
          status.lastSyncTime = this.clock.now();
          status.inFlight = false;
          // Only a running sync can be cancelled (aborting is how a termination cuts one short).
          status.abort = undefined;
        }

        let phaseTransition = false;
        let finishedNow = false;
        const cancelled = err !== undefined && ctx.aborted;
        if (cancelled) {
          this.stats.cancelled++; // termination (or a shorter grace period) cancelled it; the next work is pending
        } else if (err !== undefined) {
          this.stats.errors++;
          this.opts.onSyncError?.(status.key, err);
        } else if (work === 'terminated') {
          this.completeTerminated(status);
          finishedNow = true;
        } else if (work === 'terminating' && terminated.done) {
          status.terminatedAt = this.clock.now();
          this.requeueLastPodUpdate(status);
          phaseTransition = true;
        } else if (terminal && status.terminatingAt === undefined) {
          status.terminatingAt = this.clock.now();
          status.terminal = true;
          this.requeueLastPodUpdate(status);
          phaseTransition = true;
        }
        if (!finishedNow) this.completeWork(status, phaseTransition, err);
        this.report(status, work, ctx, began, began - asked, coalesced, cancelled ? 'cancelled' : err !== undefined ? 'error' : 'ok', err, terminated.inferred);
        if (finishedNow) return;
      }
    } finally {
      status.running = false;
      // An update that raced the loop's exit (none can in one thread, but stay safe) gets a worker.
      if (status.pendingUpdate && this.podSyncStatuses.get(status.uid) === status && !this.stopped) this.ensureWorker(status);
    }
  }

  private report(
    status: PodSyncStatus,
    work: PodWorkerState,
    ctx: SyncContext,
    began: number,
    waitedMs: number,
    coalesced: number,
    outcome: PodWorkerSyncRecord['outcome'],
    err: unknown,
    inferred: boolean | undefined,
  ): void {
    const cb = this.opts.onSynced;
    if (!cb) return;
    try {
      cb({
        key: status.key,
        uid: status.uid,
        work,
        state: workType(status),
        updateType: ctx.updateType,
        startedAt: began,
        durationMs: this.clock.now() - began,
        waitedMs,
        outcome,
        coalesced,
        nextDueAt: this.workQueue.deadline(status.uid),
        ...(ctx.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: ctx.gracePeriodSeconds } : {}),
        ...(inferred ? { inferred } : {}),
        ...(err !== undefined && outcome === 'error' ? { error: err instanceof Error ? err.message : String(err) } : {}),
      });
    } catch {
      // the lane's failure is its own
    }
  }

  private completeWork(status: PodSyncStatus, phaseTransition: boolean, err: unknown): void {
    if (this.podSyncStatuses.get(status.uid) !== status) return;
    if (phaseTransition) this.workQueue.enqueue(status.uid, 0);
    else if (err === undefined) this.workQueue.enqueue(status.uid, jitter(this.resyncIntervalMs, JITTER_FACTOR, this.random));
    else this.workQueue.enqueue(status.uid, jitter(this.backOffPeriodMs, JITTER_FACTOR, this.random));
    if (!status.pendingUpdate) status.working = false;
  }

  private completeTerminated(status: PodSyncStatus): void {
    status.finished = true;
    status.working = false;
    status.pendingUpdate = undefined;
    this.workQueue.forget(status.uid);
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
        // Never started. The kubelet's worker goroutine takes its first update at once; ours may
        // still wait for a slice of the thread. One with an update in hand stays to run it, as the
        // kubelet's already has (a pod rejected at admission, deleted and removed within a few ms,
        // still gets its SyncTerminatedPod); one with none has nothing to tear down and goes.
        if (status.pendingUpdate) return false;
      } else {
        if (status.terminatingAt === undefined) {
          status.terminatingAt = this.clock.now();
          status.abort?.abort(new Error(`terminating ${status.key}: no longer desired`));
        }
        this.requeueLastPodUpdate(status);
        return false;
      }
    }
    this.podSyncStatuses.delete(status.uid);
    this.workQueue.forget(status.uid);
    this.opts.podCache?.remove(status.uid);
    return true;
  }
}

/**
 * One sync's context. Its AbortController is made only when the syncer reads `signal` (the loop's
 * own syncs never do): a controller per sync (an AbortSignal, an EventTarget and its maps) was
 * 13 % of what the loop allocated and left for the major GC under churn, and one kept per worker
 * held ~10 MB at 20,000 pods. abort() before `signal` is read gives an already-aborted signal.
 */
export class PodSyncContext implements SyncContext {
  private controller: AbortController | undefined;
  private reason: unknown;
  private listener: ((reason: unknown) => void) | undefined;
  /** True once abort() was called. */
  aborted = false;
  declare readonly resource?: ResourceRef;
  declare readonly gracePeriodSeconds?: number;

  constructor(
    readonly key: string,
    readonly uid: string,
    readonly obj: StoredObject,
    readonly updateType: SyncPodType,
    resource: ResourceRef | undefined,
    gracePeriodSeconds: number | undefined,
  ) {
    // Set only when present, like the optional fields of a literal (a context compares as before).
    if (resource) this.resource = resource;
    if (gracePeriodSeconds !== undefined) this.gracePeriodSeconds = gracePeriodSeconds;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Calls fn with the reason when the sync is aborted (at once if it already was); the latest fn replaces an earlier one. */
  onAbort(fn: (reason: unknown) => void): void {
    if (this.aborted) fn(this.reason);
    else this.listener = fn;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const fn = this.listener;
    this.listener = undefined;
    fn?.(reason);
  }
}

function newStatus(key: string, uid: string, now: number): PodSyncStatus {
  return {
    key,
    uid,
    abort: undefined,
    running: false,
    working: false,
    inFlight: false,
    pendingUpdate: undefined,
    coalesced: 0,
    activeUpdate: undefined,
    syncedAt: now,
    lastSyncTime: undefined,
    startedAt: undefined,
    terminatingAt: undefined,
    terminatedAt: undefined,
    gracePeriodSeconds: undefined,
    deleted: false,
    terminal: false,
    finished: false,
    syncs: 0,
  };
}

/**
 * Upstream calculateEffectiveGracePeriod: the grace period a termination runs with, in seconds. The
 * API server's deletionGracePeriodSeconds wins when it is shorter than the one already in force (or
 * none is); without one, the pod's spec.terminationGracePeriodSeconds; never under 1 second.
 */
export function effectiveGracePeriod(current: number | undefined, pod: StoredObject): number {
  let g = current ?? 0;
  let overridden = false;
  const override = pod.metadata.deletionGracePeriodSeconds;
  if (typeof override === 'number' && (g === 0 || override < g)) {
    g = override;
    overridden = true;
  }
  const spec = (pod as { spec?: { terminationGracePeriodSeconds?: unknown } }).spec?.terminationGracePeriodSeconds;
  if (!overridden && g === 0 && typeof spec === 'number') g = spec;
  return g < 1 ? 1 : g;
}

/** Whether the object's status shows a container running (only pods have container statuses). */
function anyContainerRunning(obj: StoredObject): boolean {
  return allContainerStatuses(obj as Pod).some((c) => c.state?.running);
}

/** Upstream podutil.IsPodPhaseTerminal, for an object of any kind (only pods have the phase). */
function isTerminalPhase(obj: StoredObject | undefined): boolean {
  const phase = (obj as { status?: { phase?: unknown } } | undefined)?.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}
