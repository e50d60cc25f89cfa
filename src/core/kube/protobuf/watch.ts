/**
 * A protobuf watch stream, decoded as it arrives. kube-apiserver's framing (apimachinery
 * util/framer LengthDelimitedFrameWriter, with the protobuf StreamSerializer, a RawSerializer):
 * each frame is a 4-byte big-endian length, then that many bytes of a metav1.WatchEvent
 * { 1 type, 2 object: runtime.RawExtension { 1 raw } } without the magic or an envelope of its own;
 * `raw` is the object as a whole body (magic, envelope, object: decode.ts).
 *
 * Guarantees:
 * - Events come out in stream order, each once, whatever the chunking (a frame split anywhere,
 *   many frames in a chunk). A frame inside one chunk is read in place (no copy, no view made of
 *   it); only a frame that spans chunks is copied, once.
 * - A frame longer than `maxFrameBytes` (default 16 MiB, client-go's streaming decoder's limit) is
 *   refused as soon as its length is read, before its bytes are buffered: the error names the limit.
 * - The first error (a malformed frame or object, the limit) ends decoding: every later push
 *   returns it again, so a caller cannot go on past a frame it could not read.
 * - end() reports a stream that stopped inside a frame.
 */
import { decodeEnvelope } from './decode';
import { asBuffer, ProtobufError, Reader, utf8 } from './reader';

export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export interface ProtobufWatchEvent {
  /** ADDED, MODIFIED, DELETED, BOOKMARK or ERROR (whose object is a Status). */
  type: string;
  object: Record<string, unknown>;
}

export type Frames = { ok: true; events: ProtobufWatchEvent[] } | { ok: false; error: ProtobufError };

export class WatchFrameDecoder {
  /** Bytes not yet decoded: the unread part of chunks[0] starts at `at`; later chunks are whole. */
  private chunks: Uint8Array[] = [];
  private at = 0;
  private buffered = 0;
  /** The current frame's length once its header is read, else -1. */
  private frameLength = -1;
  private failed: ProtobufError | undefined;
  private frames = 0;

  constructor(
    readonly maxFrameBytes = MAX_FRAME_BYTES,
    /** Objects keep metadata.managedFields in their compact form (decode.ts planFor). */
    readonly managers = false,
  ) {}

  /** Takes the next bytes of the stream; returns the events they complete, or the error that ends it. */
  push(chunk: Uint8Array): Frames {
    if (this.failed) return { ok: false, error: this.failed };
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const events: ProtobufWatchEvent[] = [];
    try {
      for (;;) {
        if (this.frameLength < 0) {
          if (this.buffered < 4) break;
          const n = this.header();
          if (n > this.maxFrameBytes) {
            const e = new ProtobufError(
              `watch event frame ${this.frames + 1} is ${n} bytes, over the limit of ${this.maxFrameBytes} bytes (${mib(this.maxFrameBytes)}, as client-go's)`,
            );
            e.tooLarge = true;
            throw e;
          }
          this.frameLength = n;
        }
        const n = this.frameLength;
        if (this.buffered < n) break;
        this.frameLength = -1;
        this.frames++;
        const first = this.chunks[0];
        if (first !== undefined && first.length - this.at >= n) {
          // The common case: the frame lies in one chunk and is read where it is.
          const start = this.at;
          this.consumed(first, n);
          events.push(decodeEvent(first, start, start + n, this.frames, this.managers));
        } else events.push(decodeEvent(this.copy(n), 0, n, this.frames, this.managers));
      }
    } catch (e) {
      this.failed = e instanceof ProtobufError ? e : new ProtobufError(String(e instanceof Error ? e.message : e));
      this.chunks = [];
      this.at = 0;
      this.buffered = 0;
      return { ok: false, error: this.failed };
    }
    return { ok: true, events };
  }

  /** The stream ended: an error when it ended inside a frame (or had failed), else undefined. */
  end(): ProtobufError | undefined {
    if (this.failed) return this.failed;
    if (this.buffered === 0 && this.frameLength < 0) return undefined;
    const want = this.frameLength < 0 ? 'a frame header' : `a frame of ${this.frameLength} bytes`;
    return new ProtobufError(`watch stream ended inside frame ${this.frames + 1}: ${this.buffered} bytes of ${want}`);
  }

  /** The 4-byte big-endian frame length (at least 4 bytes are buffered), read in place unless it spans chunks. */
  private header(): number {
    const first = this.chunks[0]!;
    const p = this.at;
    if (first.length - p >= 4) {
      this.consumed(first, 4);
      return ((first[p]! << 24) | (first[p + 1]! << 16) | (first[p + 2]! << 8) | first[p + 3]!) >>> 0;
    }
    const h = this.copy(4);
    return ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
  }

  /** n bytes of the first chunk, from `at`, are read. */
  private consumed(first: Uint8Array, n: number): void {
    this.buffered -= n;
    this.at += n;
    if (this.at === first.length) {
      this.chunks.shift();
      this.at = 0;
    }
  }

  /** The next n buffered bytes, copied out of the chunks they span. */
  private copy(n: number): Uint8Array {
    const out = Buffer.allocUnsafe(n);
    let done = 0;
    while (done < n) {
      const c = this.chunks[0]!;
      const k = Math.min(c.length - this.at, n - done);
      out.set(c.subarray(this.at, this.at + k), done);
      done += k;
      this.consumed(c, k);
    }
    return out;
  }
}

function mib(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

/** metav1.WatchEvent { 1 type, 2 object: RawExtension { 1 raw } } in [start, end) of `b`. */
function decodeEvent(b: Uint8Array, start: number, end: number, index: number, managers: boolean): ProtobufWatchEvent {
  const r = new Reader(b, start, end);
  let type = '';
  let rawStart = -1;
  let rawEnd = -1;
  while (r.pos < end) {
    const t = r.tag();
    if (t === 0x0a) {
      const n = r.length();
      type = eventType(b, r.pos, r.pos + n);
      r.pos += n;
    } else if (t === 0x12) {
      const n = r.length();
      const objectEnd = r.pos + n;
      r.end = objectEnd;
      while (r.pos < objectEnd) {
        const u = r.tag();
        if (u === 0x0a) {
          const m = r.length();
          rawStart = r.pos;
          rawEnd = r.pos + m;
          r.pos = rawEnd;
        } else r.skip(u & 7);
      }
      r.end = end;
    } else r.skip(t & 7);
  }
  if (!type) throw new ProtobufError(`watch event frame ${index} has no type`);
  if (rawStart < 0) throw new ProtobufError(`watch event frame ${index} (${type}) has no object`);
  try {
    return { type, object: decodeEnvelope(b, rawStart, rawEnd, managers) };
  } catch (e) {
    if (e instanceof ProtobufError) throw new ProtobufError(`watch event frame ${index} (${type}): ${e.message}`);
    throw e;
  }
}

const EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'];

/** The event's type: one of the five a server sends without decoding it again, else its text. */
function eventType(b: Uint8Array, start: number, end: number): string {
  for (const t of EVENT_TYPES) {
    if (t.length !== end - start) continue;
    let i = 0;
    while (i < t.length && t.charCodeAt(i) === b[start + i]) i++;
    if (i === t.length) return t;
  }
  return utf8(asBuffer(b), start, end);
}
