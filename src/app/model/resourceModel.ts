/**
 * ResourceModel: what the resource tree shows, without 'vscode'. One context's objects, grouped in
 * buckets of (namespace, type), each object held as its ObjectView (core's computeObjectView): the
 * loader's results are turned into views at once and the full objects dropped, so 100,000 objects
 * cost one small view each. While the sync loop runs its actualStateOfWorld changes arrive through
 * `applyView`, with the same view function, so a loaded row and a synced row never disagree by shape.
 *
 * Guarantees:
 * - Every change that alters what a tree node shows is announced once, as the smallest ModelChange
 *   that covers it: `object` when only a row's view changed, `bucket` when a (namespace, type)
 *   gained or lost objects (with `created`/`emptied` when the bucket appeared or vanished), `failures`
 *   when the failed types changed, `reset` when everything did.
 * - Writing what is already there (an equal view, a reload with identical contents) announces nothing.
 * - A listener that throws cannot break the writer or the other listeners.
 */
import { objectKey, type ResourceRef } from '../../core/kube/objects/objectKey';
import type { StoredObject } from '../../core/kube/objects/types';
import type { ObjectView } from '../../core/rows/objectView';
import { viewOfLoaded } from '../../core/rows/tableView';
import { deepEqual } from '../../core/syncloop/equal';
import type { LoadTask, LoadTaskResult } from '../../core/loader/types';
import { asStoredObject, type GroupVersionResource, type KubeObject as ApiObject } from '../../core/kube/objects/types';
import { parseObjectKey, typeKeyOf } from './keys';
import { runSteps, STEP_ITEMS, type Steps } from '../../core/slice';
import { sharedInterner } from '../../core/kube/objects/intern';

export interface ResourceType {
  /** kubectl's name, `pods` or `deployments.apps`; also the sync loop's key prefix. */
  key: string;
  gvr: GroupVersionResource;
  kind: string;
  namespaced: boolean;
  /** Discovery lists the `watch` verb (false: the sync loop cannot keep this type converged). */
  watchable?: boolean;
}

export interface ObjectEntry {
  name: string;
  namespace?: string;
  view: ObjectView;
}

export interface TypeFailure {
  type: ResourceType;
  /** The namespace of the failed task; undefined for all namespaces or a cluster-scoped type. */
  namespace?: string;
  status?: number;
  reason: string;
  message: string;
  /** Objects received before the failure (they are shown, marked partial). */
  received: number;
}

export type ModelChange =
  | { kind: 'reset' }
  | { kind: 'failures' }
  | {
      kind: 'bucket';
      namespace: string;
      typeKey: string;
      created: boolean;
      emptied: boolean;
      /** Set when one object joined or left (a sync-loop change), not a whole list: which, and which way. */
      member?: { name: string; joined: boolean };
    }
  | { kind: 'object'; namespace: string; typeKey: string; name: string };

/** Namespace key of cluster-scoped objects. */
export const CLUSTER = '';

export class Bucket {
  private readonly byName = new Map<string, ObjectEntry>();
  /** True when the last list of this bucket failed or was cut short. */
  partial = false;
  /** Objects by name, kept in step with `byName` once built (see sortedObjects). */
  private sorted: ObjectEntry[] | undefined;
  private members = 0;

  constructor(
    readonly type: ResourceType,
    readonly namespace: string,
  ) {}

  /** The objects by name; written only through put / remove / replaceAll. */
  get objects(): ReadonlyMap<string, ObjectEntry> {
    return this.byName;
  }

  /** Bumped on every membership change: caches derived from the order (the tree's filter) key on it. */
  get version(): number {
    return this.members;
  }

