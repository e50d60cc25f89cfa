/**
 * PackedRows: the rows of one (namespace, type), sorted by name, held as packed records instead of
 * one ObjectView object per row. A row is its name (the one string it keeps) and nine 32-bit words
 * in the bucket's one typed array: its uid as 16 bytes, its resourceVersion as a number, its kind,
 * STATUS, phase and READY as two-byte ids into the cluster's RowStrings, its RESTARTS and flags. Its
 * key is the store's prefix and its name. So 100,000 rows are one array of words and 100,000 name
 * strings, where they were 100,000 views, their keys, uids, resourceVersions and an entry each: the
 * host's collector no longer walks objects it never shows. An ObjectView is made (viewAt) only for
 * what a caller reads: the rows on screen, a changed row.
 *
 * Guarantees:
 * - Exact: viewAt(indexOf(name)) is deepEqual (undefined members count as absent) to the last view
 *   set for that name. A view the words cannot hold exactly (probe results, a uid that is not a
 *   lowercase UUID, a resourceVersion that is not a plain integer below 10^15, a key other than the
 *   prefix and the name, more distinct strings than RowStrings holds) is kept whole for its row.
 * - sameAt(i, view) is that deepEqual, without making a view when the row is packed.
 * - Rows stay in code-unit order of their names: set and remove find their place by binary search
 *   and shift the words (a memmove), never re-sort; replaceAll and replaceFrom sort once (not at all
 *   for a list that comes sorted, as the API server's do).
 * - replaceFrom(batch, rows) holds what replaceAll would given the views those rows of the batch
 *   (a load's RowBatch, written from its pages with no view made) stand for: their words are copied,
 *   their string ids translated into this store's table.
 */
import { uidOfWords, uidWords } from '../kube/objects/uidWords';
import { makeView, type ObjectView, type RowColumns, type RowMeta } from './objectView';
import type { RowBatch } from './rowBatch';
import { NO_ROW_STRING, type RowStrings } from './rowStrings';

const DELETING = 1;
const HAS_NAMESPACE = 2;
const HAS_RV = 4;
/** The row is kept as its view (`whole`); its words mean nothing. */
const WHOLE = 8;
const NO_RESTARTS = 0xffffffff;
/** resourceVersions are decimal integers (etcd revisions); 15 digits keep them exact in a double. */
const MAX_RV_DIGITS = 15;

/**
 * A row's words: 0-3 the uid's 128 bits; 4 the resourceVersion's low 32 bits; 5 its high bits
 * (below 2^21) and the flags at bit 24; 6 kind << 16 | STATUS; 7 phase << 16 | READY (RowStrings
 * ids); 8 RESTARTS. One array per bucket: a bucket of three rows is one typed array, not eight.
 */
export const STRIDE = 9;
const FLAGS_SHIFT = 24;
const RV_HIGH_MASK = 0x1fffff;
const TWO_32 = 2 ** 32;
export const EMPTY_WORDS = new Uint32Array(0);
const EMPTY = EMPTY_WORDS;
/** The words two tables' rows compare as they are (6 and 7 hold ids into each one's own table). */
const WORDS_BUT_STRINGS = [0, 1, 2, 3, 4, 5, 8];

export class PackedRows {
  private names: string[] = [];
  /** STRIDE words a row, rows in name order; its length is the capacity. */
  private words: Uint32Array = EMPTY;
  /** Views of the rows the words cannot hold exactly, by name. */
  private readonly whole = new Map<string, ObjectView>();
  /** What `encode` makes of a view: one row's words before they are stored. */
  private readonly enc = new Uint32Array(STRIDE);

  /**
   * `keyPrefix`: what every row's key is before its name (`ns/` for pods, `configmaps:ns/`,
   * `nodes:`); `namespace`: what a row's view.namespace is when it has one.
   */
  constructor(
    readonly keyPrefix: string,
    readonly namespace: string | undefined,
    private readonly strings: RowStrings,
  ) {}

  get size(): number {
    return this.names.length;
  }

  /** How many rows are kept whole (as their view): 0 for rows as computeObjectView and a real API server make them. */
  get wholeRows(): number {
    return this.whole.size;
  }

  /** The names in order. The array is this store's own: read it, do not keep it. */
  sortedNames(): readonly string[] {
    return this.names;
  }

  nameAt(i: number): string {
    return this.names[i]!;
  }

  /** The row of `name`, or -1. */
  indexOf(name: string): number {
    const i = this.lowerBound(name);
    return i < this.names.length && this.names[i] === name ? i : -1;
  }

  keyAt(i: number): string {
    return this.flagsAt(i) & WHOLE ? this.whole.get(this.names[i]!)!.key : this.keyPrefix + this.names[i]!;
  }

