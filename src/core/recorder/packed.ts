/**
 * The packed encoding of a data block's records (format version 2 on, block kind Packed): a binary
 * stream instead of one JSON text per record, because at hundreds of records a second serializing
 * every timeline mark to JSON was most of what recording cost.
 *
 *   payload  := record*
 *   record   := tag:u8 dt:time body
 *   tag 0x01 := a sync-loop iteration mark (TimelineRecord of kind 'iteration'), field by field:
 *               et:milli durationMs:num source:str op:str key:str handler:str outcome:str flags:u8
 *               [message:str] [node:str] [uid:str] [data:str] [worker: state:str coalesced:num
 *               wflags:u8 [nextDueT:num] [gracePeriodSeconds:num] [probes: n:varint str*n]
 *               [waitedMs:num]]  (data and waitedMs: format version 3)
 *       0x02 := a TimelineRecord whose event is JSON text: text
 *       0x03 := any record as JSON text (its own `t` is the record's): text
 *       0x10 | op << 2 | form := a DeltaRecord: key:str, then for form 1 (`o`) or 2 (`p`) the object
 *               or patch as JSON text; op 0 A, 1 M, 2 D; form 0 neither
 *   varint   := unsigned LEB128, at most 8 bytes (a value below 2^53); a writer may pad it
 *   time     := the record's `t` against the last integer `t` of the block (0 at its start):
 *               varint (zigzag(t - last) * 2) when both are integers, else varint 1 and float64 LE
 *   milli    := the mark's `t` likewise against the last such `t` in milliseconds * 1000: varint
 *               (zigzag(m - last) * 2) when t = m / 1000 exactly, else varint 1 and float64 LE
 *   num      := varint (zigzag(n) * 4) for an integer n, varint (zigzag(m) * 4 + 1) for m / 1000,
 *               else varint 2 and float64 LE (the three read back as the same double)
 *   str      := varint 0 then text (the block's next string), or varint i + 1 (its string i)
 *   text     := varint byte length, UTF-8 bytes
 *
 * Guarantees:
 * - decodePacked(encoded records) gives records deep-equal to what JSON lines would have read:
 *   numbers are the same doubles, strings the same (as UTF-8: a lone surrogate, which no JSON
 *   encoder would keep either, reads as U+FFFD), marks with a field the encoding does not know are
 *   kept whole as JSON (tag 0x02). A decoded mark's keys come in one fixed order.
 * - A block is self-contained: its string table starts empty.
 * - A payload that does not decode (unknown tag, a length past its end) throws a RangeError; the
 *   block's checksum makes that a sign of a bug, not of damage on disk.
 */
import { parseJsonCapped } from '../kube/objects/depth';
import type { SyncIterationEvent, TimelineEvent } from '../timeline/events';
import type { DeltaRecord, Obj, RecordingRecord } from './records';

const TAG_MARK = 0x01;
const TAG_EVENT_JSON = 0x02;
const TAG_RECORD_JSON = 0x03;
const TAG_DELTA = 0x10;
const OPS = ['A', 'M', 'D'] as const;

/** The tag of a delta record: op and form (0 neither, 1 whole object, 2 patch). */
export function deltaTag(op: 'A' | 'M' | 'D', form: 0 | 1 | 2): number {
  return TAG_DELTA | ((op === 'A' ? 0 : op === 'M' ? 1 : 2) << 2) | form;
}

/** Magnitude below which integers are stored as varints (so zigzag * 4 stays a safe integer). */
const INT_LIMIT = 2 ** 50;

const F_MESSAGE = 1;
const F_NODE = 2;
const F_UID = 4;
const F_INFERRED = 8;
const F_INFERRED_TRUE = 16;
const F_WORKER = 32;
const F_DATA = 64;
const W_NEXT = 1;
const W_GRACE = 2;
const W_PROBES = 4;
const W_WAITED = 8;