  /**
   * Objects by name (code-unit order). Sorted once; after that every put and remove keeps the array
   * in order by binary search (an insert into 10,000 sorted rows, not a re-sort of them), and a view
   * change replaces its entry in place. The array is this bucket's own: read it, do not keep it.
   */
  sortedObjects(): readonly ObjectEntry[] {
    this.sorted ??= [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return this.sorted;
  }

  /** Adds or replaces the entry of `e.name`; true when it was new. */
  put(e: ObjectEntry): boolean {
    const had = this.byName.has(e.name);
    this.byName.set(e.name, e);
    if (this.sorted) {
      const i = lowerBound(this.sorted, e.name);
      if (had) this.sorted[i] = e;
      else this.sorted.splice(i, 0, e);
    }
    if (!had) this.members++;
    return !had;
  }

  /** Removes `name`; false when it was not there. */
  remove(name: string): boolean {
    if (!this.byName.delete(name)) return false;
    if (this.sorted) this.sorted.splice(lowerBound(this.sorted, name), 1);
    this.members++;
    return true;
  }

  /** Replaces every entry (a list of this bucket); the order is rebuilt when next asked for. */
  replaceAll(entries: readonly ObjectEntry[]): void {
    this.byName.clear();
    for (const e of entries) this.byName.set(e.name, e);
    this.sorted = undefined;
    this.members++;
  }
}

/** The first index whose entry's name is not below `name` (the entries sorted by name). */
function lowerBound(sorted: readonly ObjectEntry[], name: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]!.name < name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export const PODS_TYPE: ResourceType = Object.freeze({
  key: 'pods',
  gvr: Object.freeze({ group: '', version: 'v1', resource: 'pods' }),
  kind: 'Pod',
  namespaced: true,
  watchable: true,
});

/** Where viewTransform leaves an object's view on the slim object that replaces it. */
const VIEW = Symbol('kubeloop.view');
type ViewCarrier = StoredObject & { [VIEW]?: ObjectView };

/**
 * The loader transform of the tree's loads: each object becomes its view as soon as its page is
 * parsed (a slim object that carries the view), so the full objects die young instead of waiting
 * for their whole task; applyResult takes the view as it is. Same view as applyResult computes.
 * A Table row or a metadata-only item gets the view its full object would (core's viewOfLoaded).
 */
export function viewTransform(raw: ApiObject, task: LoadTask): ApiObject | undefined {
  const obj = asStoredObject(raw);
  if (!obj) return undefined; // applyResult skips it too
  const ref: ResourceRef = { group: task.gvr.group, resource: task.gvr.resource };
  const m = obj.metadata;
  const slim: ViewCarrier = { metadata: { name: m.name, uid: m.uid, ...(m.namespace !== undefined ? { namespace: m.namespace } : {}) } };
  slim[VIEW] = viewOfLoaded(objectKey(obj, ref), obj, ref, task.kind);
  return slim;
}

export class ResourceModel {
  /** The context these objects come from; undefined before the first load. Set by retarget (or reset). */
  get context(): string | undefined {
    return this.shownContext;
  }
  private shownContext: string | undefined;
  /** When non-empty, only these namespaces are shown (the load was limited to them). Set by retarget. */
  get namespaceScope(): readonly string[] {
    return this.scope;
  }
  private scope: readonly string[] = [];
  private readonly types = new Map<string, ResourceType>([[PODS_TYPE.key, PODS_TYPE]]);
  /** namespace ('' = cluster-scoped) -> typeKey -> bucket */
  private readonly buckets = new Map<string, Map<string, Bucket>>();
  private readonly failed = new Map<string, TypeFailure>();
  private readonly listeners = new Set<(c: ModelChange) => void>();
  private count = 0;
  private nsVersion = 0;
  private loads = 0;

  /**
   * Bumped by every load result taken in and by a reset: rows that did not come from the sync loop's
   * own views can only have arrived when it moved (the loop's reconcile walks the rows only then).
   */
  get loadVersion(): number {
    return this.loads;
  }

  /**
   * Bumped whenever what namespaces() returns may have changed (a namespace gained its first bucket
   * or lost its last, the namespaces list changed, a reset or a new scope); equal versions mean an
   * equal list. Lets the tree skip rebuilding the list on the thousands of bucket changes of a load.
   */
  get namespacesVersion(): number {
    return this.nsVersion;
  }

  get objectCount(): number {
    return this.count;
  }

