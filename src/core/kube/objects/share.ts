/**
 * shareUnchanged: the next version of an object made to reuse the previous version's unchanged parts.
 *
 * A watch event carries the whole object, freshly parsed, although a change touches a few fields (a
 * label, a condition, a resourceVersion). The loop keeps the new version until the next change,
 * often seconds or minutes, so every parsed member survives into V8's old generation and dies there
 * when the object changes again: under churn that is most of what the old generation fills with,
 * and what makes V8 grow the heap. With the unchanged subtrees taken from the version already held,
 * the fresh copies of them die young (a scavenge frees them), and only what changed is kept.
 *
 * Guarantees:
 * - The result deep-equals `next` (JSON values; a member set to `undefined` counts as absent).
 * - `prev` is never modified. `next`'s own objects and arrays may be: a member equal to `prev`'s at the
 *   same path is replaced by `prev`'s (the same object). Callers pass a version they own.
 * - The result is `prev` itself when the two are equal throughout, and a subtree of the result is
 *   `prev`'s subtree exactly when the two are equal there: so a later deepEqual of the two versions
 *   stops at the first shared member (`a === b`).
 * - Shared subtrees mean both versions are read-only from here on, which every holder of a watched
 *   object already assumes: the loop, the PLEG and the views only read it, and the recorder copies an
 *   object before it masks anything in it (redact.ts).
 * - Cost: one walk of `next`, bounded by its size, and at most MAX_OBJECT_DEPTH levels deep: below
 *   that a subtree is not compared but kept as `next` has it (not proven equal), so the recursion
 *   never overflows the stack, whatever reached here uncut (objects from a server come cut: depth.ts).
 */
import { MAX_OBJECT_DEPTH } from './depth';

export function shareUnchanged<T>(prev: unknown, next: T): T {
  return share(prev, next, MAX_OBJECT_DEPTH) as T;
}

/** `left`: how many levels, `next` included, may still be walked. */
function share(prev: unknown, next: unknown, left: number): unknown {
  if (prev === next || typeof next !== 'object' || next === null || typeof prev !== 'object' || prev === null || left === 0) return next;
  if (Array.isArray(next)) {
    if (!Array.isArray(prev)) return next;
    let same = prev.length === next.length;
    const n = Math.min(prev.length, next.length);
    for (let i = 0; i < n; i++) {
      const v = next[i];
      const s = share(prev[i], v, left - 1);
      if (s !== prev[i]) same = false;
      else if (s !== v) next[i] = s; // an equal subtree: stored only when it is another object
    }
    return same ? prev : next;
  }
  if (Array.isArray(prev)) return next;
  const p = prev as Record<string, unknown>;
  const o = next as Record<string, unknown>;
  let same = true;
  let count = 0;
  for (const k in o) {
    const v = o[k];
    if (v === undefined) continue;
    count++;
    const pv = p[k];
    if (pv === undefined) {
      same = false;
      continue;
    }
    const s = share(pv, v, left - 1);
    if (s !== pv) same = false;
    else if (s !== v) o[k] = s;
  }
  if (!same) return next;
  for (const k in p) if (p[k] !== undefined && --count < 0) return next;
  return count === 0 ? prev : next;
}
