/**
 * Object diffs as JSON merge patches (RFC 7386): a member in the patch replaces the member of the
 * target (objects merged recursively), `null` removes it, arrays are replaced whole.
 *
 * Guarantee: deltaOf returns a patch only when applying it to `before` gives a value deep-equal
 * to `after` (by construction: the patch is exact unless `after` sets an object member to null,
 * which a merge patch cannot say; such a change is stored whole) and it is shorter than `after`.
 */
import type { Obj } from './records';

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a as Obj);
  const kb = Object.keys(b as Obj);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as Obj)[k], (b as Obj)[k]));
}

/** An object member set to null somewhere in `v` (not inside arrays, which a merge patch replaces whole). */
function hasNullMember(v: unknown): boolean {
  return isObj(v) && Object.values(v).some((x) => x === null || hasNullMember(x));
}

/** The merge patch from `before` to `after` (both objects). */
export function mergePatch(before: Obj, after: Obj): Obj {
  return diff(before, after).patch;
}

/** The patch, and whether it is exact: false when `after` sets a member to null (a merge patch would read a removal). */
function diff(before: Obj, after: Obj): { patch: Obj; exact: boolean } {
  const patch: Obj = {};
  let exact = true;
  for (const k of Object.keys(before)) if (!(k in after)) patch[k] = null;
  for (const [k, v] of Object.entries(after)) {
    const old = before[k];
    if (old === v) continue;
    if (isObj(old) && isObj(v)) {
      const d = diff(old, v);
      if (Object.keys(d.patch).length) patch[k] = d.patch;
      exact &&= d.exact;
      continue;
    }
    if (deepEqual(old, v)) continue;
    if (v === null || hasNullMember(v)) exact = false;
    patch[k] = v;
  }
  return { patch, exact };
}

/** RFC 7386 MergePatch(target, patch); never mutates its inputs. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return patch;
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}

/**
 * How to store `after`: undefined when it equals `before`; a patch from `before` when it is exact
 * and shorter than the object (`afterBytes`: its JSON length when known, else measured); else the
 * whole object.
 */
export function deltaOf(before: Obj | undefined, after: Obj, afterBytes?: number): { p: Obj; size: number } | { o: Obj } | undefined {
  if (!before) return { o: after };
  const { patch, exact } = diff(before, after);
  if (!Object.keys(patch).length) return undefined;
  if (!exact) return { o: after };
  const size = afterBytes ?? JSON.stringify(after).length;
  return JSON.stringify(patch).length < size ? { p: patch, size } : { o: after };
}
