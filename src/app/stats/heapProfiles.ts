/**
 * Heap profiles of the extension host, for finding what keeps its memory growing: when the
 * environment names a folder (KUBELOOP_HEAP_PROFILE_DIR), the host runs V8's sampling heap profiler
 * (node:inspector, in-process) and writes `host-heap-<n>.heapprofile` every `everyMs`: the objects
 * still alive then, after a full GC, by the stack that allocated them (a sample per ~32 KiB). Two
 * profiles minutes apart show which allocation sites hold on to more. Off by default; the GC before
 * each write pauses the host (hundreds of ms on a large heap), so it is for the bench, never a user.
 *
 * With KUBELOOP_HEAP_PROFILE_GARBAGE=1 the profiles also keep what major collections freed since the
 * profiler started (V8's includeObjectsCollectedByMajorGC): every allocation that lived long enough
 * to reach the old generation, dead or alive, by its stack. Under churn that is what sets the height
 * of the heap's sawtooth between major collections, which RSS follows.
 *
 * Guarantees (inspectorLoop.ts): stop() (or the signal) ends the profiler and its timer; a failure
 * to write or to start stops profiling and is never thrown into the host.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectorLoop } from './inspectorLoop';

export const HEAP_PROFILE_DIR_ENV = 'KUBELOOP_HEAP_PROFILE_DIR';
export const HEAP_PROFILE_GARBAGE_ENV = 'KUBELOOP_HEAP_PROFILE_GARBAGE';

export function heapProfilesFromEnv(env: NodeJS.ProcessEnv, opts: { everyMs?: number; signal?: AbortSignal } = {}): { stop(): void } | undefined {
  const dir = env[HEAP_PROFILE_DIR_ENV];
  if (!dir) return undefined;
  let n = 0;
  const sampling = { samplingInterval: 32_768, ...(env[HEAP_PROFILE_GARBAGE_ENV] === '1' ? { includeObjectsCollectedByMajorGC: true } : {}) };
  return inspectorLoop({
    dir,
    everyMs: opts.everyMs ?? 60_000,
    signal: opts.signal,
    start: (session, ok, fail) => session.post('HeapProfiler.enable', () => session.post('HeapProfiler.startSampling', sampling, (e) => (e ? fail() : ok()))),
    cut: (session, write) =>
      session.post('HeapProfiler.collectGarbage', (gcErr) => {
        if (gcErr) return write(gcErr, () => undefined);
        try {
          session.post('HeapProfiler.getSamplingProfile', (err, res) =>
            write(err, () => writeFileSync(join(dir, `host-heap-${++n}.heapprofile`), JSON.stringify(res.profile))),
          );
        } catch (e) {
          write(e as Error, () => undefined); // stopped meanwhile (the session is gone): nothing to write
        }
      }),
  });
}
