/**
 * metadata.managedFields read by the walker in their compact form (../objects/managers.ts: who
 * wrote each version), for a sync loop that records. Opt-in: only the plans made by `withManagers`
 * keep managedFields (decode.ts `managers`); every other plan skips them by length, as before.
 *
 * A ManagedFieldsEntry { 1 manager, 2 operation, 3 apiVersion, 4 time, 6 fieldsType, 7 fieldsV1
 * { 1 raw }, 8 subresource } is read by hand: apiVersion and fieldsType are skipped by length, and
 * FieldsV1's raw JSON (structured-merge-diff's set) is scanned, not parsed: the keys of its first
 * FIELDS_DEPTH levels are decoded, every deeper set is passed over by matching its braces.
 *
 * The sets are shared: between objects whose entries carry the same bytes (cachedSet), and every
 * `{}` below the top is one object. Read-only, as every watched object is (../objects/share.ts).
 *
 * Guarantees: an entry reads to what compactManagedFields makes of the same entry's JSON form
 * (Go's omitempty: an empty manager, operation or subresource is absent, and an entry without a
 * manager is left out; a zero time is absent); the walk never reads past the entry; a FieldsV1
 * that is not JSON, or a field of the wrong wire type, is a ProtobufError.
 */
import { compile, type MessagePlan, type Pick } from './plan';
import { ProtobufError, Reader, utf8, WIRE_BYTES } from './reader';

/** Levels of a FieldsV1 set kept: MANAGERS_FIELD_DEPTH of ../objects/managers.ts (a value this folder may not import; a test holds them equal). */
export const FIELDS_DEPTH = 3;

const ENTRY_MESSAGE = 'meta.v1.ManagedFieldsEntry';

/** What a managers plan keeps of an entry (its JSON names; the walker reads it with readCompactEntry). */
const COMPACT_ENTRY: Pick = { manager: true, operation: true, time: true, subresource: true, fieldsV1: true };

let entryPlan: MessagePlan | undefined;

/** Whether `sub` is the plan of an entry kept by withManagers: the walker then reads it with readCompactEntry. */
export function isCompactEntryPlan(sub: MessagePlan | undefined): boolean {
  return sub !== undefined && sub === (entryPlan ??= compile(ENTRY_MESSAGE, COMPACT_ENTRY));
}

const withManagersOf = new WeakMap<object, Pick>();

/** A kind's field set that keeps metadata.managedFields in their compact form too; one object per field set, so one plan. */
export function withManagers(pick: Pick): Pick {
  if (pick === true) return pick; // whole: managedFields are kept as they are
  let p = withManagersOf.get(pick);
  if (!p) {
    const meta = pick.metadata;
    const metadata: Pick =
      meta === undefined || meta === false || meta === true ? { '*': true, managedFields: COMPACT_ENTRY } : { ...meta, managedFields: COMPACT_ENTRY };
    p = { ...pick, metadata };
    withManagersOf.set(pick, p);
  }
  return p;
}

/** One entry's compact form, in the order compactManagedFields writes it. */
interface CompactEntry {
  manager: string;
  operation?: string;
  time?: string;
  subresource?: string;
  fieldsV1?: Record<string, unknown>;
}

/** The entry in [r.pos, end) in its compact form; undefined when it names no manager. */
export function readCompactEntry(r: Reader, end: number, rfc3339: (seconds: number) => string): CompactEntry | undefined {
  const outer = r.end;
  r.end = end;
  let manager = '';
  let operation = '';
  let subresource = '';
  let time: string | undefined;
  let fieldsV1: Record<string, unknown> | undefined;
  while (r.pos < end) {
    const t = r.tag();
    const num = t >>> 3;
    if (num === 1 || num === 2 || num === 4 || num === 7 || num === 8) {
      if ((t & 7) !== WIRE_BYTES) throw new ProtobufError(`ManagedFieldsEntry field ${num}: wire type ${t & 7}, expected ${WIRE_BYTES}`);
      const n = r.length();
      const p = r.pos;
      r.pos = p + n;
      if (num === 1) manager = utf8(r.buf, p, p + n);
      else if (num === 2) operation = utf8(r.buf, p, p + n);
      else if (num === 8) subresource = utf8(r.buf, p, p + n);
      else if (num === 4) time = readTime(r.buf, p, p + n, rfc3339);
      else fieldsV1 = readFieldsV1(r.buf, p, p + n);
    } else r.skip(t & 7);
  }
  r.end = outer;
  if (manager === '') return undefined;
  const e: CompactEntry = { manager };
  if (operation) e.operation = operation;
  if (time !== undefined) e.time = time;
  if (subresource) e.subresource = subresource;
  if (fieldsV1 !== undefined) e.fieldsV1 = fieldsV1;
  return e;
}

