/**
 * What every handler of one demo API server shares: its store, catalog, snapshots of paged lists,
 * options and counters. One per server; nothing here is global.
 */
import type { LogStore } from '../kubelet/logs';
import type { DemoObject, ObjectStore, TypeInfo } from '../store';
import { apiVersionOf } from '../store';
import type { Catalog, ResourceEntry } from './catalog';
import type { Exchange } from './exchange';
import type { SnapshotCache } from './snapshots';
import { ApiError, pathNotFound } from './status';

export interface ServerOptions {
  /** How long a continue token stays valid (ms). */
  continueTtlMs: number;
  /** Interval of periodic BOOKMARK events on watches that allow them (ms). */
  bookmarkIntervalMs: number;
  /** Default watch duration when the client gives no timeoutSeconds (s). */
  defaultWatchTimeoutSeconds: number;
  /**
   * Pods bound to a node are deleted gracefully (deletionTimestamp first; the kubelet removes them
   * once their containers stopped), as upstream. startDemoCluster always turns it on (a real
   * apiserver does not know whether a kubelet runs); off, every delete is immediate.
   */
  gracefulPodDeletion: boolean;
  /**
   * A garbage collector runs (startDemoCluster's `controllers`): DELETE with propagationPolicy
   * Foreground or Orphan marks the object (deletionTimestamp, the `foregroundDeletion` or `orphan`
   * finalizer) and answers it, and the collector finishes the deletion, as upstream. Off, every
   * such DELETE is immediate (nothing would ever remove the finalizer).
   */
  garbageCollector: boolean;
  now: () => Date;
}

export interface ServerContext {
  store: ObjectStore;
  catalog: Catalog;
  snapshots: SnapshotCache;
  options: ServerOptions;
  /** Containers' logs, written by the kubelet simulation (pods/log reads them). */
  logs: LogStore;
  /** host:port as clients reach it, for /api's serverAddressByClientCIDRs. */
  serverAddress(): string;
}

/** A resolved resource request: the served entry, the storage type, and the version asked for. */
export interface Target {
  entry: ResourceEntry;
  type: TypeInfo;
  group: string;
  version: string;
  resource: string;
  /** apiVersion of the served version: objects are returned with it. */
  apiVersion: string;
  namespaced: boolean;
}

export function resolveTarget(ctx: ServerContext, x: Exchange): Target {
  const { group, version, resource } = x.info;
  const entry = ctx.catalog.resolve(group, version, resource);
  const type = entry && ctx.store.type(group, resource);
  if (!entry || !type) throw pathNotFound();
  return {
    entry,
    type,
    group,
    version,
    resource,
    apiVersion: apiVersionOf({ group, version }),
    namespaced: entry.scope === 'Namespaced',
  };
}

/** Serves a stored object in the requested version (objects are stored once, in the storage version). */
export function served(t: Target, o: DemoObject): DemoObject {
  return o.apiVersion === t.apiVersion ? o : { ...o, apiVersion: t.apiVersion };
}

export function requireVerb(t: Target, verb: string): void {
  if (!t.entry.verbs.includes(verb)) {
    throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
  }
}

/** The namespace a request works in, or undefined for cluster-scoped types. */
export function requestNamespace(t: Target, x: Exchange): string | undefined {
  if (!t.namespaced) return undefined;
  return x.info.namespace;
}
