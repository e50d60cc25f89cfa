/**
 * managedFields for server-side apply: the entry an apply request leaves for its field manager
 * (operation Apply, fieldsType FieldsV1), as kube-apiserver's structured-merge-diff records it.
 * Guarantees: one Apply entry per manager and subresource, replaced by that manager's next apply;
 * other managers' entries are kept. Simplification (the demo has no conflict detection): lists are
 * recorded as atomic ("f:containers": {}), where upstream names associative list items ("k:{...}").
 * Update operations are not recorded.
 */
import type { KubeObject } from '../store';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The FieldsV1 set of the fields an applied configuration sets: {"f:spec": {"f:replicas": {}}}. */
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
export function withApplyEntry(o: KubeObject, applied: Obj, e: ApplyEntry): KubeObject {
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
