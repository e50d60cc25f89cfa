/**
 * The on-disk block format of a flight recording segment: an append-only sequence of blocks,
 *
 *   offset  size  field
 *   0       4     magic "KLR1"
 *   4       1     kind: 1 header, 2 keyframe part, 3 keyframe end, 4 data (JSON lines, format
 *                 version 1), 5 packed data (packed.ts, version 2 on)
 *   5       3     zero
 *   8       4     payload length (uint32 LE)
 *   12      4     CRC-32 of bytes 4..11, 16..31 and the payload (uint32 LE)
 *   16      8     time of the block's first record (float64 LE, epoch ms)
 *   24      8     time of its last record
 *   32      n     payload: raw DEFLATE of UTF-8 JSON lines (records.ts), or for kind 5 of packed
 *                 records (packed.ts)
 *
 * Guarantees:
 * - Each block is self-contained (its own DEFLATE stream, its own records) and checksummed: a
 *   reader needs nothing before a block to decode it, and a damaged block is recognised.
 * - The index is the block headers themselves: a scan reads 32 bytes per block and skips the
 *   payload, so opening never decompresses. A file cut off anywhere (SIGKILL mid-write) reads up to
 *   its last whole block: a partial header or payload is shorter than it says, and a last block's
 *   checksum is verified when the file is opened.
 * - Inflation is bounded (a recording may come from someone else, and DEFLATE inflates a thousand
 *   to one): a block inflates to at most MAX_BLOCK_INFLATED bytes, and the blocks of one read that
 *   keeps what it inflates (Recording.objectsAt) to about an InflateBudget in all; past either the
 *   read fails with an InflateLimitError saying so, having held no more than the limit.
 */
import { crc32, deflateRaw, deflateRawSync, inflateRawSync, inflateRaw } from 'node:zlib';
import { promisify } from 'node:util';
import { capObjectDepth } from '../kube/objects/depth';
import { decodePacked, decodePackedDeltas, type LazyDelta } from './packed';
import type { DeltaRecord, RecordingRecord } from './records';

export const MAGIC = Buffer.from('KLR1', 'latin1');
export const BLOCK_HEADER_BYTES = 32;
/** A block payload larger than this is damage, not data (the writer never writes one). */
export const MAX_PAYLOAD_BYTES = 256 * 1024 * 1024;

/**
 * The most one block may inflate to. The writer's blocks stay far below: data blocks are flushed at
 * 1 MiB packed, keyframe parts at KEYFRAME_BLOCK_BYTES of JSON, each plus at most one object (an
 * API server takes requests up to 3 MiB).
 */
export const MAX_BLOCK_INFLATED = 64 * 1024 * 1024;

/** JSON bytes after which the writer ends a keyframe part. */
export const KEYFRAME_BLOCK_BYTES = 16 * 1024 * 1024;

/** Inflated bytes that one read may still take, shared by its blocks. */
export interface InflateBudget {
  readonly limit: number;
  left: number;
}

export function inflateBudget(limit: number): InflateBudget {
  return { limit, left: limit };
}

/** A block, or a read, that would inflate past its limit: not a recording this KubeLoop wrote, or too large to read here. */
export class InflateLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InflateLimitError';
  }
}

export const BlockKind = { Header: 1, KeyframePart: 2, KeyframeEnd: 3, Data: 4, Packed: 5 } as const;
export type BlockKind = (typeof BlockKind)[keyof typeof BlockKind];

/** Whether a block holds changes and timeline events (JSON lines of version 1, or packed). */
export function isDataBlock(kind: BlockKind): boolean {
  return kind === BlockKind.Data || kind === BlockKind.Packed;
}

export interface BlockInfo {
  offset: number;
  kind: BlockKind;
  /** Bytes of the whole block (header + payload). */
  size: number;
  tFirst: number;
  tLast: number;
}

const deflateRawAsync = promisify(deflateRaw);
const inflateRawAsync = promisify(inflateRaw);

