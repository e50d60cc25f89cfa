/**
 * Server-side printers: the Table columns the apiserver returns for `kubectl get`. Pods, namespaces,
 * nodes and deployments get kubectl's columns (pkg/printers/internalversion/printers.go); every
 * other type gets Name and Age, like upstream's default table convertor and CRDs without printer columns.
 */
import type { KubeObject } from '../store';

export interface Column {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description: string;
  priority?: number;
  cell: (o: KubeObject, now: Date) => unknown;
}

const nameCol: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  cell: (o) => o.metadata.name,
};

const ageCol: Column = {
  name: 'Age',
  type: 'string',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.',
  cell: (o, now) => age(o.metadata.creationTimestamp, now),
};

/** k8s.io/apimachinery/pkg/util/duration.HumanDuration. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const d = Math.floor(hours / 24) % 365;
    return d === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${d}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

function age(ts: string | undefined, now: Date): string {
  if (!ts) return '<unknown>';
  return humanDuration(now.getTime() - Date.parse(ts));
}

type Obj = Record<string, unknown>;
const get = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((c, p) => (c && typeof c === 'object' ? (c as Obj)[p] : undefined), o);
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

/** kubectl's pod Status column: deletion, then container waiting/terminated reasons, then phase. */
export function podStatusReason(pod: KubeObject): string {
  let reason = String(get(pod, 'status', 'reason') ?? get(pod, 'status', 'phase') ?? '') || 'Unknown';
  const init = arr(get(pod, 'status', 'initContainerStatuses'));
  const initCount = arr(get(pod, 'spec', 'initContainers')).length;
  let initializing = false;
  for (let i = 0; i < init.length; i++) {
    const st = init[i]!;
    const term = get(st, 'state', 'terminated') as Obj | undefined;
    const waiting = get(st, 'state', 'waiting') as Obj | undefined;
    if (term && term.exitCode === 0) continue;
    if (term)
      reason = term.reason ? `Init:${String(term.reason)}` : term.signal ? `Init:Signal:${String(term.signal)}` : `Init:ExitCode:${String(term.exitCode)}`;
    else if (waiting && waiting.reason && waiting.reason !== 'PodInitializing') reason = `Init:${String(waiting.reason)}`;
    else reason = `Init:${i}/${initCount}`;
    initializing = true;
    break;
  }
  if (!initializing) {
    let hasRunning = false;
    const cs = arr(get(pod, 'status', 'containerStatuses'));
    for (let i = cs.length - 1; i >= 0; i--) {
      const st = cs[i]!;
      const waiting = get(st, 'state', 'waiting') as Obj | undefined;
      const term = get(st, 'state', 'terminated') as Obj | undefined;
      if (waiting?.reason) reason = String(waiting.reason);
      else if (term?.reason) reason = String(term.reason);
      else if (term) reason = term.signal ? `Signal:${String(term.signal)}` : `ExitCode:${String(term.exitCode)}`;
      else if (get(st, 'state', 'running') && st.ready) hasRunning = true;
    }
    if (reason === 'Completed' && hasRunning) reason = 'Running';
  }
  if (pod.metadata.deletionTimestamp) reason = get(pod, 'status', 'reason') === 'NodeLost' ? 'Unknown' : 'Terminating';
  return reason;
}

function podRestarts(pod: KubeObject, now: Date): string {
  let restarts = 0;
  let last: number | undefined;
  for (const st of [...arr(get(pod, 'status', 'initContainerStatuses')), ...arr(get(pod, 'status', 'containerStatuses'))]) {
    restarts += Number(st.restartCount ?? 0);
    const finished = get(st, 'lastState', 'terminated', 'finishedAt');
    if (typeof finished === 'string') {
      const t = Date.parse(finished);
      if (last === undefined || t > last) last = t;
    }
  }
  return last !== undefined && restarts > 0 ? `${restarts} (${humanDuration(now.getTime() - last)} ago)` : String(restarts);
}

