/**
 * How deep a server object may nest here, and what becomes of one that nests deeper.
 *
 * kube-apiserver accepts JSON nested up to 10,000 levels (apimachinery's pkg/util/json maxDepth and
 * sigs.k8s.io/json's scanner maxNestingDepth), so a tenant may store a custom resource (or a
 * ControllerRevision's data, or a CRD's schema) 9,999 levels deep. V8's JSON.parse reads that, but
 * every recursive walk after it does not: JSON.stringify and the walks of share.ts and the deepEquals
 * overflow the stack at about 5,000 levels from an empty stack (4,000 inside the sync loop), js-yaml's
 * dump at about 2,500, and a stack overflow there crashed `kubeloop sync` on the object's first edit.
 * No real object comes near: the deepest built-in shapes (a CRD's schema) nest a few dozen levels.
 *
 * Guarantees (capObjectDepth):
 * - Afterwards the value nests at most `max` (default MAX_OBJECT_DEPTH, 1,000) levels of objects
 *   and arrays, the value itself being level 1: every object or array that would sit deeper is
 *   replaced, in its parent, by the string TRUNCATED. So the result is still JSON, says where and
 *   why it was cut when shown (the YAML view, a recording), and every walk over it is bounded.
 * - Cuts in place (the caller owns the value: just parsed) and changes nothing else; a value that
 *   nests no deeper than `max` is left exactly as it was.
 * - Its own recursion is at most `max` frames deep, so it runs from any stack.
 * - Cost: one visit of every object and array member, about a microsecond for a pod.
 *
 * Why a string marker, not an object: a string cannot nest, survives every format (JSON, YAML, a
 * recording, a merge patch), and reads as what happened; an object marker could be mistaken for data.
 */
export const MAX_OBJECT_DEPTH = 1000;

/** What stands for a subtree cut at MAX_OBJECT_DEPTH levels. */
export const TRUNCATED = `<truncated: nested deeper than ${MAX_OBJECT_DEPTH} levels>`;

/** Cuts `v` at `max` levels (see the module comment); returns how many subtrees were cut (0: untouched). */
export function capObjectDepth(v: unknown, max = MAX_OBJECT_DEPTH): number {
  if (typeof v !== 'object' || v === null) return 0;
  if (max < 1) throw new RangeError(`depth bound must be at least 1, got ${max}`);
  return cut(v, max - 1, max === MAX_OBJECT_DEPTH ? TRUNCATED : truncatedMarker(max));
}

/** The marker for a bound other than MAX_OBJECT_DEPTH (tests, and a caller that needs less). */
export function truncatedMarker(max: number): string {
  return `<truncated: nested deeper than ${max} levels>`;
}

/** `left`: how many more levels may nest below `v`. */
function cut(v: object, left: number, marker: string): number {
  let n = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x !== 'object' || x === null) continue;
      if (left === 0) {
        v[i] = marker;
        n++;
      } else n += cut(x, left - 1, marker);
    }
    return n;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x !== 'object' || x === null) continue;
    if (left === 0) {
      o[k] = marker;
      n++;
    } else n += cut(x, left - 1, marker);
  }
  return n;
}

/**
 * `v` cut at `max` levels as capObjectDepth cuts, without changing `v`: `v` itself when it nests no
 * deeper, else a copy of the path down to each cut (the rest shared with `v`). For a value the caller
 * does not own (a view renders what the model holds). Recursion bounded as capObjectDepth's.
 */
export function cappedView<T>(v: T, max = MAX_OBJECT_DEPTH): T {
  if (typeof v !== 'object' || v === null) return v;
  if (max < 1) throw new RangeError(`depth bound must be at least 1, got ${max}`);
  return view(v, max - 1, max === MAX_OBJECT_DEPTH ? TRUNCATED : truncatedMarker(max)) as T;
}

