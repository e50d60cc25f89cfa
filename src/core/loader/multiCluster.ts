/**
 * loadClusters: one load of several clusters at once, each its own ClusterLoader (its own client,
 * rate limiter, discovery, reviews and pool), all sharing one budget of lanes (SharedLanes).
 *
 * Guarantees:
 * - At most `lanes` lists run at once across the clusters that have answered, shared max-min
 *   fairly, plus at most one per cluster that has not answered yet (its seat outside the budget:
 *   a hung cluster takes no lane from the others); a cluster that holds no lane has one kept ready
 *   for its next list (sharedLanes.ts; its loader joins the lanes before discovery), so a huge or
 *   slow cluster never holds every lane and a small one's first results do not wait for it. A cluster's other lists start once its namespaces list has
 *   answered (clusterLoader.ts), so that small first result is not parsed behind the others' pages.
 * - Every cluster's paged lists go through the process's one I/O thread, on a channel of their own
 *   (ioThread.ts): a cluster that hangs holds only its own connections.
 * - A cluster that has given no sign of life within `reachTimeoutMs` of the start (no discovery
 *   answered by the server, no page, no answer to a list) is given up on: its requests are aborted
 *   and it is reported `unreachable` with the reason (the last retry's error if there was one: a 503,
 *   a reset; else "no answer"). It gives its lanes back at once, so it never delays the others.
 *   A cluster whose load fails before then without such a sign (its retries of 503s or resets ran
 *   out first) is reported `unreachable` as well, at once, naming the time it took: the outcome
 *   does not depend on whether the back-off's jitter ends before or after the deadline.
 * - One cluster's failure (unreachable, discovery failed, a fatal error in its set-up) never fails
 *   the others; the returned promise resolves with one outcome per target, in the targets' order,
 *   once every cluster's load has settled. It never rejects.
 * - The caller's signal cancels every cluster's load.
 */
import { abortReason, realClock, type Clock } from '../clock';
import { MAX_CONCURRENCY, SharedLanes } from '../pool';
import { AUTO_BASE_LANES } from './autoConcurrency';
import { ClusterLoader, emptySummary } from './clusterLoader';
import type { ClusterLoaderOptions } from './options';
import type { LoaderClient, LoadPlan, LoadSummary, LoadTask, LoadTaskResult } from './types';

/** Default budget of lanes of a multi-cluster load. */
export const MULTI_DEFAULT_LANES = 16;
/** Default time a cluster has to show it answers (the issue's figure is 5 s to report a dead one). */
export const MULTI_REACH_TIMEOUT_MS = 4_000;

export interface ClusterTarget {
  /** The kubeconfig context's name: how the cluster is named in results. */
  name: string;
  client: LoaderClient & { readonly server?: string; readonly transport?: LoaderClient['transport'] & { lastRetry?: { error: Error; path: string } } };
  options: Omit<ClusterLoaderOptions, 'lanes'>;
}

type ApiLikeError = Error & { status?: number; reason?: string };

export class ClusterUnreachableError extends Error {
  override readonly name = 'ClusterUnreachableError';
  override readonly cause?: ApiLikeError;
  constructor(
    readonly cluster: string,
    readonly afterMs: number,
    /** The last retry's error and the path it was for (a 503 of GET /api, a reset...). */
    last?: { error: ApiLikeError; path?: string },
  ) {
    super(
      `no answer from context "${cluster}" within ${(afterMs / 1000).toFixed(afterMs % 1000 === 0 ? 0 : 1)} s${last ? `; last error: ${lastText(last)}` : ''}`,
    );
    if (last) this.cause = last.error;
  }
}

/** "GET /api: 503 ServiceUnavailable: the server is currently unable..." (an API error's status first). */
function lastText({ error: e, path }: { error: ApiLikeError; path?: string }): string {
  const status = typeof e.status === 'number' ? `${e.status}${e.reason ? ` ${e.reason}` : ''}: ` : '';
  return `${path ? `GET ${path}: ` : ''}${status}${e.message}`;
}

export interface ClusterOutcome {
  name: string;
  summary: LoadSummary;
  results: LoadTaskResult[];
  plan?: LoadPlan;
  /** Set when the cluster was given up on (reachTimeoutMs); summary.outcome is then 'failed'. */
  unreachable?: ClusterUnreachableError;
  /** ms from the start to this cluster's first task result (undefined if it had none). */
  firstResultMs?: number;
  /** ms from the start to this cluster's outcome (for "a dead cluster is reported within 5 s"). */
  settledMs: number;
}

export interface MultiLoadOptions {
  lanes?: number;
  reachTimeoutMs?: number;
  signal?: AbortSignal;
  clock?: Clock;
  onResult?: (cluster: string, r: LoadTaskResult) => void;
  onPlan?: (cluster: string, plan: LoadPlan) => void;
  /** A 403 across all namespaces: the task was replaced by one per namespace (ClusterLoader's onNarrow). */
  onNarrow?: (cluster: string, replaced: LoadTask, by: LoadTask[]) => void;
  onSettled?: (outcome: ClusterOutcome) => void;
  /** false: the outcome's `results` stays empty (a caller that consumes them in onResult need not hold them twice). */
  keepResults?: boolean;
}

