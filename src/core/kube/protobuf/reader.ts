/**
 * The protobuf wire format, read: varints, fixed32/64, length-delimited fields, and skipping a
 * field of any wire type by its length.
 *
 * Guarantees:
 * - Every read is bounds-checked against the end of the message being read (`end`, never the
 *   buffer's): a truncated or malformed body throws ProtobufError naming what was cut and where,
 *   never a RangeError, never a value read from past the end; an index never moves backwards and
 *   every step consumes at least one byte, so no input loops forever.
 * - A field of an unknown number is skipped by its wire type in O(1) for length-delimited fields
 *   (managedFields, volumes, env: whatever the schema leaves out), without looking inside.
 * - Wire types 3 and 4 (groups, never written by Kubernetes) and 6, 7 are errors.
 */

/** A body that is not the protobuf it claims to be: truncated, a varint too long, a bad wire type. */
export class ProtobufError extends Error {
  override name = 'ProtobufError';
  /** Set when a watch frame was refused for its length alone (watch.ts): the stream is fine, the event too large. */
  tooLarge = false;
}

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

const TWO_32 = 4294967296;

export class Reader {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start = 0,
    /** Where the message being read ends; nested reads narrow it with `limit`. */
    public end = buf.length,
  ) {
    this.pos = start;
  }

  /** An unsigned varint of at most 32 bits (tags, lengths, int32, bool): as a non-negative number. */
  uint32(): number {
    const b = this.buf;
    let p = this.pos;
    // Most tags and lengths are one byte.
    if (p < this.end && b[p]! < 0x80) {
      this.pos = p + 1;
      return b[p]!;
    }
    if (this.end - p >= 5) {
      let c = b[p++]!;
      let r = c & 0x7f;
      if (c < 0x80) return ((this.pos = p), r);
      c = b[p++]!;
      r |= (c & 0x7f) << 7;
      if (c < 0x80) return ((this.pos = p), r);
      c = b[p++]!;
      r |= (c & 0x7f) << 14;
      if (c < 0x80) return ((this.pos = p), r);
      c = b[p++]!;
      r |= (c & 0x7f) << 21;
      if (c < 0x80) return ((this.pos = p), r);
      c = b[p++]!;
      r = (r | ((c & 0x0f) << 28)) >>> 0;
      if (c < 0x80) return ((this.pos = p), r);
      // A negative int32 is sign-extended to ten bytes: the upper ones carry no more low bits.
      this.pos = p;
      this.skipVarintRest();
      return r;
    }
    return this.uint32Checked();
  }

  private uint32Checked(): number {
    let r = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (this.pos >= this.end) throw this.truncated('varint');
      const c = this.buf[this.pos++]!;
      r += (c & 0x7f) * 2 ** shift;
      if (c < 0x80) return r % TWO_32;
    }
    this.skipVarintRest();
    return r % TWO_32;
  }

  /** The continuation bytes of a varint beyond the first five (at most ten bytes in all). */
  private skipVarintRest(): void {
    for (let i = 5; i < 10; i++) {
      if (this.pos >= this.end) throw this.truncated('varint');
      if (this.buf[this.pos++]! < 0x80) return;
    }
    throw new ProtobufError(`varint longer than 10 bytes at byte ${this.pos}`);
  }

  /** A varint as a signed 32-bit number (int32: negative values are ten-byte varints). */
  int32(): number {
    return this.uint32() | 0;
  }

  /**
   * A varint as a signed 64-bit number (int64). Exact up to 2^53, rounded beyond it as JSON.parse
   * rounds the same value written as a JSON number.
   */
  int64(): number {
    const b = this.buf;
    let lo = 0;
    let hi = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw this.truncated('varint');
      const c = b[this.pos++]!;
      if (i < 4) lo |= (c & 0x7f) << shift;
      else if (i === 4) {
        lo = (lo | ((c & 0x0f) << 28)) >>> 0;
        hi = (c & 0x7f) >> 4;
      } else hi |= (c & 0x7f) << (shift - 32);
      if (c < 0x80) {
        if (hi < 0x80000) return hi * TWO_32 + lo; // below 2^51: exact as a double
        return Number(BigInt.asIntN(64, (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0)));
      }
      shift += 7;
    }
    throw new ProtobufError(`varint longer than 10 bytes at byte ${this.pos}`);
  }

  bool(): boolean {
    return this.uint32() !== 0;
  }

  /** The length of a length-delimited field, checked against the end of the message. */
  length(): number {
    const n = this.uint32();
    if (n > this.end - this.pos) throw this.truncated(`field of ${n} bytes`, n);
    return n;
  }

  fixed32(): number {
    if (this.end - this.pos < 4) throw this.truncated('fixed32');
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
  }

  fixed64(): number {
    const lo = this.fixed32();
    const hi = this.fixed32();
    return hi * TWO_32 + lo;
  }

  /** Skips one field's value of wire type `wire` (the tag already read). */
  skip(wire: number): void {
    switch (wire) {
      case WIRE_VARINT:
        for (let i = 0; i < 10; i++) {
          if (this.pos >= this.end) throw this.truncated('varint');
          if (this.buf[this.pos++]! < 0x80) return;
        }
        throw new ProtobufError(`varint longer than 10 bytes at byte ${this.pos}`);
      case WIRE_FIXED64:
        if (this.end - this.pos < 8) throw this.truncated('fixed64');
        this.pos += 8;
        return;
      case WIRE_BYTES: {
        // Read the length before moving: `pos += length()` would add to the pos before the length's bytes.
        const n = this.length();
        this.pos += n;
        return;
      }
      case WIRE_FIXED32:
        if (this.end - this.pos < 4) throw this.truncated('fixed32');
        this.pos += 4;
        return;
      default:
        throw new ProtobufError(`wire type ${wire} at byte ${this.pos} (not written by Kubernetes)`);
    }
  }

  /** A tag: field number << 3 | wire type. Field number 0 is invalid protobuf. */
  tag(): number {
    const t = this.uint32();
    if (t >>> 3 === 0) throw new ProtobufError(`field number 0 at byte ${this.pos}`);
    return t;
  }

  truncated(what: string, needed?: number): ProtobufError {
    const left = this.end - this.pos;
    return new ProtobufError(
      `truncated: ${what} at byte ${this.pos} but ${left} byte${left === 1 ? '' : 's'} left${needed !== undefined ? ` in its message` : ''}`,
    );
  }
}

