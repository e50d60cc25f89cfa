/**
 * Recording: a reader of a flight recording (one segment file, all segments of PATH, or the bytes
 * of one segment), the API the timeline and the tree open recordings with.
 *
 *   const rec = await Recording.open(path, signal);   // index only: block headers, no payload read
 *   rec.range                                         // { start, end } in epoch ms
 *   rec.keyframes                                     // the instants rebuilt from one keyframe
 *   await rec.objectsAt(t, signal)                    // key -> object as it was at t
 *   await rec.historyOf(key, signal)                  // every change of one object, before/after
 *   await rec.timelineEvents({ from, to }, signal)    // the timeline's events in a range
 *   for await (const r of rec.records(signal)) ...    // everything, in order (export)
 *
 * Guarantees:
 * - Reads format versions 1 to 4 (records.ts FORMAT_VERSION); a header of any other version is
 *   refused at open with an error that names it.
 * - Opening reads 32 bytes per block (in slices that yield to the event loop, so no slice blocks
 *   it for long) and verifies the last block of each segment: a file cut off mid-block (SIGKILL)
 *   opens and reads up to its last whole block; bytes after it are counted in `damage`, not fatal.
 * - Streamed: a query holds one block's records at a time besides its result; objectsAt holds one
 *   keyframe's objects (the cluster as it was), historyOf one object's changes. A block inflates
 *   to at most 64 MiB, an objectsAt to about MAX_INSTANT_INFLATED in all; past that the query fails
 *   with an InflateLimitError (format.ts) that says so.
 * - A block whose checksum fails later (the file changed under the reader) is skipped and
 *   counted in `damage`; a reader never returns a half-decoded block.
 * - Every query takes an AbortSignal and checks it between blocks.
 * - objectsAt yields to the event loop at least every READ_SLICE_MS of its own work (plus one
 *   block's), so a seek holds the thread it runs on (the extension host's) only briefly.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { abortReason } from '../clock';
import { applyMergePatch } from './diff';
import {
  BLOCK_HEADER_BYTES,
  BlockKind,
  CorruptBlockError,
  blockIntact,
  decodeBlock,
  decodeBlockDeltas,
  decodeBlockText,
  inflateBudget,
  isDataBlock,
  parseBlockHeader,
  type BlockInfo,
  type InflateBudget,
} from './format';
import { RecordedObjects } from './objects';
import type { LazyDelta } from './packed';
import { FORMAT_VERSION, type DeltaRecord, type HeaderRecord, type Obj, type RecordingRecord, type TimelineRecord } from './records';
import { segmentPath } from './segments';

/** Bytes of one segment: a file (read by position) or a buffer. */
interface Bytes {
  size: number;
  read(offset: number, length: number): Buffer;
  close(): void;
}

function fileBytes(path: string): Bytes {
  const fd = openSync(path, 'r');
  const size = fstatSync(fd).size;
  return {
    size,
    read(offset, length) {
      const b = Buffer.allocUnsafe(length);
      const n = readSync(fd, b, 0, length, offset);
      return n === length ? b : b.subarray(0, n);
    },
    close: () => closeSync(fd),
  };
}

function bufferBytes(buf: Buffer): Bytes {
  return { size: buf.length, read: (o, l) => buf.subarray(o, o + l), close: () => undefined };
}

export interface IndexedBlock extends BlockInfo {
  segment: number;
}

export interface KeyframeInfo {
  t: number;
  segment: number;
  /** Index (in `blocks`) of its first and last block. */
  first: number;
  last: number;
}

export interface ObjectChange {
  t: number;
  op: 'A' | 'M' | 'D';
  before: Obj | undefined;
  after: Obj | undefined;
}

export interface SegmentDamage {
  segment: number;
  /** Byte offset where the readable part of the segment ends. */
  at: number;
  bytes: number;
}

/** Keyframe blocks inflating at once while objectsAt reads (libuv's pool has 4 threads by default). */
const KEYFRAME_INFLATE_AHEAD = 3;

/**
 * What one objectsAt may inflate in all (it keeps it: the keyframe's text, the changes after it),
 * give or take the blocks inflating ahead. A 100,000-object instant is a few hundred MiB.
 */
const MAX_INSTANT_INFLATED = 1024 * 1024 * 1024;

