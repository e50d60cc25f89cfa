/**
 * A Kubernetes protobuf body, decoded: the envelope kube-apiserver writes (apimachinery
 * runtime/serializer/protobuf: the 4-byte magic "k8s\0", then runtime.Unknown { 1 typeMeta
 * { 1 apiVersion, 2 kind }, 2 raw, 3 contentEncoding, 4 contentType }), and inside it the object,
 * list or Status, walked with the kind's field set (fieldsets.ts).
 *
 * The result has the shape JSON.parse gives the same answer in JSON, narrowed to the field set:
 * apiVersion and kind from the envelope; a list's items without them (a typed list's items carry
 * none in JSON either) and `items` always an array (kube-apiserver's JSON has null for an empty
 * metadata-only list, [] for an empty typed one; protobuf cannot tell them apart); a list's metadata whole (resourceVersion,
 * continue, remainingItemCount).
 *
 * Guarantees: never throws; a body that is not Kubernetes protobuf, is cut short, or holds a kind
 * without a field set is an error value saying which (the caller's answer to the last: ask JSON).
 */
import { FIELD_SETS } from './fieldsets';
import { withManagers } from './managedFields';
import { compile, F_REPEATED, type MessagePlan, type Pick } from './plan';
import { asBuffer, ProtobufError, Reader, utf8 } from './reader';
import { KINDS, MESSAGES } from './schema.generated';
import { readMessage } from './walk';

export { ProtobufError };

export type Decoded = { ok: true; value: Record<string, unknown> } | { ok: false; error: ProtobufError };

/**
 * What is read of a body: the kind's field set ('rows'); the same with metadata.managedFields in
 * their compact form ('managers', planFor); or, of a list, its metadata and each item's bounds
 * ('count'): every item becomes an empty object, its top-level fields bounds-checked and skipped by
 * length, nothing of it decoded (what a reader of counts needs: `kubeloop load`). A body that is
 * no list is read as 'rows'.
 */
export type Reading = 'rows' | 'managers' | 'count';

/** The magic every Kubernetes protobuf body starts with. */
export const PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

const LIST_META: Pick = true;
/** An item of a counted list: no field kept. */
const NOTHING: Pick = {};

/**
 * The plan of a kind ("v1/Pod") or of its list ("v1/PodList"); undefined when the walker does not read it.
 * `managers`: the plan that also reads metadata.managedFields in their compact form (managedFields.ts);
 * without it, the plan that skips them, as every plan did before recordings asked for them.
 */
export function planFor(apiVersion: string, kind: string, managers = false): MessagePlan | undefined {
  const key = `${apiVersion}/${kind}`;
  const cache = managers ? managerPlans : plans;
  const cached = cache.get(key);
  if (cached !== undefined || cache.has(key)) return cached;
  const message = KINDS[key];
  let plan: MessagePlan | undefined;
  if (message) {
    const item = kind.endsWith('List') ? FIELD_SETS[`${apiVersion}/${kind.slice(0, -4)}`] : undefined;
    const own = FIELD_SETS[key];
    const pick = (p: Pick) => (managers ? withManagers(p) : p);
    if (item !== undefined) plan = compile(message, { metadata: LIST_META, items: pick(item) });
    else if (own !== undefined) plan = compile(message, pick(own));
  }
  cache.set(key, plan);
  return plan;
}
const plans = new Map<string, MessagePlan | undefined>();
const managerPlans = new Map<string, MessagePlan | undefined>();

/** The plan that counts a list's items ("v1/PodList"); undefined for a kind that is no list the walker has. */
function countPlanFor(apiVersion: string, kind: string): MessagePlan | undefined {
  const key = `${apiVersion}/${kind}`;
  const cached = countPlans.get(key);
  if (cached !== undefined || countPlans.has(key)) return cached;
  const message = KINDS[key];
  const items = message !== undefined && kind.endsWith('List') ? MESSAGES[message]?.find((d) => d[0] === 2 && d[1] === 'items') : undefined;
  const plan = message !== undefined && items !== undefined ? compile(message, { metadata: LIST_META, items: NOTHING }) : undefined;
  countPlans.set(key, plan);
  return plan;
}
const countPlans = new Map<string, MessagePlan | undefined>();

/** Whether the walker reads this kind (and its list): only then ask the server for protobuf. */
export function hasFieldSet(apiVersion: string, kind: string): boolean {
  return planFor(apiVersion, kind) !== undefined;
}

