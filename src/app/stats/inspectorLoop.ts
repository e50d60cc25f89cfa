/**
 * The loop the host's profilers share (cpuProfiles.ts, heapProfiles.ts): an in-process inspector
 * session (node:inspector, no debugger attached) that runs `start` once and then `cut` every
 * `everyMs`, each cut writing one file into `dir`. No 'vscode' import.
 *
 * Guarantees: stop() (or the signal) ends the session and its timer; a failure to start, to cut or
 * to write stops the loop and is never thrown into the host; nothing is written after stop(), and
 * only a cut that wrote arms the next.
 */
import { Session } from 'node:inspector';
import { mkdirSync } from 'node:fs';

export interface InspectorLoopSpec {
  dir: string;
  everyMs: number;
  signal?: AbortSignal;
  /** Starts the profiler; calls `ok` when it runs, `fail` when it could not start. */
  start(session: Session, ok: () => void, fail: () => void): void;
  /**
   * Takes one profile; `write` (in the inspector's callback, with its error) writes it unless the
   * loop was stopped meanwhile, and arms the next cut; an error or a failed write stops the loop.
   */
  cut(session: Session, write: (err: Error | null, save: () => void) => void, fail: () => void): void;
}

export function inspectorLoop(spec: InspectorLoopSpec): { stop(): void } | undefined {
  const session = new Session();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    if (timer) clearTimeout(timer);
    try {
      session.disconnect();
    } catch {
      // already gone
    }
  };
  const next = () => {
    if (!stopped) timer = setTimeout(cut, spec.everyMs);
  };
  const write = (err: Error | null, save: () => void) => {
    if (stopped) return;
    try {
      if (err) throw err;
      save();
      next();
    } catch {
      stop();
    }
  };
  const cut = () => {
    if (stopped) return;
    try {
      spec.cut(session, write, stop);
    } catch {
      stop();
    }
  };
  try {
    mkdirSync(spec.dir, { recursive: true });
    session.connect();
    spec.start(session, next, stop);
  } catch {
    stop();
    return undefined;
  }
  spec.signal?.addEventListener('abort', stop, { once: true });
  return { stop };
}
