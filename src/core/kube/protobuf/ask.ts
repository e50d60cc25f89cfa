/**
 * What to ask a server for, by type: protobuf where the walker reads the answer, JSON elsewhere.
 * A list or watch names its type by resource (pods), the protobuf envelope by kind (Pod): the
 * built-in resources with a field set are listed here with their kinds, in the versions whose
 * schema the walker has (a type served in another version is asked for in JSON).
 *
 * ConfigMaps and Secrets are asked for in protobuf only by a reader of rows (`rowsOnly`: the
 * loader): their field sets leave the data out (fieldsets.ts), which a row never reads but another
 * reader of their full objects does (the sync loop's merge sees a data change as an UPDATE), so
 * that reader asks JSON and gets the data.
 */
import type { GroupVersionResource } from '../objects/types';
import { hasFieldSet } from './decode';

/** "group/version/resource" -> kind, for the types of fieldsets.ts. */
const KIND_OF_RESOURCE: Readonly<Record<string, string>> = {
  '/v1/pods': 'Pod',
  '/v1/events': 'Event',
  '/v1/nodes': 'Node',
  '/v1/namespaces': 'Namespace',
  '/v1/services': 'Service',
  '/v1/persistentvolumes': 'PersistentVolume',
  '/v1/persistentvolumeclaims': 'PersistentVolumeClaim',
  '/v1/replicationcontrollers': 'ReplicationController',
  '/v1/serviceaccounts': 'ServiceAccount',
  '/v1/endpoints': 'Endpoints',
  '/v1/resourcequotas': 'ResourceQuota',
  'apps/v1/deployments': 'Deployment',
  'apps/v1/replicasets': 'ReplicaSet',
  'apps/v1/statefulsets': 'StatefulSet',
  'apps/v1/daemonsets': 'DaemonSet',
  'apps/v1/controllerrevisions': 'ControllerRevision',
  'batch/v1/jobs': 'Job',
  'batch/v1/cronjobs': 'CronJob',
  'discovery.k8s.io/v1/endpointslices': 'EndpointSlice',
  'rbac.authorization.k8s.io/v1/roles': 'Role',
  'rbac.authorization.k8s.io/v1/rolebindings': 'RoleBinding',
  'rbac.authorization.k8s.io/v1/clusterroles': 'ClusterRole',
  'rbac.authorization.k8s.io/v1/clusterrolebindings': 'ClusterRoleBinding',
  'coordination.k8s.io/v1/leases': 'Lease',
  'events.k8s.io/v1/events': 'Event',
  'networking.k8s.io/v1/ingresses': 'Ingress',
  'networking.k8s.io/v1/networkpolicies': 'NetworkPolicy',
  'policy/v1/poddisruptionbudgets': 'PodDisruptionBudget',
  'autoscaling/v2/horizontalpodautoscalers': 'HorizontalPodAutoscaler',
  '/v1/limitranges': 'LimitRange',
  'storage.k8s.io/v1/storageclasses': 'StorageClass',
  'storage.k8s.io/v1/csidrivers': 'CSIDriver',
  'scheduling.k8s.io/v1/priorityclasses': 'PriorityClass',
  'node.k8s.io/v1/runtimeclasses': 'RuntimeClass',
  'networking.k8s.io/v1/ingressclasses': 'IngressClass',
  'admissionregistration.k8s.io/v1/validatingwebhookconfigurations': 'ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/mutatingwebhookconfigurations': 'MutatingWebhookConfiguration',
};

/** The kinds whose field sets leave out what only a reader of rows may go without. */
const ROWS_ONLY_KIND_OF_RESOURCE: Readonly<Record<string, string>> = {
  '/v1/configmaps': 'ConfigMap',
  '/v1/secrets': 'Secret',
};

/**
 * Whether full objects of this type are asked for in protobuf (its kind has a field set).
 * `rowsOnly`: the caller reads rows, never a ConfigMap's data or a Secret's values (ListOptions.rowsOnly).
 */
export function readsProtobuf(gvr: GroupVersionResource, rowsOnly = false): boolean {
  const key = `${gvr.group}/${gvr.version}/${gvr.resource}`;
  const kind = KIND_OF_RESOURCE[key] ?? (rowsOnly ? ROWS_ONLY_KIND_OF_RESOURCE[key] : undefined);
  return kind !== undefined && hasFieldSet(gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version, kind);
}