  /** The row's view, made now (a kept-whole row's own view). Views are never changed once made. */
  viewAt(i: number): ObjectView {
    const name = this.names[i]!;
    if (this.flagsAt(i) & WHOLE) return this.whole.get(name)!;
    return viewOfWords(this.words, i * STRIDE, this.keyPrefix + name, name, this.namespace, this.strings);
  }

  /** Whether row i shows `v` (deepEqual of its view and `v`). */
  sameAt(i: number, v: ObjectView): boolean {
    const name = this.names[i]!;
    if (this.flagsAt(i) & WHOLE || !this.encode(name, v, false)) return sameView(this.viewAt(i), v);
    const e = this.enc;
    const w = this.words;
    const at = i * STRIDE;
    for (let k = 0; k < STRIDE; k++) if (e[k] !== w[at + k]) return false;
    return true;
  }

  /** Sets the row of `name` to `v`; true when the row is new. */
  set(name: string, v: ObjectView): boolean {
    const i = this.lowerBound(name);
    const added = !(i < this.names.length && this.names[i] === name);
    if (added) {
      this.insertAt(i, name);
    } else if (this.flagsAt(i) & WHOLE) {
      this.whole.delete(name);
    }
    this.write(i, name, v);
    return added;
  }

  /** Removes the row of `name`; false when there was none. */
  remove(name: string): boolean {
    const i = this.indexOf(name);
    if (i < 0) return false;
    if (this.flagsAt(i) & WHOLE) this.whole.delete(name);
    const n = this.names.length;
    this.names.splice(i, 1);
    this.words.copyWithin(i * STRIDE, (i + 1) * STRIDE, n * STRIDE);
    return true;
  }

  /**
   * Every row at once: `views[k]` is the row of `names[k]` (a name given twice keeps its last view).
   * Sorts once, unless the names come sorted; the arrays are only read.
   */
  replaceAll(names: readonly string[], views: readonly ObjectView[]): void {
    this.fill(names, (i, k) => this.write(i, names[k]!, views[k]!));
  }

  /**
   * Every row at once from rows of a batch (replaceAll's rules: `rows[k]` is the row of the k-th
   * name; a name given twice keeps its last). Packed rows are copied as words; a row whose strings
   * this store's table cannot take is kept whole.
   */
  replaceFrom(batch: RowBatch, rows: readonly number[]): void {
    const names = rows.map((r) => batch.nameAt(r));
    const ids = new Int32Array(batch.strings.size).fill(-1);
    this.fill(names, (i, k) => this.copyRow(i, batch, rows[k]!, ids));
  }

  /** Whether row i shows what row `r` of `batch` stands for (sameAt of its view, made only for a row kept whole). */
  sameAsRow(i: number, batch: RowBatch, r: number): boolean {
    if (this.names[i] !== batch.nameAt(r)) return false;
    if (this.flagsAt(i) & WHOLE || batch.isWhole(r)) return sameView(this.viewAt(i), this.viewOfRow(batch, r));
    const w = this.words;
    const b = batch.words;
    const at = i * STRIDE;
    const from = r * STRIDE;
    for (const k of WORDS_BUT_STRINGS) if (w[at + k] !== b[from + k]) return false;
    return sameString(this.strings, w[at + 6]!, batch.strings, b[from + 6]!) && sameString(this.strings, w[at + 7]!, batch.strings, b[from + 7]!);
  }

  /** The view row `r` of `batch` stands for, in this store (its key this store's prefix and its name). */
  viewOfRow(batch: RowBatch, r: number): ObjectView {
    const name = batch.nameAt(r);
    return batch.isWhole(r) ? batch.wholeAt(r)! : viewOfWords(batch.words, r * STRIDE, this.keyPrefix + name, name, this.namespace, batch.strings);
  }

  /** Fills the store with `names`' rows: `put(i, k)` writes row i from the k-th given. */
  private fill(names: readonly string[], put: (i: number, k: number) => void): void {
    this.whole.clear();
    if (strictlyAscending(names)) {
      // A list comes in etcd's key order (namespace, then name): no sort, no permutation.
      this.names = names.slice();
      this.words = names.length ? new Uint32Array(names.length * STRIDE) : EMPTY;
      for (let i = 0; i < names.length; i++) put(i, i);
      return;
    }
    const order = Array.from(names.keys()).sort((a, b) => {
      const x = names[a]!;
      const y = names[b]!;
      return x < y ? -1 : x > y ? 1 : a - b; // equal names in given order, the last one kept below
    });
    let n = 0;
    for (let k = 0; k < order.length; k++) if (k + 1 === order.length || names[order[k]!] !== names[order[k + 1]!]) order[n++] = order[k]!;
    order.length = n;
    this.names = order.map((k) => names[k]!);
    this.words = n ? new Uint32Array(n * STRIDE) : EMPTY;
    for (let i = 0; i < n; i++) put(i, order[i]!);
  }

