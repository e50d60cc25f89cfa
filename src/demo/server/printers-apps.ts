/**
 * Printers of the workload and storage types whose rows the tree colours, with the columns and
 * cell values kube-apiserver's printers.go gives them (Kubernetes 1.30+): ReplicaSet and
 * ReplicationController (Desired, Current, Ready as integers), StatefulSet and Deployment (Ready
 * "ready/desired"), DaemonSet, Job (Status, Completions, Duration), CronJob, PersistentVolume and
 * PersistentVolumeClaim (Status is the phase, "Terminating" once deleting). Wide columns
 * (Containers, Images, Selector, VolumeMode) have priority 1.
 */
import type { DemoObject } from '../store';
import { age, ageCol, arr, get, humanDuration, nameCol, type Column, type Obj } from './printers-common';

const int = (v: unknown) => (typeof v === 'number' ? v : 0);
const templateContainers = (o: DemoObject) => arr(get(o, 'spec', 'template', 'spec', 'containers'));
const jobTemplateContainers = (o: DemoObject) => arr(get(o, 'spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers'));

/** metav1.FormatLabelSelector: "k=v,k2 in (a,b)", "<none>" for an empty selector. */
export function formatLabelSelector(sel: unknown): string {
  if (!sel || typeof sel !== 'object') return '<none>';
  const parts: string[] = [];
  for (const [k, v] of Object.entries((get(sel, 'matchLabels') as Obj | undefined) ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    parts.push(`${k}=${String(v)}`);
  for (const e of arr(get(sel, 'matchExpressions'))) {
    const values = (Array.isArray(e.values) ? (e.values as string[]) : []).join(',');
    switch (e.operator) {
      case 'In':
        parts.push(`${String(e.key)} in (${values})`);
        break;
      case 'NotIn':
        parts.push(`${String(e.key)} notin (${values})`);
        break;
      case 'Exists':
        parts.push(String(e.key));
        break;
      case 'DoesNotExist':
        parts.push(`!${String(e.key)}`);
        break;
    }
  }
  return parts.length ? parts.join(',') : '<none>';
}

const wide = (containers: (o: DemoObject) => Obj[], selector?: (o: DemoObject) => unknown): Column[] => [
  {
    name: 'Containers',
    type: 'string',
    priority: 1,
    description: 'Names of each container in the template.',
    cell: (o) =>
      containers(o)
        .map((c) => String(c.name))
        .join(','),
  },
  {
    name: 'Images',
    type: 'string',
    priority: 1,
    description: 'Images referenced by each container in the template.',
    cell: (o) =>
      containers(o)
        .map((c) => String(c.image))
        .join(','),
  },
  ...(selector
    ? [
        {
          name: 'Selector',
          type: 'string' as const,
          priority: 1,
          description: 'A label query over pods that should match the replica count.',
          cell: (o: DemoObject) => formatLabelSelector(selector(o)),
        },
      ]
    : []),
];

export const deploymentColumns: Column[] = [
  nameCol,
  {
    name: 'Ready',
    type: 'string',
    description: 'Number of the pod with ready state',
    cell: (o) => `${int(get(o, 'status', 'readyReplicas'))}/${int(get(o, 'spec', 'replicas'))}`,
  },
  {
    name: 'Up-to-date',
    type: 'integer',
    description: 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
    cell: (o) => int(get(o, 'status', 'updatedReplicas')),
  },
  {
    name: 'Available',
    type: 'integer',
    description: 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
    cell: (o) => int(get(o, 'status', 'availableReplicas')),
  },
  ageCol,
  ...wide(templateContainers, (o) => get(o, 'spec', 'selector')),
];

/** ReplicaSet's and ReplicationController's columns (an RC's selector is a plain map). */
function replicaColumns(selector: (o: DemoObject) => unknown): Column[] {
  return [
    nameCol,
    { name: 'Desired', type: 'integer', description: 'Replicas is the number of desired replicas.', cell: (o) => int(get(o, 'spec', 'replicas')) },
    {
      name: 'Current',
      type: 'integer',
      description: 'Replicas is the most recently observed number of replicas.',
      cell: (o) => int(get(o, 'status', 'replicas')),
    },
    {
      name: 'Ready',
      type: 'integer',
      description: 'readyReplicas is the number of pods targeted by this ReplicaSet with a Ready Condition.',
      cell: (o) => int(get(o, 'status', 'readyReplicas')),
    },
    ageCol,
    ...wide(templateContainers, selector),
  ];
}
export const replicaSetColumns = replicaColumns((o) => get(o, 'spec', 'selector'));
export const replicationControllerColumns = replicaColumns((o) => ({ matchLabels: get(o, 'spec', 'selector') }));

export const statefulSetColumns: Column[] = [
  nameCol,
  {
    name: 'Ready',
    type: 'string',
    description: 'Number of the pod with ready state',
    cell: (o) => `${int(get(o, 'status', 'readyReplicas'))}/${int(get(o, 'spec', 'replicas'))}`,
  },
  ageCol,
  ...wide(templateContainers),
];

export const daemonSetColumns: Column[] = [
  nameCol,
  {
    name: 'Desired',
    type: 'integer',
    description: 'The total number of nodes that should be running the daemon pod.',
    cell: (o) => int(get(o, 'status', 'desiredNumberScheduled')),
  },
  {
    name: 'Current',
    type: 'integer',
    description: 'The number of nodes that are running at least 1 daemon pod.',
    cell: (o) => int(get(o, 'status', 'currentNumberScheduled')),
  },
  {
    name: 'Ready',
    type: 'integer',
    description: 'The number of nodes that should be running the daemon pod and have one or more of it running and ready.',
    cell: (o) => int(get(o, 'status', 'numberReady')),
  },
  {
    name: 'Up-to-date',
    type: 'integer',
    description: 'The total number of nodes that are running updated daemon pod',
    cell: (o) => int(get(o, 'status', 'updatedNumberScheduled')),
  },
  {
    name: 'Available',
    type: 'integer',
    description: 'The number of nodes that should be running the daemon pod and have one or more of it running and available.',
    cell: (o) => int(get(o, 'status', 'numberAvailable')),
  },
  {
    name: 'Node Selector',
    type: 'string',
    description: 'NodeSelector is a selector which must be true for the pod to fit on a node.',
    cell: (o) => formatLabelSelector({ matchLabels: get(o, 'spec', 'template', 'spec', 'nodeSelector') }),
  },
  ageCol,
  ...wide(templateContainers, (o) => get(o, 'spec', 'selector')),
];

const hasCondition = (o: DemoObject, type: string) => arr(get(o, 'status', 'conditions')).some((c) => c.type === type && c.status === 'True');

/** printJob's Status: Complete, Failed, Terminating, Suspended, FailureTarget, SuccessCriteriaMet, else Running. */
export function jobStatus(o: DemoObject): string {
  if (hasCondition(o, 'Complete')) return 'Complete';
  if (hasCondition(o, 'Failed')) return 'Failed';
  if (o.metadata.deletionTimestamp) return 'Terminating';
  if (hasCondition(o, 'Suspended')) return 'Suspended';
  if (hasCondition(o, 'FailureTarget')) return 'FailureTarget';
  if (hasCondition(o, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  return 'Running';
}

function jobCompletions(o: DemoObject): string {
  const succeeded = int(get(o, 'status', 'succeeded'));
  const completions = get(o, 'spec', 'completions');
  if (typeof completions === 'number') return `${succeeded}/${completions}`;
  const parallelism = int(get(o, 'spec', 'parallelism'));
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(o: DemoObject, now: Date): string {
  const start = get(o, 'status', 'startTime');
  if (typeof start !== 'string') return '';
  const end = get(o, 'status', 'completionTime');
  return humanDuration((typeof end === 'string' ? Date.parse(end) : now.getTime()) - Date.parse(start));
}

export const jobColumns: Column[] = [
  nameCol,
  { name: 'Status', type: 'string', description: 'Status of the job.', cell: jobStatus },
  { name: 'Completions', type: 'string', description: 'The desired number of successfully finished pods the job should be run with.', cell: jobCompletions },
  { name: 'Duration', type: 'string', description: 'Time required to complete the job.', cell: jobDuration },
  ageCol,
  ...wide(
    (o) => templateContainers(o),
    (o) => get(o, 'spec', 'selector'),
  ),
];

export const cronJobColumns: Column[] = [
  nameCol,
  { name: 'Schedule', type: 'string', description: 'The schedule in Cron format.', cell: (o) => String(get(o, 'spec', 'schedule') ?? '') },
  { name: 'Timezone', type: 'string', description: 'The time zone name for the given schedule.', cell: (o) => String(get(o, 'spec', 'timeZone') ?? '<none>') },
  {
    name: 'Suspend',
    type: 'boolean',
    description: 'This flag tells the controller to suspend subsequent executions.',
    cell: (o) => {
      const s = get(o, 'spec', 'suspend');
      return typeof s === 'boolean' ? (s ? 'True' : 'False') : '<unset>';
    },
  },
  { name: 'Active', type: 'integer', description: 'A list of pointers to currently running jobs.', cell: (o) => arr(get(o, 'status', 'active')).length },
  {
    name: 'Last Schedule',
    type: 'string',
    description: 'Information when was the last time the job was successfully scheduled.',
    cell: (o, now) => {
      const t = get(o, 'status', 'lastScheduleTime');
      return typeof t === 'string' ? age(t, now) : '<none>';
    },
  },
  ageCol,
  ...wide(jobTemplateContainers, (o) => get(o, 'spec', 'jobTemplate', 'spec', 'selector')),
];

const ACCESS_MODES: [string, string][] = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];
/** helper.GetAccessModesAsString: the short forms, in this fixed order. */
function accessModes(v: unknown): string {
  const modes = Array.isArray(v) ? (v as string[]) : [];
  return ACCESS_MODES.filter(([m]) => modes.includes(m))
    .map(([, s]) => s)
    .join(',');
}
const storageClass = (o: DemoObject) => String(get(o, 'spec', 'storageClassName') ?? o.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? '');
const phaseOrTerminating = (o: DemoObject) => (o.metadata.deletionTimestamp ? 'Terminating' : String(get(o, 'status', 'phase') ?? ''));
const volumeMode: Column = {
  name: 'VolumeMode',
  type: 'string',
  priority: 1,
  description: 'Volume mode.',
  cell: (o) => String(get(o, 'spec', 'volumeMode') ?? '<unset>'),
};
const attributesClass: Column = {
  name: 'VolumeAttributesClass',
  type: 'string',
  description: 'The name of the VolumeAttributesClass.',
  cell: (o) => String(get(o, 'spec', 'volumeAttributesClassName') ?? '<unset>'),
};

export const persistentVolumeColumns: Column[] = [
  nameCol,
  {
    name: 'Capacity',
    type: 'string',
    description: 'capacity is the description of the persistent volume.',
    cell: (o) => String(get(o, 'spec', 'capacity', 'storage') ?? ''),
  },
  {
    name: 'Access Modes',
    type: 'string',
    description: 'accessModes contains all ways the volume can be mounted.',
    cell: (o) => accessModes(get(o, 'spec', 'accessModes')),
  },
  {
    name: 'Reclaim Policy',
    type: 'string',
    description: 'What happens to a persistent volume when released from its claim.',
    cell: (o) => String(get(o, 'spec', 'persistentVolumeReclaimPolicy') ?? ''),
  },
  {
    name: 'Status',
    type: 'string',
    description: 'phase indicates if a volume is available, bound to a claim, or released by a claim.',
    cell: phaseOrTerminating,
  },
  {
    name: 'Claim',
    type: 'string',
    description: 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.',
    cell: (o) => {
      const ref = get(o, 'spec', 'claimRef') as Obj | undefined;
      return ref ? `${String(ref.namespace ?? '')}/${String(ref.name ?? '')}` : '';
    },
  },
  { name: 'StorageClass', type: 'string', description: 'StorageClassName of the volume.', cell: storageClass },
  attributesClass,
  {
    name: 'Reason',
    type: 'string',
    description: 'reason is a brief CamelCase string that describes any failure.',
    cell: (o) => String(get(o, 'status', 'reason') ?? ''),
  },
  ageCol,
  volumeMode,
];

export const persistentVolumeClaimColumns: Column[] = [
  nameCol,
  { name: 'Status', type: 'string', description: 'phase represents the current phase of PersistentVolumeClaim.', cell: phaseOrTerminating },
  {
    name: 'Volume',
    type: 'string',
    description: 'volumeName is the binding reference to the PersistentVolume backing this claim.',
    cell: (o) => String(get(o, 'spec', 'volumeName') ?? ''),
  },
  {
    name: 'Capacity',
    type: 'string',
    description: 'capacity represents the actual resources of the underlying volume.',
    cell: (o) => (get(o, 'spec', 'volumeName') ? String(get(o, 'status', 'capacity', 'storage') ?? '') : ''),
  },
  {
    name: 'Access Modes',
    type: 'string',
    description: 'accessModes contains the actual access modes the volume backing the PVC has.',
    cell: (o) => (get(o, 'spec', 'volumeName') ? accessModes(get(o, 'status', 'accessModes')) : ''),
  },
  { name: 'StorageClass', type: 'string', description: 'storageClassName is the name of the StorageClass required by the claim.', cell: storageClass },
  attributesClass,
  ageCol,
  volumeMode,
];
