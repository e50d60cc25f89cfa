/**
 * Heap profiles of the extension host, for finding what keeps its memory growing: when the
 * environment names a folder (KUBELOOP_HEAP_PROFILE_DIR), the host runs V8's sampling heap profiler
 * (node:inspector, in-process) and writes `host-heap-<n>.heapprofile` every `everyMs`: the objects
 * still alive then, after a full GC, by the stack that allocated them (a sample per ~32 KiB). Two
 * profiles minutes apart show which allocation sites hold on to more. Off by default; the GC before
 * each write pauses the host (hundreds of ms on a large heap), so it is for the bench, never a user.
 *
 * Guarantees: stop() (or the signal) ends the profiler and its timer; a failure to write or to
 * start stops profiling and is never thrown into the host.
 */
import { Session } from 'node:inspector';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const HEAP_PROFILE_DIR_ENV = 'KUBELOOP_HEAP_PROFILE_DIR';

export function heapProfilesFromEnv(env: NodeJS.ProcessEnv, opts: { everyMs?: number; signal?: AbortSignal } = {}): { stop(): void } | undefined {
  const dir = env[HEAP_PROFILE_DIR_ENV];
  if (!dir) return undefined;
  const session = new Session();
  let n = 0;
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
    if (!stopped) timer = setTimeout(cut, opts.everyMs ?? 60_000);
  };
  const cut = () => {
    session.post('HeapProfiler.collectGarbage', (gcErr) => {
      if (stopped) return;
      if (gcErr) return stop();
      session.post('HeapProfiler.getSamplingProfile', (err, res) => {
        if (stopped) return;
        try {
          if (err) throw err;
          writeFileSync(join(dir, `host-heap-${++n}.heapprofile`), JSON.stringify(res.profile));
          next();
        } catch {
          stop();
        }
      });
    });
  };
  try {
    mkdirSync(dir, { recursive: true });
    session.connect();
    session.post('HeapProfiler.enable', () => session.post('HeapProfiler.startSampling', { samplingInterval: 32_768 }, (e) => (e ? stop() : next())));
  } catch {
    stop();
    return undefined;
  }
  opts.signal?.addEventListener('abort', stop, { once: true });
  return { stop };
}
