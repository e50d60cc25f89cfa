/**
 * The object shapes the client hands out. Deliberately loose: the loader lists every type, CRDs
 * included, so only metadata has a known shape. Type-only, apart from the one narrowing function.
 */
/** A resource type's address in the API (client-go's schema.GroupVersionResource). */
export interface GroupVersionResource {
  group: string; // '' for the core group
  version: string;
  resource: string; // plural, e.g. 'pods'
}

/**
 * An object's metadata as it crosses the wire (ObjectMeta). Every field is optional here because
 * the client lists every type, CRDs included, and a server may leave fields out; see StoredObject
 * for what the API server guarantees of an object it stores.
 */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: unknown[];
  managedFields?: unknown[];
  [k: string]: unknown;
}

/**
 * The one wire type of a Kubernetes object in this code base: plain JSON as the API server sends it
 * (timestamps are RFC 3339 strings). The loader, the sync loop and the demo cluster all use it;
 * kind-specific shapes (a Pod, an Event) extend it.
 */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: unknown;
  status?: unknown;
  [k: string]: unknown;
}

/** An object the API server has stored: it always has a name and a uid (the server assigns the uid). */
export interface StoredObject extends KubeObject {
  metadata: ObjectMeta & { name: string; uid: string };
}

/**
 * The one narrowing from the wire: the object as a StoredObject when it has a string name and
 * uid, else undefined (the caller skips it). Never copies or changes the object.
 */
export function asStoredObject(o: unknown): StoredObject | undefined {
  if (typeof o !== 'object' || o === null) return undefined;
  const m = (o as { metadata?: unknown }).metadata;
  if (typeof m !== 'object' || m === null) return undefined;
  const { name, uid } = m as ObjectMeta;
  return typeof name === 'string' && name !== '' && typeof uid === 'string' ? (o as StoredObject) : undefined;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}
