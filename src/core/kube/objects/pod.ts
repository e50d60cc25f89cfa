/**
 * The Pod and Event shapes KubeLoop reads (the fields of core/v1 the loop, the rows and the probe
 * inference use; a server may leave any of them out). Like every StoredObject, they are the objects
 * as the API server sent them, narrowed, never copied.
 */
import type { StoredObject } from './types';

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
export interface Pod extends StoredObject {
  spec?: PodSpec;
  status?: PodStatus;
}

/** core/v1 Event, the fields probe inference reads. */
export interface KubeEvent extends StoredObject {
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

/** Every container status a pod reports: init, regular and ephemeral containers. */
export function allContainerStatuses(pod: Pod | undefined): ContainerStatus[] {
  const s = pod?.status;
  return [...(s?.initContainerStatuses ?? []), ...(s?.containerStatuses ?? []), ...(s?.ephemeralContainerStatuses ?? [])];
}
