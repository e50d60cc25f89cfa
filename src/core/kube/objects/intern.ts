/**
 * One copy of each string value that repeats across the objects a long-lived holder keeps.
 *
 * JSON.parse makes a new string for every value it reads, so 100,000 objects in 180 namespaces
 * hold 150,000 copies of the namespaces' names, and every pod its own copy of its image, node,
 * scheduler, DNS policy, condition types and label values. Measured on the sync loop's objects
 * (demo cluster of 100,000 objects, heap snapshot): ~30 MB of a 254 MB heap were such copies.
 *
 * Guarantees:
 * - Interning never changes a value: a string is replaced only by an equal one (===), in place, in
 *   objects the caller owns (just parsed). Property names are untouched (V8 already shares them).
 * - The table is bounded: at `maxEntries` it starts again empty (a new generation), so values that
 *   never repeat (names, uids) cost at most one table's worth of memory, and values that do repeat
 *   are shared again from their next sighting. Strings longer than `maxLength` are never kept.
 * - Values known to be unique per object (uid, resourceVersion, the object's own name, IPs of pods,
 *   container IDs, start times) are skipped: they would only churn the table.
 */
export class StringInterner {
  private table = new Map<string, string>();

  constructor(
    private readonly maxEntries = 65_536,
    private readonly maxLength = 256,
  ) {}

  /** The one copy of `s` (itself, the first time it is seen in this generation). */
  intern(s: string): string {
    if (s.length > this.maxLength) return s;
    const hit = this.table.get(s);
    if (hit !== undefined) return hit;
    if (this.table.size >= this.maxEntries) this.table = new Map();
    this.table.set(s, s);
    return s;
  }

  get size(): number {
    return this.table.size;
  }

  /**
   * Replaces, in place, every repeated-kind string value of a parsed object (nested objects and
   * arrays, at most `MAX_DEPTH` deep) by its one copy.
   */
  internObject(o: unknown): void {
    if (o !== null && typeof o === 'object') this.walk(o as Record<string, unknown>, 0, false);
  }

  /**
   * internObject for a new version that shares its unchanged subtrees with an interned `prev`
   * (core/kube/objects/share.ts): a subtree that is `prev`'s own object at the same path is skipped, being
   * interned already; the rest is interned as internObject does. The same result as internObject,
   * for a walk of what changed only.
   */
  internChanged(o: unknown, prev: unknown): void {
    if (o !== null && typeof o === 'object' && o !== prev) this.walk(o as Record<string, unknown>, 0, false, prev);
  }

  /** `prev`: the same path in an interned version; subtrees identical to its members are skipped. */
  private walk(o: Record<string, unknown> | unknown[], depth: number, isMetadata: boolean, prev?: unknown): void {
    if (depth > MAX_DEPTH) return;
    const p = prev !== null && typeof prev === 'object' ? (prev as Record<string, unknown>) : undefined;
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) {
        const v = o[i];
        if (typeof v === 'string') o[i] = this.intern(v);
        else if (v !== null && typeof v === 'object' && v !== p?.[i]) this.walk(v as Record<string, unknown>, depth + 1, false, p?.[i]);
      }
      return;
    }
    for (const k in o) {
      const v = o[k];
      if (typeof v === 'string') {
        if (UNIQUE_VALUES.has(k) || (isMetadata && k === 'name')) continue;
        o[k] = this.intern(v);
      } else if (v !== null && typeof v === 'object') {
        // Annotations are free text (last-applied configurations): not worth a table's room.
        if (isMetadata && (k === 'annotations' || k === 'managedFields')) continue;
        const pv = p?.[k];
        if (v !== pv) this.walk(v as Record<string, unknown>, depth + 1, k === 'metadata', pv);
      }
    }
  }
}

/** Deep enough for a pod's containers' probes' handlers' fields; deeper is left as parsed. */
const MAX_DEPTH = 8;

/** Fields whose values are (nearly) unique per object. */
const UNIQUE_VALUES = new Set(['uid', 'resourceVersion', 'podIP', 'ip', 'containerID', 'startedAt', 'finishedAt', 'startTime', 'selfLink', 'message']);

/** The interner the sync loop's sources share (one copy of a namespace's name across every type). */
export const sharedInterner = new StringInterner();
