/**
 * The kubelet's admission (pkg/kubelet/lifecycle predicateAdmitHandler, GeneralPredicates), the
 * part the demo plays: a pod bound to a node whose labels its nodeSelector or required node
 * affinity does not match is rejected with reason NodeAffinity and upstream's message, so its
 * status reads as a real kubelet writes it: phase Failed, the reason, "Pod was rejected: <message>".
 *
 * Resources (OutOfcpu, OutOfmemory, OutOfpods) are not checked: the demo's scheduler places pods
 * without counting requests, and its generated clusters over-commit their nodes, so a resource
 * check here would reject what the demo's own scheduler placed. The demo's scheduler filters
 * nodes with the same predicate (matchesNode), so only a pod bound by hand is ever rejected.
 *
 * Pure: the node is passed in.
 */
import type { DemoObject } from '../store';

export interface Rejection {
  reason: string;
  message: string;
}

type Obj = Record<string, any>;

/** undefined: admitted; else why not. */
export function admit(pod: DemoObject, node: DemoObject): Rejection | undefined {
  const labels = (node.metadata.labels ?? {}) as Record<string, string>;
  if (!matchesNode(pod, node.metadata.name, labels)) {
    return { reason: 'NodeAffinity', message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector" };
  }
  return undefined;
}

/** The pod's nodeSelector and required node affinity against the node (upstream nodeaffinity.GetRequiredNodeAffinity). */
export function matchesNode(pod: DemoObject, nodeName: string, labels: Record<string, string>): boolean {
  const spec = (pod.spec ?? {}) as Obj;
  for (const [k, v] of Object.entries((spec.nodeSelector ?? {}) as Record<string, string>)) if (labels[k] !== v) return false;
  const terms = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms as Obj[] | undefined;
  if (!terms?.length) return true;
  // Terms are ORed; a term's expressions and fields are ANDed; an empty term matches nothing.
  return terms.some((t) => {
    const exprs = (t.matchExpressions ?? []) as Obj[];
    const fields = (t.matchFields ?? []) as Obj[];
    if (!exprs.length && !fields.length) return false;
    return exprs.every((e) => matches(e, labels[e.key])) && fields.every((f) => (f.key === 'metadata.name' ? matches(f, nodeName) : false));
  });
}

function matches(e: Obj, value: string | undefined): boolean {
  const values = ((e.values ?? []) as unknown[]).map(String);
  switch (e.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
      return value !== undefined && Number(value) > Number(values[0]);
    case 'Lt':
      return value !== undefined && Number(value) < Number(values[0]);
    default:
      return false;
  }
}