/**
 * The items with their decode started at most `ahead` beyond the one the caller awaits, in order.
 * Every started promise has a handler attached at once, so an early exit (abort, a thrown error)
 * leaves no unhandled rejection behind; a decode the caller never reaches is simply dropped.
 */
function* inflateAhead<B>(items: readonly B[], decode: (b: B) => Promise<string>, ahead: number): Generator<{ block: B; text: Promise<string> }> {
  const started: Promise<string>[] = [];
  const start = (i: number) => {
    if (i < items.length && started[i] === undefined) {
      const p = decode(items[i]!);
      p.catch(() => undefined);
      started[i] = p;
    }
  };
  for (let i = 0; i < items.length; i++) {
    for (let j = i; j <= i + ahead; j++) start(j);
    yield { block: items[i]!, text: started[i]! };
    delete started[i];
  }
}

const yieldNow = () => new Promise<void>((r) => setImmediate(r));
/** Longest stretch (ms) a query works on the caller's thread before it yields to the event loop. */
const READ_SLICE_MS = 10;
/** Blocks indexed between two yields to the event loop (a few ms of reads). */
const SCAN_SLICE = 2_000;

export class Recording {
  readonly blocks: IndexedBlock[] = [];
  readonly keyframes: KeyframeInfo[] = [];
  readonly headers: HeaderRecord[] = [];
  readonly damage: SegmentDamage[] = [];
  private closed = false;

  private constructor(private readonly segments: Bytes[]) {}

  /** Opens PATH and its older segments PATH.1, PATH.2, ... (oldest first). */
  static async open(path: string, signal: AbortSignal): Promise<Recording> {
    if (!existsSync(path)) throw new Error(`no recording at ${path}`);
    // Older segments belong to this recording only while their header says it started when PATH's
    // did: recording anew into PATH rotates an earlier recording to PATH.1, which is not part of it.
    const startedAt = await startOf(path);
    const paths: string[] = [path];
    for (let i = 1; existsSync(segmentPath(path, i)); i++) {
      if ((await startOf(segmentPath(path, i))) !== startedAt) break;
      paths.unshift(segmentPath(path, i));
    }
    const rec = new Recording(paths.map(fileBytes));
    try {
      await rec.index(signal);
    } catch (e) {
      rec.close();
      throw e;
    }
    return rec;
  }