  onChange(fn: (c: ModelChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The API server of the shown context (the context row's description); '' when none is shown. */
  get server(): string {
    return this.shownServer;
  }
  private shownServer = '';

  /** `context`: the context this model shows for its whole life (a listed context's); unset for the window's, which its Session retargets. */
  constructor(context?: string) {
    this.shownContext = context;
  }

  /**
   * Retargeting: which cluster the tree shows (its context, server and namespace scope). A context
   * other than the shown one, or with `namespaces` another namespace scope, empties the model first,
   * so one cluster's (or scope's) objects never show under another's name. `server` replaces the
   * server line; no context clears it. Returns whether the model was emptied. The window's model is
   * retargeted by its Session only (app/connection/session.ts).
   */
  retarget(t: { context: string | undefined; server?: string; namespaces?: readonly string[] }): boolean {
    const emptied = this.context !== t.context || (t.namespaces !== undefined && !this.inScope(t.namespaces));
    if (emptied) this.reset(t.context);
    if (t.namespaces) this.setScope(t.namespaces);
    if (t.server !== undefined || t.context === undefined) this.shownServer = t.server ?? '';
    return emptied;
  }

  /** The namespace scope of the shown context: another scope empties the model first (the context stays). Returns whether it did. */
  rescope(namespaces: readonly string[]): boolean {
    const changed = !this.inScope(namespaces);
    if (changed) this.reset(this.context);
    this.setScope(namespaces);
    return changed;
  }

  private inScope(namespaces: readonly string[]): boolean {
    return this.scope.join(',') === namespaces.join(',');
  }

  private setScope(namespaces: readonly string[]): void {
    this.scope = [...namespaces];
    this.nsVersion++;
  }

  /** Forgets everything (a new context); `context` names what the next loads fill in. */
  reset(context: string | undefined): void {
    this.shownContext = context;
    this.scope = [];
    this.buckets.clear();
    this.failed.clear();
    this.types.clear();
    this.types.set(PODS_TYPE.key, PODS_TYPE);
    this.count = 0;
    this.loads++;
    this.emit({ kind: 'reset' });
  }

  registerTypes(types: Iterable<ResourceType>): void {
    for (const t of types) this.types.set(t.key, t);
  }

  type(key: string): ResourceType | undefined {
    return this.types.get(key);
  }

  /** The types the last loads planned (pods always, so a sync loop without a load still shows pods). */
  loadedTypes(): ResourceType[] {
    return [...this.types.values()];
  }

  /** One loader result: replaces what its task covers. A cancelled task changes nothing. */
  applyResult(r: LoadTaskResult): void {
    if (r.outcome === 'cancelled') return;
    this.loads++;
    const gvr = r.task.gvr;
    const key = typeKeyOf(gvr);
    let type = this.types.get(key);
    if (!type) {
      type = { key, gvr: { ...gvr }, kind: r.task.kind, namespaced: r.task.namespaced };
      this.types.set(key, type);
    }
    const ref: ResourceRef = { group: gvr.group, resource: gvr.resource };
    const byNs = new Map<string, ObjectEntry[]>();
    for (const item of r.items) {
      const obj = asStoredObject(item);
      if (!obj) continue;
      const ns = type.namespaced ? sharedInterner.intern(obj.metadata.namespace ?? r.task.namespace ?? '') : CLUSTER;
      if (type.namespaced && !ns) continue;
      const view = (obj as ViewCarrier)[VIEW] ?? viewOfLoaded(objectKey(obj, ref), obj, ref, r.task.kind);
      // Rows cross from the parsing thread each with its own copy of its namespace's name (after a
      // load of 100,000 objects: 76,615 copies of 183 names, 2.4 MB): the row holds the one copy.
      if (view.namespace === ns) view.namespace = ns;
      const list = byNs.get(ns) ?? [];
      list.push({ name: obj.metadata.name, ...(type.namespaced ? { namespace: ns } : {}), view });
      byNs.set(ns, list);
    }
    // The scope this task listed: one namespace, or every namespace (so buckets it did not return are now empty).
    const scope = !type.namespaced ? [CLUSTER] : r.task.namespace !== undefined ? [r.task.namespace] : undefined;
    const targets = new Set(scope ?? [...this.namespacesWithType(key), ...byNs.keys()]);
    for (const ns of targets) this.replaceBucket(type, ns, byNs.get(ns) ?? [], r.outcome === 'error');

    const fkey = failureKey(key, r.task.namespace);
    if (r.outcome === 'error') {
      const f: TypeFailure = { type, reason: r.reason ?? 'Error', message: r.message ?? '', received: r.count };
      if (r.task.namespace !== undefined) f.namespace = r.task.namespace;
      if (r.status !== undefined) f.status = r.status;
      const old = this.failed.get(fkey);
      this.failed.set(fkey, f);
      if (!old || !deepEqual(old, f)) this.emit({ kind: 'failures' });
    } else if (this.failed.delete(fkey)) {
      this.emit({ kind: 'failures' });
    }
  }

  /** After a full load: types the load no longer lists are gone from the cluster (or filtered out). */
  retainTypes(keys: ReadonlySet<string>): void {
    for (const key of [...this.types.keys()]) if (key !== PODS_TYPE.key && !keys.has(key)) this.types.delete(key);
    for (const [ns, byType] of this.buckets) {
      for (const key of [...byType.keys()]) if (!keys.has(key)) this.replaceBucket(byType.get(key)!.type, ns, [], false);
    }
    let changed = false;
    for (const [fkey, f] of this.failed) if (!keys.has(f.type.key)) changed = this.failed.delete(fkey) || changed;
    if (changed) this.emit({ kind: 'failures' });
  }

  /** Keeps only the failures whose (type, namespace) key is in `keys`. */
  retainFailures(keys: ReadonlySet<string>): void {
    let changed = false;
    for (const fkey of [...this.failed.keys()]) if (!keys.has(fkey)) changed = this.failed.delete(fkey) || changed;
    if (changed) this.emit({ kind: 'failures' });
  }

  /**
   * One actualStateOfWorld change (key, new view or undefined when removed). Keys of types the model
   * does not know (not loaded) are ignored, so the tree shows the loaded types only. True if applied.
   */
  applyView(key: string, view: ObjectView | undefined): boolean {
    const p = parseObjectKey(key);
    if (!p) return false;
    const type = this.types.get(p.typeKey);
    if (!type || type.namespaced !== (p.namespace !== undefined)) return false;
    const ns = p.namespace ?? CLUSTER;
    if (type.namespaced && this.namespaceScope.length > 0 && !this.namespaceScope.includes(ns)) return false;
    const bucket = this.buckets.get(ns)?.get(type.key);
    if (!view) {
      if (!bucket?.remove(p.name)) return false;
      this.count--;
      const emptied = bucket.objects.size === 0;
      if (emptied) this.dropBucket(ns, type.key);
      this.emit({ kind: 'bucket', namespace: ns, typeKey: type.key, created: false, emptied, member: { name: p.name, joined: false } });
      return true;
    }
    const had = bucket?.objects.get(p.name);
    if (had && deepEqual(had.view, view)) {
      // Nothing to show, but hold the caller's view from now on: the sync loop keeps it anyway (its
      // actualStateOfWorld), so the load's equal copy is let go instead of held twice.
      had.view = view;
      return false;
    }
    const entry: ObjectEntry = p.namespace !== undefined ? { name: p.name, namespace: p.namespace, view } : { name: p.name, view };
    if (had) {
      bucket!.put(entry);
      this.emit({ kind: 'object', namespace: ns, typeKey: type.key, name: p.name });
      return true;
    }
    const b = bucket ?? this.createBucket(type, ns);
    b.put(entry);
    this.count++;
    this.emit({ kind: 'bucket', namespace: ns, typeKey: type.key, created: !bucket, emptied: false, member: { name: p.name, joined: true } });
    return true;
  }

  /** Removes the objects of the given types (in scope) that `keep` rejects; returns how many. */
  removeWhere(typeKeys: ReadonlySet<string>, keep: (key: string) => boolean): number {
    return runSteps(this.removeWhereSteps(typeKeys, keep));
  }

  /**
   * removeWhere as steps (core/slice.ts): a yield point every STEP_ITEMS objects, so a walk of a
   * million-object model gives the thread back. An object is judged by `keep` when its step runs:
   * one changed or removed between steps is judged as it is then (removing a key already gone is a
   * no-op).
   */
  *removeWhereSteps(typeKeys: ReadonlySet<string>, keep: (key: string) => boolean): Steps<number> {
    let removed = 0;
    let n = 0;
    for (const byType of [...this.buckets.values()]) {
      for (const b of [...byType.values()]) {
        if (!typeKeys.has(b.type.key)) continue;
        for (const e of [...b.objects.values()]) {
          if (++n % STEP_ITEMS === 0) yield;
          if (!keep(e.view.key) && this.applyView(e.view.key, undefined)) removed++;
        }
      }
    }
    return removed;
  }

  // ---- queries (what the tree reads) ----

  /** Namespaces to show: those holding objects and those the Namespace objects name, within the scope. */
  namespaces(): string[] {
    const names = new Set<string>();
    for (const [ns, byType] of this.buckets) if (ns !== CLUSTER && byType.size > 0) names.add(ns);
    for (const e of this.buckets.get(CLUSTER)?.get('namespaces')?.objects.values() ?? []) names.add(e.name);
    const scoped = this.namespaceScope.length > 0 ? [...names].filter((n) => this.namespaceScope.includes(n)) : [...names];
    return scoped.sort();
  }

  /** The Namespace object's view, when namespaces were loaded. */
  namespaceView(name: string): ObjectView | undefined {
    return this.buckets.get(CLUSTER)?.get('namespaces')?.objects.get(name)?.view;
  }

  hasClusterScoped(): boolean {
    return (this.buckets.get(CLUSTER)?.size ?? 0) > 0;
  }

  /** Buckets of one namespace ('' = cluster-scoped), in no particular order. */
  bucketsIn(namespace: string): Bucket[] {
    return [...(this.buckets.get(namespace)?.values() ?? [])];
  }

  bucket(namespace: string, typeKey: string): Bucket | undefined {
    return this.buckets.get(namespace)?.get(typeKey);
  }

  object(namespace: string, typeKey: string, name: string): ObjectEntry | undefined {
    return this.buckets.get(namespace)?.get(typeKey)?.objects.get(name);
  }

  failures(): TypeFailure[] {
    return [...this.failed.values()].sort((a, b) => a.type.key.localeCompare(b.type.key) || (a.namespace ?? '').localeCompare(b.namespace ?? ''));
  }

  // ---- internals ----

  private namespacesWithType(key: string): string[] {
    const out: string[] = [];
    for (const [ns, byType] of this.buckets) if (ns !== CLUSTER && byType.has(key)) out.push(ns);
    return out;
  }

  private createBucket(type: ResourceType, ns: string): Bucket {
    let byType = this.buckets.get(ns);
    if (!byType) {
      this.buckets.set(ns, (byType = new Map()));
      this.nsVersion++;
    }
    const b = new Bucket(type, ns);
    byType.set(type.key, b);
    return b;
  }

  private dropBucket(ns: string, key: string): void {
    const byType = this.buckets.get(ns);
    byType?.delete(key);
    if (byType && byType.size === 0) {
      this.buckets.delete(ns);
      this.nsVersion++;
    }
  }

  private replaceBucket(type: ResourceType, ns: string, entries: ObjectEntry[], partial: boolean): void {
    const old = this.buckets.get(ns)?.get(type.key);
    if (!old && entries.length === 0) return;
    if (old && old.partial === partial && old.objects.size === entries.length && entries.every((e) => old.objects.has(e.name))) {
      // Same members: only views may differ; announce each changed row.
      for (const e of entries) {
        if (deepEqual(old.objects.get(e.name)!.view, e.view)) continue;
        old.put(e);
        this.emit({ kind: 'object', namespace: ns, typeKey: type.key, name: e.name });
      }
      return;
    }
    this.count -= old?.objects.size ?? 0;
    if (entries.length === 0) {
      this.dropBucket(ns, type.key);
      this.emit({ kind: 'bucket', namespace: ns, typeKey: type.key, created: false, emptied: true });
      return;
    }
    const b = old ?? this.createBucket(type, ns);
    b.replaceAll(entries);
    b.partial = partial;
    this.count += entries.length;
    this.emit({ kind: 'bucket', namespace: ns, typeKey: type.key, created: !old, emptied: false });
  }

  private emit(c: ModelChange): void {
    if (c.kind === 'reset' || (c.kind === 'bucket' && c.namespace === CLUSTER && c.typeKey === 'namespaces')) this.nsVersion++;
    for (const l of this.listeners) {
      try {
        l(c);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}

/** The key of a failure: one per (type, namespace of the task). */
export function failureKey(typeKey: string, namespace: string | undefined): string {
  return `${typeKey}@${namespace ?? ''}`;
}
