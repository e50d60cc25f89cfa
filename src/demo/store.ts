/**
 * ObjectStore: the demo cluster's etcd plus registry, in memory.
 *
 * Guarantees:
 * - Objects are immutable once stored (deep-frozen). A write replaces the stored reference, never
 *   mutates it, so a list result is a cheap array of references that stays a consistent snapshot
 *   forever, whatever happens later (this is what paged lists with continue tokens rely on).
 * - One global, strictly increasing resourceVersion counter (like an etcd revision). Every write
 *   takes the next value; the object written (and its event) carries it as a decimal string.
 * - Subscribers are called synchronously after every write, in write order; a throwing subscriber
 *   never breaks the write or the other subscribers.
 * - A write that names its field manager (opts.manager: a controller, the kubelet, a client's
 *   User-Agent) leaves the Update entry in metadata.managedFields that kube-apiserver's field
 *   manager would (server/managed-fields.ts); a write without one leaves managedFields as given.
 * - eventsSince(rv) answers every event with a larger rv from a bounded history, or 'expired' when
 *   events after rv may already have been dropped (the watch then answers 410 Gone, like a compacted etcd).
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject as WireObject, ObjectMeta } from '../core/kube/objects/types';
import { statusApart, withUpdateEntry } from './server/managed-fields';

export interface TypeInfo {
  group: string;
  version: string;
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: string[];
  /**
   * Whether the type's registry strategy keeps metadata.generation (1 on create, +1 on a spec
   * change). Upstream does for workloads, pods, policies and custom resources, not for ConfigMaps,
   * Secrets, Services, Namespaces, Events, RBAC and the like. Unset means it does.
   */
  generation?: boolean;
}

/**
 * An object as the demo cluster serves it: the core/kube wire type with what every stored object
 * here has (apiVersion, kind, name; the store assigns uid and resourceVersion on create).
 */
export type DemoObject = WireObject & {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta & { name: string };
};

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: WatchEventType;
  group: string;
  resource: string;
  object: DemoObject;
  rv: number;
  /** The object as it was before this write (MODIFIED and DELETED); lets a list be served at an older revision. */
  prevObject?: DemoObject;
}

/** A failed store operation, carrying the HTTP code and the Kubernetes Status reason it maps to. */
export class StoreError extends Error {
  constructor(
    public code: number,
    public reason: string,
    message: string,
    public details?: { name?: string; group?: string; kind?: string },
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

interface TypeBucket {
  info: TypeInfo;
  /** key namespace + '/' + name -> object */
  objects: Map<string, DemoObject>;
  /** Sorted snapshot (namespace, then name), rebuilt lazily after a write; never mutated once built. */
  sorted: DemoObject[] | null;
}

const typeKey = (group: string, resource: string) => `${group}/${resource}`;
const objKey = (namespace: string | undefined, name: string) => `${namespace ?? ''}/${name}`;

/** The qualified resource as the apiserver names it in messages: `pods`, `deployments.apps`. */
export function qualifiedResource(group: string, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}

/** Kubernetes timestamps are RFC 3339 in UTC with second precision. */
export function kubeTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v as object)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}

