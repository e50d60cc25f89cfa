/**
 * One load of cluster resources for the extension: core's ClusterLoader with the user's settings,
 * its results streamed into the ResourceModel as each task finishes (so the tree fills in before
 * the last type is done), its task events into the TimelineStore and its task log into the Logger.
 * No 'vscode' import: the glue adds the progress notification and the messages.
 *
 * Guarantees:
 * - The returned promise settles once the load has (every task has its result, or discovery
 *   failed); it never rejects for a cluster failure — that is `summary.outcome` 'failed'/'partial'.
 * - Aborting `signal` cancels every in-flight request; the load settles as 'cancelled' and the
 *   model keeps what had arrived (the types that finished).
 * - A refresh of one type (`only`) replaces that type (in that namespace) and touches nothing else.
 */
import { apiCostLine } from './apiCost';
import type { Clock } from '../../core/clock';
import { loadCluster, MULTI_DEFAULT_LANES } from '../../core/loader/multiCluster';
import type { ClusterLoaderOptions } from '../../core/loader/options';
import { SharedLanes } from '../../core/pool/sharedLanes';
import type { LoadPlan, LoadSummary, LoadTask, LoaderClient } from '../../core/loader/types';
import type { KubeObject } from '../../core/kube/objects/types';
import type { LoaderTaskEvent } from '../../core/timeline/events';
import type { TimelineStore } from '../../core/timeline/store';
import type { Logger } from '../logger';
import { typeKeyOf } from '../model/keys';
import { failureKey, releaseLoadRows, viewTransform, type ResourceModel, type ResourceType } from '../model/resourceModel';
import type { KubeLoopSettings } from '../settings';
import type { Relations } from '../relations/relations';
import { treeTransfer } from './transfer';
import { formatCount } from '../../core/formatCount';

export interface LoadProgress {
  typesDone: number;
  typesTotal: number;
  tasksDone: number;
  tasksTotal: number;
  objects: number;
  failed: number;
}

const fmt = formatCount;

/** "12/64 types, 3,456 objects" (", 2 failed" when some did). */
export function progressMessage(p: LoadProgress): string {
  if (p.typesTotal === 0) return 'discovering resource types…';
  return `${p.typesDone}/${p.typesTotal} types, ${fmt(p.objects)} objects${p.failed ? `, ${p.failed} failed` : ''}`;
}

export type LoadSettings = Pick<
  KubeLoopSettings,
  'concurrency' | 'concurrencyChosen' | 'pageSize' | 'requestTimeoutSeconds' | 'metadataOnly' | 'treeTransfer' | 'namespaces' | 'includeTypes' | 'excludeTypes'
>;

/** What a load writes into a model (a ResourceModel, or a Session lease's guarded view of one). */
export type LoadInto = Pick<ResourceModel, 'rescope' | 'registerTypes' | 'applyResult' | 'retainFailures' | 'retainTypes'>;

export interface LoadRequest {
  client: LoaderClient;
  contextName: string;
  settings: LoadSettings;
  /** Refresh one type, in one namespace when given; the rest of the model stays. */
  only?: { typeKey: string; namespace?: string };
  model: LoadInto;
  timeline: TimelineStore;
  log: Logger;
  /** The timeline's time origin on `clock` (shared with the sync loop, so both share one axis). */
  origin: number;
  loadId: string;
  signal: AbortSignal;
  onProgress?: (p: LoadProgress) => void;
  clock?: Clock;
  /** The lanes every context's loads share (one budget across clusters); unset: a budget of its own. */
  lanes?: SharedLanes;
  /**
   * Give the cluster up when it shows no sign of life this soon (core's reach deadline), reporting
   * it `unreachable`; 0/unset: no deadline (the request timeouts and retries decide).
   */
  reachTimeoutMs?: number;
  /** The owner index beside the model (app/relations): it reads each listed object before the tree slims it. */
  relations?: Relations;
}

export interface LoadResult {
  summary: LoadSummary;
  plan?: LoadPlan;
  /** Set when the cluster gave no sign of life within `reachTimeoutMs`: why, in a user's words. */
  unreachable?: string;
}

export function taskWhat(e: { gvr: LoaderTaskEvent['gvr']; namespace?: string }): string {
  return `${typeKeyOf(e.gvr)} ${e.namespace ? `in ${e.namespace}` : '(all namespaces / cluster)'}`;
}

