/**
 * The frames of a watch stream: eventFrames() reads either encoding a server may answer in.
 *
 * LineFrames: the newline-delimited frames (events) of a watch stream, cut from its chunks as they
 * come.
 *
 * Guarantees:
 * - Linear: each byte is scanned for a newline once, when its chunk arrives. An incomplete line is
 *   held as the chunk pieces it came in and joined once, when its newline (or the stream's end)
 *   comes: a long event sent in many small chunks is never rescanned per chunk.
 * - Bounded: a frame longer than `maxBytes` fails as soon as its bytes pass the bound, without
 *   waiting for the rest of it; at most `maxBytes` of an incomplete line are ever held. The default
 *   is client-go's (its streaming decoder refuses an object past 16 MiB: ErrObjectTooLarge).
 * - Frames are cut at byte 0x0A, which never occurs inside a multi-byte UTF-8 sequence, and each is
 *   decoded whole, so a character split across chunks decodes right.
 */
import { whereParsingStopped } from '../errors';
import type { KubeObject } from '../objects/types';
import { isProtobuf, type ProtobufError, WatchFrameDecoder } from '../protobuf';

export const WATCH_FRAME_MAX_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const NOTHING = Buffer.alloc(0);

export class LineFrames {
  private held: Buffer[] = [];
  private heldBytes = 0;

  constructor(readonly maxBytes = WATCH_FRAME_MAX_BYTES) {}

  /** The lines this chunk completes, in order; 'tooLarge' once a line outgrows maxBytes (then the framer is spent). */
  push(chunk: Buffer): string[] | 'tooLarge' {
    const lines: string[] = [];
    let from = 0;
    for (let nl = chunk.indexOf(NEWLINE); nl >= 0; nl = chunk.indexOf(NEWLINE, from)) {
      if (this.heldBytes + (nl - from) > this.maxBytes) return this.overflow();
      lines.push(this.join(chunk.subarray(from, nl)));
      from = nl + 1;
    }
    const rest = chunk.length - from;
    if (this.heldBytes + rest > this.maxBytes) return this.overflow();
    if (rest > 0) {
      this.held.push(from === 0 ? chunk : chunk.subarray(from));
      this.heldBytes += rest;
    }
    return lines;
  }

  /** The stream has ended: the last line if it had no newline ('' when nothing is held). */
  end(): string {
    return this.join(NOTHING);
  }

  private join(last: Buffer): string {
    if (this.heldBytes === 0) return last.toString('utf8');
    this.held.push(last);
    const line = Buffer.concat(this.held, this.heldBytes + last.length).toString('utf8');
    this.held = [];
    this.heldBytes = 0;
    return line;
  }

  private overflow(): 'tooLarge' {
    this.held = [];
    this.heldBytes = 0;
    return 'tooLarge';
  }
}

/** One event as it came off the wire, before the watch checks its type. */
export interface RawWatchEvent {
  type?: string;
  object?: KubeObject & { code?: number; reason?: string; message?: string };
}

/** What a chunk of a watch stream gave: its events, in order, then (if set) why the stream cannot be read on. */
export interface FramedEvents {
  events: RawWatchEvent[];
  failed?: 'tooLarge' | 'malformed';
  detail?: string;
}

/**
 * A watch stream's events, cut and decoded from its chunks in the encoding of its Content-Type:
 * newline-delimited JSON (LineFrames), or length-prefixed protobuf frames (../protobuf/watch.ts),
 * both bounded by client-go's frame limit. After a failure the stream is not read on.
 */
export interface EventFrames {
  push(chunk: Buffer): FramedEvents;
  /** The stream has ended: the events of a last unterminated JSON line, or the failure of a cut frame. */
  end(): FramedEvents;
}

/** `managers`: protobuf objects keep metadata.managedFields in their compact form (JSON ones keep them whole, for compactItem). */
export function eventFrames(contentType: string | undefined, maxBytes = WATCH_FRAME_MAX_BYTES, managers = false): EventFrames {
  return isProtobuf(contentType) ? protobufEvents(maxBytes, managers) : jsonEvents(maxBytes);
}

function jsonEvents(maxBytes: number): EventFrames {
  const frames = new LineFrames(maxBytes);
  const parse = (lines: string[]): FramedEvents => {
    const events: RawWatchEvent[] = [];
    for (const line of lines) {
      if (line.trim() === '') continue;
      try {
        events.push(JSON.parse(line) as RawWatchEvent);
      } catch (e) {
        // never the parser's message: it quotes the line, which may be a Secret
        return { events, failed: 'malformed', detail: `malformed event (${whereParsingStopped(e, Buffer.byteLength(line))})` };
      }
    }
    return { events };
  };
  return {
    push(chunk) {
      const lines = frames.push(chunk);
      if (lines === 'tooLarge') return { events: [], failed: 'tooLarge', detail: `event larger than ${maxBytes} bytes` };
      return parse(lines);
    },
    end: () => parse([frames.end()]),
  };
}

function protobufEvents(maxBytes: number, managers: boolean): EventFrames {
  const decoder = new WatchFrameDecoder(maxBytes, managers);
  const failed = (e: ProtobufError): FramedEvents => ({ events: [], failed: e.tooLarge ? 'tooLarge' : 'malformed', detail: e.message });
  return {
    push(chunk) {
      const r = decoder.push(chunk);
      return r.ok ? { events: r.events as RawWatchEvent[] } : failed(r.error);
    },
    end() {
      const e = decoder.end();
      return e ? failed(e) : { events: [] };
    },
  };
}
