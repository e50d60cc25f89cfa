/**
 * The loader's small pure helpers: empty summaries and results, error descriptions, and the order
 * a plan is fed to the pool in.
 */
import { KubeApiError, KubeTransportError } from '../kube';
import { TaskTimeoutError } from '../pool';
import type { LoadSummary, LoadTask, LoadTaskResult } from './types';

/** A summary of nothing loaded yet (outcome 'ok' until the load says otherwise). */
export function emptySummary(): LoadSummary {
  return {
    outcome: 'ok',
    resourceTypes: 0,
    tasks: 0,
    results: 0,
    ok: 0,
    failed: 0,
    cancelled: 0,
    objects: 0,
    partialObjects: 0,
    durationMs: 0,
    discoveryFailures: [],
    unmatchedFilters: [],
    skippedTypes: [],
    retries: 0,
    bytes: 0,
    forbidden: 0,
    narrowed: 0,
  };
}

/** One (type, namespace) pair: '' namespace = all namespaces, or cluster-scoped. */
export function pairKey(t: LoadTask): string {
  return `${t.gvr.group}/${t.gvr.resource}@${t.namespace ?? ''}`;
}

export function emptyResult(task: LoadTask, at: number): LoadTaskResult {
  return {
    taskId: task.id,
    task,
    outcome: 'cancelled',
    items: [],
    count: 0,
    partial: false,
    pages: 0,
    retries: 0,
    bytes: 0,
    resourceVersion: '',
    fellBackToFullList: false,
    worker: -1,
    startedAt: at,
    endedAt: at,
    durationMs: 0,
  };
}

export function reasonText(reason: unknown): string {
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'cancelled';
}

/** status / reason / message of a failed task, for results, events and the CLI. */
export function describeError(e: unknown): { status?: number; reason: string; message: string } {
  if (e instanceof KubeApiError) return { status: e.status, reason: e.reason, message: e.message };
  if (e instanceof KubeTransportError) return { reason: e.kind, message: e.message };
  if (e instanceof TaskTimeoutError) return { reason: 'Timeout', message: `per-task timeout: ${e.message}` };
  return { reason: 'Error', message: e instanceof Error ? e.message : String(e) };
}

/** core/v1 namespaces: a small list, and the first level of every view of a cluster. */
export function isNamespaces(t: LoadTask): boolean {
  return t.gvr.group === '' && t.gvr.resource === 'namespaces';
}

/**
 * The order the feeder submits a plan in: namespaces first (one short list, so a cluster's first
 * result, and the tree's first level, comes after one round trip rather than after the first big
 * list), then likely-large lists first (longest-processing-time-first,
 * which shortens a pool's makespan), else the plan's order. Sizes are not known before the lists,
 * so the guess is by scope: a namespaced type across all namespaces holds the many objects of a
 * cluster (pods, secrets, configmaps, events), one namespace's list fewer, a cluster-scoped type
 * usually a handful. Measured far away (100 ms RTT, 16 lanes, 59 types): the last lane ends
 * about 6% sooner than in discovery order (1.32 s vs 1.40 s, median of 5). Stable: equal guesses keep the plan's order.
 */
export function byLikelySize(tasks: readonly LoadTask[]): LoadTask[] {
  const rank = (t: LoadTask) => (t.forbidden !== undefined ? -2 : isNamespaces(t) ? -1 : !t.namespaced ? 2 : t.namespace === undefined ? 0 : 1);
  return tasks
    .map((t, i) => ({ t, i, r: rank(t) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.t);
}
