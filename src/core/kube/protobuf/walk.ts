/**
 * The walker: one pass over a protobuf message that builds the plain JS object its JSON form would
 * parse to, holding only the plan's fields (plan.ts); every other field is skipped by its length,
 * unread (a pod's managedFields, volumes, env, security contexts). managedFields are read only by a
 * plan that asks for them (a recording sync loop's: managedFields.ts), in their compact form.
 *
 * Values are written as kube-apiserver's JSON writes them (Go's encoding/json over the decoded
 * struct): field names from the Go json tags; omitempty zero values left out, except pointers that
 * are set and structs (Go writes those: `fill` in plan.ts); omitzero ones always left out;
 * metav1.Time as RFC 3339 at second precision ("2026-01-01T00:00:00Z", null when zero), MicroTime
 * with six fractional digits, resource.Quantity as its string, IntOrString as a number or a
 * string, []byte as base64, FieldsV1 as the JSON it holds.
 *
 * Guarantees: the walk never reads past the message it is in (reader.ts); a value of the wrong wire
 * type for its field is a ProtobufError naming the field, not a misread; map keys are set as own
 * properties (a ConfigMap key "__proto__" is a key, as JSON.parse makes it).
 */
import { isCompactEntryPlan, readCompactEntry } from './managedFields';
import { ProtobufError, Reader, utf8, WIRE_BYTES, WIRE_VARINT } from './reader';
import {
  F_INLINE,
  F_MAP,
  F_OMITEMPTY,
  F_OMITZERO,
  F_POINTER,
  F_REPEATED,
  K_BOOL,
  K_BYTES,
  K_FIELDSV1,
  K_INT32,
  K_INT64,
  K_INTORSTR,
  K_MESSAGE,
  K_MICROTIME,
  K_QUANTITY,
  K_STRING,
  K_TIME,
  K_UINT32,
  K_UINT64,
  type FieldPlan,
  zeroValue,
  type MessagePlan,
} from './plan';

type Json = Record<string, unknown>;

/** Reads the message in [r.pos, end) into `o` (an inlined struct: its parent's object). */
export function readMessage(r: Reader, end: number, plan: MessagePlan, o: Json): void {
  readerOf(plan)(r, end, o);
}

type MessageReader = (r: Reader, end: number, o: Json) => void;

const READERS = new WeakMap<MessagePlan, MessageReader>();

/**
 * Each plan is read by a function made for it (once, on first use): a switch on the tags it keeps,
 * each case storing its value under a property name written in the code. A store through a
 * computed name (`o[f.name] = v`) sees every field of every message at one site, so V8 makes it
 * generic and adds each property through the runtime; a named store per field is cached at its
 * own site: the walker took 1.7x JSON.parse's CPU the first way and a fraction of it this way.
 * The code is made from the schema's own names (JSON.stringify quotes them), nothing from the wire.
 */
function readerOf(plan: MessagePlan): MessageReader {
  let f = READERS.get(plan);
  if (!f) {
    f = generate(plan);
    READERS.set(plan, f);
  }
  return f;
}

/** What the generated code calls: the value readers below, and the plans' sub-readers, made on first call. */
interface Helpers {
  utf8: typeof utf8;
  base64: typeof base64;
  readValue: typeof readValue;
  readMapEntry: typeof readMapEntry;
  other: typeof other;
  zeroValue: typeof zeroValue;
  readCompactEntry: typeof readCompactEntry;
  rfc3339: typeof rfc3339;
  subs: MessageReader[];
  fields: FieldPlan[];
  plan: MessagePlan;
}

function generate(plan: MessagePlan): MessageReader {
  const subs: MessageReader[] = [];
  const fields: FieldPlan[] = [];
  const subIndex = (sub: MessagePlan) => {
    const i = subs.length;
    // Resolved on first call, so a plan that (one day) contains itself does not recurse here.
    subs.push((r, end, o) => (subs[i] = readerOf(sub))(r, end, o));
    return i;
  };
  const fieldIndex = (f: FieldPlan) => fields.push(f) - 1;
  const cases: string[] = [];
  for (const f of plan.fields) cases.push(`case ${(f.number << 3) | f.wire}: {${fieldCode(f, subIndex, fieldIndex)}} break;`);
  // Called with end -1, a reader only writes the zero values Go's JSON has for fields the wire did
  // not carry: how an inlined struct's own fields are filled into its parent.
  const fill: string[] = [];
  for (const f of plan.fill) {
    if (f.flags & F_INLINE) fill.push(`h.subs[${subIndex(f.sub!)}](r, -1, o);`);
    else fill.push(`if (o[${q(f.name)}] === undefined) o[${q(f.name)}] = h.zeroValue(h.fields[${fieldIndex(f)}]);`);
  }
  const body = `
    if (end < 0) { ${fill.join('\n')} return; }
    const outer = r.end;
    r.end = end;
    while (r.pos < end) {
      const tag = r.tag();
      switch (tag) {
        ${cases.join('\n')}
        default: h.other(r, tag, h.plan, o);
      }
    }
    r.end = outer;
    ${fill.join('\n')}`;
  const h: Helpers = { utf8, base64, readValue, readMapEntry, other, zeroValue, readCompactEntry, rfc3339, subs, fields, plan };
  const make = new Function('h', `return function read_${plan.message.replace(/\W/g, '_')}(r, end, o) {${body}}`) as (h: Helpers) => MessageReader;
  return make(h);
}

