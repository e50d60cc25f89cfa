/**
 * A recording session: a writer and a recorder wired to a timeline, for `kubeloop sync --record`
 * (and next, the extension's Start Recording). The caller passes `observer` to ClusterSync.
 *
 * Guarantees: the header holds the context name and the server URL with any user:password part
 * removed, nothing else of the kubeconfig; the session flushes every second while `signal` is not
 * aborted, and `done` resolves once the last records are written and the file is closed.
 */
import type { Clock } from '../clock';
import type { TimelineStore } from '../timeline/store';
import { Recorder } from './recorder';
import { RecordingWriter, type RecordingWriterOptions } from './writer';

export interface RecordingSessionOptions extends Pick<RecordingWriterOptions, 'maxBytes' | 'maxAgeMs' | 'segments' | 'keyframeEveryMs' | 'keyframeChanges'> {
  path: string;
  context?: string;
  server?: string;
  timeline?: TimelineStore;
  clock?: Clock;
  flushEveryMs?: number;
  onError?: (e: Error) => void;
}

export interface RecordingSession {
  recorder: Recorder;
  writer: RecordingWriter;
  /** Resolves when the recording is closed (after `signal` aborted). */
  done: Promise<void>;
}

/** The server URL as it may be written down: no userinfo. */
export function publicServer(server: string | undefined): string | undefined {
  if (!server) return undefined;
  try {
    const u = new URL(server);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return undefined;
  }
}

export async function startRecording(opts: RecordingSessionOptions, signal: AbortSignal): Promise<RecordingSession> {
  let recorder: Recorder | undefined;
  const server = publicServer(opts.server);
  const writer = new RecordingWriter({
    path: opts.path,
    snapshot: Recorder.snapshotOf(() => recorder),
    ...(opts.context !== undefined ? { context: opts.context } : {}),
    ...(server !== undefined ? { server } : {}),
    ...(opts.maxBytes !== undefined ? { maxBytes: opts.maxBytes } : {}),
    ...(opts.maxAgeMs !== undefined ? { maxAgeMs: opts.maxAgeMs } : {}),
    ...(opts.segments !== undefined ? { segments: opts.segments } : {}),
    ...(opts.keyframeEveryMs !== undefined ? { keyframeEveryMs: opts.keyframeEveryMs } : {}),
    ...(opts.keyframeChanges !== undefined ? { keyframeChanges: opts.keyframeChanges } : {}),
  });
  await writer.open(signal);
  recorder = new Recorder(writer, {
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.flushEveryMs !== undefined ? { flushEveryMs: opts.flushEveryMs } : {}),
    ...(opts.onError ? { onError: opts.onError } : {}),
  });
  const r = recorder;
  const unsubscribe = opts.timeline?.subscribe((e) => r.timeline(e));
  const done = r.start(signal).finally(() => unsubscribe?.());
  return { recorder: r, writer, done };
}
