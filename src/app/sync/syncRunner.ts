/**
 * The sync loop as the extension runs it: core's ClusterSync over the current context's client,
 * its handler log into the Logger (the kubelet's -v=4 lines), its iterations into the TimelineStore,
 * its actualStateOfWorld changes into the ResourceModel. No 'vscode' import.
 *
 * Log levels: the lines a user reads to follow a pod — config ADD/UPDATE/REMOVE, PLEG events, probe
 * results, reflector relists, housekeeping that did something — are info; the periodic ticks that
 * fire every second or two whether or not anything happened (SyncLoop (SYNC), housekeeping with
 * nothing to do) are debug; errors are errors. Lines are cut at MAX_LOG_LINE characters: the first
 * SET of a large cluster names every object in one line.
 *
 * Guarantees:
 * - stop() resolves once the loop, its watches and its timers have ended; it is idempotent.
 * - Views reach the model batched per frame-sized window (ViewBatch, 16 ms), the last of each key
 *   winning; reconcile() and stop() apply what is pending first, so the model never lags them.
 * - Objects the tree got from an earlier load but the API no longer has (deleted before the loop
 *   started, so no REMOVE ever names them) are removed once every source has listed, and again
 *   every `reconcileEveryMs` after a load put rows in the tree (the model's loadVersion moved): the
 *   tree converges to the API, level-driven, like housekeeping. Rows the loop itself wrote leave
 *   with its views, so with no load in between the walk is skipped (at 1,000,000 rows it held the
 *   extension host's thread for about a second every 5 s).
 *   A loop scoped to one node leaves other pods alone (it cannot tell gone from elsewhere).
 */
import { realClock, type Clock, type TimerHandle } from '../../core/clock';
import { runSteps, runStepsSliced, type Steps } from '../../core/slice';
import { ClusterSync } from '../../core/syncloop/sources/cluster';
import type { ListWatchClient } from '../../core/syncloop/sources/reflector';
import type { SyncLogger, Verbosity } from '../../core/syncloop/log';
import type { AccessReviewer } from '../../core/kube/access/review';
import type { WatchedType } from '../../core/syncloop/sources/watchscope';
import type { TimelineStore } from '../../core/timeline/store';
import type { SyncObserver } from '../../core/syncloop/observer';
import type { Logger } from '../logger';
import { parseObjectKey, typeKeyOf } from '../model/keys';
import type { ResourceModel } from '../model/resourceModel';
import { ViewBatch } from './viewBatch';
import { followKubeletLog } from '../../core/kubeletlog/follow';
import { kubeletLineEvent } from '../../core/kubeletlog/lane';
import { formatCount } from '../../core/formatCount';

export const MAX_LOG_LINE = 2000;
export const RECONCILE_EVERY_MS = 5000;

/**
 * The extension's level for a sync-loop info line of klog verbosity `v` (see the header): like a
 * kubelet run at -v=2, V(0)-V(2) lines are info and anything more verbose is debug.
 */
export function syncLineLevel(v: Verbosity): 'debug' | 'info' {
  return v <= 2 ? 'info' : 'debug';
}

export function clip(line: string, max = MAX_LOG_LINE): string {
  return line.length <= max ? line : `${line.slice(0, max)}… (${formatCount(line.length - max)} more characters)`;
}

export function syncLogger(log: Logger): SyncLogger {
  return {
    info: (line, v) => (syncLineLevel(v) === 'debug' ? log.debug(clip(line)) : log.info(clip(line))),
    warn: (line) => log.warn(clip(line)),
    error: (line) => log.error(clip(line)),
  };
}

export interface SyncRequest {
  client: ListWatchClient;
  contextName: string;
  /** Empty: all namespaces. */
  namespaces: string[];
  /** Only pods bound to this node (spec.nodeName); unset: all nodes. */
  node?: string;
  /** Types to keep converged besides pods (the loaded ones); `namespaced: false` for cluster-scoped ones. */
  types: WatchedType[];
  /** With no namespaces chosen: the access review that decides where each type is watched (the connection's client). */
  reviewer?: AccessReviewer;
  /** The context's namespace: where a type the user may not watch across namespaces is watched. */
  contextNamespace?: string;
  syncPeriodSeconds: number;
  housekeepingPeriodSeconds?: number;
  pageSize: number;
  model: ResourceModel;
  timeline: TimelineStore;
  log: Logger;
  origin: number;
  clock?: Clock;
  reconcileEveryMs?: number;
  /**
   * Where nodes' kubelet logs are on this machine (the context's kubeloop.dev/kubelet-logs: the
   * lab's hollow nodes). The loop's node's log (every listed node's, when it watches all nodes) is
   * followed and its lines go on the timeline beside the inferred iterations, lane `kubelet <node>`.
   */
  kubeletLogs?: Record<string, string>;
  /** Told every list and watch event for the loop's whole life (the owner index), besides the recorder. */
  observer?: SyncObserver;
  /** Each watched type's missed-event check: its period (default 5 min) and its confirmation (default 2 s). */
  consistencyPeriodMs?: number;
  consistencyConfirmMs?: number;
}