/** Decodes a whole protobuf body (magic, envelope, object); `reading`: what of it (Reading; a boolean: 'managers' or 'rows'). */
export function decodeProtobuf(body: Uint8Array, reading: Reading | boolean = 'rows'): Decoded {
  try {
    return { ok: true, value: decodeEnvelope(body, 0, body.length, reading) };
  } catch (e) {
    return { ok: false, error: e instanceof ProtobufError ? e : new ProtobufError(String(e instanceof Error ? e.message : e)) };
  }
}

/** The envelope in [start, end) of `b`, decoded; throws ProtobufError (../listwatch/watch.ts catches it). */
export function decodeEnvelope(body: Uint8Array, start: number, end: number, reading: Reading | boolean = 'rows'): Record<string, unknown> {
  const managers = reading === true || reading === 'managers';
  const b = asBuffer(body);
  if (end - start < 4 || b[start] !== 0x6b || b[start + 1] !== 0x38 || b[start + 2] !== 0x73 || b[start + 3] !== 0) {
    throw new ProtobufError(`not a Kubernetes protobuf body (it does not start with "k8s\\0"; ${end - start} bytes)`);
  }
  if (end - start === 4) throw new ProtobufError('empty body (the magic "k8s\\0" and nothing else)');
  const r = new Reader(b, start + 4, end);
  let apiVersion = '';
  let kind = '';
  let rawStart = -1;
  let rawEnd = -1;
  let contentEncoding = '';
  while (r.pos < end) {
    const t = r.tag();
    if (t === 0x0a) {
      const n = r.length();
      const tmEnd = r.pos + n;
      if (sameBytes(b, r.pos, n, last.typeMeta)) {
        apiVersion = last.apiVersion;
        kind = last.kind;
        r.pos = tmEnd;
        continue;
      }
      const tmStart = r.pos;
      r.end = tmEnd;
      while (r.pos < tmEnd) {
        const u = r.tag();
        if (u === 0x0a || u === 0x12) {
          const m = r.length();
          const s = utf8(b, r.pos, r.pos + m);
          r.pos += m;
          if (u === 0x0a) apiVersion = s;
          else kind = s;
        } else r.skip(u & 7);
      }
      r.end = end;
      last.typeMeta = new Uint8Array(b.subarray(tmStart, tmEnd)); // a copy: a Buffer's slice would be a view of the body
      last.apiVersion = apiVersion;
      last.kind = kind;
      last.plan = undefined;
      last.managersPlan = undefined;
    } else if (t === 0x12) {
      const n = r.length();
      rawStart = r.pos;
      rawEnd = r.pos + n;
      r.pos = rawEnd;
    } else if (t === 0x1a) {
      const n = r.length();
      contentEncoding = utf8(b, r.pos, r.pos + n);
      r.pos += n;
    } else r.skip(t & 7);
  }
  if (contentEncoding) throw new ProtobufError(`${apiVersion}/${kind}: content encoding ${JSON.stringify(contentEncoding)} is not supported`);
  if (!kind) throw new ProtobufError('the envelope names no kind');
  const same = apiVersion === last.apiVersion && kind === last.kind;
  let plan = reading === 'count' ? countPlanFor(apiVersion, kind) : undefined;
  if (!plan && same) plan = managers ? last.managersPlan : last.plan;
  if (!plan) {
    plan = planFor(apiVersion, kind, managers);
    if (managers) last.managersPlan = plan;
    else last.plan = plan;
  }
  if (!plan) throw new ProtobufError(`no protobuf field set for ${apiVersion ? `${apiVersion}/` : ''}${kind}: ask for it in JSON`);
  const o: Record<string, unknown> = { kind, apiVersion };
  if (rawStart >= 0) readMessage(new Reader(b, rawStart, rawEnd), rawEnd, plan, o);
  else readMessage(new Reader(b, 0, 0), 0, plan, o);
  if (isList(plan) && !Array.isArray(o.items)) o.items = [];
  return o;
}

/**
 * The last envelope's typeMeta bytes, the names they hold and their plan: a watch's frames, and the
 * objects of one kind, name the same kind each time, so its bytes are compared, not decoded again.
 */
const last: { typeMeta: Uint8Array; apiVersion: string; kind: string; plan: MessagePlan | undefined; managersPlan: MessagePlan | undefined } = {
  typeMeta: new Uint8Array(0),
  apiVersion: '',
  kind: '',
  plan: undefined,
  managersPlan: undefined,
};

function sameBytes(b: Uint8Array, start: number, n: number, want: Uint8Array): boolean {
  if (n !== want.length || n === 0) return false;
  for (let i = 0; i < n; i++) if (b[start + i] !== want[i]) return false;
  return true;
}

function isList(plan: MessagePlan): boolean {
  const items = plan.byNumber[2];
  return plan.message.endsWith('List') && items?.name === 'items' && (items.flags & F_REPEATED) !== 0;
}
