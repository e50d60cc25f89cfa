/**
 * ClusterLoader options, validated up front with messages that name the option, the allowed range
 * and the value given (a RangeError, so callers can tell a usage error from a runtime failure).
 *
 * Page size: 1..20000, default 500 (kubectl's --chunk-size default). Upstream Kyverno validates
 * 100..20000; we allow down to 1 because the API server accepts any positive limit and small pages
 * are how tests exercise continue tokens; 20000 stays the ceiling because a bigger page is one big
 * body to buffer and parse, which is what paging exists to avoid.
 * Task timeout: default 300 s per task (upstream hard-codes 5 minutes per *result wait*; ours is a
 * real deadline on each list, aborting its request), 0 = none. It counts progress: the list is
 * aborted after this long without receiving anything (a page or a body chunk), not after this
 * long in all, so a big list over a slow link that keeps arriving is never cut off.
 */
import type { ListTransfer } from '../kube/listwatch/list';
import type { KubeObject } from '../kube/objects/types';
import type { LoaderTaskEvent } from '../timeline/events';
import type { LoadTask } from './types';
import type { Clock } from '../clock';
import { validateConcurrency, type LaneMember, type SharedLanes } from '../pool';

export const MIN_PAGE_SIZE = 1;
export const MAX_PAGE_SIZE = 20_000;
export const DEFAULT_PAGE_SIZE = 500;
export const DEFAULT_TASK_TIMEOUT_MS = 300_000;

export interface ClusterLoaderOptions {
  /**
   * Pool size, 1..32, honoured exactly. Unset: latency-aware, chosen after discovery and the
   * reviews from the transport's measured RTT (autoConcurrency.ts): 4 on a LAN, up to 16 far away;
   * from a base of 3 rather than 4 where API Priority and Fairness gives the user a default-sized
   * level (apf.ts). A 429 halves the lanes in use for a while either way (laneThrottle.ts).
   */
  concurrency?: number;
  pageSize?: number;
  /** Only these namespaces (namespaced types get one task per namespace). Empty/unset: all the user may list (see scope.ts). */
  namespaces?: string[];
  /**
   * Where a namespaced type is listed when the user may not list it across namespaces: the
   * kubeconfig context's namespace. Default: the client's context namespace, else 'default'.
   */
  contextNamespace?: string;
  /** Ask the server what the user may list before listing (SelfSubject*Reviews; see scope.ts). Default true. */
  accessReview?: boolean;
  labelSelector?: string;
  /** Types to load (resource, resource.group, kind, short name, singular); unset: all listable. */
  include?: string[];
  /** Types to skip, same forms. */
  exclude?: string[];
  /** Ask for PartialObjectMetadataList and keep only metadata (the same as transfer 'metadata'; wins over it). */
  metadataOnly?: boolean;
  /**
   * What each list request asks for: 'full' objects (default), 'metadata', or 'table' (server-side
   * Table rows with their metadata; see kube/table.ts), for every type or chosen per task.
   */
  transfer?: ListTransfer | ((task: LoadTask) => ListTransfer);
  /** Per-task idle deadline, ms: aborted after this long without a page or a body chunk; 0 = none. */
  taskTimeoutMs?: number;
  /** Per-request deadline, ms (a timed-out page is retried); 0/unset = none. */
  requestTimeoutMs?: number;
  clock?: Clock;
  /** Timeline events (start/page/retry/finish) of every task that ran. */
  onEvent?: (e: LoaderTaskEvent) => void;
  /** Identifies this load in timeline events. */
  loadId?: string;
  /** Subtracted from Clock times in events (e.g. the timeline store's origin). Default 0. */
  timeOrigin?: number;
  /**
   * Applied to every object as soon as its page is parsed, before the task's result holds it
   * (client-go's informer SetTransform). Returning undefined lets the object go: it still counts in
   * the result's `count`, but not in its `items`. A consumer that keeps less than whole objects (a
   * count, a view) thus lets them die young instead of holding a task's worth of them.
   */
  transform?: (obj: KubeObject, task: LoadTask) => KubeObject | undefined;
  /**
   * The caller reads counts, never objects (its `transform` lets every object go: `kubeloop load`).
   * With transfer 'full', a type whose full objects would come as JSON (no walker field set: custom
   * resources, the rarer built-in kinds) is then listed as PartialObjectMetadata, which a server
   * gives in protobuf for any resource, CRDs' included: the same objects counted, in a fraction of
   * the bytes to receive and decode. Types the walker reads stay full objects. Either way a protobuf
   * page's items are counted, not decoded (ListOptions.countsOnly): each result item is an object
   * with nothing of the server's in it (its kind at most), so a `transform` may only let it go.
   */
  countsOnly?: boolean;
  /**
   * Lanes shared with the loads of other clusters (multiCluster.ts): this load's lists run on its
   * own pool AND take a seat of the shared budget, fairly shared (sharedLanes.ts). `member`: one
   * joined by the caller (provisional until its cluster answers); else the loader joins one.
   */
  lanes?: { shared: SharedLanes; name: string; member?: LaneMember };
  /**
   * The most lanes the latency-aware count may choose (unset: its own maximum). A multi-cluster load
   * sets it to the cluster's fair share of the shared lanes: wider would only wait for seats, and
   * the other clusters' work on this thread inflates the RTT samples that widening reads.
   */
  autoConcurrencyMax?: number;
}

