/**
 * The timeline event model: what the loader and the sync loop emit, what the store keeps, and
 * what the timeline webview draws. Plain JSON-serialisable data (it crosses into the webview).
 * Times are milliseconds on the emitter's Clock (see core/clock.ts), relative to `origin` of the store.
 */

import type { GroupVersionResource } from '../kube/objects/types';

/** The API client's resource address; re-exported so the page reads the event model from one place. */
export type { GroupVersionResource };

/** One loader task (one list of one resource type in one namespace or all namespaces). */
export interface LoaderTaskEvent {
  kind: 'task';
  loadId: string;
  /** The kubeconfig context whose cluster the task listed (the timeline groups lanes by it); absent when one cluster is shown. */
  context?: string;
  taskId: number;
  worker: number; // worker lane, 0-based
  phase: 'start' | 'page' | 'retry' | 'finish';
  t: number; // when this phase happened
  gvr: GroupVersionResource;
  namespace?: string; // absent = all namespaces / cluster-scoped
  /** On 'page': items in that page; on 'finish': total items. */
  count?: number;
  pages?: number;
  retries?: number;
  durationMs?: number; // on 'finish': start to finish
  outcome?: 'ok' | 'error' | 'cancelled';
  status?: number; // HTTP status on error
  message?: string;
}

/** The loop's sources, plus 'informer' (non-pod kinds, kept live by their own informers, never by
 * the pod handlers), 'podworker' (one mark per finished pod-worker sync) and 'freshness' (each
 * watched type's relists, consistency checks and stale spells: syncloop/sources/freshnessMarks.ts). */
export type SyncSource = 'config' | 'pleg' | 'sync' | 'probe' | 'housekeeping' | 'informer' | 'podworker' | 'freshness';

/** A pod worker as one of its syncs left it (the pod-worker lane's details). */
export interface PodWorkerDetails {
  state: 'syncing' | 'terminating' | 'terminated';
  /** Updates the single pending slot replaced before this sync took it (this sync stood for n + 1). */
  coalesced: number;
  /** How long the worker waited for the pod cache (the PLEG's next relist) before this sync, ms. */
  waitedMs?: number;
  /** When the work queue makes the pod due again, on the timeline's clock (ms), if queued. */
  nextDueT?: number;
  gracePeriodSeconds?: number;
  /** Each probe's progress, e.g. "probe-me liveness: failure 1 of failureThreshold 2". */
  probes?: string[];
}

/** One syncLoopIteration: one message taken from one source and handled. */
export interface SyncIterationEvent {
  kind: 'iteration';
  t: number;
  source: SyncSource;
  /** PodOperation (ADD, UPDATE, ...), PLEG event type (ContainerStarted, ...), or liveness/readiness/startup, or 'tick'. */
  op: string;
  key: string; // namespace/name (or '' for a tick that touched nothing)
  handler: string; // e.g. HandlePodAdditions
  durationMs: number;
  outcome: 'ok' | 'error' | 'skipped';
  message?: string;
  /** The node the iteration belongs to: the loop's node when scoped to one, else the pods' spec.nodeName (absent when unknown or mixed). */
  node?: string;
  /** The pod's UID: two incarnations of one name (recreated, force-deleted) are told apart by it. */
  uid?: string;
  /** True when the workstation inferred what a kubelet would know (a probe result counted from
   * Events, a liveness kill read from an exit code, termination of a pod that vanished). */
  inferred?: boolean;
  /** On 'podworker' marks: the worker's state after the sync. */
  worker?: PodWorkerDetails;
  /**
   * What the kubelet's log line would say besides the pod: a PLEG event's container (or sandbox) ID,
   * a probe result's status as the kubelet words it (unhealthy, ready, not ready, started).
   */
  data?: string;
  /** On a PLEG ContainerDied: the container's name (a restart mark opens its previous instance's logs by it). */
  container?: string;
}

/**
 * One reconcile of one controller of the demo cluster run in this process (kube-controller-manager's
 * syncHandler for one key: deployment's syncDeployment, replicaset's syncReplicaSet, ...), on its
 * own lane `controller/<controller>`. A demo cluster in another process (`npm run demo`) serves
 * them at /_demo/reconciles and the extension polls it while the sync loop runs there; a real
 * cluster shows none: its controllers run where the timeline cannot see them.
 */
export interface ControllerReconcileEvent {
  kind: 'reconcile';
  t: number;
  /** Upstream's controller name: deployment, replicaset, statefulset, daemonset, job, cronjob, garbagecollector. */
  controller: string;
  /** The reconciled object, `resource[.group]:namespace/name` (as the sync loop keys non-pod objects). */
  key: string;
  /** Upstream's handler, e.g. syncDeployment. */
  handler: string;
  durationMs: number;
  outcome: 'ok' | 'error';
  /** What the reconcile wrote, each `resource[.group]:namespace/name`: objects created, deleted (or marked for deletion), updated. */
  created?: string[];
  deleted?: string[];
  updated?: string[];
  /** Status writes (only writes that changed something are made) and Events recorded. */
  statusUpdates?: number;
  events?: number;
  message?: string;
}

/**
 * One line of a real kubelet's `-v=4` log, read into the loop's vocabulary (core/kubeletlog): on the
 * lane `kubelet <node>` beside KubeLoop's inferred iterations, so where the two disagree it shows.
 * Only for a kubelet this machine runs (the lab's hollow nodes): a real cluster's kubelet log is not
 * reachable from a workstation.
 */
export interface KubeletLineEvent {
  kind: 'kubelet';
  t: number;
  node: string;
  /** config, pleg, sync, probe, housekeeping, runtime, podworker, status, event */
  source: string;
  op: string;
  key: string;
  uid?: string;
  handler: string;
  outcome: 'ok' | 'error' | 'skipped';
  /** A pod-worker sync's span (its enter to its exit); 0 for a line. */
  durationMs: number;
  data?: string;
  message?: string;
  /** The kubelet's own line, as written. */
  raw: string;
}

/**
 * One busy field manager's writes over one window (about a second), on its own lane `writer <manager>`
 * (core/writers: the manager is the managedFields entry whose time moved; deletes count as `(delete)`).
 * Appended at the window's end, only for managers at or above the lane's threshold.
 */
export interface WritesEvent {
  kind: 'writes';
  /** The window's start; it ends at t + durationMs. */
  t: number;
  durationMs: number;
  manager: string;
  /** Writes seen in the window. */
  writes: number;
  /** The manager's decayed rate at the window's end (writes/s over about the last 10 s). */
  perSecond: number;
  /** The kinds it wrote in the window, most written first (at most 5). */
  kinds: string[];
  /** A fight it is in: `<object> <field> with <other manager>` (the busiest one), while the fight lasts. */
  fight?: string;
  /** A hot loop of it: `<object> at <rate>/s` (the fastest one), while it lasts. */
  hotLoop?: string;
}

export type TimelineEvent = LoaderTaskEvent | SyncIterationEvent | ControllerReconcileEvent | KubeletLineEvent | WritesEvent;