export async function loadClusters(targets: readonly ClusterTarget[], opts: MultiLoadOptions = {}): Promise<ClusterOutcome[]> {
  const clock = opts.clock ?? realClock;
  const shared = new SharedLanes(opts.lanes ?? MULTI_DEFAULT_LANES);
  const reachMs = opts.reachTimeoutMs ?? MULTI_REACH_TIMEOUT_MS;
  const t0 = clock.now();
  // Each cluster's fair share of the lanes bounds its latency-aware pool (4 at the least).
  const share = Math.min(MAX_CONCURRENCY, Math.max(AUTO_BASE_LANES, Math.ceil(shared.total / Math.max(1, targets.length))));
  return Promise.all(targets.map((t) => loadOne({ ...t, options: { autoConcurrencyMax: share, ...t.options } }, shared, reachMs, t0, clock, opts)));
}

/**
 * One cluster's load on a budget of lanes that outlives it (the extension's contexts load at
 * different times, each when opened, on one SharedLanes), with the same reach deadline and verdicts
 * as loadClusters. `reachTimeoutMs` 0: no deadline, and a failure is reported as it is, never as
 * unreachable. Never rejects.
 */
export function loadCluster(t: ClusterTarget, shared: SharedLanes, opts: MultiLoadOptions = {}): Promise<ClusterOutcome> {
  const clock = opts.clock ?? realClock;
  return loadOne(t, shared, opts.reachTimeoutMs ?? MULTI_REACH_TIMEOUT_MS, clock.now(), clock, opts);
}

async function loadOne(t: ClusterTarget, shared: SharedLanes, reachMs: number, t0: number, clock: Clock, opts: MultiLoadOptions): Promise<ClusterOutcome> {
  const results: LoadTaskResult[] = [];
  let firstResultMs: number | undefined;
  let alive = false;
  let unreachable: ClusterUnreachableError | undefined;
  const ac = new AbortController();
  const onAbort = () => ac.abort(abortReason(opts.signal!));
  if (opts.signal?.aborted) ac.abort(abortReason(opts.signal));
  else opts.signal?.addEventListener('abort', onAbort, { once: true });
  const watchdog =
    reachMs > 0
      ? clock.setTimer(reachMs, () => {
          if (alive) return;
          unreachable = new ClusterUnreachableError(t.name, reachMs, t.client.transport?.lastRetry);
          ac.abort(unreachable);
        })
      : undefined;
  // Provisional until the cluster answers (sharedLanes.ts, guarantee 5): a cluster that never
  // answers holds one seat outside the budget, not one of the budget's, so the others keep every
  // lane (measured: with a hung cluster holding one of 16, the five others' loads took up to 11 %
  // longer).
  const member = shared.join(t.name, undefined, { provisional: true });
  const live = () => {
    if (alive) return;
    alive = true;
    member.confirm();
    watchdog?.cancel();
  };
  try {
    let loader: ClusterLoader;
    try {
      loader = new ClusterLoader(t.client, {
        ...t.options,
        lanes: { shared, name: t.name, member },
        onEvent: (e) => {
          // A page, or any answer to a list (an error with an HTTP status is an answer too).
          if (e.phase === 'page' || (e.phase === 'finish' && (e.outcome === 'ok' || e.status !== undefined))) live();
          t.options.onEvent?.(e);
        },
      });
    } catch (e) {
      return settle(opts, { name: t.name, summary: failedSummary(e), results, settledMs: clock.now() - t0 });
    }
    const run = loader.start({
      signal: ac.signal,
      onPlan: (plan) => {
        // Discovery answered by the server (not the disk cache), and the reviews: it answers.
        if (plan.discovery.cachedAgeMs === undefined) live();
        opts.onPlan?.(t.name, plan);
      },
      onResult: (r) => {
        firstResultMs ??= clock.now() - t0;
        if (r.status !== undefined || r.outcome === 'ok') live();
        if (opts.keepResults !== false) results.push(r);
        opts.onResult?.(t.name, r);
      },
      ...(opts.onNarrow ? { onNarrow: (replaced: LoadTask, by: LoadTask[]) => opts.onNarrow!(t.name, replaced, by) } : {}),
    });
    const summary = await run.done;
    const plan = await run.plan;
    if (reachMs > 0 && !unreachable && !alive && summary.outcome === 'failed' && !opts.signal?.aborted) {
      // Given up before the deadline: the retries ran out with no sign of life, the same verdict
      // the watchdog would have given a little later.
      const last = t.client.transport?.lastRetry ?? (summary.error instanceof Error ? { error: summary.error as ApiLikeError } : undefined);
      unreachable = new ClusterUnreachableError(t.name, clock.now() - t0, last);
    }
    if (unreachable) {
      summary.outcome = 'failed';
      summary.error = unreachable;
    }
    return settle(opts, {
      name: t.name,
      summary,
      results,
      ...(plan ? { plan } : {}),
      ...(unreachable ? { unreachable } : {}),
      ...(firstResultMs !== undefined ? { firstResultMs } : {}),
      settledMs: clock.now() - t0,
    });
  } finally {
    member.leave(); // the loader's pool has left it already (idempotent)
    watchdog?.cancel();
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

function settle(opts: MultiLoadOptions, o: ClusterOutcome): ClusterOutcome {
  try {
    opts.onSettled?.(o);
  } catch {
    // the consumer's failure is its own
  }
  return o;
}

function failedSummary(error: unknown): LoadSummary {
  return { ...emptySummary(), outcome: 'failed', error };
}
