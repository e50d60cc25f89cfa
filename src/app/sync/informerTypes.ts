/**
 * The types the sync loop's informers watch, taken from what the tree loaded: every loaded type but
 * pods (the pod workers' own watch), types without the watch verb (componentstatuses: they cannot be
 * watched), and types that failed to load across all namespaces (403, timeout: they would only fail
 * again as watches). Each with its scope, so a namespaced type is watched where it may be.
 *
 * A type whose row needs nothing but metadata (the tree's transfer rule, tableView.ts) is watched
 * as PartialObjectMetadata: a ConfigMap's data or a Secret's values are then neither parsed nor
 * kept by the loop, which at heavy churn is most of what its watches bring (and hold). But for
 * core/v1 Events: they are watched whole, so a recording keeps what each says (reason, message,
 * type, the object it is about) past the API server's one-hour expiry, whatever it is about.
 */
import { treeTransferFor } from '../../core/rows/tableView';
import type { WatchedType } from '../../core/syncloop/sources/watchscope';
import type { ResourceModel, ResourceType } from '../model/resourceModel';

export function informerTypes(model: ResourceModel): WatchedType[] {
  const failed = new Set(
    model
      .failures()
      .filter((f) => f.namespace === undefined)
      .map((f) => f.type.key),
  );
  return model
    .loadedTypes()
    .filter((t) => t.key !== 'pods' && t.watchable !== false && !failed.has(t.key))
    .map((t) => ({
      ...t.gvr,
      namespaced: t.namespaced,
      ...(treeTransferFor(t.gvr) === 'metadata' && !isCoreEvents(t) ? { metadataOnly: true, kind: t.kind } : {}),
    }));
}

function isCoreEvents(t: ResourceType): boolean {
  return t.gvr.group === '' && t.gvr.resource === 'events';
}
