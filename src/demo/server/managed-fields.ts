/**
 * managedFields as kube-apiserver's field manager records them (structured-merge-diff, FieldsV1).
 *
 * - Apply (server-side apply): one Apply entry per manager and subresource, replaced by that
 *   manager's next apply; other managers' entries are kept. No conflict detection.
 * - Update (create, replace, patch, status writes, and the demo's own controllers and kubelet):
 *   one Update entry per manager, apiVersion and subresource. A write gives its manager the fields
 *   it set or changed (union with what it had), takes them from every other manager's Update
 *   entry (an entry left empty goes), and stamps the entry's time; a write that changes nothing
 *   leaves the entries alone. Removed fields are not taken from anyone (upstream does).
 *
 * FieldsV1 shape, an approximation of upstream's schema-driven sets with the same shape and size:
 * "f:<field>" per object field; associative lists keyed per item "k:{...}" for the common lists
 * (containers, env, volumes by name; volumeMounts by mountPath; container ports by
 * containerPort+protocol, Service ports by port+protocol; conditions by type; ownerReferences by
 * uid; podIPs by ip; Node addresses by type); finalizers as a set ("v:..."); every other list
 * atomic ("f:args": {}), and so are label selectors. A node the write newly adds carries "." (the
 * node itself) unless it is one of the structural ones upstream leaves bare (metadata, spec,
 * status, template, containers, strategy).
 */
import type { DemoObject, TypeInfo } from '../store';

type Obj = Record<string, unknown>;

/** The set's leaf ("f:x": {}), one shared frozen object: a million objects' managedFields hold millions of them. */
const LEAF: Obj = Object.freeze({});

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The FieldsV1 set of the fields an applied configuration sets: {"f:spec": {"f:replicas": {}}} (lists atomic). */
function fieldSet(v: Obj): Obj {
  const out: Obj = {};
  for (const [k, val] of Object.entries(v)) out[`f:${k}`] = isObj(val) ? fieldSet(val) : {};
  return out;
}

export interface ApplyEntry {
  manager: string;
  apiVersion: string;
  subresource?: string;
  time: string;
}

/** `o` with the Apply entry of `e.manager` for what `applied` sets (identity fields left out, as upstream). */
export function withApplyEntry(o: DemoObject, applied: Obj, e: ApplyEntry): DemoObject {
  const { apiVersion: _a, kind: _k, metadata, ...rest } = applied;
  const { name: _n, namespace: _ns, resourceVersion: _rv, uid: _u, ...metaRest } = isObj(metadata) ? metadata : {};
  const fields = fieldSet(Object.keys(metaRest).length ? { metadata: metaRest, ...rest } : rest);
  const entry: Obj = { manager: e.manager, operation: 'Apply', apiVersion: e.apiVersion, time: e.time, fieldsType: 'FieldsV1', fieldsV1: fields };
  if (e.subresource) entry.subresource = e.subresource;
  const kept = ((o.metadata.managedFields ?? []) as Obj[]).filter(
    (m) => !(m.manager === e.manager && m.operation === 'Apply' && (m.subresource ?? '') === (e.subresource ?? '')),
  );
  return { ...o, metadata: { ...o.metadata, managedFields: [...kept, entry] } };
}

export interface UpdateWrite {
  manager: string;
  /** group/version of the request (the entry's apiVersion). */
  apiVersion: string;
  time: string;
  subresource?: 'status';
}

/** Metadata the apiserver owns: never part of a field set. */
const IDENTITY = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]);
const BARE = new Set(['metadata', 'spec', 'status', 'template', 'jobTemplate', 'containers', 'initContainers', 'strategy', 'updateStrategy']);
const BY_NAME = new Set(['containers', 'initContainers', 'ephemeralContainers', 'env', 'volumes', 'imagePullSecrets', 'resourceClaims']);
const ATOMIC = new Set(['selector', 'nodeSelector', 'involvedObject', 'regarding', 'related', 'roleRef', 'targetRef', 'scaleTargetRef']);

