/**
 * RecordingWriter: appends records to a recording as compressed blocks (format.ts), writes
 * keyframes, and keeps the recording within its size and age bounds by rotating segments.
 *
 * Segments (the rotation rule). A recording at PATH is the file PATH (the newest segment) and
 * PATH.1, PATH.2, ... (older ones, PATH.1 the newest of them). The current segment is closed and
 * renamed to PATH.1 (PATH.1 to PATH.2, ...) when it holds maxBytes / segments bytes or spans
 * maxAgeMs / segments; segments beyond `segments` in all, and segments whose last record is older
 * than maxAgeMs, are deleted. So the files together stay under about maxBytes (plus one block) and
 * hold at least the last maxAgeMs * (segments - 1) / segments of history. Every segment begins with
 * a header block and a keyframe, so each one opens on its own.
 *
 * Keyframes. A keyframe (the full set of objects held, from `snapshot`) is written at a flush when
 * something changed since the last one and either enough changes were recorded or keyframeEveryMs
 * passed, and the deltas since the last keyframe weigh at least a quarter of it. Enough changes:
 * keyframeChanges, or keyframeChangesPerObject for each object the last keyframe held if that is
 * more, up to keyframeChangesMax. So a keyframe's CPU, which grows with the objects held, is spread
 * over changes in proportion (at most 1/keyframeChangesPerObject of an object written per change:
 * with 7,600 objects held, mostly an hour of Events, one keyframe per 10,000 changes cost the
 * recorder about as much as the changes themselves); keyframes stay a bounded share of the file on a
 * large, quiet cluster; and rebuilding any instant replays at most about keyframeChangesMax deltas
 * (or keyframeEveryMs of them, or four keyframes' weight of them).
 *
 * Guarantees:
 * - Blocks are written in order, one write each, by one chain of writes; a record added before
 *   flush() is called is on disk (in the kernel: a killed process loses nothing flushed) when it
 *   resolves. No fsync: a power cut may lose what the OS had not written out.
 * - Memory: the pending block is flushed at pendingBytes (default 1 MiB, packed) whatever the timer.
 * - CPU: a record is packed once, when it is added (packed.ts), straight into the pending block; a
 *   change comes with its JSON text, made once by the caller, who needs it anyway to weigh a patch.
 *   Every block is compressed at DEFLATE level 1 (LEVEL), keyframes too: a keyframe of a few
 *   thousand objects at level 6 cost about twice the CPU for a fifth fewer bytes, and one is
 *   written every 10,000 changes or more.
 * - A failed write (disk full, file removed) stops the writer: `failed` holds the error, later
 *   records are dropped, nothing throws into the caller's event handlers. A short write (the
 *   kernel took part of a block: a file size limit, a full disk) is written on from where it
 *   stopped, and is that error if the rest cannot be: never a block silently cut.
 * - Files: created 0600, and only files carrying a recording's header are rotated or deleted
 *   (segments.ts).
 */
import type { FileHandle } from 'node:fs/promises';
import { abortReason } from '../clock';
import type { TimelineEvent } from '../timeline/events';
import { BlockKind, KEYFRAME_BLOCK_BYTES, encodeBlock, encodeLines, encodePayload } from './format';
import { PackedEncoder, deltaTag } from './packed';
import { createSegment, rotateSegments } from './segments';
import { FORMAT_VERSION, type HeaderRecord, type Obj, type RecordingRecord } from './records';

export interface RecordingWriterOptions {
  path: string;
  context?: string;
  server?: string;
  /** Wall-clock ms (default Date.now). */
  now?: () => number;
  /** The full set of objects held now, key -> masked object (for keyframes). */
  snapshot: () => Iterable<[string, Obj]>;
  /** Bound of all segments together (default 1 GiB). */
  maxBytes?: number;
  /** Bound of the history kept (default 24 h). */
  maxAgeMs?: number;
  /** Number of segment files (default 4). */
  segments?: number;
  keyframeEveryMs?: number;
  /** Changes that make a keyframe due at least (default 10,000). */
  keyframeChanges?: number;
  /** Changes per object held at the last keyframe that make one due, if more (default 8; 0: off). */
  keyframeChangesPerObject?: number;
  /** The most changes between keyframes by the per-object rule (default 100,000): a seek's bound. */
  keyframeChangesMax?: number;
  /** Pending bytes (packed, before compression) that force a flush (default 1 MiB). */
  pendingBytes?: number;
  /** Objects per keyframe block (default 2,000). */
  keyframeBlockObjects?: number;
}

