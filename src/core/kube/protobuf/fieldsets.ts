/**
 * What the walker keeps of each kind: the fields KubeLoop reads, and no others. To keep one more
 * field, name it here (JSON names, nested as in JSON; plan.ts says how a pick reads); a name the
 * kind does not have fails at load. Every kind drops metadata.managedFields, as the JSON path does.
 *
 * Who reads what (besides the row view's name, namespace, uid, resourceVersion, deletionTimestamp):
 * - The sync loop's config merge (syncloop/config/storage.ts podsDifferSemantically) compares
 *   labels, annotations, deletionTimestamp, deletionGracePeriodSeconds and every top-level field
 *   but metadata and status: for a kind whose spec is cut here, a change of a field left out is not
 *   an UPDATE. Such kinds keep metadata.generation, which the API server raises on every spec change.
 * - Status is compared whole for RECONCILE (checkAndUpdatePod): kinds keep their status whole
 *   (a Node's image list excepted: hundreds of entries, read by nothing).
 */
import type { Pick } from './plan';

/**
 * ObjectMeta without managedFields (server-side apply's bookkeeping, often half an object's bytes)
 * and selfLink (unset since 1.20). name, namespace, uid, resourceVersion: keys, views, the
 * consistency lists; creationTimestamp: pods' order (syncloop.ts); deletionTimestamp,
 * deletionGracePeriodSeconds: views, pod workers, sinks; labels, annotations: the merge;
 * generation: spec changes of kinds whose spec is cut; ownerReferences, finalizers: small, kept
 * for the recorder's and the YAML view's readers.
 */
const OBJECT_META: Pick = { '*': true, managedFields: false, selfLink: false };

/**
 * A pod's container, as the loop reads it: name (statuses by name), probes (prober/infer.ts
 * thresholds, podstatus.ts), restartPolicy (sidecars: view.ts, podstatus.ts), ports (named probe
 * ports), and the fields a pod update may change (image; resources, resized in place), so a
 * change of them stays an UPDATE.
 */
const CONTAINER: Pick = {
  name: true,
  image: true,
  ports: true,
  livenessProbe: true,
  readinessProbe: true,
  startupProbe: true,
  restartPolicy: true,
  resources: true,
};

/**
 * Pods. spec: nodeName (node.ts, the node's pods), containers and initContainers (above),
 * ephemeralContainers' names (statuses), readinessGates (podstatus.ts), restartPolicy,
 * terminationGracePeriodSeconds (podworkers.ts), activeDeadlineSeconds (podstatus.ts), and the
 * other fields a pod update may change (tolerations, schedulingGates). status: whole (phase,
 * conditions, every container status field, reason, message, IPs, startTime: views, PLEG, probes,
 * podstatus.ts).
 */
const POD: Pick = {
  metadata: OBJECT_META,
  spec: {
    nodeName: true,
    containers: CONTAINER,
    initContainers: CONTAINER,
    ephemeralContainers: { name: true, image: true },
    readinessGates: true,
    restartPolicy: true,
    terminationGracePeriodSeconds: true,
    activeDeadlineSeconds: true,
    tolerations: true,
    schedulingGates: true,
  },
  status: true,
};

/**
 * core/v1 Events: whole (involvedObject, reason, message, type, count, first/lastTimestamp,
 * eventTime, source, series, reportingComponent: prober/events.ts, infer.ts; every field is
 * top-level, so all of them are the merge's).
 */
const EVENT: Pick = { '*': true, metadata: OBJECT_META };

/** A kind read whole but for managedFields: small objects whose every field is the merge's. */
const WHOLE: Pick = { '*': true, metadata: OBJECT_META };

/**
 * Workloads: spec without the pod template (the view reads spec.replicas; the template is most of
 * the object), status whole (readyReplicas and the rest: views, RECONCILE).
 */
const WORKLOAD: Pick = { metadata: OBJECT_META, spec: { '*': true, template: false }, status: true };
const STATEFUL_SET: Pick = { metadata: OBJECT_META, spec: { '*': true, template: false, volumeClaimTemplates: false }, status: true };
const CRON_JOB: Pick = { metadata: OBJECT_META, spec: { '*': true, jobTemplate: false }, status: true };

/** Nodes: the row is name and state; status without images (the node's image list). */
const NODE: Pick = { metadata: OBJECT_META, spec: true, status: { '*': true, images: false } };

/**
 * ConfigMaps and Secrets, for the loader's rows only (ask.ts: full objects of them are otherwise
 * asked for in JSON, data and all). ConfigMap (core/v1 generated.proto): 1 metadata, 2 data,
 * 3 binaryData, 4 immutable; Secret: 1 metadata, 2 data, 3 type, 4 stringData, 5 immutable.
 * data, binaryData and stringData are skipped by their length, keys and values alike: never decoded
 * to a string, so a Secret's values reach no object and no cache (walk.ts, reader.ts). Their keys
 * are not counted either: no row reads them (rows/objectView.ts and rows/packedRows.ts keep name,
 * namespace, uid, resourceVersion, deletion, kind; nothing of data), and what the JSON path keeps
 * beyond the row is read by nothing the loader feeds (the YAML view fetches the object fresh).
 */
