/**
 * The ObjectView of an object the tree loaded without its spec and status: from a server-side
 * Table row (cells by column name + the row's PartialObjectMetadata) or from metadata alone. The
 * result is the view computeObjectView gives for the full object, field for field, except where a
 * printer hides a value (stated below); `treeTransferFor` says per type which form keeps that true.
 *
 * What the full view reads, and where a row finds it (columns as kube-apiserver's printers.go prints them):
 * - every type: name, namespace, uid, resourceVersion, deletionTimestamp (deleting, Terminating): the
 *   row's metadata. kind: the type's kind from discovery (a typed list's items carry it the same way).
 * - pods: READY "ready/total", STATUS (kubectl's reason), RESTARTS ("3" or "3 (5m ago)"): the Ready,
 *   Status and Restarts cells. status.phase has no column: Succeeded / Failed come from the row's
 *   Completed condition (printPod sets it on terminal pods); otherwise the phase is the Status cell
 *   when that is a phase, Pending for the reasons of a pod whose containers never started (Init:*,
 *   ContainerCreating, image pull failures...) when no container restarted, else Running. The one
 *   case this can get wrong is a deleting pod (Terminating, or Unknown for a lost node, hides the
 *   phase): taken as Running, the phase of nearly every pod being deleted. The tree never shows a
 *   pod's phase (objectStatus.ts).
 * - deployments, statefulsets: ready = the Ready cell ("readyReplicas/spec.replicas").
 *   replicasets, replicationcontrollers: ready = "Ready/Desired".
 * - namespaces: phase = the Status cell. persistentvolumes, persistentvolumeclaims: phase = the
 *   Status cell, which reads "Terminating" once deleting: then the phase is left out (the row shows
 *   Terminating either way: a deleting row's tone and text ignore the phase).
 * - every other built-in listed in METADATA_TYPES: the view has neither phase nor ready (no
 *   status.phase, no spec.replicas in its API), so metadata alone gives the whole view.
 * - anything else (custom resources, aggregated APIs, built-ins not listed): full objects, since a
 *   view may read status.phase or spec.replicas that its printer columns need not show.
 */
import type { ListTransfer } from '../kube/listwatch/list';
import { TableColumnError, tableRowOf, type TableRowCells } from '../kube/listwatch/table';
import type { StoredObject } from '../kube/objects/types';
import type { ResourceRef } from '../kube/objects/objectKey';
import { fullObjectRow, makeView, type ObjectView, type RowSink } from './objectView';

type Rule = 'pod' | 'readyCell' | 'readyOfDesired' | 'phase' | 'phaseUnlessDeleting';

/** Types whose row comes from their Table: `group/resource` -> how. */
export const TABLE_TYPES: Readonly<Record<string, Rule>> = {
  '/pods': 'pod',
  'apps/deployments': 'readyCell',
  'apps/statefulsets': 'readyCell',
  'apps/replicasets': 'readyOfDesired',
  '/replicationcontrollers': 'readyOfDesired',
  '/namespaces': 'phase',
  '/persistentvolumes': 'phaseUnlessDeleting',
  '/persistentvolumeclaims': 'phaseUnlessDeleting',
};

/**
 * Built-in types with no status.phase and no spec.replicas in their API (Kubernetes 1.36): their view
 * is name and Active/Terminating, which metadata gives. (Node's status.phase is deprecated and unset
 * by every kubelet since 1.x; a node row shows no phase.)
 */
export const METADATA_TYPES: ReadonlySet<string> = new Set([
  '/bindings',
  '/componentstatuses',
  '/configmaps',
  '/endpoints',
  '/events',
  '/limitranges',
  '/nodes',
  '/podtemplates',
  '/resourcequotas',
  '/secrets',
  '/serviceaccounts',
  '/services',
  'apps/controllerrevisions',
  'apps/daemonsets',
  'batch/jobs',
  'batch/cronjobs',
  'autoscaling/horizontalpodautoscalers',
  'policy/poddisruptionbudgets',
  'networking.k8s.io/ingresses',
  'networking.k8s.io/ingressclasses',
  'networking.k8s.io/networkpolicies',
  'networking.k8s.io/ipaddresses',
  'networking.k8s.io/servicecidrs',
  'rbac.authorization.k8s.io/roles',
  'rbac.authorization.k8s.io/rolebindings',
  'rbac.authorization.k8s.io/clusterroles',
  'rbac.authorization.k8s.io/clusterrolebindings',
  'storage.k8s.io/storageclasses',
  'storage.k8s.io/csidrivers',
  'storage.k8s.io/csinodes',
  'storage.k8s.io/csistoragecapacities',
  'storage.k8s.io/volumeattachments',
  'storage.k8s.io/volumeattributesclasses',
  'discovery.k8s.io/endpointslices',
  'events.k8s.io/events',
  'coordination.k8s.io/leases',
  'node.k8s.io/runtimeclasses',
  'scheduling.k8s.io/priorityclasses',
  'admissionregistration.k8s.io/mutatingwebhookconfigurations',
  'admissionregistration.k8s.io/validatingwebhookconfigurations',
  'admissionregistration.k8s.io/validatingadmissionpolicies',
  'admissionregistration.k8s.io/validatingadmissionpolicybindings',
  'apiextensions.k8s.io/customresourcedefinitions',
  'apiregistration.k8s.io/apiservices',
  'certificates.k8s.io/certificatesigningrequests',
  'flowcontrol.apiserver.k8s.io/flowschemas',
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
]);

