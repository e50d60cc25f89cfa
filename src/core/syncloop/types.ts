/**
 * The messages that flow through the sync loop, named after the kubelet's
 * (pkg/kubelet/types PodUpdate, pkg/kubelet/pleg PodLifecycleEvent, pkg/kubelet/prober/results Update),
 * and the kind-specific shapes (Pod, Event) of the core/kube objects they carry.
 *
 * Objects are plain JSON as the API server sends them (timestamps are RFC 3339 strings). The loop
 * handles any kind; pods get the pod-specific treatment (PLEG, probes, the kubectl STATUS view).
 */

import type { StoredObject } from '../kube/types';

/**
 * The loop's objects: the core/kube wire type as the API server stores it (name and uid set),
 * narrowed once by asStoredObject where objects enter the loop (the reflector and its consistency check).
 */
export type KubeObject = StoredObject;

export interface ContainerStateWaiting {
  reason?: string;
  message?: string;
}
export interface ContainerStateRunning {
  startedAt?: string;
}
export interface ContainerStateTerminated {
  exitCode: number;
  signal?: number;
  reason?: string;
  message?: string;
  containerID?: string;
  startedAt?: string;
  finishedAt?: string;
}
export interface ContainerState {
  waiting?: ContainerStateWaiting;
  running?: ContainerStateRunning;
  terminated?: ContainerStateTerminated;
}
export interface ContainerStatus {
  name: string;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  containerID?: string;
  image?: string;
  state?: ContainerState;
  lastState?: ContainerState;
}
export interface Probe {
  [k: string]: unknown;
}
export interface Container {
  name: string;
  image?: string;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  /** 'Always' on an init container makes it a sidecar (restartable init container). */
  restartPolicy?: string;
  [k: string]: unknown;
}
export interface PodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  nodeName?: string;
  [k: string]: unknown;
}
export interface PodStatus {
  phase?: string;
  reason?: string;
  message?: string;
  conditions?: PodCondition[];
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
  [k: string]: unknown;
}
export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

/** core/v1 Event, the fields probe inference reads. */
export interface KubeEvent extends KubeObject {
  involvedObject: { kind?: string; namespace?: string; name?: string; uid?: string; fieldPath?: string };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  /** events.k8s.io style series (newer recorders); count lives here when present. */
  series?: { count?: number };
  /** When the last occurrence was recorded (RFC 3339, second precision). */
  lastTimestamp?: string;
  eventTime?: string | null;
}

/** Upstream kubetypes.PodOperation. */
export type PodOperation = 'ADD' | 'UPDATE' | 'REMOVE' | 'RECONCILE' | 'DELETE' | 'SET';

/**
 * One message on configCh. `source` names the config source (upstream: file, http, api; here: one
 * watch per loaded resource type, e.g. "api" for pods). `resource` says which type the objects are.
 */
export interface PodUpdate {
  pods: KubeObject[];
  op: PodOperation;
  source: string;
  resource?: ResourceRef;
}

export interface ResourceRef {
  group: string; // '' = core
  resource: string; // plural, e.g. 'pods'
}

export const PODS: ResourceRef = Object.freeze({ group: '', resource: 'pods' });

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

/** The key everything in the loop is indexed by: "namespace/name" for pods (as klog.KObj prints it),
 * "resource[.group]:namespace/name" for other types (':' never occurs in a namespace name). */
export function objectKey(obj: KubeObject, resource: ResourceRef = PODS): string {
  const ns = obj.metadata.namespace;
  const nn = ns ? `${ns}/${obj.metadata.name}` : obj.metadata.name;
  if (resource.group === '' && resource.resource === 'pods') return nn;
  return `${resource.group ? `${resource.resource}.${resource.group}` : resource.resource}:${nn}`;
}

export function isPodResource(resource: ResourceRef | undefined): boolean {
  return !resource || (resource.group === '' && resource.resource === 'pods');
}

/** Every container status a pod reports: init, regular and ephemeral containers. */
export function allContainerStatuses(pod: Pod | undefined): ContainerStatus[] {
  const s = pod?.status;
  return [...(s?.initContainerStatuses ?? []), ...(s?.containerStatuses ?? []), ...(s?.ephemeralContainerStatuses ?? [])];
}
