/**
 * The files of a recording on disk: which ones the writer may touch, and their rotation.
 *
 * Guarantees:
 * - The writer renames or deletes a file only when it carries a recording's own header (its first
 *   block a whole, checksummed header block holding a header record: isRecordingFile). Anything
 *   else at PATH or PATH.i (a user's file, a symbolic link, a folder) is never renamed, deleted,
 *   written or followed: a rotation that would have to move a segment onto one fails, naming it.
 * - Segment files are created with mode 0600 (owner only) and exclusively (never an existing file
 *   or a link's target): a recording holds what a cluster's objects say, which other local users
 *   may not be allowed to read.
 */
import { constants } from 'node:fs';
import { lstat, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { abortReason } from '../clock';
import { BLOCK_HEADER_BYTES, BlockKind, decodeBlock, parseBlockHeader } from './format';

/** Mode of every file the recorder and the export create. */
export const RECORDING_FILE_MODE = 0o600;

/** A header block is a few hundred bytes: one claiming more is not the writer's. */
const MAX_HEADER_BLOCK = 64 * 1024;

export function segmentPath(path: string, i: number): string {
  return i === 0 ? path : `${path}.${i}`;
}

/** Whether `path` is a regular file (not followed if a link) whose first block is a recording's header. */
export async function isRecordingFile(path: string): Promise<boolean> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    if (!(await fh.stat()).isFile()) return false;
    const head = Buffer.alloc(BLOCK_HEADER_BYTES);
    if ((await fh.read(head, 0, head.length, 0)).bytesRead !== head.length) return false;
    const info = parseBlockHeader(head, 0);
    if (!info || info.kind !== BlockKind.Header || info.size > MAX_HEADER_BLOCK) return false;
    const block = Buffer.alloc(info.size);
    if ((await fh.read(block, 0, block.length, 0)).bytesRead !== block.length) return false;
    const [h] = await decodeBlock(block, 0);
    return h?.k === 'H';
  } catch {
    return false;
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/** A new segment file at `path`: created exclusively, owner-only. */
export function createSegment(path: string): Promise<FileHandle> {
  return open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, RECORDING_FILE_MODE);
}

/**
 * PATH.i -> PATH.(i+1) from the oldest down (PATH itself included), deleting the segments beyond
 * `segments` or older than `maxAgeMs` (by mtime: a segment's last record is at most that old).
 * Files that are not recordings stay as they are; one at PATH to PATH.(segments-1), where a
 * segment would go, is an error before anything is moved.
 */
export async function rotateSegments(path: string, o: { segments: number; maxAgeMs: number; now: number }, signal: AbortSignal): Promise<void> {
  // Refused before anything moves, so a recording never starts (or goes on) half rotated: a file
  // in a slot a segment will take is not ours to replace.
  for (let i = 0; i < o.segments; i++) {
    const at = segmentPath(path, i);
    if (!(await lstat(at).catch(() => undefined)) || (await isRecordingFile(at))) continue;
    if (i === 0) throw new Error(`${at} exists and is not a KubeLoop recording: not replacing it (choose another file, or move it away)`);
    throw new Error(`${at} is not a KubeLoop recording but is where an older part of ${path} goes: not replacing it (move it away)`);
  }
  for (let i = o.segments + 8; i >= 0; i--) {
    if (signal.aborted) throw abortReason(signal);
    const from = segmentPath(path, i);
    const st = await lstat(from).catch(() => undefined);
    if (!st) continue;
    if (!(await isRecordingFile(from))) continue;
    if (i + 1 >= o.segments || o.now - st.mtimeMs > o.maxAgeMs) {
      await rm(from);
      continue;
    }
    const to = segmentPath(path, i + 1);
    // Only a file put there since the check above: still not replaced.
    if (await lstat(to).catch(() => undefined)) throw new Error(`${to} appeared while ${path} was rotated: not replacing it (move it away)`);
    await rename(from, to);
  }
}
