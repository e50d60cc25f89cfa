/**
 * The object shapes the client hands out. Deliberately loose: the loader lists every type, CRDs
 * included, so only metadata has a known shape.
 */
/** A resource type's address in the API (client-go's schema.GroupVersionResource). */
export interface GroupVersionResource {
  group: string; // '' for the core group
  version: string;
  resource: string; // plural, e.g. 'pods'
}

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: unknown[];
  managedFields?: unknown[];
  [k: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [k: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}
