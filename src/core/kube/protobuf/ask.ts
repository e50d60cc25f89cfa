/**
 * What to ask a server for, by type: protobuf where the walker reads the answer, JSON elsewhere.
 * A list or watch names its type by resource (pods), the protobuf envelope by kind (Pod): the
 * built-in resources with a field set are listed here with their kinds, in the versions whose
 * schema the walker has (a type served in another version is asked for in JSON).
 *
 * ConfigMaps and Secrets are not among them: their field sets keep metadata only (the loop and the
 * tree watch and list them as PartialObjectMetadata, in protobuf), so a caller that asks for their
 * full objects wants the data, which only JSON then brings.
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
  'apps/v1/deployments': 'Deployment',
  'apps/v1/replicasets': 'ReplicaSet',
  'apps/v1/statefulsets': 'StatefulSet',
  'apps/v1/daemonsets': 'DaemonSet',
  'batch/v1/jobs': 'Job',
  'batch/v1/cronjobs': 'CronJob',
  'discovery.k8s.io/v1/endpointslices': 'EndpointSlice',
};

/** Whether full objects of this type are asked for in protobuf (its kind has a field set). */
export function readsProtobuf(gvr: GroupVersionResource): boolean {
  const kind = KIND_OF_RESOURCE[`${gvr.group}/${gvr.version}/${gvr.resource}`];
  return kind !== undefined && hasFieldSet(gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version, kind);
}
