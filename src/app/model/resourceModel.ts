/**
 * ResourceModel: what the resource tree shows, without 'vscode'. One context's objects, grouped in
 * buckets of (namespace, type), each object held as a packed row of its ObjectView (core's
 * PackedRows: columns, not an object per row; the strings rows repeat held once per cluster): the
 * loader's results are turned into views at once, packed, and the views and full objects dropped, so
 * 100,000 objects cost the collector a name string each. A view or entry is made only when read (a
 * row on screen, a YAML document's version). While the sync loop runs its actualStateOfWorld changes
 * arrive through `applyView`, with the same view function, so a loaded row and a synced row never
 * disagree by shape.
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
import { PackedRows } from '../../core/rows/packedRows';
import { RowBatch } from '../../core/rows/rowBatch';
import { RowStrings } from '../../core/rows/rowStrings';
import { rowOfLoaded } from '../../core/rows/tableView';
import { deepEqual } from '../../core/syncloop/equal';
import type { LoadTask, LoadTaskResult } from '../../core/loader/types';
import { asStoredObject, type GroupVersionResource, type KubeObject as ApiObject } from '../../core/kube/objects/types';
import { parseObjectKey, typeKeyOf } from './keys';
import { runSteps, STEP_ITEMS, type Steps } from '../../core/slice';

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

/**
 * The objects of one (namespace, type): their rows packed by core's PackedRows (no object per row),
 * an ObjectEntry made only for a row a caller reads.
 */
export class Bucket {
  /** True when the last list of this bucket failed or was cut short. */
  partial = false;
  private readonly rows: PackedRows;
  /** Every row as an entry, kept in step with the rows once someone asked for it (sortedObjects). */
  private sorted: ObjectEntry[] | undefined;
  private members = 0;
  private readonly entries: ReadonlyMap<string, ObjectEntry>;

  constructor(
    readonly type: ResourceType,
    readonly namespace: string,
    strings = new RowStrings(),
  ) {
    const ns = type.namespaced ? namespace : undefined;
    const prefix = objectKey({ metadata: { name: '', uid: '', ...(ns ? { namespace: ns } : {}) } }, type.gvr);
    this.rows = new PackedRows(prefix, ns, strings);
    this.entries = new EntryMap(this);
  }

  /** The objects by name, each entry made when read (iterated in name order; do not change the bucket meanwhile). */
  get objects(): ReadonlyMap<string, ObjectEntry> {
    return this.entries;
  }

  get size(): number {
    return this.rows.size;
  }

  /** Bumped on every membership change: caches derived from the order (the tree's filter) key on it. */
  get version(): number {
    return this.members;
  }

  /** The names in code-unit order, kept so by every change (binary search). This bucket's own array: read it, do not keep it. */
  sortedNames(): readonly string[] {
    return this.rows.sortedNames();
  }

  has(name: string): boolean {
    return this.rows.indexOf(name) >= 0;
  }

  /** Rows kept as their view, the columns not holding them exactly (PackedRows); 0 for rows from a real API server. */
  get wholeRows(): number {
    return this.rows.wholeRows;
  }

  /** The entry of `name`, made now; undefined when there is none. */
  entry(name: string): ObjectEntry | undefined {
    const i = this.rows.indexOf(name);
    return i < 0 ? undefined : this.entryAt(i);
  }

  /** The view of `name`, made now. */
  view(name: string): ObjectView | undefined {
    const i = this.rows.indexOf(name);
    return i < 0 ? undefined : this.rows.viewAt(i);
  }

  /** The sync loop's key of `name` (without making its view). */
  keyOf(name: string): string | undefined {
    const i = this.rows.indexOf(name);
    return i < 0 ? undefined : this.rows.keyAt(i);
  }

  /** Whether `name` holds a view deepEqual to `view` (undefined: `name` is not here). */
  holds(name: string, view: ObjectView): boolean | undefined {
    const i = this.rows.indexOf(name);
    return i < 0 ? undefined : this.rows.sameAt(i, view);
  }