export const RECORDING_DEFAULTS = {
  maxBytes: 1024 * 1024 * 1024,
  maxAgeMs: 24 * 3600_000,
  segments: 4,
  keyframeEveryMs: 10 * 60_000,
  keyframeChanges: 10_000,
  keyframeChangesPerObject: 8,
  keyframeChangesMax: 100_000,
  pendingBytes: 1024 * 1024,
  keyframeBlockObjects: 2_000,
};

/** The changes that make a keyframe due after one of `objects` objects (see Keyframes above). */
export function keyframeChangesDue(
  objects: number,
  o: Pick<typeof RECORDING_DEFAULTS, 'keyframeChanges' | 'keyframeChangesPerObject' | 'keyframeChangesMax'> = RECORDING_DEFAULTS,
): number {
  return Math.max(o.keyframeChanges, Math.min(o.keyframeChangesPerObject * objects, o.keyframeChangesMax));
}

export interface WriterStats {
  blocks: number;
  bytes: number;
  records: number;
  deltas: number;
  keyframes: number;
  segments: number;
}

/** DEFLATE level of every block: about half the CPU of level 6 for a quarter more bytes. */
const LEVEL = 1;

export class RecordingWriter {
  private fh: FileHandle | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** The pending block: its records packed as they are added, how many, the time of the first and last. */
  private pendingRecords = 0;
  private pendingFirst = 0;
  private pendingLast = 0;
  private readonly packer = new PackedEncoder();
  private drain: (() => void) | undefined;
  private segmentBytes = 0;
  private segmentStart = 0;
  private segment = 0;
  private startedAt = 0;
  private keyframeSeq = 0;
  private lastKeyframeT = 0;
  private lastKeyframeBytes = 0;
  private lastKeyframeObjects = 0;
  private changesSinceKeyframe = 0;
  private deltaBytesSinceKeyframe = 0;
  private closed = false;
  failed: Error | undefined;
  readonly stats: WriterStats = { blocks: 0, bytes: 0, records: 0, deltas: 0, keyframes: 0, segments: 0 };
  private readonly o: Required<Omit<RecordingWriterOptions, 'context' | 'server'>> & Pick<RecordingWriterOptions, 'context' | 'server'>;

  constructor(opts: RecordingWriterOptions) {
    this.o = { now: Date.now, ...RECORDING_DEFAULTS, ...opts };
    for (const k of ['maxBytes', 'maxAgeMs', 'segments', 'keyframeEveryMs', 'keyframeChanges', 'pendingBytes', 'keyframeBlockObjects'] as const) {
      const v = this.o[k];
      if (!Number.isFinite(v) || v <= 0) throw new RangeError(`recording option ${k} must be a positive number, got ${v}`);
    }
    for (const k of ['keyframeChangesPerObject', 'keyframeChangesMax'] as const) {
      const v = this.o[k];
      if (!Number.isFinite(v) || v < 0) throw new RangeError(`recording option ${k} must be a number >= 0, got ${v}`);
    }
  }

  /** Creates PATH (an existing recording there is rotated away, as on a size bound) with its header and first keyframe. */
  async open(signal: AbortSignal): Promise<void> {
    this.startedAt = this.o.now();
    await this.run(async () => {
      await this.rotateFiles(signal);
      await this.startSegment(signal);
    });
    await this.chain;
    if (this.failed) throw this.failed;
  }

