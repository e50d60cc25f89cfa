import type { GroupVersionResource } from '../objects/types';

/** /api/v1[/namespaces/{ns}]/{resource} or /apis/{g}/{v}[/namespaces/{ns}]/{resource}. */
export function resourcePath(gvr: GroupVersionResource, namespace?: string): string {
  const base = gvr.group ? `/apis/${gvr.group}/${gvr.version}` : `/api/${gvr.version}`;
  return namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${gvr.resource}` : `${base}/${gvr.resource}`;
}

/** pods, deployments.apps: how kubectl names a type. */
export function gvrName(gvr: GroupVersionResource): string {
  return gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource;
}