function view(v: object, left: number, marker: string): object {
  let out: Record<string, unknown> | unknown[] | undefined;
  const src = v as Record<string, unknown>;
  const keys = Array.isArray(v) ? undefined : Object.keys(v);
  const n = keys ? keys.length : (v as unknown[]).length;
  for (let i = 0; i < n; i++) {
    const k = keys ? keys[i]! : i;
    const x = src[k];
    if (typeof x !== 'object' || x === null) continue;
    const y = left === 0 ? marker : view(x, left - 1, marker);
    if (y === x) continue;
    out ??= Array.isArray(v) ? [...v] : { ...src };
    (out as Record<string | number, unknown>)[k] = y;
  }
  return out ?? v;
}

/** JSON.parse, then cut at MAX_OBJECT_DEPTH: for JSON from outside (a recording someone sent). */
export function parseJsonCapped(text: string): unknown {
  const v: unknown = JSON.parse(text);
  capObjectDepth(v);
  return v;
}

/** What a notice names of an object that was cut. */
export interface TruncatedObject {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
}

/** Objects named one by one at most; a hostile tenant's thousand deep objects make one more line, not a thousand. */
const MAX_NAMED = 100;

/**
 * Where cuts are told: once per object (its uid, else apiVersion, kind, namespace and name) for the
 * life of the process, not once per watch event of it; after MAX_NAMED objects one last notice says
 * more were cut. A process-wide channel like the interner (intern.ts), since objects are cut where
 * they are decoded (../listwatch/list.ts compactItem), below any logger: the CLI and the extension subscribe.
 */
export class DepthNotices {
  private readonly seen = new Set<string>();
  private readonly listeners = new Set<(message: string) => void>();
  private overflowTold = false;

  /** `fn` gets each notice's text; returns the unsubscribe. */
  subscribe(fn: (message: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** An object was cut (capObjectDepth returned more than 0). */
  report(o: unknown): void {
    const m = (typeof o === 'object' && o !== null ? o : {}) as { apiVersion?: unknown; kind?: unknown; metadata?: Record<string, unknown> };
    const str = (x: unknown) => (typeof x === 'string' && x ? x : undefined);
    const meta = typeof m.metadata === 'object' && m.metadata !== null ? m.metadata : {};
    const t: TruncatedObject = {
      ...(str(m.apiVersion) ? { apiVersion: str(m.apiVersion) } : {}),
      ...(str(m.kind) ? { kind: str(m.kind) } : {}),
      ...(str(meta.namespace) ? { namespace: str(meta.namespace) } : {}),
      ...(str(meta.name) ? { name: str(meta.name) } : {}),
    };
    const key = str(meta.uid) ?? `${t.apiVersion ?? ''}/${t.kind ?? ''}/${t.namespace ?? ''}/${t.name ?? ''}`;
    if (this.seen.has(key)) return;
    if (this.seen.size >= MAX_NAMED) {
      if (this.overflowTold) return;
      this.overflowTold = true;
      return this.tell(`more than ${MAX_NAMED} objects nest deeper than ${MAX_OBJECT_DEPTH} levels; the others are cut the same way without a notice each`);
    }
    this.seen.add(key);
    this.tell(truncationNotice(t));
  }

  private tell(message: string): void {
    for (const fn of this.listeners) {
      try {
        fn(message);
      } catch {
        // a listener's failure is its own: the object still flows
      }
    }
  }
}

/** The notice for one object: what it is, and what was done to it. */
export function truncationNotice(t: TruncatedObject): string {
  const what = `${t.kind ?? 'object'} ${t.namespace ? `${t.namespace}/` : ''}${t.name ?? '(no name)'}${t.apiVersion ? ` (${t.apiVersion})` : ''}`;
  return `${what} nests deeper than ${MAX_OBJECT_DEPTH} levels: it is kept cut at that depth, each deeper part replaced by "${TRUNCATED}"`;
}

/** The channel every client of the process reports to (../listwatch/list.ts compactItem). */
export const depthNotices = new DepthNotices();
