/**
 * CPU profiles of the extension host, for finding what holds its event loop: when the environment
 * names a folder (KUBELOOP_CPU_PROFILE_DIR), the host profiles itself (node:inspector, in-process,
 * no debugger attached) and writes `host-<n>.cpuprofile` every `everyMs`, each covering the time
 * since the previous one. Off by default; no 'vscode' import.
 *
 * Guarantees: stop() (or the signal) ends the profiler and its timer; a failure to write or to
 * start stops profiling and is never thrown into the host.
 */
import { Session } from 'node:inspector';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const CPU_PROFILE_DIR_ENV = 'KUBELOOP_CPU_PROFILE_DIR';

export function cpuProfilesFromEnv(env: NodeJS.ProcessEnv, opts: { everyMs?: number; signal?: AbortSignal } = {}): { stop(): void } | undefined {
  const dir = env[CPU_PROFILE_DIR_ENV];
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
  const cut = () => {
    session.post('Profiler.stop', (err, res) => {
      if (stopped) return;
      try {
        if (err) throw err;
        writeFileSync(join(dir, `host-${++n}.cpuprofile`), JSON.stringify(res.profile));
        session.post('Profiler.start', (e) => {
          if (e) stop();
        });
        timer = setTimeout(cut, opts.everyMs ?? 30_000);
      } catch {
        stop();
      }
    });
  };
  try {
    mkdirSync(dir, { recursive: true });
    session.connect();
    session.post('Profiler.enable', () => session.post('Profiler.start', (e) => (e ? stop() : (timer = setTimeout(cut, opts.everyMs ?? 30_000)))));
  } catch {
    stop();
    return undefined;
  }
  opts.signal?.addEventListener('abort', stop, { once: true });
  return { stop };
}