function checksum(head: Buffer, payload: Buffer): number {
  return crc32(payload, crc32(head.subarray(16, 32), crc32(head.subarray(4, 12))));
}

/** The records as one block's payload (compressed as encodePayload says). */
export function encodeBlock(kind: BlockKind, records: readonly RecordingRecord[], level = 6): Promise<Buffer> {
  if (records.length === 0) throw new RangeError('a block holds at least one record');
  return encodeLines(
    kind,
    records.map((r) => JSON.stringify(r)),
    records[0]!.t,
    records[records.length - 1]!.t,
    level,
  );
}

/**
 * A block of records already serialized, one JSON text each (no raw newline can occur in one:
 * JSON escapes it), whose first and last record are at `tFirst` and `tLast`. `level` is DEFLATE's
 * (1-9): the writer's data blocks use 1, about half the CPU of 6 for a quarter more bytes.
 */
export function encodeLines(kind: BlockKind, lines: readonly string[], tFirst: number, tLast: number, level = 6): Promise<Buffer> {
  if (lines.length === 0) throw new RangeError('a block holds at least one record');
  return encodePayload(kind, Buffer.from(lines.join('\n'), 'utf8'), tFirst, tLast, level);
}

/**
 * Payloads below this (at DEFLATE level 1; an eighth of it at higher levels, which are slower)
 * compress on the caller's thread: about a millisecond at most, less CPU than handing them to
 * libuv's thread pool (a zlib stream per call, about 0.1 ms of its own).
 */
const INLINE_DEFLATE_BYTES = 256 * 1024;

/**
 * A block of `raw` (its payload before compression: JSON lines, or packed records for kind
 * Packed). A larger payload than INLINE_DEFLATE_BYTES says compresses on libuv's thread pool, never on
 * the caller's thread.
 */
export async function encodePayload(kind: BlockKind, raw: Buffer, tFirst: number, tLast: number, level = 6): Promise<Buffer> {
  const inline = raw.length < (level <= 1 ? INLINE_DEFLATE_BYTES : INLINE_DEFLATE_BYTES / 8);
  const payload = inline ? deflateRawSync(raw, { level }) : await deflateRawAsync(raw, { level });
  const head = Buffer.alloc(BLOCK_HEADER_BYTES);
  MAGIC.copy(head, 0);
  head.writeUInt8(kind, 4);
  head.writeUInt32LE(payload.length, 8);
  head.writeDoubleLE(tFirst, 16);
  head.writeDoubleLE(tLast, 24);
  head.writeUInt32LE(checksum(head, payload), 12);
  return Buffer.concat([head, payload]);
}

/** The block described by a 32-byte header, or undefined when these bytes are not a block header. */
export function parseBlockHeader(head: Buffer, offset: number): (BlockInfo & { crc: number; payloadBytes: number }) | undefined {
  if (head.length < BLOCK_HEADER_BYTES || !head.subarray(0, 4).equals(MAGIC)) return undefined;
  const kind = head.readUInt8(4) as BlockKind;
  if (kind < BlockKind.Header || kind > BlockKind.Packed) return undefined;
  const payloadBytes = head.readUInt32LE(8);
  if (payloadBytes > MAX_PAYLOAD_BYTES) return undefined;
  const tFirst = head.readDoubleLE(16);
  const tLast = head.readDoubleLE(24);
  if (!Number.isFinite(tFirst) || !Number.isFinite(tLast) || tLast < tFirst) return undefined;
  return { offset, kind, size: BLOCK_HEADER_BYTES + payloadBytes, tFirst, tLast, crc: head.readUInt32LE(12), payloadBytes };
}

/** Whether a whole block (header + payload) has the checksum its header says. */
export function blockIntact(block: Buffer): boolean {
  const info = parseBlockHeader(block, 0);
  if (!info || block.length !== info.size) return false;
  return checksum(block, block.subarray(BLOCK_HEADER_BYTES)) === info.crc;
}

