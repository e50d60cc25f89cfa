/**
 * managedFields of a generated object, as the writers a real cluster has would have left them: a
 * controller's object (a controller ownerReference, a namespace's default ServiceAccount and CA
 * bundle) is kube-controller-manager's, an Event its
 * reporting component's, a Node and a node Lease the kubelet's, anything else its author's
 * (kubectl); a status kept apart (a status subresource) is written by the kubelet for a Node and
 * by kube-controller-manager for the rest. Objects that already carry managedFields (pods, which
 * generate/workloads.ts stores as their create and the kubelet leave them) are left alone.
 */
import { namespaceDefaults } from '../controllers/namespaces';
import { managerOf } from '../kubelet/eventRecorder';
import { statusApart, withUpdateEntry } from '../server/managed-fields';
import { apiVersionOf, type DemoObject, type TypeInfo } from '../store';

type Obj = Record<string, unknown>;

function creator(t: TypeInfo, o: DemoObject): string {
  if (t.resource === 'events' && t.group === '') return managerOf(String((o.source as Obj | undefined)?.component ?? ''));
  if (t.resource === 'nodes' && t.group === '') return 'kubelet';
  if (t.resource === 'leases' && o.metadata.namespace === 'kube-node-lease') return 'kubelet';
  if ((o.metadata.ownerReferences ?? []).some((r) => (r as Obj).controller === true)) return 'kube-controller-manager';
  if (namespaceDefaults(o.metadata.namespace ?? '').some((d) => d.object.kind === o.kind && d.object.metadata.name === o.metadata.name))
    return 'kube-controller-manager';
  return 'kubectl-create';
}

export function withGeneratedFields(t: TypeInfo, o: DemoObject, time: string): DemoObject {
  if (o.metadata.managedFields) return o;
  const apart = statusApart(t);
  const write = { manager: creator(t, o), apiVersion: apiVersionOf(t), time };
  if (!apart || o.status === undefined) return withUpdateEntry(undefined, o, write, apart);
  const { status: _status, ...rest } = o;
  const created = withUpdateEntry(undefined, rest as DemoObject, write, true);
  const statusWriter = t.resource === 'nodes' && t.group === '' ? 'kubelet' : 'kube-controller-manager';
  return withUpdateEntry(created, { ...created, status: o.status }, { ...write, manager: statusWriter, subresource: 'status' }, true);
}
