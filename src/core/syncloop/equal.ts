/**
 * deepEqual for JSON values (what the API server sends): the stand-in for reflect.DeepEqual in the
 * config merge and for change detection of computed views. `undefined` members count as absent, so
 * `{a: 1}` equals `{a: 1, b: undefined}` (JSON cannot tell them apart either).
 * Walks at most MAX_OBJECT_DEPTH levels: two distinct values nested deeper count as unequal (a
 * change, the safe answer), so the recursion never overflows the stack (objects from a server come
 * cut at that depth: core/kube/objects/depth.ts).
 */
import { MAX_OBJECT_DEPTH } from '../kube/objects/depth';

export function deepEqual(a: unknown, b: unknown): boolean {
  return equal(a, b, MAX_OBJECT_DEPTH);
}

/** `left`: how many levels, `a` included, may still be walked. */
function equal(a: unknown, b: unknown, left: number): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || left === 0) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i], b[i], left - 1)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let na = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    na++;
    if (!equal(ao[k], bo[k], left - 1)) return false;
  }
  let nb = 0;
  for (const k in bo) if (bo[k] !== undefined) nb++;
  return na === nb;
}
