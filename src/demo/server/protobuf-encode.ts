/**
 * Encoding of objects in Kubernetes protobuf, as kube-apiserver writes them (apimachinery
 * runtime/serializer/protobuf over k8s.io/api's gogo-generated marshallers), driven by the schema
 * generated from upstream's generated.proto and types.go (protobuf-schema.generated.ts).
 *
 * What the bytes hold, as upstream's do: fields in number order; a non-pointer scalar or struct is
 * always written (its zero value when the JSON left it out: gogo writes every non-pointer field),
 * a pointer, a []byte or a repeated field only when set; map entries in key order; metav1.Time as
 * Timestamp { 1 seconds, 2 nanos } (0 nanos: JSON holds seconds), empty when zero; MicroTime with
 * its microseconds; Quantity as { 1 string }; IntOrString as { 1 type, 2 intVal, 3 strVal };
 * FieldsV1 as { 1 raw JSON }. JSON fields the schema does not have are not written (the decode
 * upstream drops them too). Pure and synchronous: callers cache per stored object (encoders.ts).
 */
import { KINDS, MESSAGES } from './protobuf-schema.generated';

const F_REPEATED = 1;
const F_POINTER = 2;
const F_INLINE = 8;
const F_MAP = 16;

type Json = Record<string, unknown>;

/** The magic every Kubernetes protobuf body starts with ("k8s\0"). */
const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** A growable byte buffer with protobuf's primitives. */
class Writer {
  buf = Buffer.allocUnsafe(1024);
  pos = 0;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** A varint of a safe integer; a negative one as its 64-bit two's complement (10 bytes), as Go's uint64(int) makes it. */
  varint(v: number): void {
    this.ensure(10);
    if (v < 0) {
      let u = BigInt.asUintN(64, BigInt(Math.trunc(v)));
      while (u >= 0x80n) {
        this.buf[this.pos++] = Number(u & 0x7fn) | 0x80;
        u >>= 7n;
      }
      this.buf[this.pos++] = Number(u);
      return;
    }
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }

  /** A string, length first: ASCII (nearly every Kubernetes string) written by hand, others by Buffer. */
  string(s: string): void {
    const n = s.length;
    if (n < 0x80) {
      this.ensure(n + 1);
      const at = this.pos;
      const b = this.buf;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        b[at + 1 + i] = c;
      }
      if (i === n) {
        b[at] = n;
        this.pos = at + 1 + n;
        return;
      }
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.varint(len);
    this.ensure(len);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Starts a length-delimited message: one byte reserved for its length (finish() moves the body when it needs more). */
  begin(): number {
    this.ensure(1);
    return this.pos++;
  }

  finish(at: number): void {
    const n = this.pos - at - 1;
    if (n < 0x80) {
      this.buf[at] = n;
      return;
    }
    const k = varintSize(n);
    this.ensure(k - 1);
    this.buf.copyWithin(at + k, at + 1, this.pos);
    this.pos += k - 1;
    const end = this.pos;
    this.pos = at;
    this.varint(n);
    this.pos = end;
  }

  take(): Uint8Array {
    return Uint8Array.prototype.slice.call(this.buf, 0, this.pos);
  }
}

function varintSize(n: number): number {
  let k = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    k++;
  }
  return k;
}

interface FieldCode {
  tag: number;
  json: string;
  type: string;
  flags: number;
  /** The field's message, when its type is one of the schema's messages. */
  message?: MessageCode;
  /** A map's value, as field 2 of its entry. */
  value?: FieldCode;
}
type MessageCode = FieldCode[];

const SCALAR_WIRE: Record<string, number> = { string: 2, bytes: 2, bool: 0, int32: 0, int64: 0, uint32: 0, uint64: 0 };
const compiled = new Map<string, MessageCode>();

function codeOf(message: string): MessageCode {
  let code = compiled.get(message);
  if (code) return code;
  const defs = MESSAGES[message];
  if (!defs) throw new Error(`protobuf schema: no message ${message}`);
  code = [];
  compiled.set(message, code);
  for (const [number, json, type, flags] of defs) {
    const wire = flags & F_MAP ? 2 : (SCALAR_WIRE[type] ?? 2);
    const f: FieldCode = { tag: (number << 3) | wire, json, type, flags };
    if (MESSAGES[type]) f.message = codeOf(type);
    if (flags & F_MAP) f.value = { tag: (2 << 3) | (SCALAR_WIRE[type] ?? 2), json: '', type, flags: 0, message: f.message };
    code.push(f);
  }
  return code;
}