  /** @internal the i-th entry in name order */
  entryAt(i: number): ObjectEntry {
    const name = this.rows.nameAt(i);
    const view = this.rows.viewAt(i);
    return this.type.namespaced ? { name, namespace: this.namespace, view } : { name, view };
  }

  /**
   * Every object as an entry, by name (code-unit order). Makes an entry per row the first time, and
   * from then on keeps that array in step (a put replaces or inserts its entry by binary search, a
   * remove takes it out): for callers that read every row (tests, small buckets); the tree pages
   * through sortedNames instead. The array is this bucket's own: read it, do not keep it.
   */
  sortedObjects(): readonly ObjectEntry[] {
    this.sorted ??= Array.from({ length: this.rows.size }, (_, i) => this.entryAt(i));
    return this.sorted;
  }

  /** Adds or replaces the entry of `e.name`; true when it was new. */
  put(e: ObjectEntry): boolean {
    return this.set(e.name, e.view);
  }

  /** Adds or replaces the row of `name`; true when it was new. */
  set(name: string, view: ObjectView): boolean {
    const added = this.rows.set(name, view);
    if (this.sorted) {
      const i = this.rows.indexOf(name);
      if (added) this.sorted.splice(i, 0, this.entryAt(i));
      else this.sorted[i] = this.entryAt(i);
    }
    if (added) this.members++;
    return added;
  }

  /** Removes `name`; false when it was not there. */
  remove(name: string): boolean {
    const i = this.rows.indexOf(name);
    if (i < 0) return false;
    this.rows.remove(name);
    this.sorted?.splice(i, 1);
    this.members++;
    return true;
  }

  /** Replaces every entry (a list of this bucket). */
  replaceAll(entries: readonly ObjectEntry[]): void {
    this.replaceRows(
      entries.map((e) => e.name),
      entries.map((e) => e.view),
    );
  }

  /** Replaces every row: `views[k]` is the row of `names[k]` (a name given twice keeps its last). */
  replaceRows(names: readonly string[], views: readonly ObjectView[]): void {
    this.rows.replaceAll(names, views);
    this.sorted = undefined;
    this.members++;
  }

  /** Replaces every row with rows of a load's batch (replaceRows of the views they stand for). */
  replaceFrom(batch: RowBatch, rows: readonly number[]): void {
    this.rows.replaceFrom(batch, rows);
    this.sorted = undefined;
    this.members++;
  }

  /** Whether `name` shows what row `r` of `batch` stands for (undefined: `name` is not here). */
  holdsRow(batch: RowBatch, r: number): boolean | undefined {
    const i = this.rows.indexOf(batch.nameAt(r));
    return i < 0 ? undefined : this.rows.sameAsRow(i, batch, r);
  }

  /** Sets `name`'s row to what row `r` of `batch` stands for. */
  setRow(batch: RowBatch, r: number): void {
    this.set(batch.nameAt(r), this.rows.viewOfRow(batch, r));
  }
}

/** A bucket's rows seen as a map of entries, each made when read. */
class EntryMap implements ReadonlyMap<string, ObjectEntry> {
  constructor(private readonly b: Bucket) {}

  get size(): number {
    return this.b.size;
  }

  get(name: string): ObjectEntry | undefined {
    return this.b.entry(name);
  }

  has(name: string): boolean {
    return this.b.has(name);
  }

