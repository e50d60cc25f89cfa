import { open, type FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import type { Clock } from '../clock';
import { KubeletLogReader, type KubeletRecord } from './records';

/**
 * Follows a kubelet's log file as it grows (`tail -F`): every record of every line written to it
 * (records.ts), in order, until the signal aborts. For a kubelet this machine runs (the lab's hollow
 * nodes); a real cluster's kubelet log is not reachable from a workstation.
 *
 * Guarantees: reads are bounded (CHUNK bytes at a time, one poll every `pollMs`), so a log that grows
 * fast is read in steps, never at once; a file truncated or replaced (its size falls below what was
 * read) is read again from its start; a file that does not exist yet is waited for. The promise
 * resolves when the signal aborts and never rejects for the file's sake: an error (no such file,
 * no permission) goes to `onError` once per kind of error while it lasts, and the follower keeps
 * trying. The file handle is closed on every path.
 */
export interface FollowOptions {
  path: string;
  clock: Clock;
  onRecords: (records: KubeletRecord[]) => void;
  onError?: (e: Error) => void;
  /** 'end' (default): only what is written from now on; 'start': the whole file, then what follows. */
  from?: 'start' | 'end';
  pollMs?: number;
  year?: number;
}

const CHUNK = 256 * 1024;

export async function followKubeletLog(opts: FollowOptions, signal: AbortSignal): Promise<void> {
  const reader = new KubeletLogReader(opts.year);
  let decoder = new StringDecoder('utf8'); // a character split across two reads stays whole
  const pollMs = opts.pollMs ?? 250;
  let offset: number | undefined = opts.from === 'start' ? 0 : undefined;
  let lastError: string | undefined;
  let fh: FileHandle | undefined;
  const buf = Buffer.allocUnsafe(CHUNK);
  try {
    while (!signal.aborted) {
      try {
        fh ??= await open(opts.path, 'r');
        const { size } = await fh.stat();
        if (offset === undefined) offset = size; // 'end': start at the end as first found
        if (size < offset) {
          offset = 0; // truncated or replaced by a shorter file
          decoder = new StringDecoder('utf8');
        }
        let read = 0;
        while (offset < size && !signal.aborted) {
          const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, size - offset), offset);
          if (bytesRead === 0) break;
          offset += bytesRead;
          read += bytesRead;
          const records = reader.push(decoder.write(buf.subarray(0, bytesRead)));
          if (records.length) opts.onRecords(records);
          if (read >= CHUNK * 4) break; // give the thread back; the rest on the next poll
        }
        lastError = undefined;
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        const kind = (err as NodeJS.ErrnoException).code ?? err.message;
        if (kind !== lastError) opts.onError?.(err);
        lastError = kind;
        await fh?.close().catch(() => undefined);
        fh = undefined;
      }
      try {
        await opts.clock.sleep(pollMs, signal);
      } catch {
        break;
      }
    }
  } finally {
    await fh?.close().catch(() => undefined);
  }
}
