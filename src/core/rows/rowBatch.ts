/**
 * RowBatch: one list's rows of one type, written as its pages are read (the load's transform hands
 * each item's fields to `row`, a RowSink), packed as they arrive: a name string and nine words a
 * row, its namespace an index, its strings ids into the batch's own RowStrings. No view, key or
 * entry is made per row, so a list of 10,000 pods leaves 10,000 names for the collector to walk
 * while its task runs, not the views and slim objects that were kept until its end. A model takes
 * the rows into its buckets with PackedRows.replaceFrom (words copied, ids translated).
 *
 * Guarantees:
 * - Row r stands for the view viewOfLoaded would make of the item written as row r (with the
 *   bucket's key: the type's prefix for `namespaceOf(r)` and the name): written from the same
 *   fields by the same encoder; a row the words cannot hold exactly, or whose namespace is not the
 *   bucket's (an item without metadata.namespace in a namespaced list), is kept as that view whole.
 * - Rows are only appended; a caller that started over (a list restarted from its first page)
 *   reads its rows from a later index (`groups(from)`).
 */
import { objectKey, type ResourceRef } from '../kube/objects/objectKey';
import { sharedInterner } from '../kube/objects/intern';
import { makeView, type ObjectView, type RowColumns, type RowMeta, type RowSink } from './objectView';
import { EMPTY_WORDS, encodeRow, STRIDE, viewOfWords } from './packedRows';
import { RowStrings } from './rowStrings';

export class RowBatch implements RowSink<void> {
  readonly strings = new RowStrings();
  /** STRIDE words a row, rows in the order written; its length is the capacity. */
  words: Uint32Array = EMPTY_WORDS;
  private readonly names: string[] = [];
  /** Each row's namespace, an index into `namespaces`. */
  private readonly nsOf: number[] = [];
  private readonly namespaces: string[] = [];
  private readonly nsIndex = new Map<string, number>();
  private readonly whole = new Map<number, ObjectView>();
  /** One row's words before they are stored. */
  private readonly enc = new Uint32Array(STRIDE);
  /** The namespace (index) the next `row` goes to: set by `into`. */
  private current = -1;

  /** `namespaced`: a namespaced type's rows hold their bucket's namespace; a cluster-scoped type's none. */
  constructor(
    readonly ref: ResourceRef,
    readonly namespaced: boolean,
  ) {}

  get size(): number {
    return this.names.length;
  }

  nameAt(r: number): string {
    return this.names[r]!;
  }

  isWhole(r: number): boolean {
    return this.whole.size > 0 && this.whole.has(r);
  }

  /** The view of a row kept whole. */
  wholeAt(r: number): ObjectView | undefined {
    return this.whole.get(r);
  }

  /** The namespace ('' for a cluster-scoped type) of row r's bucket. */
  namespaceOf(r: number): string {
    return this.namespaces[this.nsOf[r]!]!;
  }

  /** The view row r stands for (made now). */
  viewAt(r: number): ObjectView {
    const whole = this.whole.get(r);
    if (whole) return whole;
    const name = this.names[r]!;
    const ns = this.namespaced ? this.namespaceOf(r) : undefined;
    const key = objectKey({ metadata: { name, uid: '', ...(ns !== undefined ? { namespace: ns } : {}) } }, this.ref);
    return viewOfWords(this.words, r * STRIDE, key, name, ns, this.strings);
  }

  /** Row r of `src` written again as this batch's next row. */
  copyFrom(src: RowBatch, r: number): void {
    const v = src.viewAt(r);
    const m: RowMeta = { uid: v.uid, name: v.name };
    if (v.namespace !== undefined) m.namespace = v.namespace;
    if (v.resourceVersion !== undefined) m.resourceVersion = v.resourceVersion;
    if (v.deleting) m.deletionTimestamp = true;
    this.into(src.namespaceOf(r)).row(m, v.kind, v.status, v);
  }

  /** The next rows belong to the bucket of `namespace` ('' for a cluster-scoped type). */
  into(namespace: string): this {
    if (this.current < 0 || this.namespaces[this.current] !== namespace) {
      let i = this.nsIndex.get(namespace);
      if (i === undefined) {
        this.nsIndex.set(namespace, (i = this.namespaces.length));
        this.namespaces.push(sharedInterner.intern(namespace));
      }
      this.current = i;
    }
    return this;
  }

  /** One row, into the namespace `into` named (RowSink: the arguments makeView would take after the key). */
  row(m: RowMeta, kind: string, status: string, cols?: RowColumns): void {
    if (this.current < 0) throw new Error('RowBatch.row before into');
    const r = this.names.length;
    if ((r + 1) * STRIDE > this.words.length) {
      const grown = new Uint32Array(Math.max(16, r * 2) * STRIDE);
      grown.set(this.words);
      this.words = grown;
    }
    this.names.push(m.name);
    this.nsOf.push(this.current);
    const ns = this.namespaces[this.current]!;
    const fits = this.namespaced ? m.namespace === ns : m.namespace === undefined;
    const e = this.enc;
    if (fits && encodeRow(e, this.strings, true, m.uid, m.resourceVersion, m.deletionTimestamp != null, m.namespace !== undefined, kind, status, cols)) {
      this.words.set(e, r * STRIDE);
      return;
    }
    const key = objectKey({ metadata: { name: m.name, uid: m.uid, ...(m.namespace !== undefined ? { namespace: m.namespace } : {}) } }, this.ref);
    this.whole.set(r, makeView(key, m, kind, status, cols));
  }

  /** The rows from `from` on, by namespace (row indices in the order written). */
  groups(from = 0): Map<string, number[]> {
    const out = new Map<string, number[]>();
    let last = -1;
    let rows: number[] = [];
    for (let r = from; r < this.names.length; r++) {
      const n = this.nsOf[r]!;
      if (n !== last) {
        const ns = this.namespaces[n]!;
        let g = out.get(ns);
        if (!g) out.set(ns, (g = []));
        rows = g;
        last = n;
      }
      rows.push(r);
    }
    return out;
  }
}
