/**
 * What the writer model keeps of an object's metadata.managedFields: per entry its manager,
 * operation, subresource and time, and the field paths its FieldsV1 set owns as 32-bit hashes
 * (sorted). fieldsV1 itself is never kept: at 100,000 objects it is often half of each object.
 *
 * Who wrote an event's version: the entry whose time moved (or that is new) since the version kept
 * before; with no version kept, or when no time moved (a manager writing twice in one second: the
 * time has seconds only), the entry with the newest time, the last writer's among equals. A write takes the fields it sets from
 * every other Update entry (structured-merge-diff), so a path that left entry A for the writer's
 * entry B is a field B took from A: the raw material of a fight.
 */
export interface EntrySummary {
  manager: string;
  operation: string;
  subresource: string;
  /** The entry's time, ms since the epoch (0 when absent or unreadable): a number, not the text, at 100,000 objects. */
  time: number;
  /** The owned leaf paths' hashes (pathHash), sorted ascending: small integers in a plain array (4 bytes each; a typed array per entry cost 10 times that at 100,000 objects). */
  paths: number[];
}

/** Field paths of one entry beyond this many are not kept (a kubelet's status entry has about 100). */
const MAX_PATHS = 1024;

/** One path a writer took from another manager: its text, as `spec.replicas` or `metadata.annotations.x`. */
export interface Taken {
  path: string;
  from: string;
}

export interface WriterOf {
  manager: string;
  operation: string;
  /** Fields this write took from other managers (empty without a kept version). */
  taken: Taken[];
}

export function fnv1a(s: string, h = 0x811c9dc5): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A path's hash: FNV-1a cut to 30 bits, so V8 keeps it as a small integer. */
const pathHash = (p: string): number => fnv1a(p) & 0x3fffffff;

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The leaf paths of a FieldsV1 set ("f:" dropped, "k:"/"v:" kept; a "." marks its parent as owned). */
export function leafPaths(set: unknown, prefix = '', out: string[] = []): string[] {
  if (!isObj(set)) return out;
  let leaf = true;
  for (const [k, v] of Object.entries(set)) {
    if (out.length >= MAX_PATHS) break;
    if (k === '.') {
      if (prefix) out.push(prefix);
      continue;
    }
    leaf = false;
    const name = k.startsWith('f:') ? k.slice(2) : k;
    const path = prefix ? `${prefix}.${name}` : name;
    if (isObj(v) && Object.keys(v).length) leafPaths(v, path, out);
    else out.push(path);
  }
  if (leaf && prefix && !out.includes(prefix)) out.push(prefix);
  return out;
}

/** The entries of a managedFields list, in its order (malformed entries left out). */
export function summarize(managedFields: readonly unknown[] | undefined, intern: (s: string) => string): EntrySummary[] {
  const out: EntrySummary[] = [];
  for (const m of managedFields ?? []) {
    if (!isObj(m) || typeof m.manager !== 'string') continue;
    const paths = [...new Set(leafPaths(m.fieldsV1).map(pathHash))].sort((a, b) => a - b);
    out.push({
      manager: intern(m.manager),
      operation: intern(typeof m.operation === 'string' ? m.operation : ''),
      subresource: intern(typeof m.subresource === 'string' ? m.subresource : ''),
      time: typeof m.time === 'string' ? Date.parse(m.time) || 0 : 0,
      paths,
    });
  }
  return out;
}

const sameEntry = (a: EntrySummary, b: EntrySummary) => a.manager === b.manager && a.operation === b.operation && a.subresource === b.subresource;

function has(paths: readonly number[], h: number): boolean {
  let lo = 0;
  let hi = paths.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = paths[mid]!;
    if (v === h) return true;
    if (v < h) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Who wrote `next` (see the header); `fieldsOf(writer)` gives the writer entry's FieldsV1 to name taken paths. */
export function writerOf(
  prev: readonly EntrySummary[] | undefined,
  next: readonly EntrySummary[],
  lastWriter: string | undefined,
  fieldsOf: (e: EntrySummary) => unknown,
): WriterOf | undefined {
  if (!next.length) return undefined;
  let writer: EntrySummary | undefined;
  let before: EntrySummary | undefined;
  if (prev) {
    for (const e of next) {
      const p = prev.find((x) => sameEntry(x, e));
      if (p && p.time === e.time) continue;
      if (!writer || e.time > writer.time) {
        writer = e;
        before = p;
      }
    }
  }
  if (!writer) {
    writer = next.reduce((a, b) => (b.time > a.time || (b.time === a.time && b.manager === lastWriter) ? b : a));
    before = prev?.find((x) => sameEntry(x, writer!));
  }
  const taken: Taken[] = [];
  if (prev) {
    let named: Map<number, string> | undefined;
    for (const h of writer.paths) {
      if (before && has(before.paths, h)) continue;
      const from = prev.find((x) => x.manager !== writer.manager && has(x.paths, h));
      if (!from) continue;
      named ??= new Map(leafPaths(fieldsOf(writer)).map((p) => [pathHash(p), p]));
      taken.push({ path: named.get(h) ?? `#${h.toString(16)}`, from: from.manager });
    }
  }
  return { manager: writer.manager, operation: writer.operation, taken };
}