function writeMessage(w: Writer, code: MessageCode, o: Json): void {
  for (const f of code) {
    if (f.flags & F_INLINE) {
      w.varint(f.tag);
      const at = w.begin();
      writeMessage(w, f.message!, o);
      w.finish(at);
      continue;
    }
    const v = o[f.json];
    if (f.flags & F_MAP) {
      if (v && typeof v === 'object') writeMap(w, f, v as Json);
    } else if (f.flags & F_REPEATED) {
      if (Array.isArray(v)) for (const x of v) writeValue(w, f, x);
    } else if (v !== undefined && v !== null) {
      writeValue(w, f, v);
    } else if (!(f.flags & F_POINTER) && f.type !== 'bytes' && f.type !== 'FieldsV1' && f.type !== 'RawExtension') {
      writeValue(w, f, undefined);
    }
  }
}

function writeMap(w: Writer, f: FieldCode, m: Json): void {
  for (const k of Object.keys(m).sort()) {
    w.varint(f.tag);
    const at = w.begin();
    w.byte(0x0a);
    w.string(k);
    writeValue(w, f.value!, m[k]);
    w.finish(at);
  }
}

/** One value of the field (its zero value when undefined), tag included. */
function writeValue(w: Writer, f: FieldCode, v: unknown): void {
  w.varint(f.tag);
  switch (f.type) {
    case 'string':
      return w.string(v === undefined || v === null ? '' : String(v));
    case 'bytes':
      return w.bytes(Buffer.from(typeof v === 'string' ? v : '', 'base64'));
    case 'bool':
      return w.byte(v === true ? 1 : 0);
    case 'int32':
    case 'int64':
    case 'uint32':
    case 'uint64':
      return w.varint(Number(v ?? 0) || 0);
  }
  const at = w.begin();
  switch (f.type) {
    case 'Time':
    case 'MicroTime':
      writeTimestamp(w, v, f.type === 'MicroTime');
      break;
    case 'Quantity':
      w.byte(0x0a);
      w.string(v === undefined || v === null ? '0' : String(v));
      break;
    case 'IntOrString':
      writeIntOrString(w, v);
      break;
    case 'FieldsV1':
    case 'RawExtension':
      w.byte(0x0a);
      w.string(JSON.stringify(v));
      break;
    default:
      writeMessage(w, f.message!, (v ?? {}) as Json);
  }
  w.finish(at);
}

const seconds = new Map<string, number>();

function writeTimestamp(w: Writer, v: unknown, micro: boolean): void {
  if (typeof v !== 'string' || v === '') return;
  // Objects share few distinct times (creation, transitions): each is parsed once.
  let s = seconds.get(v);
  if (s === undefined) {
    const ms = Date.parse(v);
    if (!Number.isFinite(ms)) return;
    s = Math.floor(ms / 1000);
    if (seconds.size > 100_000) seconds.clear();
    seconds.set(v, s);
  }
  // Date keeps milliseconds only: the microseconds come from the text.
  const frac = micro ? (/\.(\d+)/.exec(v)?.[1] ?? '') : '';
  const nanos = micro ? Number(frac.slice(0, 6).padEnd(6, '0')) * 1000 : 0;
  w.byte(0x08);
  w.varint(s);
  w.byte(0x10);
  w.varint(nanos);
}

function writeIntOrString(w: Writer, v: unknown): void {
  const isString = typeof v === 'string';
  w.byte(0x08);
  w.varint(isString ? 1 : 0);
  w.byte(0x10);
  w.varint(isString ? 0 : Number(v ?? 0) || 0);
  w.byte(0x1a);
  w.string(isString ? v : '');
}

/** Whether the demo encodes this kind ("apps/v1", "Deployment") in protobuf. */
export function hasProtobufSchema(apiVersion: string, kind: string): boolean {
  return KINDS[`${apiVersion}/${kind}`] !== undefined;
}