  forEach(fn: (value: ObjectEntry, key: string, map: ReadonlyMap<string, ObjectEntry>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  *entries(): MapIterator<[string, ObjectEntry]> {
    for (let i = 0; i < this.b.size; i++) {
      const e = this.b.entryAt(i);
      yield [e.name, e];
    }
  }

  *keys(): MapIterator<string> {
    for (let i = 0; i < this.b.size; i++) yield this.b.sortedNames()[i]!;
  }

  *values(): MapIterator<ObjectEntry> {
    for (let i = 0; i < this.b.size; i++) yield this.b.entryAt(i);
  }

  [Symbol.iterator](): MapIterator<[string, ObjectEntry]> {
    return this.entries();
  }
}

export const PODS_TYPE: ResourceType = Object.freeze({
  key: 'pods',
  gvr: Object.freeze({ group: '', version: 'v1', resource: 'pods' }),
  kind: 'Pod',
  namespaced: true,
  watchable: true,
});

/** A list's rows of one bucket: rows of a batch, in the order written. */
const NO_ROWS: readonly number[] = [];

/** What the tree's load transform leaves in the loader's sink for each item: one object per task, shared by its rows. */
const ROWS = Symbol('kubeloop.rows');
type RowsCarrier = StoredObject & { readonly [ROWS]: RowBatch };
/** The carrier of each task in flight; let go once its result is taken (or dropped: releaseLoadRows). */
const carriers = new WeakMap<LoadTask, RowsCarrier>();

const carrierOf = (item: ApiObject): RowBatch | undefined => (item as Partial<RowsCarrier>)[ROWS];

/**
 * The loader transform of the tree's loads: each object's row is written into its task's RowBatch
 * as soon as its page is parsed (no view, key or slim object per row: core/rows/rowBatch.ts), and
 * the sink keeps the task's one carrier in its place, so the loader still counts the items and a
 * restarted list still starts its sink over. applyResult reads a result's rows from the batch: the
 * last as many as the result holds carriers (what was written before a restart is older).
 * A Table row or a metadata-only item gets the row its full object would (core's rowOfLoaded).
 */
export function viewTransform(raw: ApiObject, task: LoadTask): ApiObject | undefined {
  const obj = asStoredObject(raw);
  if (!obj) return undefined; // applyResult skips it too
  const ns = task.namespaced ? (obj.metadata.namespace ?? task.namespace ?? '') : CLUSTER;
  if (task.namespaced && !ns) return undefined; // no bucket to go to (applyResult skips it too)
  let c = carriers.get(task);
  if (!c) {
    const batch = new RowBatch({ group: task.gvr.group, resource: task.gvr.resource }, task.namespaced);
    c = Object.freeze({ metadata: Object.freeze({ name: '', uid: '' }), [ROWS]: batch });
    carriers.set(task, c);
  }
  rowOfLoaded(obj, c[ROWS].ref, task.kind, c[ROWS].into(ns));
  return c;
}

/** Lets go of a task's batch once its result is past (taken by applyResult, or not wanted). */
export function releaseLoadRows(task: LoadTask): void {
  carriers.delete(task);
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
  /** The kinds, STATUS, phase and READY strings this cluster's rows repeat, once each. */
  private readonly strings = new RowStrings();
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
    releaseLoadRows(r.task);
    if (r.outcome === 'cancelled') return;
    this.loads++;
    const gvr = r.task.gvr;
    const key = typeKeyOf(gvr);
    let type = this.types.get(key);
    if (!type) {
      type = { key, gvr: { ...gvr }, kind: r.task.kind, namespaced: r.task.namespaced };
      this.types.set(key, type);
    }
    const { batch, from } = rowsOf(r, type);
    const byNs = batch.groups(from);
    // The scope this task listed: one namespace, or every namespace (so buckets it did not return are now empty).
    const scope = !type.namespaced ? [CLUSTER] : r.task.namespace !== undefined ? [r.task.namespace] : undefined;
    const targets = new Set(scope ?? [...this.namespacesWithType(key), ...byNs.keys()]);
    for (const ns of targets) this.replaceBucket(type, ns, batch, byNs.get(ns) ?? NO_ROWS, r.outcome === 'error');

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
      for (const key of [...byType.keys()]) if (!keys.has(key)) this.replaceBucket(byType.get(key)!.type, ns, EMPTY_BATCH, NO_ROWS, false);
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
      const emptied = bucket.size === 0;
      if (emptied) this.dropBucket(ns, type.key);
      this.emit({ kind: 'bucket', namespace: ns, typeKey: type.key, created: false, emptied, member: { name: p.name, joined: false } });
      return true;
    }
    const had = bucket?.holds(p.name, view);
    if (had === true) return false;
    if (had === false) {
      bucket!.set(p.name, view);
      this.emit({ kind: 'object', namespace: ns, typeKey: type.key, name: p.name });
      return true;
    }
    const b = bucket ?? this.createBucket(type, ns);
    b.set(p.name, view);
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
        for (const name of [...b.sortedNames()]) {
          if (++n % STEP_ITEMS === 0) yield;
          const key = b.keyOf(name);
          if (key !== undefined && !keep(key) && this.applyView(key, undefined)) removed++;
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
    for (const name of this.buckets.get(CLUSTER)?.get('namespaces')?.sortedNames() ?? []) names.add(name);
    const scoped = this.namespaceScope.length > 0 ? [...names].filter((n) => this.namespaceScope.includes(n)) : [...names];
    return scoped.sort();
  }

  /** The Namespace object's view, when namespaces were loaded. */
  namespaceView(name: string): ObjectView | undefined {
    return this.buckets.get(CLUSTER)?.get('namespaces')?.view(name);
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
    return this.buckets.get(namespace)?.get(typeKey)?.entry(name);
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
    const b = new Bucket(type, ns, this.strings);
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

  private replaceBucket(type: ResourceType, ns: string, batch: RowBatch, rows: readonly number[], partial: boolean): void {
    const old = this.buckets.get(ns)?.get(type.key);
    if (!old && rows.length === 0) return;
    if (old && old.partial === partial && old.size === rows.length && rows.every((r) => old.has(batch.nameAt(r)))) {
      // Same members: only rows may differ; announce each changed row.
      for (const r of rows) {
        if (old.holdsRow(batch, r)) continue;
        old.setRow(batch, r);
        this.emit({ kind: 'object', namespace: ns, typeKey: type.key, name: batch.nameAt(r) });
      }
      return;
    }
    this.count -= old?.size ?? 0;
    if (rows.length === 0) {
      this.dropBucket(ns, type.key);
      this.emit({ kind: 'bucket', namespace: ns, typeKey: type.key, created: false, emptied: true });
      return;
    }
    const b = old ?? this.createBucket(type, ns);
    b.replaceFrom(batch, rows);
    b.partial = partial;
    this.count += b.size;
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

const EMPTY_BATCH = new RowBatch({ group: '', resource: '' }, false);

/**
 * A result's rows: the batch its carriers name (its last as many rows as the result holds
 * carriers), or, for items the transform did not see (whole objects, or a mix), a batch written now.
 */
function rowsOf(r: LoadTaskResult, type: ResourceType): { batch: RowBatch; from: number } {
  const items = r.items;
  const only = items.length > 0 ? carrierOf(items[0]!) : undefined;
  if (only && items.every((i) => carrierOf(i) === only)) return { batch: only, from: only.size - items.length };
  const ref: ResourceRef = { group: type.gvr.group, resource: type.gvr.resource };
  const batch = new RowBatch(ref, type.namespaced);
  // Rows of carriers, in the order they stand in `items` (each batch's last as many as it has there).
  const next = new Map<RowBatch, number>();
  for (const i of items) {
    const b = carrierOf(i);
    if (b) next.set(b, (next.get(b) ?? b.size) - 1);
  }
  for (const item of items) {
    const b = carrierOf(item);
    if (b) {
      const at = next.get(b)!;
      next.set(b, at + 1);
      batch.copyFrom(b, at);
      continue;
    }
    const obj = asStoredObject(item);
    if (!obj) continue;
    const ns = type.namespaced ? (obj.metadata.namespace ?? r.task.namespace ?? '') : CLUSTER;
    if (type.namespaced && !ns) continue;
    rowOfLoaded(obj, ref, r.task.kind, batch.into(ns));
  }
  return { batch, from: 0 };
}

/** The key of a failure: one per (type, namespace of the task). */
export function failureKey(typeKey: string, namespace: string | undefined): string {
  return `${typeKey}@${namespace ?? ''}`;
}