  /** A recording from the bytes of one segment (e.g. read from stdin). */
  static async fromBuffer(buf: Buffer, signal: AbortSignal): Promise<Recording> {
    const rec = new Recording([bufferBytes(buf)]);
    await rec.index(signal);
    return rec;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.segments) s.close();
  }

  /** The first header: context, server and start of the recording. */
  get header(): HeaderRecord {
    return this.headers[0]!;
  }

  get range(): { start: number; end: number } {
    if (!this.blocks.length) return { start: 0, end: 0 };
    return { start: this.blocks[0]!.tFirst, end: Math.max(...this.blocks.slice(-64).map((b) => b.tLast)) };
  }

  get bytes(): number {
    return this.segments.reduce((n, s) => n + s.size, 0);
  }

  private async index(signal: AbortSignal): Promise<void> {
    for (let s = 0; s < this.segments.length; s++) {
      const seg = this.segments[s]!;
      const found: IndexedBlock[] = [];
      let off = 0;
      while (off + BLOCK_HEADER_BYTES <= seg.size) {
        const info = parseBlockHeader(seg.read(off, BLOCK_HEADER_BYTES), off);
        if (!info || off + info.size > seg.size) break;
        found.push({ offset: off, kind: info.kind, size: info.size, tFirst: info.tFirst, tLast: info.tLast, segment: s });
        off += info.size;
        if (found.length % SCAN_SLICE === 0) {
          if (signal.aborted) throw abortReason(signal);
          await yieldNow();
        }
      }
      // The tail is where a kill or a torn write leaves damage: the last whole block must check out.
      while (found.length && !blockIntact(seg.read(found[found.length - 1]!.offset, found[found.length - 1]!.size))) found.pop();
      const end = found.length ? found[found.length - 1]!.offset + found[found.length - 1]!.size : 0;
      if (end < seg.size) this.damage.push({ segment: s, at: end, bytes: seg.size - end });
      if (!found.length || found[0]!.kind !== BlockKind.Header) {
        if (this.segments.length === 1) throw new Error('not a KubeLoop recording (no header block)');
        continue;
      }
      const [h] = await this.decode(found[0]!);
      if (!h || h.k !== 'H') throw new Error('not a KubeLoop recording (bad header record)');
      if (!(h.version >= 1 && h.version <= FORMAT_VERSION))
        throw new Error(
          `recording format version ${String(h.version)} is not one this KubeLoop reads (1 to ${FORMAT_VERSION}): open it with the KubeLoop that wrote it`,
        );
      this.headers.push(h);
      for (const b of found) {
        this.blocks.push(b);
        const i = this.blocks.length - 1;
        if (b.kind === BlockKind.KeyframeEnd) {
          let first = i;
          while (first > 0 && this.blocks[first - 1]!.kind === BlockKind.KeyframePart && this.blocks[first - 1]!.segment === s) first--;
          this.keyframes.push({ t: b.tFirst, segment: s, first, last: i });
        }
      }
    }
    if (!this.headers.length) throw new Error('not a KubeLoop recording (no header block)');
  }

  private async decode(b: IndexedBlock): Promise<RecordingRecord[]> {
    return decodeBlock(this.bytesOf(b), b.offset);
  }

  /** A block's bytes as stored (throws once the recording is closed). */
  private bytesOf(b: IndexedBlock): Buffer {
    if (this.closed) throw new Error('recording is closed');
    return this.segments[b.segment]!.read(b.offset, b.size);
  }

  /** A block's records, or undefined (counted as damage) when it no longer checks out. */
  private tryDecode(b: IndexedBlock): Promise<RecordingRecord[] | undefined> {
    return this.counted(b, () => this.decode(b));
  }

  /** A block's changes only, their JSON unparsed (decodeBlockDeltas); undefined as tryDecode. */
  private tryDecodeDeltas(b: IndexedBlock, budget: InflateBudget): Promise<(DeltaRecord | LazyDelta)[] | undefined> {
    return this.counted(b, async () => decodeBlockDeltas(this.bytesOf(b), b.offset, budget));
  }

  private async counted<R>(b: IndexedBlock, read: () => Promise<R>): Promise<R | undefined> {
    try {
      return await read();
    } catch (e) {
      if (!(e instanceof CorruptBlockError)) throw e;
      this.damage.push({ segment: b.segment, at: b.offset, bytes: b.size });
      return undefined;
    }
  }

  /** The last complete keyframe at or before t (undefined before the first). */
  keyframeAt(t: number): KeyframeInfo | undefined {
    let lo = 0;
    let hi = this.keyframes.length - 1;
    let found: KeyframeInfo | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.keyframes[mid]!.t <= t) {
        found = this.keyframes[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /**
   * Every object as it was at t: the keyframe before t, then the changes up to t. Empty before the
   * first keyframe. The keyframe's objects are parsed when first read (RecordedObjects), so
   * rebuilding a large cluster costs its decompression, not a parse of every object.
   */
  async objectsAt(t: number, signal: AbortSignal): Promise<RecordedObjects> {
    const state = new RecordedObjects();
    const kf = this.keyframeAt(t);
    if (!kf) return state;
    const budget = inflateBudget(MAX_INSTANT_INFLATED);
    // A keyframe is tens of blocks of megabytes each: they inflate on libuv's thread pool a few
    // ahead of the one being split here, so decompression overlaps the work on this thread instead
    // of idling it one block at a time.
    const texts = inflateAhead(
      Array.from({ length: kf.last - kf.first + 1 }, (_, j) => this.blocks[kf.first + j]!),
      (b) => decodeBlockText(this.segments[b.segment]!.read(b.offset, b.size), b.offset, budget),
      KEYFRAME_INFLATE_AHEAD,
    );
    let slice = performance.now();
    const breathe = async () => {
      // An await of a settled promise does not let the event loop run: yield for real now and then,
      // so a seek in the extension host never holds it for long (a 100,000-object instant: 300-400 ms
      // in one go before).
      if (performance.now() - slice < READ_SLICE_MS) return;
      await yieldNow();
      if (signal.aborted) throw abortReason(signal);
      slice = performance.now();
    };
    for (const { block: b, text } of texts) {
      if (signal.aborted) throw abortReason(signal);
      await breathe();
      let decoded: string;
      try {
        decoded = await text;
      } catch (e) {
        if (!(e instanceof CorruptBlockError)) throw e;
        this.damage.push({ segment: b.segment, at: b.offset, bytes: b.size });
        continue;
      }
      state.addKeyframeLines(decoded);
    }
    for (let i = kf.last + 1; i < this.blocks.length; i++) {
      const b = this.blocks[i]!;
      if (b.segment !== kf.segment || b.tFirst > t) break;
      if (!isDataBlock(b.kind)) continue;
      if (signal.aborted) throw abortReason(signal);
      await breathe();
      for (const r of (await this.tryDecodeDeltas(b, budget)) ?? []) {
        if (r.t > t) return state;
        state.apply(r.key, r);
      }
    }
    return state;
  }

  /** Every change of one object, oldest first, each with the object before and after it. */
  async historyOf(key: string, signal: AbortSignal): Promise<ObjectChange[]> {
    const out: ObjectChange[] = [];
    let cur: Obj | undefined;
    let segment = -1;
    let known = false;
    for (const b of this.blocks) {
      if (signal.aborted) throw abortReason(signal);
      if (b.segment !== segment) {
        // A new segment rebuilds the object from its own first keyframe (absent there: undefined).
        segment = b.segment;
        known = false;
        cur = undefined;
      }
      if (b.kind === BlockKind.Header) continue;
      // Later keyframes repeat what the deltas already built.
      if (!isDataBlock(b.kind) && known) continue;
      for (const r of (await this.tryDecode(b)) ?? []) {
        if (r.k === 'K' && r.key === key) cur = r.o;
        else if (r.k === 'KE') known = true;
        else if (r.k === 'D' && r.key === key) {
          const before = cur;
          const m = new Map<string, Obj>(before ? [[key, before]] : []);
          applyDelta(m, key, r);
          cur = m.get(key);
          out.push({ t: r.t, op: r.op, before, after: cur });
        }
      }
    }
    return out;
  }

  /** The timeline's events recorded in [from, to] (ms), oldest first. */
  async timelineEvents(range: { from?: number; to?: number }, signal: AbortSignal): Promise<TimelineRecord[]> {
    const from = range.from ?? -Infinity;
    const to = range.to ?? Infinity;
    const out: TimelineRecord[] = [];
    for (const b of this.blocks) {
      if (!isDataBlock(b.kind) || b.tLast < from || b.tFirst > to) continue;
      if (signal.aborted) throw abortReason(signal);
      for (const r of (await this.tryDecode(b)) ?? []) if (r.k === 'T' && r.t >= from && r.t <= to) out.push(r);
    }
    return out;
  }

  /** Every record in order, one block at a time. */
  async *records(signal: AbortSignal): AsyncGenerator<RecordingRecord> {
    for (const b of this.blocks) {
      if (signal.aborted) throw abortReason(signal);
      yield* (await this.tryDecode(b)) ?? [];
    }
  }

  /**
   * The changes recorded after keyframe `kf`, in order: every delta record past the keyframe's own
   * end (its records repeat state, they are not changes). Starting from `objectsAt(kf.t)` and
   * applying these rebuilds every later instant.
   */
  async *changesAfter(kf: KeyframeInfo, signal: AbortSignal): AsyncGenerator<DeltaRecord> {
    let past = false;
    for await (const r of this.records(signal)) {
      if (!past) past = r.k === 'KE' && r.t === kf.t;
      else if (r.k === 'D') yield r;
    }
  }
}

/** The startedAt of a segment's header record, or undefined when it has none. */
async function startOf(path: string): Promise<number | undefined> {
  let b: Bytes | undefined;
  try {
    b = fileBytes(path);
    const info = parseBlockHeader(b.read(0, BLOCK_HEADER_BYTES), 0);
    if (!info || info.kind !== BlockKind.Header || info.size > b.size) return undefined;
    const [h] = await decodeBlock(b.read(0, info.size), 0);
    return h?.k === 'H' ? h.startedAt : undefined;
  } catch {
    return undefined;
  } finally {
    b?.close();
  }
}

/** Applies one delta record to a key -> object map. */
export function applyDelta(state: Map<string, Obj>, key: string, r: { op: 'A' | 'M' | 'D'; o?: Obj; p?: Obj }): void {
  if (r.op === 'D') state.delete(key);
  else if (r.o) state.set(key, r.o);
  else if (r.p) state.set(key, applyMergePatch(state.get(key), r.p) as Obj);
}