/** metav1.Time { 1 seconds, 2 nanos } at second precision; undefined for a zero-length (zero) time, which JSON writes as null. */
function readTime(b: Uint8Array, start: number, end: number, rfc3339: (seconds: number) => string): string | undefined {
  if (start === end) return undefined;
  const r = new Reader(b, start, end);
  let seconds = 0;
  while (r.pos < end) {
    const t = r.tag();
    if (t === 0x08) seconds = r.int64();
    else r.skip(t & 7);
  }
  return rfc3339(seconds);
}

/** FieldsV1 { 1 raw }: its set cut at FIELDS_DEPTH levels; undefined when it holds no object (JSON's null). */
function readFieldsV1(b: Uint8Array, start: number, end: number): Record<string, unknown> | undefined {
  const r = new Reader(b, start, end);
  let rawStart = 0;
  let rawEnd = 0;
  while (r.pos < end) {
    const t = r.tag();
    if (t === 0x0a) {
      const n = r.length();
      rawStart = r.pos;
      rawEnd = r.pos + n;
      r.pos = rawEnd;
    } else r.skip(t & 7);
  }
  return rawStart === rawEnd ? undefined : cachedSet(b, rawStart, rawEnd);
}

/**
 * Recent FieldsV1 sets by their raw bytes: the pods of one ReplicaSet carry the same controller
 * and scheduler entries byte for byte, so their cut sets are one object, not one per pod, and a
 * repeat costs a hash and a compare instead of a scan. Bounded: SET_SLOTS sets and their bytes.
 */
const SET_SLOTS = 1024;
const setKeys: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(SET_SLOTS).fill(undefined);
const setValues: (Record<string, unknown> | undefined)[] = new Array<Record<string, unknown> | undefined>(SET_SLOTS).fill(undefined);

/** Bytes hashed per set: spread over it, and its last ones (where a pod's entries differ: IPs, uids); a hit is compared whole. */
const HASH_SAMPLES = 48;