const q = (s: string) => JSON.stringify(s);

/** The statements that read one kept field's value (its tag read) and store it in `o`. */
function fieldCode(f: FieldPlan, subIndex: (p: MessagePlan) => number, fieldIndex: (f: FieldPlan) => number): string {
  const key = q(f.name);
  if (f.flags & F_MAP) return `h.readMapEntry(r, h.fields[${fieldIndex(f)}], o);`;
  const store = (v: string, zero: string) => {
    if (f.flags & F_REPEATED) return `{ const a = o[${key}]; if (a == null) o[${key}] = [${v}]; else a.push(${v}); }`;
    if (f.flags & F_POINTER || !(f.flags & F_OMITEMPTY) || zero === 'false') return `o[${key}] = ${v};`;
    return `if (!(${zero})) o[${key}] = ${v};`;
  };
  switch (f.kind) {
    case K_STRING:
      return `const n = r.length(); const p = r.pos; r.pos = p + n; const v = h.utf8(r.buf, p, p + n); ${store('v', 'n === 0')}`;
    case K_BYTES:
      return `const n = r.length(); const p = r.pos; r.pos = p + n; const v = h.base64(r.buf, p, n); ${store('v', 'n === 0')}`;
    case K_INT32:
      return `const v = r.int32(); ${store('v', 'v === 0')}`;
    case K_UINT32:
      return `const v = r.uint32(); ${store('v', 'v === 0')}`;
    case K_INT64:
    case K_UINT64:
      return `const v = r.int64(); ${store('v', 'v === 0')}`;
    case K_BOOL:
      return `const v = r.bool(); ${store('v', '!v')}`;
    case K_MESSAGE: {
      // managedFields, kept only by a managers plan (managedFields.ts): each entry in its compact form
      if (isCompactEntryPlan(f.sub))
        return `const n = r.length(); const v = h.readCompactEntry(r, r.pos + n, h.rfc3339); if (v !== undefined) ${store('v', 'false')}`;
      const sub = subIndex(f.sub!);
      if (f.name === '') return `const n = r.length(); h.subs[${sub}](r, r.pos + n, o);`; // inlined in JSON: into the parent
      if (f.flags & F_REPEATED) return `const n = r.length(); const v = {}; h.subs[${sub}](r, r.pos + n, v); ${store('v', 'false')}`;
      // A singular message seen twice is merged, as protobuf decoders do.
      return `const n = r.length(); const prev = o[${key}]; const v = prev !== null && typeof prev === 'object' ? prev : {}; h.subs[${sub}](r, r.pos + n, v); o[${key}] = v;`;
    }
    default: {
      // Only times carry omitzero (the generator refuses others): a zero time is written with no bytes.
      const skipNull = f.flags & F_OMITZERO ? 'if (v !== null) ' : '';
      return `const v = h.readValue(r, ${f.kind}); ${skipNull}${store('v', 'false')}`;
    }
  }
}

/** A tag the plan's switch has no case for: a field left out (skipped by length), packed, or of the wrong wire type. */
function other(r: Reader, tag: number, plan: MessagePlan, o: Json): void {
  const num = tag >>> 3;
  const wire = tag & 7;
  const f = num < plan.byNumber.length ? plan.byNumber[num] : undefined;
  if (f === undefined) return r.skip(wire);
  if (wire === WIRE_BYTES && f.wire === WIRE_VARINT && f.flags & F_REPEATED) return readPacked(r, f, o);
  throw new ProtobufError(`${plan.message}.${f.name || '(inline)'} (field ${num}): wire type ${wire}, expected ${f.wire}`);
}