/** The message bytes of an object of the kind (no magic, no envelope): a list's item, or an envelope's raw. */
export function encodeMessage(apiVersion: string, kind: string, o: Json): Uint8Array {
  const message = KINDS[`${apiVersion}/${kind}`];
  if (!message) throw new Error(`protobuf schema: no kind ${apiVersion}/${kind}`);
  // One scratch buffer for every object (encoding is synchronous), grown to the largest; the
  // result is an exact copy.
  scratch.pos = 0;
  writeMessage(scratch, codeOf(message), o);
  return scratch.take();
}
const scratch = new Writer();

/** A whole body holding one object: the envelope around its message. */
export function encodeObject(apiVersion: string, kind: string, message: Uint8Array): Buffer {
  return envelope(apiVersion, kind, message.length, (w) => {
    w.buf.set(message, w.pos);
    w.pos += message.length;
  });
}

/**
 * A whole list body: ListMeta as field 1, each item's message bytes (cached by the caller) as
 * field 2, in the envelope. Sized first, so the items are copied once, into the body.
 */
export function encodeList(
  apiVersion: string,
  listKind: string,
  meta: { resourceVersion?: string; continue?: string; remainingItemCount?: number },
  items: readonly Uint8Array[],
): Buffer {
  const head = new Writer();
  head.byte(0x0a);
  const at = head.begin();
  writeMessage(head, codeOf('meta.v1.ListMeta'), meta as Json);
  head.finish(at);
  let size = head.pos;
  for (const item of items) size += 1 + varintSize(item.length) + item.length;
  return envelope(apiVersion, listKind, size, (w) => {
    w.buf.set(head.buf.subarray(0, head.pos), w.pos);
    w.pos += head.pos;
    for (const item of items) {
      w.buf[w.pos++] = 0x12;
      w.varint(item.length);
      w.buf.set(item, w.pos);
      w.pos += item.length;
    }
  });
}

/**
 * The magic, then runtime.Unknown { 1 typeMeta { 1 apiVersion, 2 kind }, 2 raw, 3 contentEncoding
 * "", 4 contentType "" }, `raw` (rawLength bytes) written in place by `writeRaw`.
 */
function envelope(apiVersion: string, kind: string, rawLength: number, writeRaw: (w: Writer) => void): Buffer {
  const tm = new Writer();
  tm.byte(0x0a);
  tm.string(apiVersion);
  tm.byte(0x12);
  tm.string(kind);
  const w = new Writer();
  // 10 more than needed: varint() asks for room for its longest form
  w.buf = Buffer.allocUnsafe(MAGIC.length + 1 + varintSize(tm.pos) + tm.pos + 1 + varintSize(rawLength) + rawLength + 4 + 10);
  for (const b of MAGIC) w.byte(b);
  w.byte(0x0a);
  w.bytes(tm.buf.subarray(0, tm.pos));
  w.byte(0x12);
  w.varint(rawLength);
  const start = w.pos;
  writeRaw(w);
  if (w.pos - start !== rawLength) throw new Error(`protobuf envelope: raw is ${w.pos - start} bytes, not ${rawLength}`);
  w.byte(0x1a);
  w.byte(0);
  w.byte(0x22);
  w.byte(0);
  return w.buf.subarray(0, w.pos);
}

/**
 * One watch frame, as kube-apiserver's protobuf stream writes it (apimachinery framer's
 * LengthDelimitedFrameWriter): a 4-byte big-endian length, then metav1.WatchEvent { 1 type,
 * 2 object: RawExtension { 1 raw } } with no magic of its own, `raw` being the object's whole body.
 */
export function watchFrame(type: string, body: Uint8Array): Buffer {
  const w = new Writer();
  w.ensure(body.length + 64);
  w.pos = 4;
  w.byte(0x0a);
  w.string(type);
  w.byte(0x12);
  const at = w.begin();
  w.byte(0x0a);
  w.bytes(body);
  w.finish(at);
  w.buf.writeUInt32BE(w.pos - 4, 0);
  return w.buf.subarray(0, w.pos);
}