function cachedSet(b: Uint8Array, start: number, end: number): Record<string, unknown> | undefined {
  const n = end - start;
  let h = n;
  const step = n > 2 * HASH_SAMPLES ? Math.floor(n / HASH_SAMPLES) : 1;
  for (let i = start; i < end; i += step) h = Math.imul(h ^ b[i]!, 0x01000193);
  for (let i = Math.max(start, end - HASH_SAMPLES); i < end; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  const slot = (h ^ (h >>> 16)) & (SET_SLOTS - 1);
  const key = setKeys[slot];
  if (key !== undefined && key.length === n && Buffer.from(b.buffer, b.byteOffset + start, n).equals(key)) return setValues[slot];
  const set = scanSet(b, start, end);
  setKeys[slot] = new Uint8Array(b.subarray(start, end)); // a copy: a Buffer's slice would be a view of the body
  setValues[slot] = set;
  return set;
}

/** The set in [start, end) cut at FIELDS_DEPTH levels; undefined for JSON's null (or another non-object). */
function scanSet(b: Uint8Array, start: number, end: number): Record<string, unknown> | undefined {
  const s = new SetScanner(b, start, end);
  s.ws();
  if (s.pos < s.end && b[s.pos] === BRACE_OPEN) {
    const set = s.set(FIELDS_DEPTH);
    s.ws();
    if (s.pos === s.end) return set;
  }
  // Not an object, or trailing bytes: what JSON.parse says of it (null or another value: no set; else the error).
  let v: unknown;
  try {
    v = JSON.parse(utf8(b, start, end));
  } catch {
    throw new ProtobufError(`FieldsV1 at byte ${start} does not hold JSON`);
  }
  if (v !== null && typeof v === 'object') throw new ProtobufError(`FieldsV1 at byte ${start}: an object the scanner could not read`);
  return undefined;
}

const BRACE_OPEN = 0x7b;
const BRACE_CLOSE = 0x7d;
const BRACKET_OPEN = 0x5b;
const BRACKET_CLOSE = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;

/** Every cut (or empty) set below the top: one object, like the sets themselves read-only once made. */
const LEAF: Record<string, unknown> = {};

/** A FieldsV1 set's JSON in [pos, end), read as deep as asked; bounds-checked at every byte. */
class SetScanner {
  constructor(
    readonly b: Uint8Array,
    public pos: number,
    readonly end: number,
  ) {}

  /** The object at pos, its keys kept `depth` levels down (below, a set is `{}`); pos moves past it. */
  set(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.expect(BRACE_OPEN);
    this.ws();
    if (this.peek() === BRACE_CLOSE) {
      this.pos++;
      return depth < FIELDS_DEPTH ? LEAF : out;
    }
    for (;;) {
      this.ws();
      const key = this.key();
      this.ws();
      this.expect(COLON);
      this.ws();
      const v = depth > 1 && this.peek() === BRACE_OPEN ? this.set(depth - 1) : (this.value(), LEAF);
      if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      else out[key] = v;
      this.ws();
      const c = this.next();
      if (c === BRACE_CLOSE) return out;
      if (c !== COMMA) throw this.bad('"," or "}"');
    }
  }

  /** A JSON string key: its bytes as text, or JSON's reading of it when it has escapes (k:{\"name\":\"app\"}). */
  private key(): string {
    this.expect(QUOTE);
    const start = this.pos;
    let escaped = false;
    for (;;) {
      const c = this.next();
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        escaped = true;
        this.next();
      }
    }
    if (!escaped) return utf8(this.b, start, this.pos - 1);
    try {
      return JSON.parse(utf8(this.b, start - 1, this.pos)) as string;
    } catch {
      throw this.bad('a JSON string');
    }
  }

  /** Passes over one JSON value of any kind (nested braces, brackets and strings matched). */
  private value(): void {
    let open = 0;
    do {
      const c = this.next();
      if (c === QUOTE) {
        for (;;) {
          const d = this.next();
          if (d === QUOTE) break;
          if (d === BACKSLASH) this.next();
        }
      } else if (c === BRACE_OPEN || c === BRACKET_OPEN) open++;
      else if (c === BRACE_CLOSE || c === BRACKET_CLOSE) open--;
      else if (open === 0) {
        // a number or literal: up to the delimiter after it
        while (this.pos < this.end && !isDelimiter(this.b[this.pos]!)) this.pos++;
      }
    } while (open > 0);
    if (open < 0) throw this.bad('a value');
  }

  ws(): void {
    while (this.pos < this.end) {
      const c = this.b[this.pos]!;
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.pos++;
    }
  }

  private peek(): number {
    return this.pos < this.end ? this.b[this.pos]! : -1;
  }

  private next(): number {
    if (this.pos >= this.end) throw new ProtobufError(`FieldsV1 at byte ${this.pos}: the JSON ends inside a value`);
    return this.b[this.pos++]!;
  }

  private expect(c: number): void {
    if (this.next() !== c) throw this.bad(JSON.stringify(String.fromCharCode(c)));
  }

  private bad(want: string): ProtobufError {
    return new ProtobufError(`FieldsV1 at byte ${this.pos}: expected ${want}`);
  }
}

function isDelimiter(c: number): boolean {
  return c === COMMA || c === BRACE_CLOSE || c === BRACKET_CLOSE || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
