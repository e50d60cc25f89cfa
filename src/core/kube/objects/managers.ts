/**
 * metadata.managedFields in their compact form: per entry its manager, operation, time and
 * subresource, and its FieldsV1 set cut below MANAGERS_FIELD_DEPTH levels (a deeper set becomes
 * `{}`, owned as a whole); apiVersion and fieldsType dropped. What a recording keeps (format 4,
 * ../../recorder/managed.ts) and what the sync loop's watches keep while it records, so the writers
 * model can name who wrote each version.
 *
 * Why this much and no more: the writers model (core/writers/entries.ts) needs, per object
 * version, who wrote it (manager, operation, time, subresource) and which paths moved between
 * managers. Three levels name what people fight over (`spec.replicas`,
 * `metadata.annotations.<key>`, `metadata.labels.<key>`, `status.conditions.<type>`) while a
 * pod's kubelet entry (about 100 leaves, most of them inside containerStatuses) shrinks to a
 * dozen. A fight deeper than three levels is reported at its three-level prefix.
 *
 * Guarantees: never mutates its input; an entry without a string manager is left out; the result
 * is plain JSON; compacting a compact form gives an equal one.
 */

/** Levels of a FieldsV1 set kept; below, a set is `{}`. */
export const MANAGERS_FIELD_DEPTH = 3;

type Obj = Record<string, unknown>;

/** One managedFields entry in its compact form. */
export interface CompactManagedEntry {
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

/** The compact form of a managedFields list; undefined when there is none (or no entry names a manager). */
export function compactManagedFields(managedFields: unknown): CompactManagedEntry[] | undefined {
  if (!Array.isArray(managedFields) || managedFields.length === 0) return undefined;
  const out: CompactManagedEntry[] = [];
  for (const m of managedFields as unknown[]) {
    if (!isObj(m) || typeof m.manager !== 'string') continue;
    const e: CompactManagedEntry = { manager: m.manager };
    if (typeof m.operation === 'string') e.operation = m.operation;
    if (typeof m.time === 'string') e.time = m.time;
    if (typeof m.subresource === 'string' && m.subresource) e.subresource = m.subresource;
    if (isObj(m.fieldsV1)) e.fieldsV1 = cutSet(m.fieldsV1, MANAGERS_FIELD_DEPTH);
    out.push(e);
  }
  return out.length ? out : undefined;
}