const podColumns: Column[] = [
  nameCol,
  {
    name: 'Ready',
    type: 'string',
    description: 'The aggregate readiness state of this pod for accepting traffic.',
    cell: (o) => {
      const cs = arr(get(o, 'status', 'containerStatuses'));
      const total = arr(get(o, 'spec', 'containers')).length;
      return `${cs.filter((c) => c.ready === true).length}/${total}`;
    },
  },
  { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.', cell: (o) => podStatusReason(o) },
  {
    name: 'Restarts',
    type: 'string',
    description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    cell: podRestarts,
  },
  ageCol,
  {
    name: 'IP',
    type: 'string',
    priority: 1,
    description: 'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
    cell: (o) => String(get(o, 'status', 'podIP') ?? '<none>'),
  },
  {
    name: 'Node',
    type: 'string',
    priority: 1,
    description: 'NodeName is a request to schedule this pod onto a specific node.',
    cell: (o) => String(get(o, 'spec', 'nodeName') ?? '<none>'),
  },
  {
    name: 'Nominated Node',
    type: 'string',
    priority: 1,
    description: 'nominatedNodeName is set only when this pod preempts other pods on the node.',
    cell: (o) => String(get(o, 'status', 'nominatedNodeName') ?? '<none>'),
  },
  {
    name: 'Readiness Gates',
    type: 'string',
    priority: 1,
    description: 'If specified, all readiness gates will be evaluated for pod readiness.',
    cell: (o) => (arr(get(o, 'spec', 'readinessGates')).length ? String(arr(get(o, 'spec', 'readinessGates')).length) : '<none>'),
  },
];

const namespaceColumns: Column[] = [
  nameCol,
  { name: 'Status', type: 'string', description: 'The status of the namespace', cell: (o) => String(get(o, 'status', 'phase') ?? 'Active') },
  ageCol,
];

const nodeColumns: Column[] = [
  nameCol,
  {
    name: 'Status',
    type: 'string',
    description: 'The status of the node',
    cell: (o) => {
      const ready = arr(get(o, 'status', 'conditions')).find((c) => c.type === 'Ready');
      const s = ready?.status === 'True' ? 'Ready' : 'NotReady';
      return get(o, 'spec', 'unschedulable') ? `${s},SchedulingDisabled` : s;
    },
  },
  {
    name: 'Roles',
    type: 'string',
    description: 'The roles of the node',
    cell: (o) => {
      const roles = Object.keys(o.metadata.labels ?? {})
        .filter((k) => k.startsWith('node-role.kubernetes.io/'))
        .map((k) => k.slice('node-role.kubernetes.io/'.length));
      return roles.length ? roles.sort().join(',') : '<none>';
    },
  },
  ageCol,
  {
    name: 'Version',
    type: 'string',
    description: 'Kubelet Version reported by the node.',
    cell: (o) => String(get(o, 'status', 'nodeInfo', 'kubeletVersion') ?? ''),
  },
];

const deploymentColumns: Column[] = [
  nameCol,
  {
    name: 'Ready',
    type: 'string',
    description: 'Number of the pod with ready state',
    cell: (o) => `${Number(get(o, 'status', 'readyReplicas') ?? 0)}/${Number(get(o, 'spec', 'replicas') ?? 1)}`,
  },
  {
    name: 'Up-to-date',
    type: 'integer',
    description: 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
    cell: (o) => Number(get(o, 'status', 'updatedReplicas') ?? 0),
  },
  {
    name: 'Available',
    type: 'integer',
    description: 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
    cell: (o) => Number(get(o, 'status', 'availableReplicas') ?? 0),
  },
  ageCol,
];

const dataCount = (o: KubeObject) => Object.keys((o.data as Obj | undefined) ?? {}).length + Object.keys((o.binaryData as Obj | undefined) ?? {}).length;

const configMapColumns: Column[] = [nameCol, { name: 'Data', type: 'integer', description: 'Data contains the configuration data.', cell: dataCount }, ageCol];

const secretColumns: Column[] = [
  nameCol,
  { name: 'Type', type: 'string', description: 'Used to facilitate programmatic handling of secret data.', cell: (o) => String(o.type ?? 'Opaque') },
  { name: 'Data', type: 'integer', description: 'Data contains the secret data.', cell: dataCount },
  ageCol,
];

/** kubectl's Event columns: the newest of lastTimestamp / eventTime / creation, as an age. */
const eventColumns: Column[] = [
  {
    name: 'Last Seen',
    type: 'string',
    description: 'The time at which the most recent occurrence of this event was recorded.',
    cell: (o, now) =>
      age(String(get(o, 'lastTimestamp') ?? get(o, 'eventTime') ?? get(o, 'series', 'lastObservedTime') ?? o.metadata.creationTimestamp ?? ''), now),
  },
  {
    name: 'Type',
    type: 'string',
    description: 'Type of this event (Normal, Warning), new types could be added in the future.',
    cell: (o) => String(get(o, 'type') ?? ''),
  },
  {
    name: 'Reason',
    type: 'string',
    description: "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    cell: (o) => String(get(o, 'reason') ?? ''),
  },
  {
    name: 'Object',
    type: 'string',
    description: 'The object that this event is about.',
    cell: (o) => `${String(get(o, 'involvedObject', 'kind') ?? '').toLowerCase()}/${String(get(o, 'involvedObject', 'name') ?? '')}`,
  },
  {
    name: 'Message',
    type: 'string',
    description: 'A human-readable description of the status of this operation.',
    cell: (o) => String(get(o, 'message') ?? ''),
  },
];

export function tableColumns(group: string, resource: string): Column[] {
  switch (`${group}/${resource}`) {
    case '/events':
      return eventColumns;
    case '/configmaps':
      return configMapColumns;
    case '/secrets':
      return secretColumns;
    case '/pods':
      return podColumns;
    case '/namespaces':
      return namespaceColumns;
    case '/nodes':
      return nodeColumns;
    case 'apps/deployments':
      return deploymentColumns;
    default:
      return [nameCol, ageCol];
  }
}