function isNum(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/**
 * Whether a timeline event is an iteration mark the packed mark holds exactly: every own member is
 * one the encoding knows, with the type it writes. Anything else goes as JSON.
 */
function packable(e: TimelineEvent): e is SyncIterationEvent {
  if (e.kind !== 'iteration') return false;
  for (const k in e) {
    const v = (e as unknown as Obj)[k];
    switch (k) {
      case 'kind':
        continue;
      case 't':
      case 'durationMs':
        if (!isNum(v)) return false;
        continue;
      case 'source':
      case 'op':
      case 'key':
      case 'handler':
      case 'outcome':
        if (typeof v !== 'string') return false;
        continue;
      case 'message':
      case 'node':
      case 'uid':
      case 'data':
        if (v !== undefined && typeof v !== 'string') return false;
        continue;
      case 'inferred':
        if (v !== undefined && typeof v !== 'boolean') return false;
        continue;
      case 'worker':
        if (v !== undefined && !packableWorker(v)) return false;
        continue;
      default:
        return false;
    }
  }
  return true;
}

function packableWorker(w: unknown): boolean {
  if (typeof w !== 'object' || w === null || Array.isArray(w)) return false;
  let state = false;
  let coalesced = false;
  for (const k in w) {
    const v = (w as Obj)[k];
    switch (k) {
      case 'state':
        if (typeof v !== 'string') return false;
        state = true;
        continue;
      case 'coalesced':
        if (!isNum(v)) return false;
        coalesced = true;
        continue;
      case 'nextDueT':
      case 'gracePeriodSeconds':
      case 'waitedMs':
        if (v !== undefined && !isNum(v)) return false;
        continue;
      case 'probes':
        if (v !== undefined && !(Array.isArray(v) && v.every((p) => typeof p === 'string'))) return false;
        continue;
      default:
        return false;
    }
  }
  return state && coalesced;
}

/**
 * Writes records into one growing buffer; take() returns the payload and starts the next block.
 * Strings are ASCII-copied in JS when short (no native call per field), JSON texts by Buffer.write.
 */
export class PackedEncoder {
  private buf = Buffer.allocUnsafe(64 * 1024);
  private off = 0;
  private strings = new Map<string, number>();
  private lastT = 0;
  private lastM = 0;

  get length(): number {
    return this.off;
  }

  /** The payload so far (a copy) and a fresh start: empty buffer, string table and time bases. */
  take(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.off));
    this.off = 0;
    this.strings.clear();
    this.lastT = 0;
    this.lastM = 0;
    return out;
  }

  /** A timeline record: the packed mark when the event is one, else its JSON. */
  timeline(t: number, e: TimelineEvent): void {
    if (!packable(e)) {
      this.head(TAG_EVENT_JSON, t);
      this.text(JSON.stringify(e));
      return;
    }
    this.head(TAG_MARK, t);
    this.milli(e.t);
    this.num(e.durationMs);
    this.str(e.source);
    this.str(e.op);
    this.str(e.key);
    this.str(e.handler);
    this.str(e.outcome);
    const w = e.worker;
    const flags =
      (e.message !== undefined ? F_MESSAGE : 0) |
      (e.node !== undefined ? F_NODE : 0) |
      (e.uid !== undefined ? F_UID : 0) |
      (e.inferred !== undefined ? F_INFERRED | (e.inferred ? F_INFERRED_TRUE : 0) : 0) |
      (w !== undefined ? F_WORKER : 0) |
      (e.data !== undefined ? F_DATA : 0);
    this.byte(flags);
    if (e.message !== undefined) this.str(e.message);
    if (e.node !== undefined) this.str(e.node);
    if (e.uid !== undefined) this.str(e.uid);
    if (e.data !== undefined) this.str(e.data);
    if (w === undefined) return;
    this.str(w.state);
    this.num(w.coalesced);
    this.byte(
      (w.nextDueT !== undefined ? W_NEXT : 0) |
        (w.gracePeriodSeconds !== undefined ? W_GRACE : 0) |
        (w.probes !== undefined ? W_PROBES : 0) |
        (w.waitedMs !== undefined ? W_WAITED : 0),
    );
    if (w.nextDueT !== undefined) this.num(w.nextDueT);
    if (w.gracePeriodSeconds !== undefined) this.num(w.gracePeriodSeconds);
    if (w.probes !== undefined) {
      this.varint(w.probes.length);
      for (const p of w.probes) this.str(p);
    }
    if (w.waitedMs !== undefined) this.num(w.waitedMs);
  }

  /** A delta record; `json` is the object's or the patch's JSON text for form 1 or 2. */
  delta(tag: number, t: number, key: string, json: string | undefined): void {
    this.head(tag, t);
    this.str(key);
    if (tag & 3) this.text(json!);
  }

  /** Any record, as its JSON text. */
  record(r: RecordingRecord, json: string): void {
    this.head(TAG_RECORD_JSON, r.t);
    this.text(json);
  }

  private head(tag: number, t: number): void {
    this.room(32);
    this.buf[this.off++] = tag;
    const d = t - this.lastT;
    if (Number.isSafeInteger(t) && Number.isSafeInteger(this.lastT) && Math.abs(d) < INT_LIMIT) {
      this.varint(d >= 0 ? d * 4 : -d * 4 - 2);
      this.lastT = t;
    } else {
      this.varint(1);
      this.f64(t);
    }
  }

  private milli(x: number): void {
    const m = Math.round(x * 1000);
    const d = m - this.lastM;
    if (m / 1000 === x && Math.abs(m) < INT_LIMIT && Math.abs(d) < INT_LIMIT) {
      this.varint(d >= 0 ? d * 4 : -d * 4 - 2);
      this.lastM = m;
    } else {
      this.varint(1);
      this.f64(x);
    }
  }

  private num(x: number): void {
    if (Number.isInteger(x) && Math.abs(x) < INT_LIMIT) {
      this.varint(x >= 0 ? x * 8 : -x * 8 - 4);
      return;
    }
    const m = Math.round(x * 1000);
    if (m / 1000 === x && Math.abs(m) < INT_LIMIT) {
      this.varint((m >= 0 ? m * 8 : -m * 8 - 4) + 1);
      return;
    }
    this.varint(2);
    this.f64(x);
  }

  private str(s: string): void {
    const i = this.strings.get(s);
    if (i !== undefined) {
      this.varint(i + 1);
      return;
    }
    this.strings.set(s, this.strings.size);
    this.room(1);
    this.buf[this.off++] = 0;
    this.text(s);
  }

  private text(s: string): void {
    const n = s.length;
    if (n < 128) {
      // Short and ASCII (nearly every name and key): one length byte and the char codes.
      this.room(n + 1);
      const b = this.buf;
      const start = this.off;
      let o = start + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        b[o++] = c;
      }
      if (i === n) {
        b[start] = n;
        this.off = o;
        return;
      }
    }
    // Any other: the length as a varint padded to the width its upper bound needs, then UTF-8.
    const most = n * 3;
    const width = most < 0x80 ? 1 : most < 0x4000 ? 2 : most < 0x200000 ? 3 : most < 0x10000000 ? 4 : 5;
    this.room(width + most);
    const bytes = this.buf.write(s, this.off + width, 'utf8');
    let v = bytes;
    for (let k = 0; k < width; k++) {
      this.buf[this.off++] = (v & 0x7f) | (k < width - 1 ? 0x80 : 0);
      v = Math.floor(v / 128);
    }
    this.off += bytes;
  }

  private byte(b: number): void {
    this.room(1);
    this.buf[this.off++] = b;
  }

  private varint(v: number): void {
    this.room(8);
    const b = this.buf;
    while (v >= 0x80) {
      b[this.off++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    b[this.off++] = v;
  }

  private f64(x: number): void {
    this.room(8);
    this.buf.writeDoubleLE(x, this.off);
    this.off += 8;
  }

  private room(n: number): void {
    if (this.off + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.off + n));
    this.buf.copy(next, 0, 0, this.off);
    this.buf = next;
  }
}