/** The task log: one line per finished task at info, retries at warning, the rest at trace. */
export function logTaskEvent(log: Logger, e: LoaderTaskEvent): void {
  const what = `loader: ${taskWhat(e)}`;
  switch (e.phase) {
    case 'start':
      log.trace(`${what}: task #${e.taskId} started on worker ${e.worker}`);
      return;
    case 'page':
      log.trace(`${what}: page ${e.pages ?? '?'}, ${fmt(e.count ?? 0)} items`);
      return;
    case 'retry':
      log.warn(`${what}: retry ${e.retries ?? ''}: ${e.message ?? ''}`);
      return;
    case 'finish': {
      const took = `${Math.round(e.durationMs ?? 0)} ms on worker ${e.worker}`;
      if (e.outcome === 'ok') log.info(`${what}: ${fmt(e.count ?? 0)} objects in ${e.pages ?? 0} page(s), ${took}`);
      else if (e.outcome === 'cancelled') log.info(`${what}: cancelled after ${fmt(e.count ?? 0)} objects, ${took}`);
      else log.warn(`${what}: FAILED${e.status ? ` ${e.status}` : ''}: ${e.message ?? ''} (${took})`);
      return;
    }
  }
}

export function summaryLine(contextName: string, s: LoadSummary): string {
  const what = `${fmt(s.objects)} objects of ${s.ok}/${s.tasks} task(s) over ${s.resourceTypes} type(s) from "${contextName}" in ${(s.durationMs / 1000).toFixed(2)} s`;
  const tail = `${s.requests ?? '?'} requests, ${s.retries} retries`;
  switch (s.outcome) {
    case 'ok':
      return `Loaded ${what}; ${tail}.`;
    case 'partial':
      return `Loaded ${what}; ${s.failed} task(s) failed; ${tail}.`;
    case 'cancelled':
      return `Load cancelled: ${what} before the cancel, ${s.cancelled} task(s) cancelled; ${tail}.`;
    default:
      return `Load failed: ${s.error instanceof Error ? s.error.message : String(s.error)}`;
  }
}

