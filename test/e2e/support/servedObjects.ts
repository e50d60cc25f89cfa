/**
 * The objects a load lists, as the server counts them, independently of KubeLoop's loader: for every
 * listable type (events.k8s.io's alias of core Events left out, as a load leaves it out by default),
 * one `limit=1` list, whose item and `remainingItemCount` make the type's count. The demo cluster,
 * like kube-apiserver, gives remainingItemCount on an unfiltered page with more after it.
 * Exact only while the cluster holds still (no kubelet, no controllers, no churn, no Event TTL).
 */
import type * as http from 'node:http';
import { discoverTypes, getJson, listPath, requestBase, withoutEventAlias } from '../../../bench/types';

export type RequestBase = Awaited<ReturnType<typeof requestBase>>;

export async function servedObjects(kubeconfig: string, base: RequestBase, agent: http.Agent): Promise<number> {
  let n = 0;
  for (const t of withoutEventAlias(await discoverTypes(kubeconfig))) n += await listCount(base, agent, `${listPath(t)}?limit=1`);
  return n;
}

/** How many objects a list path holds (give it `limit=1`: one item comes back, the rest is counted). */
export async function listCount(base: RequestBase, agent: http.Agent, path: string): Promise<number> {
  const list = (await getJson(base, path, agent)) as { items: unknown[]; metadata: { remainingItemCount?: number } };
  return list.items.length + (list.metadata.remainingItemCount ?? 0);
}
