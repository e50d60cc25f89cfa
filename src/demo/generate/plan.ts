/**
 * How many objects of each type: a real cluster's mix (many pods, events, configmaps, replicasets,
 * secrets; a long tail of everything else), scaled to exactly N objects.
 *
 * Guarantees: the counts sum to exactly N; with N at least the number of types (plus namespaces,
 * nodes and CRDs) every listable type gets at least one object; the plan depends only on its inputs.
 */
import type { TypeInfo } from '../store';

/** Share of the objects left after namespaces, nodes and CRDs; types not listed get TAIL_WEIGHT. */
export const WEIGHTS: Record<string, number> = {
  '/events': 0.23,
  '/configmaps': 0.16,
  '/pods': 0.1,
  '/secrets': 0.1,
  'apps/replicasets': 0.055,
  '/serviceaccounts': 0.065,
  '/services': 0.03,
  '/endpoints': 0.03,
  'rbac.authorization.k8s.io/rolebindings': 0.03,
  'apps/deployments': 0.02,
  'discovery.k8s.io/endpointslices': 0.02,
  'rbac.authorization.k8s.io/roles': 0.025,
  'coordination.k8s.io/leases': 0.01,
  'events.k8s.io/events': 0.01,
  '/persistentvolumeclaims': 0.008,
  'apps/controllerrevisions': 0.008,
  'batch/jobs': 0.006,
  '/persistentvolumes': 0.006,
  'networking.k8s.io/ingresses': 0.006,
  'networking.k8s.io/networkpolicies': 0.006,
  'apps/statefulsets': 0.004,
  'policy/poddisruptionbudgets': 0.004,
  'autoscaling/horizontalpodautoscalers': 0.004,
  'batch/cronjobs': 0.003,
  'rbac.authorization.k8s.io/clusterroles': 0.003,
  'rbac.authorization.k8s.io/clusterrolebindings': 0.003,
  'apps/daemonsets': 0.002,
  '/resourcequotas': 0.002,
};
export const TAIL_WEIGHT = 0.0004;
export const CUSTOM_WEIGHT = 0.003;

export const typeKey = (t: { group: string; resource: string }) => `${t.group}/${t.resource}`;

export interface Plan {
  namespaces: number;
  nodes: number;
  crds: number;
  /** typeKey -> count, for every type generated besides namespaces, nodes and CRDs. */
  counts: Map<string, number>;
}

const clamp = (x: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, x));

/** opts.nodes and opts.pods: exact counts (a profile's) taken before the rest is shared out. */
export function planCounts(
  types: TypeInfo[],
  n: number,
  opts: { namespaces?: number; crds?: number; nodes?: number; pods?: number; isCustom: (t: TypeInfo) => boolean },
): Plan {
  const has = (k: string) => types.some((t) => typeKey(t) === k);
  let left = Math.max(0, Math.floor(n));
  const take = (want: number) => {
    const got = clamp(Math.floor(want), 0, left);
    left -= got;
    return got;
  };
  const namespaces = has('/namespaces') ? take(opts.namespaces ?? clamp(Math.round(n / 500), 1, 200)) : 0;
  // About 100 pods per node, as a real cluster packs them (the kubelet's default max is 110).
  const nodes = has('/nodes') ? take(opts.nodes ?? clamp(Math.ceil((n * (WEIGHTS['/pods'] ?? 0)) / 100), 1, 1000)) : 0;
  const crds = has('apiextensions.k8s.io/customresourcedefinitions') ? take(opts.crds ?? (n >= 500 ? clamp(Math.floor(n / 5000), 2, 20) : 0)) : 0;
  const pods = opts.pods !== undefined && has('/pods') && namespaces > 0 ? take(opts.pods) : undefined;
  const skip = new Set(['/namespaces', '/nodes', 'apiextensions.k8s.io/customresourcedefinitions']);
  if (pods !== undefined) skip.add('/pods');
  const rest = types
    .filter((t) => t.verbs.includes('list') && !skip.has(typeKey(t)) && (t.namespaced ? namespaces > 0 : true))
    .map((t) => ({ key: typeKey(t), w: WEIGHTS[typeKey(t)] ?? (opts.isCustom(t) ? CUSTOM_WEIGHT : TAIL_WEIGHT) }))
    // Heaviest first; ties by name so the plan never depends on registration order.
    .sort((a, b) => b.w - a.w || (a.key < b.key ? -1 : 1));
  const counts = new Map<string, number>(rest.map((r) => [r.key, 0]));
  if (left < rest.length) {
    for (const r of rest.slice(0, left)) counts.set(r.key, 1);
    if (pods !== undefined) counts.set('/pods', pods);
    return { namespaces, nodes, crds, counts };
  }
  for (const r of rest) counts.set(r.key, 1);
  const pool = left - rest.length;
  const total = rest.reduce((s, r) => s + r.w, 0);
  let given = 0;
  const remainders = rest.map((r) => {
    const exact = (pool * r.w) / total;
    const whole = Math.floor(exact);
    counts.set(r.key, counts.get(r.key)! + whole);
    given += whole;
    return { key: r.key, frac: exact - whole };
  });
  // Largest remainder, ties by name: the sum is exactly N.
  remainders.sort((a, b) => b.frac - a.frac || (a.key < b.key ? -1 : 1));
  for (let i = 0; i < pool - given; i++) counts.set(remainders[i]!.key, counts.get(remainders[i]!.key)! + 1);
  if (pods !== undefined) counts.set('/pods', pods);
  return { namespaces, nodes, crds, counts };
}
