/**
 * PackedRows: the rows of one (namespace, type), sorted by name, held as columns instead of one
 * ObjectView object per row. A row is its name (the one string it keeps), its uid as 16 bytes, its
 * resourceVersion as a number, its kind, STATUS, phase and READY as two-byte ids into the cluster's
 * RowStrings, its RESTARTS and a few flags. Its key is the store's prefix and its name. So 100,000
 * rows are a dozen arrays and 100,000 name strings, where they were 100,000 views, their keys, uids,
 * resourceVersions and an entry each: the host's collector no longer walks objects it never shows.
 * An ObjectView is made (viewAt) only for what a caller reads: the rows on screen, a changed row.
 *
 * Guarantees:
 * - Exact: viewAt(indexOf(name)) is deepEqual (undefined members count as absent) to the last view
 *   set for that name. A view the columns cannot hold exactly (probe results, a uid that is not a
 *   lowercase UUID, a resourceVersion that is not a plain integer below 2^53, a key other than the
 *   prefix and the name, more distinct strings than RowStrings holds) is kept whole for its row.
 * - sameAt(i, view) is that deepEqual, without making a view when the row is packed.
 * - Rows stay in code-unit order of their names: set and remove find their place by binary search
 *   and shift the columns (a memmove), never re-sort; replaceAll sorts once.
 */
import { makeView, type ObjectView } from './objectView';
import { NO_ROW_STRING, type RowStrings } from './rowStrings';

const DELETING = 1;
const HAS_NAMESPACE = 2;
const HAS_RV = 4;
/** The row is kept as its view (`whole`); its columns mean nothing. */
const WHOLE = 8;
const NO_RESTARTS = -1;
/** resourceVersions are decimal integers (etcd revisions); 15 digits keep them exact in a double. */
const MAX_RV_DIGITS = 15;

/** What `encode` makes of a view: one row's columns, before they are stored. */
interface Encoded {
  uid0: number;
  uid1: number;
  uid2: number;
  uid3: number;
  rv: number;
  kind: number;
  status: number;
  phase: number;
  ready: number;
  restarts: number;
  flags: number;
}