const typeId = (r: ResourceRef) => `${r.group}/${r.resource}`;

/** The smallest transfer that keeps this type's tree row right (the rule above). */
export function treeTransferFor(r: ResourceRef): ListTransfer {
  const id = typeId(r);
  if (id in TABLE_TYPES) return 'table';
  return METADATA_TYPES.has(id) ? 'metadata' : 'full';
}

function cell(row: TableRowCells, name: string, r: ResourceRef): unknown {
  if (!(name in row.cells)) {
    throw new TableColumnError(`the ${typeId(r)} Table has no "${name}" column (columns: ${Object.keys(row.cells).join(', ')}); listed as full objects`);
  }
  return row.cells[name];
}

const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** "3", 3 or "3 (5m ago)" (kube-apiserver 1.28+) -> 3. */
export function restartCount(v: unknown): number {
  if (typeof v === 'number') return v;
  const m = /^\s*(\d+)/.exec(str(v));
  return m ? Number(m[1]) : 0;
}

const NEVER_STARTED = new Set([
  'Pending',
  'ContainerCreating',
  'PodInitializing',
  'SchedulingGated',
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
]);
const PHASES = new Set(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']);

/** A pod's status.phase as its row implies it (see the header for the one case it cannot tell). */
export function podPhaseFromRow(status: string, restarts: number, row: TableRowCells, deleting = false): string {
  const done = row.conditions?.find((c) => c.type === 'Completed' && c.status === 'True');
  if (done?.reason === 'Succeeded' || done?.reason === 'Failed') return done.reason;
  // Deleting: Terminating (or Unknown, a lost node) stands where the phase would.
  if (deleting && (status === 'Terminating' || status === 'Unknown')) return 'Running';
  if (PHASES.has(status) && status !== 'Succeeded' && status !== 'Failed') return status;
  if (status.startsWith('Init:') || (NEVER_STARTED.has(status) && restarts === 0)) return 'Pending';
  return 'Running';
}

/**
 * The view of a loaded item: from its Table row when it has one, else from what it holds (a full
 * object, or metadata alone for a METADATA_TYPES type). `kind` is the type's kind (discovery).
 * Throws TableColumnError when the row lacks a column its rule reads.
 */
export function viewOfLoaded(key: string, obj: StoredObject, r: ResourceRef, kind: string): ObjectView {
  return rowOfLoaded(obj, r, kind, { row: (m, k, status, cols) => makeView(key, m, k, status, cols) });
}

/** viewOfLoaded's fields given to `sink` (a view, or packed words), read once from the item. */
export function rowOfLoaded<T>(obj: StoredObject, r: ResourceRef, kind: string, sink: RowSink<T>): T {
  const row = tableRowOf(obj);
  if (!row) return fullObjectRow(obj, r, kind, sink);
  const m = obj.metadata;
  const deleting = m.deletionTimestamp != null;
  const rule = TABLE_TYPES[typeId(r)];
  if (rule === 'pod') {
    const status = str(cell(row, 'Status', r));
    const restarts = restartCount(cell(row, 'Restarts', r));
    const phase = podPhaseFromRow(status, restarts, row, deleting);
    return sink.row(m, kind, status, { phase: phase || undefined, ready: str(cell(row, 'Ready', r)), restarts });
  }
  const status = deleting ? 'Terminating' : 'Active';
  switch (rule) {
    case 'readyCell':
      return sink.row(m, kind, status, { ready: str(cell(row, 'Ready', r)) });
    case 'readyOfDesired':
      return sink.row(m, kind, status, { ready: `${str(cell(row, 'Ready', r)) || 0}/${str(cell(row, 'Desired', r))}` });
    case 'phase':
    case 'phaseUnlessDeleting': {
      const phase = str(cell(row, 'Status', r));
      if (phase && !(rule === 'phaseUnlessDeleting' && deleting)) return sink.row(m, kind, deleting ? status : phase, { phase });
      return sink.row(m, kind, status);
    }
    default:
      // A type without a rule loaded as a Table (treeTransfer: table for every type): name and state only.
      return sink.row(m, kind, status);
  }
}
