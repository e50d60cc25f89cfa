/**
 * metadata.managedFields as a recording keeps them (format version 4): per entry its manager,
 * operation, time and subresource, and its FieldsV1 set cut below FIELD_DEPTH levels (a deeper
 * set becomes `{}`, owned as a whole). apiVersion and fieldsType are dropped.
 *
 * Why this much and no more: the writers model (core/writers/entries.ts) needs, per object
 * version, who wrote it (manager, operation, time, subresource) and which paths moved between
 * managers. Three levels name what people fight over (`spec.replicas`,
 * `metadata.annotations.<key>`, `metadata.labels.<key>`, `status.conditions.<type>`) while a
 * pod's kubelet entry (about 100 leaves, most of them inside containerStatuses) shrinks to a
 * dozen. A fight deeper than three levels is reported at its three-level prefix.
 *
 * Guarantees: never mutates its input; an entry without a string manager is left out; the result
 * is plain JSON (it is diffed and written like the rest of the object).
 */
import type { Obj } from './records';

/** Levels of a FieldsV1 set kept; below, a set is `{}`. */
export const FIELD_DEPTH = 3;

/** One managedFields entry as recorded. */
export interface RecordedManagedEntry {
  manager: string;
  operation?: string;
  time?: string;
  subresource?: string;
  fieldsV1?: Obj;
}

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function cutSet(set: Obj, depth: number): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(set)) out[k] = depth <= 1 || !isObj(v) ? {} : cutSet(v, depth - 1);
  return out;
}

/** The recorded form of a managedFields list; undefined when there is none (or no entry names a manager). */
export function compactManagedFields(managedFields: unknown): RecordedManagedEntry[] | undefined {
  if (!Array.isArray(managedFields) || managedFields.length === 0) return undefined;
  const out: RecordedManagedEntry[] = [];
  for (const m of managedFields as unknown[]) {
    if (!isObj(m) || typeof m.manager !== 'string') continue;
    const e: RecordedManagedEntry = { manager: m.manager };
    if (typeof m.operation === 'string') e.operation = m.operation;
    if (typeof m.time === 'string') e.time = m.time;
    if (typeof m.subresource === 'string' && m.subresource) e.subresource = m.subresource;
    if (isObj(m.fieldsV1)) e.fieldsV1 = cutSet(m.fieldsV1, FIELD_DEPTH);
    out.push(e);
  }
  return out.length ? out : undefined;
}

/**
 * `masked` (the object as the recording has it, managedFields dropped) with `original`'s
 * managedFields in their recorded form; `masked` itself when `original` has none.
 */
export function withRecordedManagedFields(masked: Obj, original: Obj): Obj {
  const mf = compactManagedFields((original.metadata as Obj | undefined)?.managedFields);
  if (!mf) return masked;
  return { ...masked, metadata: { ...(masked.metadata as Obj), managedFields: mf } };
}