  /**
   * Adds one record to the pending block (dropped once the writer has failed or closed); flushes
   * early when much is pending. `json`, when given, must be the record's JSON text; else it is
   * serialized here, once.
   */
  add(r: RecordingRecord, json?: string): void {
    if (r.k === 'T') return this.timeline(r.t, r.e);
    if (r.k === 'D') {
      const form = r.o ? 1 : r.p ? 2 : 0;
      return this.delta(r.t, r.op, r.key, form, form === 1 ? JSON.stringify(r.o) : form === 2 ? JSON.stringify(r.p) : undefined);
    }
    if (this.done) return;
    this.packer.record(r, json ?? JSON.stringify(r));
    this.added(r.t);
  }

  /** Adds a timeline event that happened at `t` (wall-clock ms). */
  timeline(t: number, e: TimelineEvent): void {
    if (this.done) return;
    this.packer.timeline(t, e);
    this.added(t);
  }

  /**
   * Adds a change of object `key`: `json` is the whole object's JSON text (form 1), or a merge
   * patch's (form 2), or absent for a delete (form 0).
   */
  delta(t: number, op: 'A' | 'M' | 'D', key: string, form: 0 | 1 | 2, json: string | undefined): void {
    if (this.done) return;
    this.packer.delta(deltaTag(op, form), t, key, json);
    this.stats.deltas++;
    this.changesSinceKeyframe++;
    this.added(t);
  }

  private added(t: number): void {
    if (this.pendingRecords++ === 0) this.pendingFirst = t;
    this.pendingLast = t;
    this.stats.records++;
    if (this.packer.length >= this.o.pendingBytes) void this.flush(new AbortController().signal);
  }

  /** The pending block's payload, with the time of its first and last record; the block is emptied. */
  private pack(): { raw: Buffer; tFirst: number; tLast: number } | undefined {
    if (this.pendingRecords === 0) return undefined;
    // A wall clock stepped back mid-block must not make a header that reads as damage (tLast < tFirst).
    const out = { raw: this.packer.take(), tFirst: this.pendingFirst, tLast: Math.max(this.pendingFirst, this.pendingLast) };
    this.pendingRecords = 0;
    return out;
  }

  /** Whether records are dropped from now on (closed, or failed). */
  get done(): boolean {
    return this.closed || this.failed !== undefined;
  }

  /**
   * `fn` is called first thing in every flush (the recorder adds what it queued). If it throws, the
   * writer fails as on a failed write.
   */
  beforeFlush(fn: () => void): void {
    this.drain = fn;
  }

  /** Writes what is pending as one block (and a keyframe or a new segment when due); resolves when it is written. */
  flush(signal: AbortSignal): Promise<void> {
    if (this.drain) {
      try {
        this.drain();
      } catch (e) {
        // Failed as a write fails (the file closed, later records dropped), in the order of writes.
        const err = e instanceof Error ? e : new Error(String(e));
        void this.run(() => Promise.reject(err));
      }
    }
    const packed = this.pack();
    const now = this.o.now();
    const rotate = this.segmentBytes >= this.o.maxBytes / this.o.segments || now - this.segmentStart >= this.o.maxAgeMs / this.o.segments;
    const keyframe =
      !rotate &&
      this.changesSinceKeyframe > 0 &&
      (this.changesSinceKeyframe >= this.keyframeChangesDue() || now - this.lastKeyframeT >= this.o.keyframeEveryMs) &&
      this.deltaBytesSinceKeyframe >= this.lastKeyframeBytes / 4;
    // Taken now, in the same tick as `records`: the keyframe holds exactly the changes before it.
    const snap = keyframe ? [...this.o.snapshot()] : undefined;
    return this.run(async () => {
      if (packed) {
        if (signal.aborted) throw abortReason(signal);
        this.deltaBytesSinceKeyframe += await this.append(await encodePayload(BlockKind.Packed, packed.raw, packed.tFirst, packed.tLast, LEVEL));
      }
      if (snap) await this.writeKeyframe(now, snap, signal);
      if (rotate) {
        await this.closeFile();
        await this.rotateFiles(signal);
        await this.startSegment(signal);
      }
    });
  }

  private keyframeChangesDue(): number {
    return keyframeChangesDue(this.lastKeyframeObjects, this.o);
  }

