/**
 * Named sizes of a generated cluster, for benches and `kubeloop demo-cluster --profile NAME`.
 *
 * `scale-limit`: Kubernetes' published scalability limits (5,000 nodes, 150,000 pods), with the
 * rest of a million objects in the generator's usual proportions (events, configmaps, secrets,
 * replicasets, ...). About 30 pods per node, as a cluster at those limits packs them.
 */
export interface GenerateProfile {
  objects: number;
  /** Nodes, instead of about one per 100 pods (capped at 1,000). */
  nodes: number;
  /** Pods, instead of the plan's share of them (10 %). */
  pods: number;
}

export const PROFILES: Record<string, GenerateProfile> = {
  'scale-limit': { objects: 1_000_000, nodes: 5_000, pods: 150_000 },
};

export function profileNamed(name: string): GenerateProfile | undefined {
  return Object.prototype.hasOwnProperty.call(PROFILES, name) ? PROFILES[name] : undefined;
}