export class SyncRunner {
  readonly sync: ClusterSync;
  readonly startedAt: number;
  private readonly life = new AbortController();
  private readonly done: Promise<void>;
  private readonly unsubscribe: () => void;
  private timer: TimerHandle | undefined;
  private readonly clock: Clock;
  private readonly watchedTypes: Set<string>;
  private readonly views: ViewBatch;
  private stopped = false;
  /** The model's loadVersion at the last reconcile that walked the rows. */
  private reconciledLoads = -1;
  /** The flight recorder while one records this loop (record()). */
  private recorder: SyncObserver | undefined;

  constructor(private readonly req: SyncRequest) {
    this.clock = req.clock ?? realClock;
    this.startedAt = this.clock.now();
    this.sync = new ClusterSync({
      client: req.client,
      clock: this.clock,
      timeline: req.timeline,
      origin: req.origin,
      namespaces: req.namespaces,
      ...(req.node ? { node: req.node } : {}),
      types: req.types,
      ...(req.reviewer ? { reviewer: req.reviewer } : {}),
      ...(req.contextNamespace ? { contextNamespace: req.contextNamespace } : {}),
      onForbidden: (f) =>
        req.log.warn(
          `sync loop: not watching ${typeKeyOf(f.gvr)}${f.namespace ? ` in namespace "${f.namespace}"` : ''}: the user may not list and watch it there (${f.by === 'review' ? 'access review' : '403 Forbidden'}); its tree rows stay as loaded`,
        ),
      pageSize: req.pageSize,
      ...(req.consistencyPeriodMs !== undefined ? { consistencyPeriodMs: req.consistencyPeriodMs } : {}),
      ...(req.consistencyConfirmMs !== undefined ? { consistencyConfirmMs: req.consistencyConfirmMs } : {}),
      resyncIntervalMs: req.syncPeriodSeconds * 1000,
      housekeepingPeriodMs: req.housekeepingPeriodSeconds !== undefined ? req.housekeepingPeriodSeconds * 1000 : undefined,
      logger: syncLogger(req.log),
      // Always this forwarder, so a recording can start and stop while the loop runs (record()).
      observer: {
        replace: (source, type, items) => {
          req.observer?.replace(source, type, items);
          this.recorder?.replace(source, type, items);
        },
        apply: (source, type, event, obj) => {
          req.observer?.apply(source, type, event, obj);
          this.recorder?.apply(source, type, event, obj);
        },
      },
    });
    this.watchedTypes = new Set(['pods', ...req.types.map(typeKeyOf)]);
    this.views = new ViewBatch((key, view) => req.model.applyView(key, view), this.clock);
    this.unsubscribe = this.sync.onViewChange((key, _old, view) => this.views.push(key, view));
    req.log.info(
      `sync loop: starting on "${req.contextName}" for ${req.namespaces.length ? `namespaces ${req.namespaces.join(',')}` : 'all namespaces'}, ${req.node ? `pods of node ${req.node}` : 'all nodes'}, watching ${this.watchedTypes.size} type(s)`,
    );
    const loop = this.sync.run(this.life.signal).then(
      () => undefined,
      (e) => req.log.error(`sync loop: ended with an error: ${e instanceof Error ? e.message : String(e)}`),
    );
    const logs = this.followKubeletLogs();
    this.done = Promise.all([loop, logs]).then(() => undefined);
    this.scheduleReconcile();
  }