/** Time, MicroTime, Quantity, IntOrString, FieldsV1 (length-delimited messages with a JSON form of their own). */
function readValue(r: Reader, kind: number): unknown {
  const n = r.length();
  const end = r.pos + n;
  const outer = r.end;
  r.end = end;
  let v: unknown;
  switch (kind) {
    case K_TIME:
    case K_MICROTIME: {
      if (n === 0) {
        v = null;
        break;
      }
      let seconds = 0;
      let nanos = 0;
      while (r.pos < end) {
        const t = r.tag();
        if (t === 0x08) seconds = r.int64();
        else if (t === 0x10) nanos = r.int32();
        else r.skip(t & 7);
      }
      v = kind === K_TIME ? rfc3339(seconds) : rfc3339Micro(seconds, nanos);
      break;
    }
    case K_QUANTITY: {
      let s = '';
      while (r.pos < end) {
        const t = r.tag();
        if (t === 0x0a) s = readString(r);
        else r.skip(t & 7);
      }
      v = s;
      break;
    }
    case K_INTORSTR: {
      let type = 0;
      let intVal = 0;
      let strVal = '';
      while (r.pos < end) {
        const t = r.tag();
        if (t === 0x08) type = r.int64();
        else if (t === 0x10) intVal = r.int32();
        else if (t === 0x1a) strVal = readString(r);
        else r.skip(t & 7);
      }
      v = type === 1 ? strVal : intVal;
      break;
    }
    case K_FIELDSV1: {
      let raw: string | undefined;
      while (r.pos < end) {
        const t = r.tag();
        if (t === 0x0a) raw = readString(r);
        else r.skip(t & 7);
      }
      try {
        v = raw === undefined || raw === '' ? null : JSON.parse(raw);
      } catch {
        throw new ProtobufError(`FieldsV1 at byte ${end - n} does not hold JSON`);
      }
      break;
    }
    default:
      throw new ProtobufError(`no reader for value kind ${kind}`);
  }
  r.pos = end;
  r.end = outer;
  return v;
}

function readString(r: Reader): string {
  const n = r.length();
  const p = r.pos;
  r.pos = p + n;
  return utf8(r.buf, p, p + n);
}

/** A map<string, V> entry message { 1 key, 2 value }. */
function readMapEntry(r: Reader, f: FieldPlan, o: Json): void {
  const n = r.length();
  const end = r.pos + n;
  const outer = r.end;
  r.end = end;
  let key = '';
  let value: unknown = f.kind === K_STRING ? '' : f.kind === K_QUANTITY ? '0' : null;
  while (r.pos < end) {
    const t = r.tag();
    if (t === 0x0a) key = readString(r);
    else if (t === 0x12) {
      if (f.kind === K_STRING) value = readString(r);
      else if (f.kind === K_BYTES) {
        const len = r.length();
        value = base64(r.buf, r.pos, len);
        r.pos += len;
      } else value = readValue(r, f.kind);
    } else r.skip(t & 7);
  }
  r.end = outer;
  let m = o[f.name] as Json | null | undefined;
  if (m == null) o[f.name] = m = {};
  if (key === '__proto__') Object.defineProperty(m, key, { value, enumerable: true, writable: true, configurable: true });
  else m[key] = value;
}

/** A packed repeated varint field (proto3 style; Kubernetes writes them unpacked, both are valid). */
function readPacked(r: Reader, f: FieldPlan, o: Json): void {
  const n = r.length();
  const end = r.pos + n;
  const outer = r.end;
  r.end = end;
  while (r.pos < end) {
    const v = f.kind === K_BOOL ? r.bool() : f.kind === K_INT32 ? r.int32() : f.kind === K_UINT32 ? r.uint32() : r.int64();
    const a = o[f.name] as unknown[] | null | undefined;
    if (a == null) o[f.name] = [v];
    else a.push(v);
  }
  r.end = outer;
}

function base64(b: Uint8Array, p: number, n: number): string {
  return Buffer.from(b.buffer, b.byteOffset + p, n).toString('base64');
}

/** Seconds in 0000-01-01 .. 9999-12-31: what the civil-date arithmetic below formats. */
const MIN_SECONDS = -62167219200;
const MAX_SECONDS = 253402300799;

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/** Times repeat within a page (a pod's conditions, its containers' starts): a few recent ones are kept. */
const TIME_CACHE = 64;
const timeKeys = new Float64Array(TIME_CACHE).fill(NaN);
const timeValues: string[] = new Array<string>(TIME_CACHE).fill('');

/** metav1.Time's JSON: RFC 3339 in UTC at second precision (Go's time.RFC3339 layout). */
export function rfc3339(seconds: number): string {
  const slot = seconds & (TIME_CACHE - 1);
  if (timeKeys[slot] === seconds) return timeValues[slot]!;
  const v = `${civil(seconds)}Z`;
  timeKeys[slot] = seconds;
  timeValues[slot] = v;
  return v;
}

/** metav1.MicroTime's JSON: "2006-01-02T15:04:05.000000Z". */
export function rfc3339Micro(seconds: number, nanos: number): string {
  const micros = Math.floor(nanos / 1000);
  return `${civil(seconds)}.${String(micros).padStart(6, '0')}Z`;
}

/** "YYYY-MM-DDTHH:MM:SS" of Unix seconds, UTC (days to civil date: H. Hinnant's algorithm). */
function civil(seconds: number): string {
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS || !Number.isInteger(seconds)) {
    return new Date(seconds * 1000).toISOString().slice(0, 19);
  }
  const days = Math.floor(seconds / 86400);
  const secs = seconds - days * 86400;
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const hh = Math.floor(secs / 3600);
  const mm = Math.floor((secs % 3600) / 60);
  const ss = secs % 60;
  return `${String(y).padStart(4, '0')}-${pad2(m)}-${pad2(d)}T${pad2(hh)}:${pad2(mm)}:${pad2(ss)}`;
}
