/**
 * Object diffs as JSON merge patches (RFC 7386): a member in the patch replaces the member of the
 * target (objects merged recursively), `null` removes it, arrays are replaced whole.
 *
 * Guarantee: deltaOf returns a patch only when applying it to `before` gives a value deep-equal
 * to `after` and it is shorter than `after` in JSON; otherwise it returns the whole object. A
 * merge patch cannot set a member to null, so an object with a null that changed is stored whole.
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

/** The merge patch from `before` to `after` (both objects). */
export function mergePatch(before: Obj, after: Obj): Obj {
  const out: Obj = {};
  for (const k of Object.keys(before)) if (!(k in after)) out[k] = null;
  for (const [k, v] of Object.entries(after)) {
    const old = before[k];
    if (deepEqual(old, v)) continue;
    out[k] = isObj(old) && isObj(v) ? mergePatch(old, v) : v;
  }
  return out;
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

/** The smaller exact way to store `after`: a patch from `before`, or the whole object. */
export function deltaOf(before: Obj | undefined, after: Obj): { p: Obj } | { o: Obj } {
  if (!before) return { o: after };
  const p = mergePatch(before, after);
  if (JSON.stringify(p).length >= JSON.stringify(after).length) return { o: after };
  return deepEqual(applyMergePatch(before, p), after) ? { p } : { o: after };
}
