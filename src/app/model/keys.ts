/**
 * Object keys as the sync loop writes them (core/syncloop/types.ts objectKey): "namespace/name" for
 * pods, "resource[.group]:namespace/name" for a namespaced object of another type, and
 * "resource[.group]:name" for a cluster-scoped one. No 'vscode' import.
 *
 * Why parsing is safe: a type name (a DNS plural and a DNS group) and a namespace (a DNS label)
 * never contain ':' or '/', and no object name contains '/' (RBAC names, the loosest, are path
 * segments). So the first ':' ends the type, and the first '/' after it ends the namespace.
 */
import type { GroupVersionResource } from '../../core/kube/objects/types';

export interface ParsedKey {
  /** kubectl's type name, `pods` or `deployments.apps` (ResourceType.key). */
  typeKey: string;
  /** Undefined for a cluster-scoped object. */
  namespace?: string;
  name: string;
}

export function parseObjectKey(key: string): ParsedKey | undefined {
  const colon = key.indexOf(':');
  const slash = key.indexOf('/');
  if (colon < 0 || (slash >= 0 && slash < colon)) {
    // a pod: namespace/name
    if (slash <= 0 || slash === key.length - 1) return undefined;
    return { typeKey: 'pods', namespace: key.slice(0, slash), name: key.slice(slash + 1) };
  }
  const typeKey = key.slice(0, colon);
  const rest = key.slice(colon + 1);
  if (!typeKey || !rest) return undefined;
  const s = rest.indexOf('/');
  if (s < 0) return { typeKey, name: rest };
  if (s === 0 || s === rest.length - 1) return undefined;
  return { typeKey, namespace: rest.slice(0, s), name: rest.slice(s + 1) };
}

/** kubectl's name of a type: `pods`, `deployments.apps`. */
export function typeKeyOf(gvr: { group: string; resource: string }): string {
  return gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource;
}

/** `pods (v1)`, `deployments.apps (v1)`: how a tooltip names a type. */
export function typeLabel(gvr: GroupVersionResource): string {
  return `${typeKeyOf(gvr)} (${gvr.group ? `${gvr.group}/` : ''}${gvr.version})`;
}
