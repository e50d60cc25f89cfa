import { deepEqual } from '../equal';
import type { ObjectView } from '../../rows/objectView';
import { encodeRow, STRIDE, viewOfWords, EMPTY_WORDS } from '../../rows/packedRows';
import { RowStrings } from '../../rows/rowStrings';

/**
 * ActualStateOfWorld: what our model holds — one computed ObjectView per key; the tree view's data.
 *
 * Guarantees:
 * - A listener hears (key, old, new) exactly when a key's view changes (new === undefined: removed;
 *   old === undefined: added); writing an equal view is silent, so a tree refreshes only what changed.
 * - A throwing listener cannot break the loop or the other listeners.
 * - get(key) is deepEqual (undefined members count as absent) to the last view set for key.
 * - Memory: no object per key. A view is kept as STRIDE 32-bit words in one typed array (core/rows'
 *   packed row: uid, resourceVersion, flags, string ids into this state's RowStrings), its name and
 *   namespace read back from its key; a view is made only when one is read or a change is heard.
 *   A view the words cannot hold exactly (probe results, a uid that is not a lowercase UUID, a key
 *   that does not end in its namespace and name, more distinct strings than RowStrings holds) is
 *   kept whole. At 1,000,000 objects the views and their property arrays were about 110 bytes an
 *   object of the extension host's heap.
 */
export type ViewChangeListener = (key: string, oldView: ObjectView | undefined, newView: ObjectView | undefined) => void;

export class ActualStateOfWorld {
  /** key -> its row's slot in `words`, or its view when kept whole. */
  private readonly rows = new Map<string, number | ObjectView>();
  private words: Uint32Array = EMPTY_WORDS;
  /** Slots freed by deletes (and by rows now kept whole), taken before the words grow. */
  private readonly free: number[] = [];
  /** Slots ever handed out: the words' used part. */
  private slots = 0;
  private readonly strings = new RowStrings();
  /** A view's words before they are stored or compared. */
  private readonly enc = new Uint32Array(STRIDE);
  private readonly listeners = new Set<ViewChangeListener>();

  /** Stores the view; returns true when it changed. */
  set(view: ObjectView): boolean {
    const key = view.key;
    const cur = this.rows.get(key);
    let old: ObjectView | undefined;
    if (cur !== undefined) {
      if (typeof cur === 'number' ? this.sameWords(cur, view) : deepEqual(cur, view)) return false;
      old = this.view(key, cur);
    }
    if (this.encode(view, true)) {
      const slot = typeof cur === 'number' ? cur : this.alloc();
      this.words.set(this.enc, slot * STRIDE);
      this.rows.set(key, slot);
    } else {
      if (typeof cur === 'number') this.free.push(cur);
      this.rows.set(key, view);
    }
    this.emit(key, old, view);
    return true;
  }

  /** Removes the key (only if it still shows `uid`, when given). True when removed. */
  delete(key: string, uid?: string): boolean {
    const cur = this.rows.get(key);
    if (cur === undefined) return false;
    const old = this.view(key, cur);
    if (uid !== undefined && old.uid !== uid) return false;
    this.rows.delete(key);
    if (typeof cur === 'number') this.free.push(cur);
    this.emit(key, old, undefined);
    return true;
  }

  /** The view of key, made now for a packed row (views are never changed once made). */
  get(key: string): ObjectView | undefined {
    const cur = this.rows.get(key);
    return cur === undefined ? undefined : this.view(key, cur);
  }

  keys(): IterableIterator<string> {
    return this.rows.keys();
  }

  /** Every view, each made as it is reached (a Map iterator: rows set or deleted meanwhile are met or skipped as a Map's are). */
  *values(): IterableIterator<ObjectView> {
    for (const [key, cur] of this.rows) yield this.view(key, cur);
  }

  get size(): number {
    return this.rows.size;
  }

  /** How many views are kept whole (for tests: 0 for views as computeObjectView makes them without probe results). */
  get wholeViews(): number {
    let n = 0;
    for (const cur of this.rows.values()) if (typeof cur !== 'number') n++;
    return n;
  }

  subscribe(fn: ViewChangeListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private view(key: string, cur: number | ObjectView): ObjectView {
    if (typeof cur !== 'number') return cur;
    const { name, namespace } = splitKey(key);
    return viewOfWords(this.words, cur * STRIDE, key, name, namespace, this.strings);
  }

  private sameWords(slot: number, view: ObjectView): boolean {
    // A view the words cannot hold (or whose strings this table lacks) differs from every packed row.
    if (!this.encode(view, false)) return false;
    const w = this.words;
    const e = this.enc;
    const at = slot * STRIDE;
    for (let k = 0; k < STRIDE; k++) if (e[k] !== w[at + k]) return false;
    return true;
  }

  /** `view` as words into `enc`; false when they cannot hold it exactly. `give`: strings get ids (a write). */
  private encode(v: ObjectView, give: boolean): boolean {
    const { key, kind, status, deleting, namespace } = v;
    if (v.probes !== undefined || typeof deleting !== 'boolean' || typeof kind !== 'string' || typeof status !== 'string' || typeof key !== 'string')
      return false;
    const k = splitKey(key);
    if (k.name !== v.name || (namespace !== undefined && namespace !== k.namespace)) return false;
    return encodeRow(this.enc, this.strings, give, v.uid, v.resourceVersion, deleting, namespace !== undefined, kind, status, v);
  }

  private alloc(): number {
    const slot = this.free.pop();
    if (slot !== undefined) return slot;
    if ((this.slots + 1) * STRIDE > this.words.length) {
      const grown = new Uint32Array(Math.max(64, this.slots + (this.slots >> 1)) * STRIDE);
      grown.set(this.words);
      this.words = grown;
    }
    return this.slots++;
  }

  private emit(key: string, oldView: ObjectView | undefined, newView: ObjectView | undefined): void {
    for (const l of this.listeners) {
      try {
        l(key, oldView, newView);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}

/**
 * A key's name and namespace as objectKey writes them: `[type:]namespace/name` or `[type:]name`.
 * Names and namespaces hold no '/', namespaces no ':'; a name may hold ':' (system:node:x). A key
 * of another form reads as some other name, which set() then finds unequal to the view's, and the
 * view is kept whole.
 */
function splitKey(key: string): { name: string; namespace: string | undefined } {
  const slash = key.lastIndexOf('/');
  if (slash >= 0) return { name: key.slice(slash + 1), namespace: key.slice(key.lastIndexOf(':', slash) + 1, slash) };
  return { name: key.slice(key.indexOf(':') + 1), namespace: undefined };
}