export interface ResolvedLoaderOptions extends Required<
  Omit<
    ClusterLoaderOptions,
    'clock' | 'onEvent' | 'labelSelector' | 'requestTimeoutMs' | 'transform' | 'contextNamespace' | 'lanes' | 'autoConcurrencyMax' | 'transfer'
  >
> {
  /** The concurrency given, or (when autoConcurrency) the base the rule starts from. */
  concurrency: number;
  /** No concurrency was given: the load picks it from the RTT (see autoConcurrency.ts). */
  autoConcurrency: boolean;
  labelSelector?: string;
  contextNamespace?: string;
  transform?: ClusterLoaderOptions['transform'];
  lanes?: ClusterLoaderOptions['lanes'];
  autoConcurrencyMax?: number;
  transfer: NonNullable<ClusterLoaderOptions['transfer']>;
  requestTimeoutMs?: number;
  clock?: Clock;
  onEvent?: (e: LoaderTaskEvent) => void;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function resolveLoaderOptions(o: ClusterLoaderOptions): ResolvedLoaderOptions {
  const concurrency = validateConcurrency(o.concurrency);
  const pageSize = o.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE) {
    throw new RangeError(`page size must be an integer from ${MIN_PAGE_SIZE} to ${MAX_PAGE_SIZE}, got ${String(o.pageSize)}`);
  }
  const taskTimeoutMs = o.taskTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS;
  if (!Number.isFinite(taskTimeoutMs) || taskTimeoutMs < 0)
    throw new RangeError(`task timeout must be a number of ms >= 0 (0 = none), got ${String(o.taskTimeoutMs)}`);
  if (o.requestTimeoutMs !== undefined && (!Number.isFinite(o.requestTimeoutMs) || o.requestTimeoutMs < 0)) {
    throw new RangeError(`request timeout must be a number of ms >= 0 (0 = none), got ${String(o.requestTimeoutMs)}`);
  }
  const namespaces = [...new Set(o.namespaces ?? [])];
  for (const ns of namespaces) {
    if (ns.length > 63 || !DNS_LABEL.test(ns))
      throw new RangeError(`namespace "${ns}" is not a valid namespace name (lower-case DNS label, at most 63 characters)`);
  }
  if (o.contextNamespace !== undefined && o.contextNamespace !== '' && (o.contextNamespace.length > 63 || !DNS_LABEL.test(o.contextNamespace))) {
    throw new RangeError(`context namespace "${o.contextNamespace}" is not a valid namespace name (lower-case DNS label, at most 63 characters)`);
  }
  for (const [what, list] of [
    ['include', o.include],
    ['exclude', o.exclude],
  ] as const) {
    for (const t of list ?? []) if (typeof t !== 'string' || t.trim() === '') throw new RangeError(`${what}: empty resource type name`);
  }
  const labelSelector = o.labelSelector?.trim() || undefined;
  return {
    concurrency,
    autoConcurrency: o.concurrency === undefined,
    pageSize,
    namespaces,
    contextNamespace: o.contextNamespace || undefined,
    accessReview: o.accessReview ?? true,
    labelSelector,
    include: (o.include ?? []).map((s) => s.trim()),
    exclude: (o.exclude ?? []).map((s) => s.trim()),
    metadataOnly: !!o.metadataOnly,
    countsOnly: !!o.countsOnly,
    transfer: o.metadataOnly ? 'metadata' : (o.transfer ?? 'full'),
    taskTimeoutMs,
    requestTimeoutMs: o.requestTimeoutMs,
    clock: o.clock,
    onEvent: o.onEvent,
    loadId: o.loadId ?? `load-${Date.now().toString(36)}`,
    timeOrigin: o.timeOrigin ?? 0,
    transform: o.transform,
    ...(o.lanes ? { lanes: o.lanes } : {}),
    ...(o.autoConcurrencyMax !== undefined ? { autoConcurrencyMax: validateConcurrency(o.autoConcurrencyMax) } : {}),
  };
}
