/**
 * Start Recording / Stop Recording, without VS Code: core's recording session (the one `kubeloop
 * sync --record` runs, core/recorder/session.ts) attached to the extension's running sync loop, with
 * the bounds from the settings; the status bar's REC text; the default file name.
 *
 * Guarantees:
 * - The recorder is given the loop's objects and timeline events only, never the client or the
 *   kubeconfig: the header holds the context name and the server URL without userinfo (session.ts).
 * - stop() detaches the recorder from the loop first, then closes the file (its last records
 *   flushed); it is idempotent and resolves once the file is closed.
 * - A writer that fails (a full disk) stops the recording and is reported once through onError.
 */
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { expandHome } from '../connection/connection';
import type { SyncObserver } from '../../core/syncloop/observer';
import { startRecording, type RecordingSession } from '../../core/recorder/session';
import type { TimelineStore } from '../../core/timeline/store';

/** What a recording needs of the sync loop (SyncRunner.record). */
export interface RecordableLoop {
  record(observer: SyncObserver | undefined): void;
}

export interface LiveRecordingRequest {
  path: string;
  loop: RecordableLoop;
  context: string;
  server?: string;
  timeline: TimelineStore;
  /** kubeloop.recording.maxMB and maxHours. */
  maxMB: number;
  maxHours: number;
  onError?: (e: Error) => void;
  /** Wall-clock ms (default Date.now): when the recording started, for the status bar. */
  now?: () => number;
}

export class LiveRecording {
  private closing: Promise<void> | undefined;

  private constructor(
    /** Ends the session: its abort flushes and closes the file. */
    private readonly life: AbortController,
    readonly path: string,
    readonly startedAt: number,
    private readonly loop: RecordableLoop,
    private readonly session: RecordingSession,
  ) {}

  /** Opens the file (rotating an older recording at that path away, as the CLI does) and attaches it to the loop. */
  static async start(req: LiveRecordingRequest, signal: AbortSignal): Promise<LiveRecording> {
    const life = new AbortController();
    const onAbort = () => life.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let session: RecordingSession;
    try {
      session = await startRecording(
        {
          path: req.path,
          context: req.context,
          ...(req.server ? { server: req.server } : {}),
          timeline: req.timeline,
          maxBytes: req.maxMB * 1024 * 1024,
          maxAgeMs: req.maxHours * 3600_000,
          ...(req.onError ? { onError: req.onError } : {}),
        },
        life.signal,
      );
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    // From here the session lives until stop(): the start's signal only covered opening the file.
    const rec = new LiveRecording(life, req.path, (req.now ?? Date.now)(), req.loop, session);
    req.loop.record(session.recorder);
    return rec;
  }

  /** Whether the writer has failed (the recording stopped by itself). */
  get failed(): Error | undefined {
    return this.session.writer.failed;
  }

  /** Detaches from the loop, writes what is pending and closes the file. */
  stop(): Promise<void> {
    this.closing ??= (async () => {
      this.loop.record(undefined);
      this.life.abort();
      await this.session.done;
    })();
    return this.closing;
  }
}

/** The status bar item while recording: `$(record) REC <file>`; a click stops. */
export function recordingStatusText(r: { path: string; startedAt: number }): { text: string; tooltip: string } {
  return {
    text: `$(record) REC ${basename(r.path)}`,
    tooltip: `KubeLoop is recording the sync loop to ${r.path} since ${clockTime(r.startedAt)}. Click to stop recording.`,
  };
}

/** HH:MM:SS in local time (what a user reads on the wall clock). */
export function clockTime(t: number): string {
  const d = new Date(t);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/**
 * The folder Start Recording proposes and Open Recording opens in: `kubeloop.recording.folder` when
 * set, else `recordings` in the extension's global storage, outside every workspace, so a recording
 * (what a cluster's objects said) is never committed with a repository by accident. Created
 * owner-only when missing (a failure is left to the dialog, which still opens).
 */
export async function recordingsFolder(setting: string, globalStorage: string): Promise<string> {
  const folder = setting ? expandHome(setting) : join(globalStorage, 'recordings');
  await mkdir(folder, { recursive: true, mode: 0o700 }).catch(() => undefined);
  return folder;
}

/** The save dialog's proposal: `<folder>/kubeloop-<context>-<YYYYMMDD-HHMMSS>.klr`, the context made file-safe. */
export function defaultRecordingPath(folder: string, context: string | undefined, now: number): string {
  const d = new Date(now);
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
  const ctx = (context ?? 'cluster').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 60) || 'cluster';
  return join(folder, `kubeloop-${ctx}-${stamp}.klr`);
}