  /** Row i from row `r` of `batch`; `ids` (-1: not yet asked) translates the batch's string ids into this table's. */
  private copyRow(i: number, batch: RowBatch, r: number, ids: Int32Array): void {
    const at = i * STRIDE;
    const from = r * STRIDE;
    const b = batch.words;
    if (!batch.isWhole(r)) {
      const hi6 = b[from + 6]! >>> 16;
      const lo6 = b[from + 6]! & 0xffff;
      const hi7 = b[from + 7]! >>> 16;
      const lo7 = b[from + 7]! & 0xffff;
      const kind = this.translate(hi6, batch, ids);
      const status = this.translate(lo6, batch, ids);
      const phase = this.translate(hi7, batch, ids);
      const ready = this.translate(lo7, batch, ids);
      // NO_ROW_STRING for a string the batch has: this table is full, and the row is kept whole.
      if (
        kind !== NO_ROW_STRING &&
        status !== NO_ROW_STRING &&
        (phase !== NO_ROW_STRING || hi7 === NO_ROW_STRING) &&
        (ready !== NO_ROW_STRING || lo7 === NO_ROW_STRING)
      ) {
        const w = this.words;
        for (let k = 0; k < 6; k++) w[at + k] = b[from + k]!;
        w[at + 6] = ((kind << 16) | status) >>> 0;
        w[at + 7] = ((phase << 16) | ready) >>> 0;
        w[at + 8] = b[from + 8]!;
        return;
      }
    }
    this.write(i, batch.nameAt(r), this.viewOfRow(batch, r));
  }

  /** A batch's string id as this table's (NO_ROW_STRING stays absent; past the bound, NO_ROW_STRING). */
  private translate(x: number, batch: RowBatch, ids: Int32Array): number {
    if (x === NO_ROW_STRING) return x;
    const known = ids[x]!;
    return known >= 0 ? known : (ids[x] = this.strings.idOf(batch.strings.valueOf(x)));
  }

  // ---- internals ----

  private flagsAt(i: number): number {
    return this.words[i * STRIDE + 5]! >>> FLAGS_SHIFT;
  }