/** Reads a packed payload back into records (see the module comment); RangeError when it does not decode. */
export function decodePacked(buf: Buffer): RecordingRecord[] {
  return scanPacked(buf, false) as RecordingRecord[];
}

/**
 * A change as a seek reads it: the whole object's or the patch's JSON text not parsed yet (a seek
 * parses only the objects that are read afterwards; RecordedObjects).
 */
export interface LazyDelta {
  k: 'D';
  t: number;
  op: 'A' | 'M' | 'D';
  key: string;
  o?: Obj | string;
  p?: Obj | string;
}

/**
 * Only the changes of a packed payload, their JSON unparsed; marks are read past without being
 * built. The same RangeErrors as decodePacked.
 */
export function decodePackedDeltas(buf: Buffer): LazyDelta[] {
  return scanPacked(buf, true) as LazyDelta[];
}

/** decodePacked, or (deltasOnly) decodePackedDeltas: one reader, so both read the format alike. */
function scanPacked(buf: Buffer, deltasOnly: boolean): (RecordingRecord | LazyDelta)[] {
  const r = new PackedReader(buf);
  const out: (RecordingRecord | LazyDelta)[] = [];
  while (r.off < buf.length) {
    const tag = buf[r.off++]!;
    const t = r.time();
    if (tag === TAG_MARK) {
      const e = r.mark(deltasOnly);
      if (!deltasOnly) out.push({ k: 'T', t, e });
    } else if (tag === TAG_EVENT_JSON) {
      if (deltasOnly) r.text();
      else out.push({ k: 'T', t, e: r.json() as TimelineEvent });
    } else if (tag === TAG_RECORD_JSON) {
      const rec = r.json() as RecordingRecord;
      if (!deltasOnly || rec.k === 'D') out.push(rec);
    } else if ((tag & 0xf0) === TAG_DELTA && (tag & 3) !== 3 && (tag & 0x0c) !== 0x0c) {
      out.push(r.delta(tag, t, deltasOnly));
    } else throw new RangeError(`unknown record tag ${tag} at byte ${r.off - 1}`);
  }
  return out;
}

