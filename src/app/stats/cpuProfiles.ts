/**
 * CPU profiles of the extension host, for finding what holds its event loop: when the environment
 * names a folder (KUBELOOP_CPU_PROFILE_DIR), the host profiles itself (node:inspector, in-process,
 * no debugger attached) and writes `host-<n>.cpuprofile` every `everyMs`, each covering the time
 * since the previous one. Off by default; no 'vscode' import.
 *
 * Guarantees (inspectorLoop.ts): stop() (or the signal) ends the profiler and its timer; a failure
 * to write or to start stops profiling and is never thrown into the host.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectorLoop } from './inspectorLoop';

export const CPU_PROFILE_DIR_ENV = 'KUBELOOP_CPU_PROFILE_DIR';

export function cpuProfilesFromEnv(env: NodeJS.ProcessEnv, opts: { everyMs?: number; signal?: AbortSignal } = {}): { stop(): void } | undefined {
  const dir = env[CPU_PROFILE_DIR_ENV];
  if (!dir) return undefined;
  let n = 0;
  return inspectorLoop({
    dir,
    everyMs: opts.everyMs ?? 30_000,
    signal: opts.signal,
    start: (session, ok, fail) => session.post('Profiler.enable', () => session.post('Profiler.start', (e) => (e ? fail() : ok()))),
    cut: (session, write, fail) =>
      session.post('Profiler.stop', (err, res) =>
        write(err, () => {
          writeFileSync(join(dir, `host-${++n}.cpuprofile`), JSON.stringify(res.profile));
          session.post('Profiler.start', (e) => e && fail());
        }),
      ),
  });
}