const CONFIG_MAP: Pick = { metadata: OBJECT_META, immutable: true };
const SECRET: Pick = { metadata: OBJECT_META, type: true, immutable: true };

/**
 * ControllerRevisions (apps/v1: 1 metadata, 2 data, 3 revision): data is a RawExtension holding a
 * whole pod template (most of the object), immutable once written (apps validation,
 * ValidateControllerRevisionUpdate), so leaving it out hides no UPDATE from the merge.
 */
const CONTROLLER_REVISION: Pick = { metadata: OBJECT_META, data: false, revision: true };

/** PartialObjectMetadata: what a metadata-only list or watch gives of any type, custom resources included. */
const PARTIAL: Pick = { metadata: OBJECT_META };

/** By "apiVersion/kind" (the protobuf envelope's type): the kinds the walker reads. */
export const FIELD_SETS: Readonly<Record<string, Pick>> = {
  'v1/Pod': POD,
  'v1/Event': EVENT,
  'v1/Node': NODE,
  'v1/Namespace': WHOLE,
  'v1/Service': WHOLE,
  'v1/ConfigMap': CONFIG_MAP,
  'v1/Secret': SECRET,
  'v1/PersistentVolume': WHOLE,
  'v1/PersistentVolumeClaim': WHOLE,
  'v1/ReplicationController': WORKLOAD,
  'apps/v1/Deployment': WORKLOAD,
  'apps/v1/ReplicaSet': WORKLOAD,
  'apps/v1/StatefulSet': STATEFUL_SET,
  'apps/v1/DaemonSet': WORKLOAD,
  'batch/v1/Job': WORKLOAD,
  'batch/v1/CronJob': CRON_JOB,
  'discovery.k8s.io/v1/EndpointSlice': WHOLE,
  // Small kinds read whole (every field is the merge's): core/v1 ServiceAccount { 1 metadata,
  // 2 secrets, 3 imagePullSecrets, 4 automountServiceAccountToken }, Endpoints { 1 metadata,
  // 2 subsets }, ResourceQuota { 1 metadata, 2 spec, 3 status }; rbac/v1 Role { 1 metadata, 2 rules },
  // ClusterRole { 1 metadata, 2 rules, 3 aggregationRule }, RoleBinding and ClusterRoleBinding
  // { 1 metadata, 2 subjects, 3 roleRef }; coordination/v1 Lease { 1 metadata, 2 spec };
  // events/v1 Event (involved object as `regarding`); networking/v1 Ingress, NetworkPolicy;
  // policy/v1 PodDisruptionBudget; autoscaling/v2 HorizontalPodAutoscaler. Their managedFields,
  // often most of such an object's bytes, are skipped by length.
  'v1/ServiceAccount': WHOLE,
  'v1/Endpoints': WHOLE,
  'v1/ResourceQuota': WHOLE,
  'rbac.authorization.k8s.io/v1/Role': WHOLE,
  'rbac.authorization.k8s.io/v1/RoleBinding': WHOLE,
  'rbac.authorization.k8s.io/v1/ClusterRole': WHOLE,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': WHOLE,
  'coordination.k8s.io/v1/Lease': WHOLE,
  'events.k8s.io/v1/Event': WHOLE,
  'networking.k8s.io/v1/Ingress': WHOLE,
  'networking.k8s.io/v1/NetworkPolicy': WHOLE,
  'policy/v1/PodDisruptionBudget': WHOLE,
  'autoscaling/v2/HorizontalPodAutoscaler': WHOLE,
  'apps/v1/ControllerRevision': CONTROLLER_REVISION,
  // The rest of the built-in kinds a cluster serves in numbers, read whole but for managedFields
  // (their every field is the merge's): core/v1 LimitRange { 1 metadata, 2 spec }; storage.k8s.io/v1 StorageClass, CSIDriver; scheduling.k8s.io/v1
  // PriorityClass; node.k8s.io/v1 RuntimeClass; networking.k8s.io/v1 IngressClass;
  // admissionregistration.k8s.io/v1 Validating- and MutatingWebhookConfiguration (caBundle: bytes,
  // base64 as in JSON).
  'v1/LimitRange': WHOLE,
  'storage.k8s.io/v1/StorageClass': WHOLE,
  'storage.k8s.io/v1/CSIDriver': WHOLE,
  'scheduling.k8s.io/v1/PriorityClass': WHOLE,
  'node.k8s.io/v1/RuntimeClass': WHOLE,
  'networking.k8s.io/v1/IngressClass': WHOLE,
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': WHOLE,
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': WHOLE,
  'meta.k8s.io/v1/PartialObjectMetadata': PARTIAL,
  // what an error answer (and a watch's ERROR event) carries, whole
  'v1/Status': true,
};