/**
 * UTF-8 text of bytes [start, end). Short ASCII text (names, images, condition types, label keys
 * and values: most of an object's strings, and most of them repeated from object to object) is
 * looked up in a cache of recent strings and taken from it when the bytes match, so a repeated
 * string costs a compare, not a call into Node's decoder and a new string (and the same text is one
 * string, already known to V8 as a property key). The slot is chosen by the length and eight of the
 * bytes (both ends and between), not all of them: every byte is compared on a hit anyway, and a
 * string that misses (a uid, a pod's name) is decoded natively instead of hashed byte by byte first.
 * A hit is exact: a cached string is ASCII and matched char for byte. The rest is sliced by Node's
 * Buffer (bodies are read as Buffers: asBuffer), whose decoder takes ASCII in bulk and replaces
 * invalid sequences with U+FFFD, as Go's JSON encoder writes them; TextDecoder, for a plain
 * Uint8Array, gives the same text.
 */
export function utf8(b: Uint8Array, start: number, end: number): string {
  const n = end - start;
  if (n === 0) return '';
  if (n > MAX_CACHED) return slice(b, start, end);
  if (n <= 4) {
    const c0 = b[start]!;
    const c1 = n > 1 ? b[start + 1]! : 0;
    const c2 = n > 2 ? b[start + 2]! : 0;
    const c3 = n > 3 ? b[end - 1]! : 0;
    if ((c0 | c1 | c2 | c3) >= 0x80) return slice(b, start, end);
    const slot = Math.imul(c0 | (c1 << 8) | (c2 << 16) | (c3 << 24) | n, 0x9e3779b1) >>> (32 - CACHE_BITS);
    const s = cache[slot]!;
    if (s.length === n && s.charCodeAt(0) === c0 && (n < 2 || s.charCodeAt(1) === c1) && (n < 3 || s.charCodeAt(2) === c2) && (n < 4 || s.charCodeAt(3) === c3))
      return s;
    return (cache[slot] = asciiString(b, start, n));
  }
  const q = n >> 2;
  let h = Math.imul(n ^ b[start]!, 0x01000193);
  h = Math.imul(h ^ b[start + 1]!, 0x01000193);
  h = Math.imul(h ^ b[start + q]!, 0x01000193);
  h = Math.imul(h ^ b[start + 2 * q]!, 0x01000193);
  h = Math.imul(h ^ b[end - 1 - q]!, 0x01000193);
  h = Math.imul(h ^ b[end - 3]!, 0x01000193);
  h = Math.imul(h ^ b[end - 2]!, 0x01000193);
  h = Math.imul(h ^ b[end - 1]!, 0x01000193);
  const slot = (h ^ (h >>> 15)) & (CACHE_SLOTS - 1);
  const s = cache[slot]!;
  if (s.length === n) {
    let i = 0;
    while (i < n && s.charCodeAt(i) === b[start + i]) i++;
    if (i === n) return s;
  }
  const v = slice(b, start, end);
  // As many chars as bytes: every byte was ASCII or invalid (U+FFFD, which no byte compares equal
  // to, so such a string is never a hit); a multi-byte character makes it shorter and uncached.
  if (v.length === n) cache[slot] = v;
  return v;
}

/** How many recent short ASCII strings are kept (a power of two; at most about 250 KB of strings per thread), and up to what length (a uid: 36). */
const CACHE_BITS = 12;
const CACHE_SLOTS = 1 << CACHE_BITS;
const MAX_CACHED = 40;
const cache: string[] = new Array<string>(CACHE_SLOTS).fill('');

/** The strings the cache holds now: what a test searches for a value that must never be decoded (a Secret's). */
export function cachedStrings(): string[] {
  return cache.filter((s) => s !== '');
}

function slice(b: Uint8Array, start: number, end: number): string {
  const sliceable = b as Partial<Sliceable>;
  return sliceable.utf8Slice !== undefined ? sliceable.utf8Slice(start, end) : decoder.decode(b.subarray(start, end));
}

type Sliceable = Buffer & { utf8Slice(start: number, end: number): string };

const decoder = new TextDecoder('utf-8', { fatal: false });

/** The same bytes as a Buffer (no copy), whose utf8Slice utf8() uses: what a body is read as. */
export function asBuffer(b: Uint8Array): Uint8Array {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

function asciiString(b: Uint8Array, s: number, n: number): string {
  switch (n) {
    case 1:
      return String.fromCharCode(b[s]!);
    case 2:
      return String.fromCharCode(b[s]!, b[s + 1]!);
    case 3:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!);
    case 4:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!);
    default: {
      let out = '';
      for (let i = s; i < s + n; i++) out += String.fromCharCode(b[i]!);
      return out;
    }
  }
}