export class PackedRows {
  private names: string[] = [];
  private uid = new Uint32Array(0);
  private rv = new Float64Array(0);
  private kind = new Uint16Array(0);
  private status = new Uint16Array(0);
  private phase = new Uint16Array(0);
  private ready = new Uint16Array(0);
  private restarts = new Int32Array(0);
  private flags = new Uint8Array(0);
  /** Views of the rows the columns cannot hold exactly, by name. */
  private readonly whole = new Map<string, ObjectView>();
  private readonly enc: Encoded = { uid0: 0, uid1: 0, uid2: 0, uid3: 0, rv: 0, kind: 0, status: 0, phase: 0, ready: 0, restarts: 0, flags: 0 };

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
    return this.flags[i]! & WHOLE ? this.whole.get(this.names[i]!)!.key : this.keyPrefix + this.names[i]!;
  }

  /** The row's view, made now (a kept-whole row's own view). Views are never changed once made. */
  viewAt(i: number): ObjectView {
    const name = this.names[i]!;
    const f = this.flags[i]!;
    if (f & WHOLE) return this.whole.get(name)!;
    const s = this.strings;
    const m: { uid: string; name: string; namespace?: string; resourceVersion?: string; deletionTimestamp?: true } = { uid: this.uidAt(i), name };
    if (f & HAS_NAMESPACE) m.namespace = this.namespace!;
    if (f & HAS_RV) m.resourceVersion = String(this.rv[i]);
    if (f & DELETING) m.deletionTimestamp = true;
    const cols: { phase?: string; ready?: string; restarts?: number } = {};
    if (this.phase[i] !== NO_ROW_STRING) cols.phase = s.valueOf(this.phase[i]!);
    if (this.ready[i] !== NO_ROW_STRING) cols.ready = s.valueOf(this.ready[i]!);
    if (this.restarts[i] !== NO_RESTARTS) cols.restarts = this.restarts[i]!;
    return makeView(this.keyPrefix + name, m, s.valueOf(this.kind[i]!), s.valueOf(this.status[i]!), cols);
  }

  /** Whether row i shows `v` (deepEqual of its view and `v`). */
  sameAt(i: number, v: ObjectView): boolean {
    const name = this.names[i]!;
    const f = this.flags[i]!;
    if (f & WHOLE || !this.encode(name, v, false)) return sameView(this.viewAt(i), v);
    const e = this.enc;
    const u = i * 4;
    return (
      e.flags === f &&
      e.rv === this.rv[i] &&
      e.uid0 === this.uid[u] &&
      e.uid1 === this.uid[u + 1] &&
      e.uid2 === this.uid[u + 2] &&
      e.uid3 === this.uid[u + 3] &&
      e.kind === this.kind[i] &&
      e.status === this.status[i] &&
      e.phase === this.phase[i] &&
      e.ready === this.ready[i] &&
      e.restarts === this.restarts[i]
    );
  }

  /** Sets the row of `name` to `v`; true when the row is new. */
  set(name: string, v: ObjectView): boolean {
    let i = this.lowerBound(name);
    const added = !(i < this.names.length && this.names[i] === name);
    if (added) {
      this.insertAt(i, name);
    } else if (this.flags[i]! & WHOLE) {
      this.whole.delete(name);
    }
    this.write(i, name, v);
    return added;
  }

  /** Removes the row of `name`; false when there was none. */
  remove(name: string): boolean {
    const i = this.indexOf(name);
    if (i < 0) return false;
    if (this.flags[i]! & WHOLE) this.whole.delete(name);
    const n = this.names.length;
    this.names.splice(i, 1);
    this.uid.copyWithin(i * 4, (i + 1) * 4, n * 4);
    for (const c of this.columns()) c.copyWithin(i, i + 1, n);
    return true;
  }

  /**
   * Every row at once: `views[k]` is the row of `names[k]` (a name given twice keeps its last view).
   * Sorts once; the arrays are only read.
   */
  replaceAll(names: readonly string[], views: readonly ObjectView[]): void {
    const order = Array.from(names.keys()).sort((a, b) => {
      const x = names[a]!;
      const y = names[b]!;
      return x < y ? -1 : x > y ? 1 : a - b; // equal names in given order, the last one kept below
    });
    let n = 0;
    for (let k = 0; k < order.length; k++) if (k + 1 === order.length || names[order[k]!] !== names[order[k + 1]!]) order[n++] = order[k]!;
    order.length = n;
    this.whole.clear();
    this.names = order.map((k) => names[k]!);
    this.allocate(n);
    for (let i = 0; i < n; i++) this.write(i, this.names[i]!, views[order[i]!]!);
  }

  // ---- internals ----

  private columns(): (Float64Array | Uint16Array | Int32Array | Uint8Array)[] {
    return [this.rv, this.kind, this.status, this.phase, this.ready, this.restarts, this.flags];
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

  /** Columns for `capacity` rows, empty. */
  private allocate(capacity: number): void {
    this.uid = new Uint32Array(capacity * 4);
    this.rv = new Float64Array(capacity);
    this.kind = new Uint16Array(capacity);
    this.status = new Uint16Array(capacity);
    this.phase = new Uint16Array(capacity);
    this.ready = new Uint16Array(capacity);
    this.restarts = new Int32Array(capacity);
    this.flags = new Uint8Array(capacity);
  }

  /** Makes room at row i (growing the columns by half when full) and names it. */
  private insertAt(i: number, name: string): void {
    const n = this.names.length;
    if (n === this.flags.length) {
      const old = { uid: this.uid, cols: this.columns() };
      this.allocate(Math.max(8, n + (n >> 1)));
      this.uid.set(old.uid);
      this.columns().forEach((c, k) => c.set(old.cols[k]! as never));
    }
    this.names.splice(i, 0, name);
    this.uid.copyWithin((i + 1) * 4, i * 4, n * 4);
    for (const c of this.columns()) c.copyWithin(i + 1, i, n);
  }

  private write(i: number, name: string, v: ObjectView): void {
    if (!this.encode(name, v, true)) {
      this.whole.set(name, v);
      this.flags[i] = WHOLE;
      return;
    }
    const e = this.enc;
    const u = i * 4;
    this.uid[u] = e.uid0;
    this.uid[u + 1] = e.uid1;
    this.uid[u + 2] = e.uid2;
    this.uid[u + 3] = e.uid3;
    this.rv[i] = e.rv;
    this.kind[i] = e.kind;
    this.status[i] = e.status;
    this.phase[i] = e.phase;
    this.ready[i] = e.ready;
    this.restarts[i] = e.restarts;
    this.flags[i] = e.flags;
  }

  /**
   * `v` as columns into `enc`; false when the columns cannot hold it exactly. `give`: strings the
   * table lacks get ids (a write); otherwise they make the answer false (a comparison).
   */
  private encode(name: string, v: ObjectView, give: boolean): boolean {
    const e = this.enc;
    const p = this.keyPrefix;
    if (v.name !== name || v.probes !== undefined || v.key.length !== p.length + name.length || !v.key.startsWith(p) || !v.key.endsWith(name)) return false;
    let flags = v.deleting ? DELETING : 0;
    if (typeof v.deleting !== 'boolean') return false;
    if (v.namespace !== undefined) {
      if (v.namespace !== this.namespace) return false;
      flags |= HAS_NAMESPACE;
    }
    if (v.resourceVersion !== undefined) {
      const rv = plainInteger(v.resourceVersion);
      if (rv < 0) return false;
      e.rv = rv;
      flags |= HAS_RV;
    } else {
      e.rv = 0;
    }
    if (v.restarts !== undefined) {
      if (!Number.isInteger(v.restarts) || v.restarts < 0 || v.restarts > 0x7fffffff) return false;
      e.restarts = v.restarts;
    } else {
      e.restarts = NO_RESTARTS;
    }
    if (!this.encodeUid(v.uid)) return false;
    const id = (s: string) => (give ? this.strings.idOf(s) : this.strings.find(s));
    if (typeof v.kind !== 'string' || typeof v.status !== 'string') return false;
    e.kind = id(v.kind);
    e.status = id(v.status);
    e.phase = v.phase === undefined ? NO_ROW_STRING : id(v.phase);
    e.ready = v.ready === undefined ? NO_ROW_STRING : id(v.ready);
    if (e.kind === NO_ROW_STRING || e.status === NO_ROW_STRING) return false;
    if ((v.phase !== undefined && e.phase === NO_ROW_STRING) || (v.ready !== undefined && e.ready === NO_ROW_STRING)) return false;
    e.flags = flags;
    return true;
  }

  /** A lowercase UUID (8-4-4-4-12 hex digits) into enc.uid0..3; false for any other uid. */
  private encodeUid(uid: string): boolean {
    if (typeof uid !== 'string' || uid.length !== 36) return false;
    const e = this.enc;
    let word = 0;
    let digits = 0;
    for (let k = 0; k < 36; k++) {
      const c = uid.charCodeAt(k);
      if (k === 8 || k === 13 || k === 18 || k === 23) {
        if (c !== 45) return false; // '-'
        continue;
      }
      const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
      if (d < 0) return false;
      word = ((word << 4) | d) >>> 0;
      if (++digits % 8 === 0) {
        const w = digits / 8 - 1;
        if (w === 0) e.uid0 = word;
        else if (w === 1) e.uid1 = word;
        else if (w === 2) e.uid2 = word;
        else e.uid3 = word;
        word = 0;
      }
    }
    return true;
  }

  private uidAt(i: number): string {
    const u = i * 4;
    const hex = hex8(this.uid[u]!) + hex8(this.uid[u + 1]!) + hex8(this.uid[u + 2]!) + hex8(this.uid[u + 3]!);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}

const hex8 = (w: number) => w.toString(16).padStart(8, '0');

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
