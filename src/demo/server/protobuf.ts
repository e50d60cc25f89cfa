/**
 * Decoding of Kubernetes protobuf request bodies, for the kinds kubectl's typed commands create
 * (`kubectl create namespace|configmap|secret|serviceaccount|priorityclass|role|rolebinding|
 * clusterrole|clusterrolebinding|quota|deployment|job|cronjob|service`): client-go's generated
 * clients always send protobuf for built-in types and never fall back to JSON, so without this
 * those commands would fail. Pod specs cover the fields those commands set (containers with
 * name, image, command, args, ports, env values, resources; restart policy; node selection).
 *
 * Wire format: the 4-byte magic "k8s\0", then runtime.Unknown { 1: TypeMeta { 1 apiVersion,
 * 2 kind }, 2: raw (the object), 3: contentEncoding, 4: contentType }. The object is decoded with
 * the field numbers of k8s.io/api's generated.proto for its kind. Guarantee: a field we do not
 * know that carries a non-zero value makes the whole body unsupported (415), so nothing a client
 * sent is silently dropped; zero values of unknown fields (gogo-proto writes every non-pointer
 * field) are ignored.
 */
import { DELETE_OPTIONS, KINDS, type Field, type Schema } from './protobuf-schemas';

/** A body the demo cannot decode though it may be valid protobuf (a kind or field it lacks): 415. */
export class ProtobufUnsupported extends Error {}

/**
 * A body that is not valid Kubernetes protobuf at all: 400, as kube-apiserver answers (its
 * serializer's "provided data does not appear to be a protobuf message" and "unexpected EOF").
 * `kind`/`version` are set when the envelope decoded and only the object inside it did not.
 */
export class ProtobufMalformed extends Error {
  constructor(
    message: string,
    readonly gvk?: { version: string; kind: string },
  ) {
    super(message);
  }
}

export const PROTOBUF_KINDS = Object.keys(KINDS);

