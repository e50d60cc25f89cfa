/**
 * Server-side printers: the Table columns the apiserver returns for `kubectl get`. Pods, namespaces,
 * nodes, workloads (deployments, replicasets, replicationcontrollers, statefulsets, daemonsets,
 * jobs, cronjobs), volumes and claims, configmaps, secrets and events get the columns and cell
 * values of kube-apiserver's printers (pkg/printers/internalversion/printers.go); every other type
 * gets Name and Age, like upstream's default table convertor and CRDs without printer columns.
 */
import type { DemoObject } from '../store';
import { age, ageCol, arr, get, nameCol, type Column, type Obj } from './printers-common';
import { podColumns, podRowConditions } from './printers-pod';
import {
  cronJobColumns,
  daemonSetColumns,
  deploymentColumns,
  jobColumns,
  persistentVolumeClaimColumns,
  persistentVolumeColumns,
  replicaSetColumns,
  replicationControllerColumns,
  statefulSetColumns,
} from './printers-apps';

export type { Column } from './printers-common';
export { humanDuration } from './printers-common';
export { podStatusReason } from './printers-pod';

const namespaceColumns: Column[] = [
  nameCol,
  { name: 'Status', type: 'string', description: 'The status of the namespace', cell: (o) => String(get(o, 'status', 'phase') ?? '') },
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

const dataCount = (o: DemoObject) => Object.keys((o.data as Obj | undefined) ?? {}).length + Object.keys((o.binaryData as Obj | undefined) ?? {}).length;

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
    case 'apps/replicasets':
      return replicaSetColumns;
    case 'apps/statefulsets':
      return statefulSetColumns;
    case 'apps/daemonsets':
      return daemonSetColumns;
    case '/replicationcontrollers':
      return replicationControllerColumns;
    case 'batch/jobs':
      return jobColumns;
    case 'batch/cronjobs':
      return cronJobColumns;
    case '/persistentvolumes':
      return persistentVolumeColumns;
    case '/persistentvolumeclaims':
      return persistentVolumeClaimColumns;
    default:
      return [nameCol, ageCol];
  }
}

/** A row's conditions (metav1.TableRowCondition): only pods have them upstream. */
export function rowConditions(group: string, resource: string, o: DemoObject): Obj[] | undefined {
  return group === '' && resource === 'pods' ? podRowConditions(o) : undefined;
}