  /** Flushes and closes the file; later records are dropped. */
  async close(signal: AbortSignal): Promise<void> {
    if (this.closed) return this.chain;
    const done = this.flush(signal);
    this.closed = true;
    await done;
    await this.run(() => this.closeFile());
    await this.chain;
  }

  private run(step: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(async () => {
      if (this.failed) return;
      try {
        await step();
      } catch (e) {
        this.failed = e instanceof Error ? e : new Error(String(e));
        await this.closeFile().catch(() => undefined);
      }
    });
    return this.chain;
  }

  private async writeBlock(kind: BlockKind, records: RecordingRecord[], signal: AbortSignal): Promise<number> {
    if (signal.aborted) throw abortReason(signal);
    return this.append(await encodeBlock(kind, records, LEVEL));
  }

  private async append(block: Buffer): Promise<number> {
    if (!this.fh) throw new Error('recording file is not open');
    const fh = this.fh;
    // fh.write is one write(2): it may take part of the buffer without an error.
    for (let off = 0; off < block.length;) {
      const { bytesWritten } = await fh.write(block, off, block.length - off, null);
      if (bytesWritten <= 0) throw new Error(`short write to ${this.o.path}: ${off} of a ${block.length}-byte block written`);
      off += bytesWritten;
    }
    this.segmentBytes += block.length;
    this.stats.blocks++;
    this.stats.bytes += block.length;
    return block.length;
  }

  private async writeKeyframe(t: number, snap: [string, Obj][], signal: AbortSignal): Promise<void> {
    const seq = ++this.keyframeSeq;
    let bytes = 0;
    // A part ends at keyframeBlockObjects objects or KEYFRAME_BLOCK_BYTES of JSON, whichever comes
    // first: so it inflates to far less than a reader accepts of a block (MAX_BLOCK_INFLATED).
    let lines: string[] = [];
    let size = 0;
    for (const [key, o] of snap) {
      const line = JSON.stringify({ k: 'K', t, seq, key, o } satisfies RecordingRecord);
      lines.push(line);
      size += line.length;
      if (lines.length < this.o.keyframeBlockObjects && size < KEYFRAME_BLOCK_BYTES) continue;
      if (signal.aborted) throw abortReason(signal);
      bytes += await this.append(await encodeLines(BlockKind.KeyframePart, lines, t, t, LEVEL));
      lines = [];
      size = 0;
    }
    lines.push(JSON.stringify({ k: 'KE', t, seq, n: snap.length } satisfies RecordingRecord));
    if (signal.aborted) throw abortReason(signal);
    bytes += await this.append(await encodeLines(BlockKind.KeyframeEnd, lines, t, t, LEVEL));
    this.stats.keyframes++;
    this.lastKeyframeT = t;
    this.lastKeyframeBytes = bytes;
    this.lastKeyframeObjects = snap.length;
    this.changesSinceKeyframe = 0;
    this.deltaBytesSinceKeyframe = 0;
  }

  private async startSegment(signal: AbortSignal): Promise<void> {
    const t = this.o.now();
    this.fh = await createSegment(this.o.path);
    this.segmentBytes = 0;
    this.segmentStart = t;
    const header: HeaderRecord = {
      k: 'H',
      version: FORMAT_VERSION,
      startedAt: this.startedAt,
      t,
      segment: this.segment++,
      ...(this.o.context !== undefined ? { context: this.o.context } : {}),
      ...(this.o.server !== undefined ? { server: this.o.server } : {}),
    };
    await this.writeBlock(BlockKind.Header, [header], signal);
    await this.writeKeyframe(t, [...this.o.snapshot()], signal);
    this.stats.segments++;
  }

  private async closeFile(): Promise<void> {
    const fh = this.fh;
    this.fh = undefined;
    await fh?.close();
  }

  private rotateFiles(signal: AbortSignal): Promise<void> {
    return rotateSegments(this.o.path, { segments: this.o.segments, maxAgeMs: this.o.maxAgeMs, now: this.o.now() }, signal);
  }
}
