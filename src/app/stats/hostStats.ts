/**
 * HostStats: the extension host's own figures, readable without a debugger. When the environment
 * names a file (KUBELOOP_STATS_FILE), the extension appends one JSON line per window (1 s): how
 * late the event loop ran a 10 ms timer (p50, p99, max of the window), the process's RSS and heap,
 * and how many objects the model holds. `npm run bench -- extension` reads these lines.
 * No 'vscode' import.
 *
 * Guarantees:
 * - Off unless started; stop() (or the signal) ends both timers and nothing is written afterwards.
 * - Lossless between windows: the probe keeps its own schedule across window boundaries, so a stall
 *   that starts just after a window closed is counted in the next (perf_hooks'
 *   monitorEventLoopDelay drops the first interval after reset(), which would hide such a stall).
 * - Cheap: one timer callback per 10 ms that records one number, one small appendFileSync per second.
 *   A write that fails (disk full, directory gone) stops the sampler instead of throwing into the host.
 */
import { appendFileSync } from 'node:fs';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import type { Clock, TimerHandle } from '../../core/clock';

export const STATS_FILE_ENV = 'KUBELOOP_STATS_FILE';
export const PROBE_MS = 10;
export const WINDOW_MS = 1000;
export const LATE_MS = 50;

export interface HostSample {
  /** Wall-clock time of the sample (ms since the epoch). */
  t: number;
  /** How late the 10 ms probe timer fired, in ms, over the last window. */
  elP50Ms: number;
  elP99Ms: number;
  elMaxMs: number;
  /** Probe firings in the window (about WINDOW_MS / PROBE_MS when the loop is free). */
  probes: number;
  /**
   * Probe firings at least LATE_MS late: summed over windows and divided by the summed probes, the
   * share of the run the loop was that late (p99 <= 50 ms exactly when the share is <= 1 %).
   */
  late50: number;
  rssMB: number;
  heapUsedMB: number;
  /** The V8 heap as reserved (used + free space between GCs), and memory outside it (Buffers). */
  heapTotalMB?: number;
  externalMB?: number;
  objects: number;
  /**
   * Tree items handed to VS Code so far (cumulative). VS Code's extension host keeps a little of
   * every one it is given for the life of the view (ExtHostTreeView registers a DisposableStore per
   * item and never lets go of it), so their rate is the tree's share of the host's memory growth.
   */
  treeItems?: number;
  /** Tree change events fired to VS Code so far (cumulative): each holds its next one 200 ms (gate.ts). */
  treeEvents?: number;
}

export interface HostStatsOptions {
  file: string;
  clock: Clock;
  objects: () => number;
  treeItems?: () => number;
  treeEvents?: () => number;
  /** Wall-clock ms for the `t` field (default Date.now). */
  wallNow?: () => number;
  memory?: () => { rss: number; heapUsed: number; heapTotal?: number; external?: number };
  signal?: AbortSignal;
}

export class HostStats {
  private readonly hist: RecordableHistogram = createHistogram();
  private probe: TimerHandle | undefined;
  private window: TimerHandle | undefined;
  private due = 0;
  private late = 0;
  private stopped = false;

  constructor(private readonly o: HostStatsOptions) {
    if (o.signal?.aborted) {
      this.stopped = true;
      return;
    }
    o.signal?.addEventListener('abort', () => this.stop(), { once: true });
    this.armProbe();
    this.window = o.clock.setTimer(WINDOW_MS, () => this.flushWindow());
  }

  get running(): boolean {
    return !this.stopped;
  }

  /** The current window's figures (and starts a new window). */
  take(): HostSample {
    const h = this.hist;
    // Recorded in microseconds (the histogram holds integers >= 1): 1 means "on time".
    const ms = (v: number) => (h.count === 0 ? 0 : Math.round((Math.max(0, v - 1) / 1000) * 10) / 10);
    const mem = (this.o.memory ?? process.memoryUsage)();
    const s: HostSample = {
      t: (this.o.wallNow ?? Date.now)(),
      elP50Ms: ms(h.percentile(50)),
      elP99Ms: ms(h.percentile(99)),
      elMaxMs: ms(h.max),
      probes: h.count,
      late50: this.late,
      rssMB: Math.round(mem.rss / 2 ** 20),
      heapUsedMB: Math.round(mem.heapUsed / 2 ** 20),
      ...(mem.heapTotal !== undefined ? { heapTotalMB: Math.round(mem.heapTotal / 2 ** 20) } : {}),
      ...(mem.external !== undefined ? { externalMB: Math.round(mem.external / 2 ** 20) } : {}),
      objects: this.o.objects(),
      ...(this.o.treeItems ? { treeItems: this.o.treeItems() } : {}),
      ...(this.o.treeEvents ? { treeEvents: this.o.treeEvents() } : {}),
    };
    h.reset();
    this.late = 0;
    return s;
  }

  stop(): void {
    this.stopped = true;
    this.probe?.cancel();
    this.window?.cancel();
    this.probe = this.window = undefined;
  }

  private armProbe(): void {
    this.due = this.o.clock.now() + PROBE_MS;
    this.probe = this.o.clock.setTimer(PROBE_MS, () => {
      if (this.stopped) return;
      const lateMs = Math.max(0, this.o.clock.now() - this.due);
      this.hist.record(1 + Math.round(lateMs * 1000));
      if (lateMs >= LATE_MS) this.late++;
      this.armProbe();
    });
  }

  private flushWindow(): void {
    if (this.stopped) return;
    try {
      appendFileSync(this.o.file, JSON.stringify(this.take()) + '\n');
    } catch {
      this.stop();
      return;
    }
    this.window = this.o.clock.setTimer(WINDOW_MS, () => this.flushWindow());
  }
}

/** The sampler when `env` names a stats file, else undefined (the default: nothing runs). */
export function hostStatsFromEnv(env: NodeJS.ProcessEnv, o: Omit<HostStatsOptions, 'file'>): HostStats | undefined {
  const file = env[STATS_FILE_ENV];
  return file ? new HostStats({ ...o, file }) : undefined;
}