/** The reading side of PackedEncoder: one payload's cursor, its string table and its last times. */
class PackedReader {
  off = 0;
  private readonly strings: string[] = [];
  private lastT = 0;
  private lastM = 0;

  constructor(private readonly buf: Buffer) {}

  time(): number {
    const v = this.varint();
    if (v === 1) return this.f64();
    if (v % 2) throw new RangeError(`bad time at byte ${this.off}`);
    this.lastT += unzig(v / 2);
    return this.lastT;
  }

  /** An iteration mark's fields after its tag and time; with `skip`, read past and an empty object returned. */
  mark(skip: boolean): TimelineEvent {
    const et = this.milli();
    const durationMs = this.num();
    const source = this.str();
    const op = this.str();
    const key = this.str();
    const handler = this.str();
    const outcome = this.str();
    const flags = this.u8();
    const e: Obj = skip ? {} : { kind: 'iteration', t: et, durationMs, source, op, key };
    const message = flags & F_MESSAGE ? this.str() : undefined;
    const node = flags & F_NODE ? this.str() : undefined;
    if (flags & F_UID) e.uid = this.str();
    if (flags & F_DATA) e.data = this.str();
    e.handler = handler;
    e.outcome = outcome;
    if (message !== undefined) e.message = message;
    if (node !== undefined) e.node = node;
    if (flags & F_INFERRED) e.inferred = (flags & F_INFERRED_TRUE) !== 0;
    if (flags & F_WORKER) e.worker = this.worker();
    return e as unknown as TimelineEvent;
  }

  /** A delta record after its tag (op and form) and time; with `lazy`, its JSON left as text. */
  delta(tag: number, t: number, lazy: boolean): DeltaRecord | LazyDelta {
    const op = OPS[(tag >> 2) & 3]!;
    const key = this.str();
    const r: DeltaRecord | LazyDelta = { k: 'D', t, op, key };
    if ((tag & 3) === 1) r.o = lazy ? this.text() : (this.json() as Obj);
    else if ((tag & 3) === 2) r.p = lazy ? this.text() : (this.json() as Obj);
    return r;
  }

  text(): string {
    const n = this.varint();
    this.need(n);
    const s = this.buf.toString('utf8', this.off, this.off + n);
    this.off += n;
    return s;
  }

  json(): unknown {
    const s = this.text();
    try {
      return parseJsonCapped(s);
    } catch (e) {
      throw new RangeError(`a record is not JSON (${(e as Error).message})`);
    }
  }

  private worker(): Obj {
    const w: Obj = { state: this.str(), coalesced: this.num() };
    const wf = this.u8();
    if (wf & W_NEXT) w.nextDueT = this.num();
    if (wf & W_GRACE) w.gracePeriodSeconds = this.num();
    if (wf & W_PROBES) {
      const n = this.varint();
      const probes: string[] = [];
      for (let i = 0; i < n; i++) probes.push(this.str());
      w.probes = probes;
    }
    if (wf & W_WAITED) w.waitedMs = this.num();
    return w;
  }

  private need(n: number): void {
    if (this.off + n > this.buf.length) throw new RangeError(`packed records end early at byte ${this.off}`);
  }

  private u8(): number {
    this.need(1);
    return this.buf[this.off++]!;
  }

  private varint(): number {
    let v = 0;
    let mul = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.u8();
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 128;
    }
    throw new RangeError(`a varint longer than 8 bytes at byte ${this.off}`);
  }

  private f64(): number {
    this.need(8);
    const x = this.buf.readDoubleLE(this.off);
    this.off += 8;
    return x;
  }

  private milli(): number {
    const v = this.varint();
    if (v === 1) return this.f64();
    if (v % 2) throw new RangeError(`bad time at byte ${this.off}`);
    this.lastM += unzig(v / 2);
    return this.lastM / 1000;
  }

  private num(): number {
    const v = this.varint();
    const kind = v % 4;
    if (kind === 2 && v === 2) return this.f64();
    if (kind > 1) throw new RangeError(`bad number at byte ${this.off}`);
    const n = unzig((v - kind) / 4);
    return kind === 1 ? n / 1000 : n;
  }

  private str(): string {
    const i = this.varint();
    if (i === 0) {
      const s = this.text();
      this.strings.push(s);
      return s;
    }
    if (i > this.strings.length) throw new RangeError(`string ${i - 1} not defined yet at byte ${this.off}`);
    return this.strings[i - 1]!;
  }
}

const unzig = (z: number) => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
