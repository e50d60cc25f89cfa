/**
 * What the sync loop tells an observer of its sources (ClusterSync's `observer` option; the flight
 * recorder is one). Guarantees of the caller: every full list and every watch event a source
 * delivers reaches the observer once, in the source's order, after the loop took it. The observer is
 * called synchronously: it must not throw, must not block, and must not change the objects (the loop
 * keeps them).
 */
import type { StoredObject } from '../kube/objects/types';

/** The type an observed object belongs to. */
export interface ObservedType {
  group: string;
  resource: string;
}

export interface SyncObserver {
  /** A reflector's full list for source `source` (a type in one namespace or all). */
  replace(source: string, type: ObservedType, items: readonly StoredObject[]): void;
  /** One watch event of that source. */
  apply(source: string, type: ObservedType, event: 'ADDED' | 'MODIFIED' | 'DELETED', obj: StoredObject): void;
}