/** The keys of an associative list, or undefined when the list is atomic (see the header). */
function listKeys(field: string, items: unknown[], kind: string): string[] | undefined {
  const first = items[0];
  if (!isObj(first)) return undefined;
  if (BY_NAME.has(field)) return ['name'];
  if (field === 'volumeMounts') return ['mountPath'];
  if (field === 'ownerReferences') return ['uid'];
  if (field === 'podIPs') return ['ip'];
  if (field === 'addresses' && 'type' in first) return ['type'];
  if (field === 'conditions' && 'type' in first && kind !== 'Job') return ['type'];
  if (field === 'ports' && 'containerPort' in first) return ['containerPort', 'protocol'];
  if (field === 'ports' && 'port' in first && 'targetPort' in first) return ['port', 'protocol'];
  return undefined;
}

function itemKey(item: Obj, keys: string[]): string {
  const k: Obj = {};
  for (const key of [...keys].sort()) k[key] = item[key] ?? (key === 'protocol' ? 'TCP' : null);
  return `k:${JSON.stringify(k)}`;
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The FieldsV1 set of what `next` sets that `old` did not have or had otherwise (old undefined:
 * everything `next` sets); undefined when nothing.
 */
function changedSet(old: unknown, next: unknown, field: string, kind: string, top = false): Obj | undefined {
  if (isObj(next)) {
    const before = isObj(old) ? old : undefined;
    const keys = Object.keys(next);
    if (keys.length === 0) return before && Object.keys(before).length === 0 ? undefined : LEAF;
    if (ATOMIC.has(field)) return same(old, next) ? undefined : LEAF;
    const out: Obj = {};
    // Sorted, as the apiserver serializes a set: ".", then "f:" fields, then "k:" items.
    for (const k of keys.sort()) {
      // Zero-valued top-level fields (an Event's eventTime: null, reportingInstance: "") are omitted ones.
      if (top && (k === 'apiVersion' || k === 'kind' || next[k] === null || next[k] === '')) continue;
      const c = changedSet(before?.[k], next[k], k, kind);
      if (c) out[`f:${k}`] = c;
    }
    if (!Object.keys(out).length) return undefined;
    return before === undefined && !BARE.has(field) && !top ? { '.': LEAF, ...out } : out;
  }
  if (Array.isArray(next)) {
    const before = Array.isArray(old) ? (old as unknown[]) : undefined;
    if (field === 'finalizers' && next.every((x) => typeof x === 'string')) {
      const out: Obj = {};
      for (const f of next) if (!before?.includes(f)) out[`v:${JSON.stringify(f)}`] = LEAF;
      if (!Object.keys(out).length) return undefined;
      return before === undefined ? { '.': LEAF, ...out } : out;
    }
    const keys = next.length ? listKeys(field, next, kind) : undefined;
    if (!keys || !next.every(isObj)) return same(old, next) ? undefined : LEAF;
    const out: Obj = {};
    for (const item of [...(next as Obj[])].sort((a, b) => (itemKey(a, keys) < itemKey(b, keys) ? -1 : 1))) {
      const key = itemKey(item, keys);
      const prev = before?.find((b) => isObj(b) && itemKey(b, keys) === key);
      // An ownerReference is atomic: its key alone names it.
      const c = field === 'ownerReferences' ? (same(prev, item) ? undefined : LEAF) : changedSet(prev, item, '', kind);
      if (c) out[key] = prev === undefined && field !== 'ownerReferences' && !('.' in c) ? { '.': LEAF, ...c } : c;
    }
    if (!Object.keys(out).length) return undefined;
    return before === undefined && !BARE.has(field) ? { '.': LEAF, ...out } : out;
  }
  return old === next ? undefined : LEAF;
}

/** The part of an object a write through `subresource` can set: status alone, or all but identity (and status, when the type has the subresource). */
function writable(o: DemoObject, subresource: string | undefined, statusApart: boolean): Obj {
  if (subresource === 'status') return o.status === undefined ? {} : { status: o.status };
  const { apiVersion: _a, kind: _k, metadata, status, ...rest } = o;
  const meta: Obj = {};
  for (const [k, v] of Object.entries(metadata ?? {})) if (!IDENTITY.has(k)) meta[k] = v;
  const out: Obj = Object.keys(meta).length ? { metadata: meta, ...rest } : { ...rest };
  if (!statusApart && status !== undefined) out.status = status;
  return out;
}

function union(a: Obj, b: Obj): Obj {
  const out: Obj = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isObj(out[k]) && isObj(v) ? union(out[k] as Obj, v) : v;
  return out;
}

/** `a` without the leaves of `b` (a node left with only "." goes too); undefined when nothing is left. */
function subtract(a: Obj, b: Obj): Obj | undefined {
  const out: Obj = {};
  for (const [k, v] of Object.entries(a)) {
    const other = b[k];
    if (other === undefined) out[k] = v;
    else if (isObj(other) && Object.keys(other).length && isObj(v) && Object.keys(v).length) {
      const rest = subtract(v, other);
      if (rest) out[k] = rest;
    }
  }
  const keys = Object.keys(out);
  return keys.length === 0 || (keys.length === 1 && keys[0] === '.' && Object.keys(a).length > 1) ? undefined : out;
}

/** Whether the type keeps .status apart (a status subresource): then a main-resource write never sets it. */
export function statusApart(t: Pick<TypeInfo, 'subresources'>): boolean {
  return t.subresources?.includes('status') ?? false;
}

/**
 * `next` (the object as it will be stored) with managedFields updated for an Update by `w`: from
 * `old`'s entries (old undefined: a create, whose entry holds every field `next` sets).
 */
export function withUpdateEntry(old: DemoObject | undefined, next: DemoObject, w: UpdateWrite, apart: boolean): DemoObject {
  const kind = next.kind;
  const changed = changedSet(old ? writable(old, w.subresource, apart) : undefined, writable(next, w.subresource, apart), '', kind, true);
  const entries = ((old ?? next).metadata.managedFields ?? []) as Obj[];
  // A write that sets no field (a create of a bare ServiceAccount) leaves no entry, as upstream.
  if (!changed || !Object.keys(changed).length) {
    const kept = old?.metadata.managedFields;
    if (kept === next.metadata.managedFields) return next;
    const meta = { ...next.metadata };
    if (kept) meta.managedFields = kept;
    else delete meta.managedFields;
    return { ...next, metadata: meta };
  }
  const mine = (m: Obj) =>
    m.manager === w.manager && m.operation === 'Update' && m.apiVersion === w.apiVersion && (m.subresource ?? '') === (w.subresource ?? '');
  const out: Obj[] = [];
  let placed = false;
  for (const m of entries) {
    if (mine(m)) {
      out.push({ ...m, time: w.time, fieldsV1: union((m.fieldsV1 as Obj | undefined) ?? {}, changed) });
      placed = true;
    } else if (m.operation === 'Update') {
      const rest = subtract((m.fieldsV1 as Obj | undefined) ?? {}, changed);
      if (rest) out.push(rest === m.fieldsV1 ? m : { ...m, fieldsV1: rest });
    } else out.push(m);
  }
  if (!placed) out.push(updateEntry(w, changed));
  return { ...next, metadata: { ...next.metadata, managedFields: out } };
}

/** One Update entry (the order of its keys is the apiserver's). */
export function updateEntry(w: UpdateWrite, fieldsV1: Obj): Obj {
  const e: Obj = { manager: w.manager, operation: 'Update', apiVersion: w.apiVersion, time: w.time, fieldsType: 'FieldsV1', fieldsV1 };
  if (w.subresource) e.subresource = w.subresource;
  return e;
}

/** The FieldsV1 set a create of `given` gives its manager (identity fields left out; status when the type keeps it apart). */
export function createdFields(given: DemoObject, apart: boolean): Obj {
  return changedSet(undefined, writable(given, undefined, apart), '', given.kind, true) ?? {};
}

/**
 * kube-apiserver's managerOrUserAgent: the ?fieldManager= when given, else the User-Agent up to
 * its first '/', printable characters only, at most 128 bytes.
 */
export function managerOf(fieldManager: string | null | undefined, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  let out = '';
  for (const ch of (userAgent ?? '').split('/')[0]!) {
    if (!/\P{C}/u.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > 128) break;
    out += ch;
  }
  return out;
}