  private lowerBound(name: string): number {
    const a = this.names;
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (a[mid]! < name) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Makes room at row i (growing the words by half when full) and names it. */
  private insertAt(i: number, name: string): void {
    const n = this.names.length;
    if ((n + 1) * STRIDE > this.words.length) {
      const grown = new Uint32Array(Math.max(4, n + (n >> 1)) * STRIDE);
      grown.set(this.words);
      this.words = grown;
    }
    this.names.splice(i, 0, name);
    this.words.copyWithin((i + 1) * STRIDE, i * STRIDE, n * STRIDE);
  }

  private write(i: number, name: string, v: ObjectView): void {
    const at = i * STRIDE;
    if (!this.encode(name, v, true)) {
      this.whole.set(name, v);
      this.words.fill(0, at, at + STRIDE);
      this.words[at + 5] = WHOLE << FLAGS_SHIFT;
      return;
    }
    this.words.set(this.enc, at);
  }

  /**
   * `v` as a row's words into `enc`; false when they cannot hold it exactly. `give`: strings the
   * table lacks get ids (a write); otherwise they make the answer false (a comparison).
   */
  private encode(name: string, v: ObjectView, give: boolean): boolean {
    const { key, kind, status, deleting, namespace, probes } = v;
    const p = this.keyPrefix;
    if (v.name !== name || probes !== undefined || typeof deleting !== 'boolean' || typeof kind !== 'string' || typeof status !== 'string') return false;
    if (key.length !== p.length + name.length || !key.startsWith(p) || !key.endsWith(name)) return false;
    if (namespace !== undefined && namespace !== this.namespace) return false;
    return encodeRow(this.enc, this.strings, give, v.uid, v.resourceVersion, deleting, namespace !== undefined, kind, status, v);
  }
}

/**
 * A row's words into `e` (STRIDE words) from its fields; false when they cannot hold them exactly.
 * `hasNamespace`: the row's view has the store's namespace. `give` as PackedRows.encode's.
 */
export function encodeRow(
  e: Uint32Array,
  t: RowStrings,
  give: boolean,
  uid: string,
  resourceVersion: string | undefined,
  deleting: boolean,
  hasNamespace: boolean,
  kind: string,
  status: string,
  cols: RowColumns | undefined,
): boolean {
  if (!uidWords(uid, e, 0)) return false;
  const flags = (deleting ? DELETING : 0) | (hasNamespace ? HAS_NAMESPACE : 0) | (resourceVersion !== undefined ? HAS_RV : 0);
  let rv = 0;
  if (resourceVersion !== undefined) {
    rv = plainInteger(resourceVersion);
    if (rv < 0) return false;
  }
  const phase = cols?.phase;
  const ready = cols?.ready;
  const restarts = cols?.restarts;
  if (restarts !== undefined && (!Number.isInteger(restarts) || restarts < 0 || restarts > 0x7fffffff)) return false;
  const kindId = give ? t.idOf(kind) : t.find(kind);
  const statusId = give ? t.idOf(status) : t.find(status);
  const phaseId = phase === undefined ? NO_ROW_STRING : give ? t.idOf(phase) : t.find(phase);
  const readyId = ready === undefined ? NO_ROW_STRING : give ? t.idOf(ready) : t.find(ready);
  if (kindId === NO_ROW_STRING || statusId === NO_ROW_STRING) return false;
  if ((phase !== undefined && phaseId === NO_ROW_STRING) || (ready !== undefined && readyId === NO_ROW_STRING)) return false;
  e[4] = rv % TWO_32;
  e[5] = (Math.floor(rv / TWO_32) | (flags << FLAGS_SHIFT)) >>> 0;
  e[6] = ((kindId << 16) | statusId) >>> 0;
  e[7] = ((phaseId << 16) | readyId) >>> 0;
  e[8] = restarts === undefined ? NO_RESTARTS : restarts;
  return true;
}

/** The view a row's words at `at` stand for: makeView of the fields encodeRow took. */
export function viewOfWords(w: Uint32Array, at: number, key: string, name: string, namespace: string | undefined, s: RowStrings): ObjectView {
  const f = w[at + 5]! >>> FLAGS_SHIFT;
  const m: RowMeta & { deletionTimestamp?: true } = { uid: uidOfWords(w, at), name };
  if (f & HAS_NAMESPACE) m.namespace = namespace!;
  if (f & HAS_RV) m.resourceVersion = String((w[at + 5]! & RV_HIGH_MASK) * TWO_32 + w[at + 4]!);
  if (f & DELETING) m.deletionTimestamp = true;
  const cols: { phase?: string; ready?: string; restarts?: number } = {};
  const phase = w[at + 7]! >>> 16;
  const ready = w[at + 7]! & 0xffff;
  if (phase !== NO_ROW_STRING) cols.phase = s.valueOf(phase);
  if (ready !== NO_ROW_STRING) cols.ready = s.valueOf(ready);
  if (w[at + 8] !== NO_RESTARTS) cols.restarts = w[at + 8]!;
  return makeView(key, m, s.valueOf(w[at + 6]! >>> 16), s.valueOf(w[at + 6]! & 0xffff), cols);
}

/** Whether two id pairs (`hi << 16 | lo`) of two tables name the same strings (NO_ROW_STRING: absent). */
function sameString(a: RowStrings, x: number, b: RowStrings, y: number): boolean {
  const one = (p: number, q: number) => (p === NO_ROW_STRING || q === NO_ROW_STRING ? p === q : a.valueOf(p) === b.valueOf(q));
  return one(x >>> 16, y >>> 16) && one(x & 0xffff, y & 0xffff);
}

function strictlyAscending(names: readonly string[]): boolean {
  for (let i = 1; i < names.length; i++) if (!(names[i - 1]! < names[i]!)) return false;
  return true;
}

/** The value of a decimal integer written as String(n) writes it (no sign, no leading zero), or -1. */
function plainInteger(s: string): number {
  if (typeof s !== 'string' || s.length === 0 || s.length > MAX_RV_DIGITS || (s.length > 1 && s.charCodeAt(0) === 48)) return -1;
  let n = 0;
  for (let k = 0; k < s.length; k++) {
    const d = s.charCodeAt(k) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** deepEqual of two views (undefined members count as absent), for rows kept whole. */
function sameView(a: ObjectView, b: ObjectView): boolean {
  return sameRecord(a as unknown as Record<string, unknown>, b as unknown as Record<string, unknown>, 3);
}

function sameRecord(a: Record<string, unknown>, b: Record<string, unknown>, depth: number): boolean {
  let na = 0;
  for (const k in a) {
    const x = a[k];
    if (x === undefined) continue;
    na++;
    const y = b[k];
    if (x === y) continue;
    if (depth === 0 || typeof x !== 'object' || typeof y !== 'object' || x === null || y === null || Array.isArray(x) || Array.isArray(y)) return false;
    if (!sameRecord(x as Record<string, unknown>, y as Record<string, unknown>, depth - 1)) return false;
  }
  let nb = 0;
  for (const k in b) if (b[k] !== undefined) nb++;
  return na === nb;
}