export class CorruptBlockError extends Error {
  constructor(
    readonly offset: number,
    why: string,
  ) {
    super(`recording block at byte ${offset} is damaged: ${why}`);
    this.name = 'CorruptBlockError';
  }
}

function parseLines(text: string, offset: number): RecordingRecord[] {
  // JSON.stringify never writes a raw newline, so the lines joined by commas are one JSON array:
  // one parse per block, much faster than one per line on keyframes.
  let records: RecordingRecord[];
  try {
    records = JSON.parse(`[${text.replace(/\n/g, ',')}]`) as RecordingRecord[];
  } catch (e) {
    throw new CorruptBlockError(offset, `a record is not JSON (${(e as Error).message})`);
  }
  // Each member (an object, a patch, an event) cut as the recorder cuts what it writes: a file
  // from elsewhere may nest deeper than any later walk can take (core/kube/objects/depth.ts).
  for (const r of records) if (typeof r === 'object' && r !== null) for (const v of Object.values(r)) capObjectDepth(v);
  return records;
}

/**
 * The payload of a whole block, inflated, checksum verified, bounded (see the module comment).
 * Small blocks inflate inline, large ones on the thread pool.
 */
async function inflateBlock(block: Buffer, offset: number, budget?: InflateBudget): Promise<Buffer> {
  if (!blockIntact(block)) throw new CorruptBlockError(offset, 'checksum mismatch or wrong length');
  const payload = block.subarray(BLOCK_HEADER_BYTES);
  const max = Math.min(MAX_BLOCK_INFLATED, budget ? budget.left : Infinity);
  const overBudget = () =>
    new InflateLimitError(`this read of the recording inflates to more than ${mib(budget!.limit)}: refused at the block at byte ${offset}`);
  if (max <= 0) throw overBudget();
  let raw: Buffer;
  try {
    raw = payload.length < 64 * 1024 ? inflateRawSync(payload, { maxOutputLength: max }) : await inflateRawAsync(payload, { maxOutputLength: max });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw new CorruptBlockError(offset, `does not inflate (${(e as Error).message})`);
    if (max < MAX_BLOCK_INFLATED) throw overBudget();
    throw new InflateLimitError(
      `recording block at byte ${offset} inflates to more than ${mib(MAX_BLOCK_INFLATED)} (${payload.length} bytes compressed): not a block KubeLoop writes, refused`,
    );
  }
  if (budget) budget.left -= raw.length;
  return raw;
}

function mib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MiB` : `${bytes} bytes`;
}

/** The JSON-lines text of a whole block (any kind but Packed), checksum verified. */
export async function decodeBlockText(block: Buffer, offset: number, budget?: InflateBudget): Promise<string> {
  return (await inflateBlock(block, offset, budget)).toString('utf8');
}

/** The records of a whole block, checksum verified. */
export async function decodeBlock(block: Buffer, offset: number): Promise<RecordingRecord[]> {
  return decodeWith(block, offset, decodePacked);
}

/** Only the changes of a whole block, checksum verified; a packed block's JSON stays text (LazyDelta). */
export async function decodeBlockDeltas(block: Buffer, offset: number, budget?: InflateBudget): Promise<(DeltaRecord | LazyDelta)[]> {
  return (await decodeWith(block, offset, decodePackedDeltas, budget)).filter((r): r is DeltaRecord | LazyDelta => r.k === 'D');
}

async function decodeWith<R>(block: Buffer, offset: number, packed: (raw: Buffer) => R[], budget?: InflateBudget): Promise<(R | RecordingRecord)[]> {
  const raw = await inflateBlock(block, offset, budget);
  if (block.readUInt8(4) !== BlockKind.Packed) return parseLines(raw.toString('utf8'), offset);
  try {
    return packed(raw);
  } catch (e) {
    throw new CorruptBlockError(offset, (e as Error).message);
  }
}