function compareObjects(a: DemoObject, b: DemoObject): number {
  const na = a.metadata.namespace ?? '';
  const nb = b.metadata.namespace ?? '';
  if (na !== nb) return na < nb ? -1 : 1;
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

/** Everything in an object except metadata and status: a change here bumps metadata.generation. */
function specPart(o: DemoObject): string {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return JSON.stringify(rest);
}

export class ObjectStore {
  private readonly buckets = new Map<string, TypeBucket>();
  private readonly subscribers = new Set<(e: StoreEvent) => void>();
  private readonly history: (StoreEvent | undefined)[];
  private historyStart = 0; // index of the oldest event in the ring
  private historyLen = 0;
  private rv = 1;
  /** Events with rv > compactedRV are all in the history. */
  private compactedRV = 1;
  private readonly now: () => Date;

  constructor(opts: { historySize?: number; now?: () => Date } = {}) {
    this.history = new Array(Math.max(1, opts.historySize ?? 10_000));
    this.now = opts.now ?? (() => new Date());
  }

  registerType(t: TypeInfo): void {
    const key = typeKey(t.group, t.resource);
    const existing = this.buckets.get(key);
    if (existing) existing.info = t;
    else this.buckets.set(key, { info: t, objects: new Map(), sorted: null });
  }

  types(): TypeInfo[] {
    return [...this.buckets.values()].map((b) => b.info);
  }

  type(group: string, resource: string): TypeInfo | undefined {
    return this.buckets.get(typeKey(group, resource))?.info;
  }

  get currentRV(): number {
    return this.rv;
  }

  /** The oldest resourceVersion a watch can still resume from. */
  get oldestRV(): number {
    return this.compactedRV;
  }

  list(group: string, resource: string, namespace?: string): { items: DemoObject[]; resourceVersion: string } {
    const b = this.bucket(group, resource);
    if (!b.sorted) b.sorted = [...b.objects.values()].sort(compareObjects);
    const all = b.sorted;
    const resourceVersion = String(this.rv);
    if (namespace === undefined || namespace === '' || !b.info.namespaced) return { items: all, resourceVersion };
    // The snapshot is sorted by namespace first: one namespace is a contiguous slice.
    const lo = lowerBound(all, (o) => (o.metadata.namespace ?? '') < namespace);
    const hi = lowerBound(all, (o) => (o.metadata.namespace ?? '') <= namespace);
    return { items: all.slice(lo, hi), resourceVersion };
  }

  get(group: string, resource: string, namespace: string | undefined, name: string): DemoObject | undefined {
    const b = this.bucket(group, resource);
    return b.objects.get(objKey(b.info.namespaced ? namespace : undefined, name));
  }

  /** Number of objects of one type (all namespaces). */
  count(group: string, resource: string): number {
    return this.bucket(group, resource).objects.size;
  }

  /**
   * opts.uid: the uid the apiserver's create strategy chose (a Job's selector names it); otherwise a
   * new one. opts.manager: the field manager of the create, when the object carries no managedFields.
   */
  create(group: string, resource: string, obj: DemoObject, opts: { uid?: string; manager?: string } = {}): DemoObject {
    const b = this.bucket(group, resource);
    const name = obj.metadata?.name;
    if (!name) throw new StoreError(422, 'Invalid', `${b.info.kind} "" is invalid: metadata.name: Required value: name is required`);
    const ns = b.info.namespaced ? obj.metadata.namespace : undefined;
    if (b.info.namespaced && !ns) throw new StoreError(422, 'Invalid', `${b.info.kind} "${name}" is invalid: metadata.namespace: Required value`);
    const key = objKey(ns, name);
    if (b.objects.has(key)) {
      throw new StoreError(409, 'AlreadyExists', `${qualifiedResource(group, resource)} "${name}" already exists`, this.details(b, name));
    }
    const rv = this.rv + 1;
    const metadata: DemoObject['metadata'] = {
      ...obj.metadata,
      name,
      uid: opts.uid ?? randomUUID(),
      resourceVersion: String(rv),
      ...(b.info.generation === false ? {} : { generation: 1 }),
      creationTimestamp: kubeTime(this.now()),
    };
    if (ns !== undefined) metadata.namespace = ns;
    else delete metadata.namespace;
    delete metadata.deletionTimestamp;
    let created: DemoObject = { ...obj, apiVersion: apiVersionOf(b.info), kind: b.info.kind, metadata };
    if (opts.manager !== undefined && !metadata.managedFields)
      created = withUpdateEntry(undefined, created, this.write(b.info, opts.manager), statusApart(b.info));
    const stored = deepFreeze(created);
    this.commit(b, key, stored, 'ADDED', rv);
    return stored;
  }

  /**
   * opts.subresource 'status' writes only the status; 'binding' is the scheduler's pods/binding,
   * which sets spec.nodeName straight in storage without the pod strategy, so the generation stays.
   */
  update(group: string, resource: string, obj: DemoObject, opts: { subresource?: 'status' | 'binding'; manager?: string } = {}): DemoObject {
    const b = this.bucket(group, resource);
    const name = obj.metadata?.name;
    if (!name) throw new StoreError(422, 'Invalid', `${b.info.kind} "" is invalid: metadata.name: Required value: name is required`);
    const ns = b.info.namespaced ? obj.metadata.namespace : undefined;
    const key = objKey(ns, name);
    const old = b.objects.get(key);
    if (!old) throw new StoreError(404, 'NotFound', `${qualifiedResource(group, resource)} "${name}" not found`, this.details(b, name));
    const given = obj.metadata.resourceVersion;
    if (given !== undefined && given !== '' && given !== old.metadata.resourceVersion) {
      throw new StoreError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${qualifiedResource(group, resource)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        this.details(b, name),
      );
    }
    const rv = this.rv + 1;
    let next: DemoObject;
    if (opts.subresource === 'status') {
      // The status subresource changes .status only; everything else comes from the stored object.
      next = { ...old, metadata: { ...old.metadata, resourceVersion: String(rv) } };
      if (obj.status === undefined) delete next.status;
      else next.status = obj.status;
    } else {
      next = { ...obj, apiVersion: old.apiVersion, kind: old.kind };
      const hasStatusSub = b.info.subresources?.includes('status') ?? false;
      if (hasStatusSub) {
        if (old.status === undefined) delete next.status;
        else next.status = old.status;
      }
      // uid and creationTimestamp are immutable: the stored values win.
      next.metadata = {
        ...obj.metadata,
        name,
        uid: old.metadata.uid,
        creationTimestamp: old.metadata.creationTimestamp,
        resourceVersion: String(rv),
      };
      // A spec change bumps the generation, and so does the start of a graceful deletion (upstream's BeforeDelete).
      const bump =
        (opts.subresource !== 'binding' && specPart(next) !== specPart(old)) || (!old.metadata.deletionTimestamp && !!obj.metadata.deletionTimestamp);
      if (b.info.generation !== false) next.metadata.generation = (old.metadata.generation ?? 1) + (bump ? 1 : 0);
      if (ns !== undefined) next.metadata.namespace = ns;
      else delete next.metadata.namespace;
      if (old.metadata.deletionTimestamp) next.metadata.deletionTimestamp = old.metadata.deletionTimestamp;
    }
    if (opts.manager !== undefined && opts.subresource !== 'binding') {
      const sub = opts.subresource === 'status' ? 'status' : undefined;
      next = withUpdateEntry(old, next, { ...this.write(b.info, opts.manager), ...(sub ? { subresource: sub } : {}) }, statusApart(b.info));
    }
    const stored = deepFreeze(next);
    this.commit(b, key, stored, 'MODIFIED', rv, undefined, old);
    return stored;
  }

  delete(group: string, resource: string, namespace: string | undefined, name: string): DemoObject {
    const b = this.bucket(group, resource);
    const key = objKey(b.info.namespaced ? namespace : undefined, name);
    const old = b.objects.get(key);
    if (!old) throw new StoreError(404, 'NotFound', `${qualifiedResource(group, resource)} "${name}" not found`, this.details(b, name));
    const rv = this.rv + 1;
    // Like the apiserver, the DELETED event carries the object at the revision of its deletion.
    const gone = deepFreeze({ ...old, metadata: { ...old.metadata, resourceVersion: String(rv) } });
    this.commit(b, key, undefined, 'DELETED', rv, gone, old);
    return gone;
  }

  /**
   * The list as it was at revision rv (resourceVersionMatch=Exact), rebuilt by undoing the newer
   * events of the history; 'expired' when the history no longer reaches back to rv.
   */
  listAt(group: string, resource: string, namespace: string | undefined, rv: number): { items: DemoObject[]; resourceVersion: string } | 'expired' {
    if (rv >= this.rv) return this.list(group, resource, namespace);
    const newer = this.eventsSince(rv, group, resource);
    if (newer === 'expired') return 'expired';
    const byKey = new Map<string, DemoObject>();
    for (const o of this.list(group, resource).items) byKey.set(objKey(o.metadata.namespace, o.metadata.name), o);
    for (let i = newer.length - 1; i >= 0; i--) {
      const e = newer[i]!;
      const k = objKey(e.object.metadata.namespace, e.object.metadata.name);
      if (e.type === 'ADDED') byKey.delete(k);
      else if (e.prevObject) byKey.set(k, e.prevObject);
    }
    const namespaced = this.bucket(group, resource).info.namespaced;
    let items = [...byKey.values()].sort(compareObjects);
    if (namespaced && namespace) items = items.filter((o) => o.metadata.namespace === namespace);
    return { items, resourceVersion: String(rv) };
  }

  subscribe(fn: (e: StoreEvent) => void): () => void {
    this.subscribers.add(fn);
    return () => {
      this.subscribers.delete(fn);
    };
  }

  eventsSince(rv: number, group: string, resource: string): StoreEvent[] | 'expired' {
    if (rv < this.compactedRV) return 'expired';
    const out: StoreEvent[] = [];
    for (let i = 0; i < this.historyLen; i++) {
      const e = this.history[(this.historyStart + i) % this.history.length]!;
      if (e.rv > rv && e.group === group && e.resource === resource) out.push(e);
    }
    return out;
  }

  private commit(b: TypeBucket, key: string, stored: DemoObject | undefined, type: WatchEventType, rv: number, gone?: DemoObject, prev?: DemoObject): void {
    if (stored) b.objects.set(key, stored);
    else b.objects.delete(key);
    b.sorted = null;
    this.rv = rv;
    const event: StoreEvent = { type, group: b.info.group, resource: b.info.resource, object: (stored ?? gone)!, rv };
    if (prev) event.prevObject = prev;
    this.record(event);
    for (const fn of [...this.subscribers]) {
      try {
        fn(event);
      } catch {
        // A subscriber's failure is its own; the write has happened and others must still hear of it.
      }
    }
  }

  private record(e: StoreEvent): void {
    const cap = this.history.length;
    if (this.historyLen === cap) {
      const dropped = this.history[this.historyStart]!;
      this.compactedRV = dropped.rv;
      this.historyStart = (this.historyStart + 1) % cap;
      this.historyLen--;
    }
    this.history[(this.historyStart + this.historyLen) % cap] = e;
    this.historyLen++;
  }

  private bucket(group: string, resource: string): TypeBucket {
    const b = this.buckets.get(typeKey(group, resource));
    if (!b) throw new StoreError(404, 'NotFound', `the server could not find the requested resource (${qualifiedResource(group, resource)})`);
    return b;
  }

  private write(t: TypeInfo, manager: string) {
    return { manager, apiVersion: apiVersionOf(t), time: kubeTime(this.now()) };
  }

  private details(b: TypeBucket, name: string) {
    return { name, group: b.info.group, kind: b.info.resource };
  }
}

export function apiVersionOf(t: Pick<TypeInfo, 'group' | 'version'>): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

/** First index i where pred(arr[i]) is false (pred must be true on a prefix). */
function lowerBound<T>(arr: readonly T[], pred: (x: T) => boolean): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(arr[mid]!)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
