/**
 * The loader's vocabulary, after Kyverno's pkg/cli/loader: a LoadTask is one list operation (one
 * resource type in one namespace, or across all namespaces, or cluster-wide); a LoadTaskResult is its
 * one outcome. Unlike upstream, the result says how many pages and retries it took and on which
 * worker it ran, and a failure carries the HTTP status and message of the request that failed.
 */
import type { ApiResource, Discovery, DiscoveryFailure, GroupVersionResource, KubeObject, ListHooks, ListOptions, ListResult } from '../kube';
import type { AccessFacts, AccessReviewer } from '../kube/access/review';
import type { SkippedType } from './plan';
import type { ConcurrencyAuto } from './autoConcurrency';
import type { ApiCost } from './loadCost';
import type { FlowControlReader } from './apf';

export interface LoadTask {
  /**
   * Unique in its load: the planned tasks are numbered 0..n-1, tasks added by a 403 fallback
   * (see scope.ts) continue from n.
   */
  id: number;
  gvr: GroupVersionResource;
  kind: string;
  namespaced: boolean;
  /** Undefined: all namespaces (namespaced type) or cluster-scoped. */
  namespace?: string;
  labelSelector?: string;
  /** Known forbidden from the access reviews: answered as a 403 without a request (the message says why). */
  forbidden?: string;
  /** Set on a per-namespace task that replaced the all-namespaces task with this id after its 403. */
  fallbackOf?: number;
}

export type LoadOutcome = 'ok' | 'error' | 'cancelled';

export interface LoadTaskResult {
  taskId: number;
  task: LoadTask;
  outcome: LoadOutcome;
  /** ok: every object. error/cancelled: what arrived before the end (see `partial`). */
  items: KubeObject[];
  count: number;
  /** True when the list did not complete: items is a prefix of the real list. */
  partial: boolean;
  pages: number;
  retries: number;
  bytes: number;
  /** The list's resourceVersion (a watch starts here); '' unless ok. */
  resourceVersion: string;
  fellBackToFullList: boolean;
  /** Worker lane; -1 when the task was cancelled before it started. */
  worker: number;
  startedAt: number;
  endedAt: number;
  durationMs: number;
  /** On error: HTTP status if the server answered, else undefined (reset, malformed, timeout). */
  status?: number;
  /** On error/cancel: the Status reason, or the transport failure kind, or 'Timeout' / 'Cancelled'. */
  reason?: string;
  message?: string;
  /**
   * Set on a 403: 'review' when the access reviews said so and no request was made, 'request' when
   * the server refused the list itself.
   */
  forbidden?: 'review' | 'request';
  /** Estimated seats the list held at the server while it ran (its largest page's; see loadCost.ts). */
  seats?: number;
}

export interface LoadPlan {
  discovery: Discovery;
  /** Resource types selected for loading (after include/exclude). */
  types: ApiResource[];
  tasks: LoadTask[];
  /** include/exclude entries that matched no type (likely typos). */
  unmatchedFilters: string[];
  /** What the access reviews said (see scope.ts); the namespaces a 403 across namespaces falls back to. */
  access: AccessFacts;
  fallbackNamespaces: string[];
  /** Types left out because a selected type serves the same objects (events.events.k8s.io for events). */
  skippedTypes: SkippedType[];
  /** The pool size this load runs with, and (no concurrency given) what it was chosen from; set before onPlan. */
  concurrency?: number;
  concurrencyAuto?: ConcurrencyAuto;
}

export interface LoadSummary {
  /** ok: every task ok; partial: some failed; cancelled: cancel/abort; failed: nothing could be loaded (discovery failed). */
  outcome: 'ok' | 'partial' | 'cancelled' | 'failed';
  /** Set when outcome is failed (and for cancelled, the reason). */
  error?: unknown;
  resourceTypes: number;
  tasks: number;
  results: number;
  ok: number;
  failed: number;
  /** Failed results that are 403 Forbidden (known from the reviews or answered by the server). */
  forbidden: number;
  /** All-namespaces tasks that answered 403 and were replaced by per-namespace tasks. */
  narrowed: number;
  cancelled: number;
  /** Objects of the types that loaded completely. */
  objects: number;
  /** Objects received by tasks that failed or were cancelled (their lists are incomplete). */
  partialObjects: number;
  durationMs: number;
  discoveryMode?: 'aggregated' | 'legacy';
  discoveryFailures: DiscoveryFailure[];
  unmatchedFilters: string[];
  /** As LoadPlan.skippedTypes. */
  skippedTypes: SkippedType[];
  requests?: number;
  retries: number;
  bytes: number;
  /** The pool size the load ran with (once the plan is known). */
  concurrency?: number;
  /** Set when no concurrency was given: the RTT the pool size was chosen from, and the size. */
  concurrencyAuto?: ConcurrencyAuto;
  /** What the load cost the server (once the plan is known; see loadCost.ts). */
  apiCost?: ApiCost;
}

/** What the loader needs from a Kubernetes client (KubeClient implements it). */
export interface LoaderClient extends Partial<AccessReviewer> {
  /** The kubeconfig context; its namespace is where a load falls back to (see scope.ts). */
  readonly context?: { name?: string; namespace?: string };
  /** `fresh`: bypass a discovery cache (the loader asks so once when a cached discovery misses a type). */
  discover(opts: { signal?: AbortSignal; fresh?: boolean }): Promise<Discovery>;
  list(gvr: GroupVersionResource, opts: ListOptions, hooks: ListHooks): Promise<ListResult>;
  /** Optional request counters, reported in the summary. */
  readonly transport?: {
    stats: {
      requests: number;
      rttMs?: number;
      requestRttMs?: number;
      warmSamples?: number;
      bytesReceived?: number;
      throttled?: number;
      retryAfterSeconds?: number;
    } & FlowControlReader['stats'];
    /** A JSON GET (KubeTransport.getJson): the flow-control objects are read with it (apf.ts). */
    getJson?: FlowControlReader['getJson'];
    /** The server's address is this machine (localhost, 127.0.0.0/8, ::1). */
    readonly loopback?: boolean;
    /** One cheap request for an RTT sample taken with the client idle (KubeTransport.probeRtt). */
    probeRtt?(signal?: AbortSignal): Promise<number | undefined>;
    /** Connections dialled ahead of the lists, as many as `want` says (KubeTransport.preconnect). */
    preconnect?(
      want: (rttMs: number | undefined) => number,
      probeWhen?: (rttMs: number | undefined) => boolean,
    ): {
      stop(): void;
      /** True once the warm probe (sent now if not yet) was answered on an idle connection; false when it failed or after `timeoutMs`. */
      probed(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
    };
  };
}