  /** Follows the kubelet logs the context names for the loop's node(s); resolves when the loop stops. */
  private async followKubeletLogs(): Promise<void> {
    const all = this.req.kubeletLogs ?? {};
    const nodes = this.req.node ? (all[this.req.node] ? [this.req.node] : []) : Object.keys(all);
    // The timeline's t = 0 on the wall clock (kubelet lines carry wall-clock times).
    const wallOrigin = Date.now() - (this.clock.now() - this.req.origin);
    await Promise.all(
      nodes.map((node) => {
        this.req.log.info(`sync loop: following the real kubelet log of node ${node} (${all[node]}): its lines go on the timeline lane "kubelet ${node}"`);
        return followKubeletLog(
          {
            path: all[node]!,
            clock: this.clock,
            onRecords: (records) => {
              for (const r of records) this.req.timeline.append(kubeletLineEvent(r, node, wallOrigin));
            },
            onError: (e) => this.req.log.warn(`sync loop: the kubelet log of node ${node}: ${e.message} (still trying)`),
          },
          this.life.signal,
        );
      }),
    );
  }

  get running(): boolean {
    return !this.stopped;
  }

  /**
   * Tells `observer` (the flight recorder) every list and watch event from now on; undefined stops.
   * A recorder needs each source's full list before its changes mean anything: it is given what the
   * loop already holds (ClusterSync.seedObserver: no request for the watched types; the pod Events
   * list again, one request per namespace watched). The loop and its pod workers keep running.
   */
  record(observer: SyncObserver | undefined): void {
    this.recorder = observer;
    // who wrote each version, for the writers from the recording (reopens the watches, no list)
    this.sync.keepManagers(observer !== undefined);
    if (observer) this.sync.seedObserver(observer);
  }

  /** Whether every source has listed at least once (the API answered). */
  sourcesReady(): boolean {
    return this.sync.allSourcesReady();
  }

  /** The PLEG's health: unhealthy when the pods watches have been down past the threshold (the kubelet's wording). */
  plegHealth(): { healthy: boolean; message?: string } {
    return this.sync.plegHealth();
  }

  /** Removes tree objects of watched types and namespaces that the API no longer has. */
  reconcile(): number {
    return runSteps(this.reconcileSteps());
  }

  /** reconcile in slices of the host's thread (the timer's way: a walk of every tree object). */
  reconcileSliced(): Promise<number> {
    return runStepsSliced(this.reconcileSteps());
  }

  private *reconcileSteps(): Steps<number> {
    if (!this.sync.allSourcesReady()) return 0;
    this.views.flush();
    const loads = this.req.model.loadVersion;
    if (loads === this.reconciledLoads) return 0;
    this.reconciledLoads = loads;
    const nss = this.req.namespaces;
    const removed = yield* this.req.model.removeWhereSteps(this.watchedTypes, (key) => {
      if (this.sync.desired(key)) return true;
      const p = parseObjectKey(key);
      // A node-scoped loop does not see other nodes' pods: their absence says nothing.
      if (p?.typeKey === 'pods' && this.req.node) return true;
      // With no namespaces chosen, a type watched in one namespace (the user's rights) or not at all
      // says nothing of the others.
      const scope = p && nss.length === 0 ? this.scopeOfType(p.typeKey) : undefined;
      if (scope === 'forbidden' || (scope !== undefined && p!.namespace !== scope)) return true;
      return !!p && nss.length > 0 && (p.namespace === undefined || !nss.includes(p.namespace));
    });
    if (removed) this.req.log.info(`sync loop: removed ${removed} object(s) from the tree that the API server no longer lists`);
    return removed;
  }

  /** Where the loop watches a tree type now (see ClusterSync.watchScope). */
  private scopeOfType(typeKey: string): string | undefined | 'forbidden' {
    const t = typeKey === 'pods' ? { group: '', resource: 'pods' } : this.req.types.find((x) => typeKeyOf(x) === typeKey);
    return t ? this.sync.watchScope(t) : undefined;
  }

  async stop(reason = 'stopped'): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.timer?.cancel();
      this.timer = undefined;
      this.life.abort(new Error(reason));
    }
    await this.done;
    this.unsubscribe();
    this.views.flush();
    this.views.dispose();
  }

  /** Resolves when the loop has ended (stopped, or its config channel closed). */
  get finished(): Promise<void> {
    return this.done;
  }

  private scheduleReconcile(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimer(this.req.reconcileEveryMs ?? RECONCILE_EVERY_MS, () => {
      this.reconcileSliced()
        .catch((e: unknown) => this.req.log.warn(`sync loop: the tree's reconcile failed: ${e instanceof Error ? e.message : String(e)}`))
        .finally(() => this.scheduleReconcile());
    });
  }
}
