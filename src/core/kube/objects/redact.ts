/**
 * Masking of Secret values: the one function the YAML view (app/yaml/render.ts) and the flight
 * recorder (core/recorder) both use, so a value hidden in one is hidden in the other.
 *
 * Guarantees (redactObject):
 * - For a Secret (core/v1 by resource or by kind), every value of `data` and `stringData` is
 *   replaced by `<masked: N bytes>` (N: the decoded size), and so is the
 *   `kubectl.kubernetes.io/last-applied-configuration` annotation, which `kubectl apply` fills with
 *   the whole Secret including its data. Keys (the names of the values) are kept.
 * - managedFields are dropped from every object: they are large and serve server-side apply.
 * - Idempotent: a value that already is a mask (`<masked: N bytes>`, e.g. a replayed recording's)
 *   stays as it is, so masking a masked Secret changes nothing.
 * - The input is never mutated; the output shares unchanged sub-objects with it, and is the input
 *   itself when there is nothing to mask (not a Secret, no managedFields): callers never mutate it.
 */

export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

type Obj = Record<string, unknown>;

export function maskedValue(bytes: number): string {
  return `<masked: ${bytes} byte${bytes === 1 ? '' : 's'}>`;
}

const MASK = /^<masked: \d+ bytes?>$/;

export function isSecret(a: { group: string; resource: string }, obj: Obj): boolean {
  return (a.group === '' && a.resource === 'secrets') || (obj.kind === 'Secret' && (obj.apiVersion === 'v1' || obj.apiVersion === undefined));
}

/** The object with Secret values masked and managedFields dropped (itself when neither applies). Never mutates `obj`. */
export function redactObject(a: { group: string; resource: string }, obj: Obj): Obj {
  const secret = isSecret(a, obj);
  const original = typeof obj.metadata === 'object' && obj.metadata !== null ? (obj.metadata as Obj) : undefined;
  if (!secret && original?.managedFields === undefined) return obj;
  const out: Obj = { ...obj };
  const meta = original ? { ...original } : undefined;
  if (meta) {
    delete meta.managedFields;
    out.metadata = meta;
  }
  if (!secret) return out;
  const maskMap = (m: unknown, size: (v: string) => number): unknown => {
    if (typeof m !== 'object' || m === null) return m;
    return Object.fromEntries(
      Object.entries(m as Obj).map(([k, v]) => [k, typeof v === 'string' && MASK.test(v) ? v : maskedValue(typeof v === 'string' ? size(v) : 0)]),
    );
  };
  if ('data' in obj) out.data = maskMap(obj.data, (v) => Buffer.from(v, 'base64').length);
  if ('stringData' in obj) out.stringData = maskMap(obj.stringData, (v) => Buffer.byteLength(v, 'utf8'));
  const ann = meta?.annotations;
  if (meta && typeof ann === 'object' && ann !== null && LAST_APPLIED in (ann as Obj)) {
    const v = (ann as Obj)[LAST_APPLIED];
    meta.annotations = {
      ...(ann as Obj),
      [LAST_APPLIED]: typeof v === 'string' && MASK.test(v) ? v : maskedValue(typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : 0),
    };
  }
  return out;
}