class Reader {
  i = 0;
  constructor(readonly b: Uint8Array) {}
  get done(): boolean {
    return this.i >= this.b.length;
  }
  varint(): bigint {
    let r = 0n;
    let s = 0n;
    for (;;) {
      if (this.i >= this.b.length) throw new ProtobufMalformed('unexpected EOF');
      const x = this.b[this.i++]!;
      r |= BigInt(x & 0x7f) << s;
      if (x < 0x80) return r;
      s += 7n;
      if (s > 70n) throw new ProtobufMalformed('proto: integer overflow');
    }
  }
  bytes(): Uint8Array {
    const n = Number(this.varint());
    if (this.i + n > this.b.length) throw new ProtobufMalformed('unexpected EOF');
    const v = this.b.subarray(this.i, this.i + n);
    this.i += n;
    return v;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

function decodeMessage(buf: Uint8Array, schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const r = new Reader(buf);
  while (!r.done) {
    const key = Number(r.varint());
    const num = key >>> 3;
    const wire = key & 7;
    const f = schema[num];
    if (wire === 0) {
      const v = r.varint();
      if (!f) {
        if (v !== 0n) throw new ProtobufUnsupported(`unknown field ${num}`);
        continue;
      }
      if (f.type === 'bool') setValue(out, f, v !== 0n);
      else if (f.type === 'int') setValue(out, f, Number(BigInt.asIntN(64, v)));
      else throw new ProtobufUnsupported(`field ${num}: unexpected varint`);
    } else if (wire === 2) {
      const v = r.bytes();
      if (!f) {
        if (!isZero(v, 0)) throw new ProtobufUnsupported(`unknown field ${num}`);
        continue;
      }
      const t = f.type;
      if (t === 'string') setValue(out, f, utf8.decode(v));
      else if (t === 'bytes') setValue(out, f, Buffer.from(v).toString('base64'));
      else if (t === 'time') setValue(out, f, decodeTime(v));
      else if (t === 'quantity') setValue(out, f, decodeQuantity(v));
      else if (t === 'intOrString') setValue(out, f, decodeIntOrString(v));
      else if (t === 'fieldsV1') setValue(out, f, decodeFieldsV1(v, num));
      else if (typeof t === 'object' && 'map' in t) {
        const [k, val] = decodeMapEntry(v, t.map as 'string' | 'bytes' | 'quantity');
        const m = (out[f.name] ??= {}) as Record<string, unknown>;
        m[k] = val;
      } else if (typeof t === 'object' && f.inline) Object.assign(out, decodeMessage(v, t as Schema));
      else if (typeof t === 'object') setValue(out, f, decodeMessage(v, t as Schema));
      else throw new ProtobufUnsupported(`field ${num}: unexpected bytes`);
    } else {
      throw new ProtobufUnsupported(`field ${num}: unsupported wire type ${wire}`);
    }
  }
  return out;
}

/**
 * True when bytes are empty or a message whose fields are all zero values, recursively: gogo-proto
 * writes empty strings and zero numbers of every non-pointer field, so an unset nested struct
 * (a status, a userInfo) arrives as a message of zeros.
 */
function isZero(b: Uint8Array, depth: number): boolean {
  if (b.length === 0) return true;
  if (depth > 8) return false;
  try {
    const r = new Reader(b);
    while (!r.done) {
      const key = Number(r.varint());
      if (key >>> 3 === 0) return false;
      const wire = key & 7;
      if (wire === 0) {
        if (r.varint() !== 0n) return false;
      } else if (wire === 2) {
        if (!isZero(r.bytes(), depth + 1)) return false;
      } else return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** Repeated fields keep every element (an empty string in apiGroups means the core group); singular zero values are left out, as JSON's omitempty does. */
function setValue(out: Record<string, unknown>, f: Field, v: unknown): void {
  if (f.repeated) {
    ((out[f.name] ??= []) as unknown[]).push(v);
    return;
  }
  if (f.keepZero && v !== undefined) {
    out[f.name] = v;
    return;
  }
  const empty = v === '' || v === 0 || v === false || v === undefined || (typeof v === 'object' && v !== null && Object.keys(v).length === 0);
  if (!empty) out[f.name] = v;
}

/** metav1.FieldsV1 { 1: Raw (JSON text) }: the JSON it holds; Raw that is not JSON makes the body unsupported. */
function decodeFieldsV1(buf: Uint8Array, num: number): unknown {
  const r = new Reader(buf);
  let raw: Uint8Array | undefined;
  while (!r.done) {
    const key = Number(r.varint());
    if ((key & 7) !== 2) throw new ProtobufUnsupported(`field ${num}: fieldsV1: unexpected wire type`);
    const b = r.bytes();
    if (key >>> 3 === 1) raw = b;
  }
  if (!raw || raw.length === 0) return undefined;
  try {
    return JSON.parse(utf8.decode(raw));
  } catch {
    throw new ProtobufUnsupported(`field ${num}: fieldsV1 is not JSON`);
  }
}

function decodeMapEntry(buf: Uint8Array, valueType: 'string' | 'bytes' | 'quantity'): [string, unknown] {
  const r = new Reader(buf);
  let k = '';
  let v: unknown = valueType === 'bytes' ? '' : '';
  while (!r.done) {
    const key = Number(r.varint());
    if ((key & 7) !== 2) throw new ProtobufUnsupported('map entry: unexpected wire type');
    const b = r.bytes();
    if (key >>> 3 === 1) k = utf8.decode(b);
    else if (key >>> 3 === 2) v = valueType === 'bytes' ? Buffer.from(b).toString('base64') : valueType === 'quantity' ? decodeQuantity(b) : utf8.decode(b);
  }
  return [k, v];
}

function decodeQuantity(buf: Uint8Array): string {
  const r = new Reader(buf);
  let s = '';
  while (!r.done) {
    const key = Number(r.varint());
    if ((key & 7) !== 2) throw new ProtobufUnsupported('quantity: unexpected wire type');
    const b = r.bytes();
    if (key >>> 3 === 1) s = utf8.decode(b);
  }
  return s;
}

/** intstr.IntOrString { 1 type (0 int, 1 string), 2 intVal, 3 strVal }. */
function decodeIntOrString(buf: Uint8Array): number | string {
  const r = new Reader(buf);
  let type = 0n;
  let intVal = 0n;
  let strVal = '';
  while (!r.done) {
    const key = Number(r.varint());
    if ((key & 7) === 0) {
      const v = r.varint();
      if (key >>> 3 === 1) type = v;
      else if (key >>> 3 === 2) intVal = BigInt.asIntN(32, v);
    } else if ((key & 7) === 2) {
      const b = r.bytes();
      if (key >>> 3 === 3) strVal = utf8.decode(b);
    } else throw new ProtobufUnsupported('intstr: unexpected wire type');
  }
  return type === 1n ? strVal : Number(intVal);
}

function decodeTime(buf: Uint8Array): string | undefined {
  const r = new Reader(buf);
  let seconds = 0n;
  while (!r.done) {
    const key = Number(r.varint());
    if ((key & 7) === 0) {
      const v = r.varint();
      if (key >>> 3 === 1) seconds = BigInt.asIntN(64, v);
    } else if ((key & 7) === 2) r.bytes();
    else throw new ProtobufUnsupported('time: unexpected wire type');
  }
  if (seconds === 0n) return undefined;
  return new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Decodes a protobuf request body into the JSON object it stands for. */
export function decodeProtobufObject(body: Uint8Array): Record<string, unknown> {
  if (body.length < 4 || body[0] !== 0x6b || body[1] !== 0x38 || body[2] !== 0x73 || body[3] !== 0) {
    throw new ProtobufMalformed('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  if (body.length === 4) throw new ProtobufMalformed('empty body');
  const envelope = decodeMessage(body.subarray(4), {
    1: { name: 'typeMeta', type: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } } },
    2: { name: 'raw', type: 'bytes' },
    3: { name: 'contentEncoding', type: 'string' },
    4: { name: 'contentType', type: 'string' },
  });
  const tm = (envelope.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  if (envelope.contentEncoding) throw new ProtobufUnsupported(`content encoding ${String(envelope.contentEncoding)}`);
  // DeleteOptions is registered in every group version (metav1.AddToGroupVersion): "v1", "apps/v1", ...
  const schema = tm.kind === 'DeleteOptions' ? DELETE_OPTIONS : KINDS[`${tm.apiVersion}/${tm.kind}`];
  if (!schema) throw new ProtobufUnsupported(`no protobuf schema for ${tm.apiVersion}/${tm.kind}`);
  const raw = Buffer.from(String(envelope.raw ?? ''), 'base64');
  try {
    return { apiVersion: tm.apiVersion, kind: tm.kind, ...decodeMessage(raw, schema) };
  } catch (e) {
    if (e instanceof ProtobufMalformed) throw new ProtobufMalformed(e.message, { version: String(tm.apiVersion).split('/').pop()!, kind: String(tm.kind) });
    throw e;
  }
}
