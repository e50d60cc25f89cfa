/**
 * The messages that flow through the sync loop, named after the kubelet's
 * (pkg/kubelet/types PodUpdate, pkg/kubelet/pleg PodLifecycleEvent, pkg/kubelet/prober/results Update).
 * The objects they carry are core/kube's (Pod and Event shapes: core/kube/objects/pod.ts).
 *
 * Objects are plain JSON as the API server sends them (timestamps are RFC 3339 strings). The loop
 * handles any kind; pods get the pod-specific treatment (PLEG, probes, the kubectl STATUS view).
 */

import type { ResourceRef } from '../kube/objects/objectKey';
import type { StoredObject } from '../kube/objects/types';

/** Upstream kubetypes.PodOperation. */
export type PodOperation = 'ADD' | 'UPDATE' | 'REMOVE' | 'RECONCILE' | 'DELETE' | 'SET';

/**
 * One message on configCh. `source` names the config source (upstream: file, http, api; here: one
 * watch per loaded resource type, e.g. "api" for pods). `resource` says which type the objects are.
 */
export interface PodUpdate {
  pods: StoredObject[];
  op: PodOperation;
  source: string;
  resource?: ResourceRef;
}

/** Upstream pleg.PodLifeCycleEventType. */
export type PodLifecycleEventType = 'ContainerStarted' | 'ContainerDied' | 'ContainerRemoved' | 'ContainerChanged' | 'PodSync';

/** One message on plegCh: ID is the pod UID, Data the container ID. */
export interface PodLifecycleEvent {
  id: string;
  type: PodLifecycleEventType;
  data: string;
  /**
   * Ours: on ContainerDied, why it died (exit code, reason, cause), read from the status that
   * reported it when the event was made (the loop's copy of the pod may not show it yet).
   */
  exit?: string;
  /** Ours: on ContainerDied, the container's name, read from the same status as `exit`. */
  container?: string;
  /**
   * Ours: the workstation did not see what the event says and inferred it: a container of a pod
   * that vanished while running (ContainerDied), a sandbox read from the PodReadyToStartContainers
   * condition (its ID is not in the API).
   */
  inferred?: boolean;
}

export type ProbeType = 'liveness' | 'readiness' | 'startup';
export type ProbeResult = 'Success' | 'Failure' | 'Unknown';

/** One message on a probe results channel (upstream proberesults.Update). */
export interface ProbeUpdate {
  containerId: string;
  result: ProbeResult;
  podUID: string;
  probe: ProbeType;
  /** Ours: the container's name, read when the result was made (its ID may be newer than the loop's copy of the pod). */
  container?: string;
  /** What the inference saw (an Event message, a flag change); for logs only. */
  message?: string;
  /** True when the workstation inferred the result (a kubelet would know it): see prober/infer.ts. */
  inferred?: boolean;
}
