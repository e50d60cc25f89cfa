/**
 * A protobuf watch stream, decoded as it arrives. kube-apiserver's framing (apimachinery
 * util/framer LengthDelimitedFrameWriter, with the protobuf StreamSerializer, a RawSerializer):
 * each frame is a 4-byte big-endian length, then that many bytes of a metav1.WatchEvent
 * { 1 type, 2 object: runtime.RawExtension { 1 raw } } without the magic or an envelope of its own;
 * `raw` is the object as a whole body (magic, envelope, object: decode.ts).
 *
 * Guarantees:
 * - Events come out in stream order, each once, whatever the chunking (a frame split anywhere,
 *   many frames in a chunk); a frame is copied only when it spans chunks.
 * - A frame longer than `maxFrameBytes` (default 16 MiB, client-go's streaming decoder's limit) is
 *   refused as soon as its length is read, before its bytes are buffered: the error names the limit.
 * - The first error (a malformed frame or object, the limit) ends decoding: every later push
 *   returns it again, so a caller cannot go on past a frame it could not read.
 * - end() reports a stream that stopped inside a frame.
 */
import { decodeEnvelope } from './decode';
import { ProtobufError, Reader, utf8 } from './reader';

export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export interface ProtobufWatchEvent {
  /** ADDED, MODIFIED, DELETED, BOOKMARK or ERROR (whose object is a Status). */
  type: string;
  object: Record<string, unknown>;
}

export type Frames = { ok: true; events: ProtobufWatchEvent[] } | { ok: false; error: ProtobufError };

export class WatchFrameDecoder {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  /** The current frame's length once its header is read, else -1. */
  private frameLength = -1;
  private failed: ProtobufError | undefined;
  private frames = 0;

  constructor(readonly maxFrameBytes = MAX_FRAME_BYTES) {}

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
          const h = this.take(4);
          const n = ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
          if (n > this.maxFrameBytes) {
            const e = new ProtobufError(
              `watch event frame ${this.frames + 1} is ${n} bytes, over the limit of ${this.maxFrameBytes} bytes (${mib(this.maxFrameBytes)}, as client-go's)`,
            );
            e.tooLarge = true;
            throw e;
          }
          this.frameLength = n;
        }
        if (this.buffered < this.frameLength) break;
        const frame = this.take(this.frameLength);
        this.frameLength = -1;
        this.frames++;
        events.push(decodeEvent(frame, this.frames));
      }
    } catch (e) {
      this.failed = e instanceof ProtobufError ? e : new ProtobufError(String(e instanceof Error ? e.message : e));
      this.chunks = [];
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

  /** The next n buffered bytes (a view of the first chunk when it holds them all, else a copy). */
  private take(n: number): Uint8Array {
    const first = this.chunks[0];
    if (n === 0) return new Uint8Array(0);
    this.buffered -= n;
    if (first && first.length >= n) {
      const out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return out;
    }
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const c = this.chunks[0]!;
      const k = Math.min(c.length, n - at);
      out.set(c.subarray(0, k), at);
      at += k;
      if (k === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(k);
    }
    return out;
  }
}

function mib(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

/** metav1.WatchEvent { 1 type, 2 object: RawExtension { 1 raw } }. */
function decodeEvent(frame: Uint8Array, index: number): ProtobufWatchEvent {
  const r = new Reader(frame);
  let type = '';
  let rawStart = -1;
  let rawEnd = -1;
  while (r.pos < frame.length) {
    const t = r.tag();
    if (t === 0x0a) {
      const n = r.length();
      type = utf8(frame, r.pos, r.pos + n);
      r.pos += n;
    } else if (t === 0x12) {
      const n = r.length();
      const end = r.pos + n;
      r.end = end;
      while (r.pos < end) {
        const u = r.tag();
        if (u === 0x0a) {
          const m = r.length();
          rawStart = r.pos;
          rawEnd = r.pos + m;
          r.pos = rawEnd;
        } else r.skip(u & 7);
      }
      r.end = frame.length;
    } else r.skip(t & 7);
  }
  if (!type) throw new ProtobufError(`watch event frame ${index} has no type`);
  if (rawStart < 0) throw new ProtobufError(`watch event frame ${index} (${type}) has no object`);
  try {
    return { type, object: decodeEnvelope(frame, rawStart, rawEnd) };
  } catch (e) {
    if (e instanceof ProtobufError) throw new ProtobufError(`watch event frame ${index} (${type}): ${e.message}`);
    throw e;
  }
}
