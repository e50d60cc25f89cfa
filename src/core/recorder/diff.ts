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
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let n = 0;
  for (const k in a as Obj) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || !deepEqual((a as Obj)[k], (b as Obj)[k])) return false;
    n++;
  }
  for (const k in b as Obj) if (Object.prototype.hasOwnProperty.call(b, k)) n--;
  return n === 0;
}

/** An object member set to null somewhere in `v` (not inside arrays, which a merge patch replaces whole). */
function hasNullMember(v: unknown): boolean {
  return isObj(v) && Object.values(v).some((x) => x === null || hasNullMember(x));
}

/** The merge patch from `before` to `after` (both objects). */
export function mergePatch(before: Obj, after: Obj): Obj {
  const p = diff(before, after);
  return p === EMPTY ? {} : p;
}

/** Set by diff when `after` sets a member to null (a merge patch would read a removal); reset by its caller. */
let inexact = false;

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The patch (EMPTY when nothing changed); sets `inexact` when it cannot say the change. Walks
 * members with `for...in` over own keys (objects parsed from JSON have no inherited enumerable
 * ones), allocating nothing for an unchanged subtree.
 */
function diff(before: Obj, after: Obj): Obj {
  let patch: Obj | undefined;
  for (const k in before) if (!hasOwn.call(after, k)) (patch ??= {})[k] = null;
  for (const k in after) {
    const v = after[k];
    const old = before[k];
    if (old === v) continue;
    if (isObj(old) && isObj(v)) {
      const d = diff(old, v);
      if (d !== EMPTY) (patch ??= {})[k] = d;
      continue;
    }
    if (deepEqual(old, v)) continue;
    if (v === null || hasNullMember(v)) inexact = true;
    (patch ??= {})[k] = v;
  }
  return patch ?? EMPTY;
}

/** The empty patch, shared (never written to: callers test for it by identity or by its keys). */
const EMPTY: Obj = Object.freeze({}) as Obj;

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
export function deltaOf(
  before: Obj | undefined,
  after: Obj,
  afterBytes?: number,
): { p: Obj; size: number; /** the patch's JSON text, made once for the comparison and reused */ json: string } | { o: Obj } | undefined {
  if (!before) return { o: after };
  inexact = false;
  const patch = diff(before, after);
  if (patch === EMPTY) return undefined;
  if (inexact) return { o: after };
  const size = afterBytes ?? JSON.stringify(after).length;
  const json = JSON.stringify(patch);
  return json.length < size ? { p: patch, size, json } : { o: after };
}