export async function runLoad(req: LoadRequest): Promise<LoadResult> {
  const { settings: s, model, only } = req;
  const listed = new Map<LoadTask, string[]>();
  const options: ClusterLoaderOptions = {
    // kubeloop.concurrency not set: the loader picks the pool size from the RTT (autoConcurrency.ts).
    concurrency: s.concurrencyChosen === false ? undefined : s.concurrency,
    pageSize: s.pageSize,
    namespaces: only?.namespace ? [only.namespace] : s.namespaces,
    include: only ? [only.typeKey] : s.includeTypes,
    exclude: only ? [] : s.excludeTypes,
    // the least each type's rows need (kubeloop.treeTransfer; transfer.ts)
    transfer: treeTransfer(s),
    requestTimeoutMs: s.requestTimeoutSeconds * 1000,
    onEvent: (e) => {
      // the timeline names the context of every task: lanes are grouped, and filtered, by it
      req.timeline.append({ ...e, context: req.contextName });
      logTaskEvent(req.log, e);
    },
    loadId: req.loadId,
    timeOrigin: req.origin,
    // the tree keeps packed rows, not objects: write each one's row as its page arrives
    transform: req.relations ? listing(req.relations.loaderTransform(viewTransform, req.signal), listed) : viewTransform,
    ...(req.clock ? { clock: req.clock } : {}),
  };
  // A new namespace selection starts from an empty tree: objects of the old scope would otherwise
  // linger (hidden, but counted and kept in memory). Which context the model shows is the caller's.
  if (!only) model.rescope(s.namespaces);
  const progress: LoadProgress = { typesDone: 0, typesTotal: 0, tasksDone: 0, tasksTotal: 0, objects: 0, failed: 0 };
  const remaining = new Map<string, number>();
  req.log.info(
    `loader: ${only ? `refreshing ${only.typeKey}${only.namespace ? ` in ${only.namespace}` : ''}` : 'loading'} from "${req.contextName}" (${s.concurrencyChosen === false ? 'workers by RTT' : `${s.concurrency} workers`}, page size ${s.pageSize}, ${s.metadataOnly ? 'metadata only' : `transfer ${s.treeTransfer ?? 'auto'}`}${s.namespaces.length ? `, namespaces ${s.namespaces.join(',')}` : ''})`,
  );
  // Every context's lists take seats of one shared budget (core's SharedLanes), as `kubeloop load
  // --context A --context B` does; a load given none has a budget of its own.
  const outcome = await loadCluster({ name: req.contextName, client: req.client, options }, req.lanes ?? new SharedLanes(MULTI_DEFAULT_LANES), {
    reachTimeoutMs: req.reachTimeoutMs ?? 0,
    signal: req.signal,
    keepResults: false,
    ...(req.clock ? { clock: req.clock } : {}),
    onPlan: (_name, plan) => {
      const auto = plan.concurrencyAuto;
      if (auto)
        req.log.info(
          `loader: ${auto.lanes} workers, chosen from ${auto.rttMs === null ? 'no measured round-trip time' : `a round-trip time of ${auto.rttMs} ms`} (kubeloop.concurrency not set; 4 on a LAN, up to 16 far away)`,
        );
      model.registerTypes(plan.types.map(toResourceType));
      for (const t of plan.tasks) remaining.set(typeKeyOf(t.gvr), (remaining.get(typeKeyOf(t.gvr)) ?? 0) + 1);
      progress.typesTotal = plan.types.length;
      progress.tasksTotal = plan.tasks.length;
      for (const u of plan.unmatchedFilters) req.log.warn(`loader: include/exclude "${u}" matches no resource type`);
      for (const s of plan.skippedTypes)
        req.log.info(`loader: not loading ${s.group ? `${s.resource}.${s.group}` : s.resource}: ${s.reason} (kubeloop.includeTypes)`);
      for (const f of plan.discovery.failures) req.log.warn(`loader: discovery of ${f.groupVersion} failed${f.status ? ` (${f.status})` : ''}: ${f.message}`);
      req.onProgress?.({ ...progress });
    },
    onNarrow: (_name, replaced, by) => {
      // A 403 across all namespaces: the type is listed in the context's namespace instead.
      const key = typeKeyOf(replaced.gvr);
      remaining.set(key, (remaining.get(key) ?? 1) + by.length - 1);
      progress.tasksTotal += by.length - 1;
      req.log.info(`loader: ${key}: 403 across all namespaces; listing it in ${by.map((t) => t.namespace).join(', ')} instead`);
    },
    onResult: (_name, r) => {
      model.applyResult(r);
      releaseLoadRows(r.task); // a model that did not take the result (a lease no longer current) keeps no batch alive
      const uids = listed.get(r.task) ?? [];
      listed.delete(r.task);
      // the sink's items are the uids' last as many (a restarted list wrote its first try's before them)
      if (!req.signal.aborted) req.relations?.taskDone(r.task, r.outcome, uids.slice(uids.length - r.items.length));
      const key = typeKeyOf(r.task.gvr);
      const left = (remaining.get(key) ?? 1) - 1;
      remaining.set(key, left);
      progress.tasksDone++;
      if (left === 0) progress.typesDone++;
      if (r.outcome === 'ok') progress.objects += r.count;
      if (r.outcome === 'error') progress.failed++;
      req.onProgress?.({ ...progress });
    },
  });
  const { summary, plan } = outcome;
  if (!only && plan) {
    // Failures of tasks this load did not plan (another namespace selection, a type now excluded) are history.
    model.retainFailures(new Set(plan.tasks.map((t) => failureKey(typeKeyOf(t.gvr), t.namespace))));
    if (summary.outcome === 'ok' || summary.outcome === 'partial') model.retainTypes(new Set(plan.types.map((t) => typeKeyOf(t))));
  }
  const line = summaryLine(req.contextName, summary);
  if (summary.outcome === 'failed') req.log.error(`loader: ${line}`);
  else req.log.info(`loader: ${line}`);
  if (summary.apiCost) req.log.info(`loader: ${apiCostLine(summary.apiCost)}`);
  return { summary, ...(plan ? { plan } : {}), ...(outcome.unreachable ? { unreachable: outcome.unreachable.message } : {}) };
}

/**
 * `transform`, noting each kept item's uid per task: the tree's transform keeps one carrier per task
 * in the sink, so what the owner index needs of the items (which uids were listed) is kept here.
 */
function listing(transform: (obj: KubeObject, task: LoadTask) => KubeObject | undefined, listed: Map<LoadTask, string[]>) {
  return (obj: KubeObject, task: LoadTask): KubeObject | undefined => {
    const t = transform(obj, task);
    if (t === undefined) return t;
    let uids = listed.get(task);
    if (!uids) listed.set(task, (uids = []));
    uids.push(obj.metadata!.uid!);
    return t;
  };
}

export function toResourceType(t: { group: string; version: string; resource: string; kind: string; namespaced: boolean; verbs?: string[] }): ResourceType {
  return {
    key: typeKeyOf(t),
    gvr: { group: t.group, version: t.version, resource: t.resource },
    kind: t.kind,
    namespaced: t.namespaced,
    ...(t.verbs ? { watchable: t.verbs.includes('watch') } : {}),
  };
}
