/**
 * The writers model (core/writers) as the extension runs it beside the sync loop: its watches over
 * the loop's types, a tick once a second that appends the writer lanes' events to the timeline and
 * takes the snapshot the Top Writers view shows. No 'vscode' import.
 *
 * Why watches of its own: the sync loop's watches read protobuf through a walker that leaves
 * managedFields out, and the loop keeps every object it watches; who wrote a version is only in
 * managedFields. So these watches ask for JSON with managedFields kept, start from now (no list of
 * 100,000 objects), and keep nothing of an object but a few hashes (core/writers/stats.ts).
 *
 * Guarantees:
 * - At most one run at a time; start() stops the previous one first. stop() resolves once every
 *   watch and the tick have ended; the last snapshot is then cleared.
 * - The tick runs once a second while a run lasts, whatever is shown: the lanes need it. The per
 *   manager breakdown (kinds, namespaces, objects: three more passes over the kept keys) is taken
 *   only while `detailed` is set (the view is visible).
 */
import type { Clock, TimerHandle } from '../../core/clock';
import type { KubeClient } from '../../core/kube/client';
import type { GroupVersionResource } from '../../core/kube/objects/types';
import type { TimelineEvent } from '../../core/timeline/events';
import { watchWriters } from '../../core/writers/source';
import { WriterStats, type WritersSnapshot } from '../../core/writers/stats';
import { WritesLane, type WritesLaneOptions } from './lane';

export interface LiveWritersOptions {
  clock: Clock;
  timeline: { append(e: TimelineEvent): void };
  /** The timeline's origin on `clock`. */
  origin: number;
  /** Managers shown (default 20) and kinds, namespaces and objects under each (default 10). */
  top?: number;
  breakdown?: number;
  lane?: WritesLaneOptions;
  /** A type's watch failed (`final`: not retried). */
  onError?: (type: string, message: string, final: boolean) => void;
}

export interface WritersTarget {
  client: Pick<KubeClient, 'watch' | 'transport'>;
  types: readonly (GroupVersionResource & { namespaced: boolean })[];
  /** Empty: all namespaces (and the cluster-scoped types). */
  namespaces: readonly string[];
}

interface Run {
  ac: AbortController;
  timer: TimerHandle | undefined;
  done: Promise<void>;
}

export class LiveWriters {
  private run: Run | undefined;
  private snap: WritersSnapshot | undefined;
  private readonly listeners = new Set<(s: WritersSnapshot) => void>();
  /** Set while the view is visible: snapshots then carry each manager's kinds, namespaces and objects. */
  detailed = false;

  constructor(private readonly o: LiveWritersOptions) {}

  get running(): boolean {
    return this.run !== undefined;
  }

  /** The last tick's snapshot (undefined before the first tick of a run). */
  get latest(): WritersSnapshot | undefined {
    return this.snap;
  }

  /** Called after every tick; returns the unsubscribe. */
  onTick(fn: (s: WritersSnapshot) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  async start(target: WritersTarget): Promise<void> {
    await this.stop();
    const { clock, origin } = this.o;
    const stats = new WriterStats({ clock });
    const lane = new WritesLane(clock.now() - origin, this.o.lane);
    const ac = new AbortController();
    const observer = {
      observe: (...a: Parameters<WriterStats['observe']>) => {
        const w = stats.observe(...a);
        if (w) lane.count(w.manager, w.kind);
        return w;
      },
    };
    const namespaces: (string | undefined)[] = target.namespaces.length ? [...target.namespaces] : [undefined];
    const done = Promise.all(
      namespaces.map((namespace) =>
        watchWriters(
          {
            client: target.client,
            types: target.types,
            ...(namespace !== undefined ? { namespace } : {}),
            stats: observer,
            clock,
            ...(this.o.onError ? { onError: this.o.onError } : {}),
          },
          ac.signal,
        ),
      ),
    ).then(() => undefined);
    const run: Run = { ac, timer: undefined, done };
    const tick = () => {
      if (this.run !== run) return;
      const snap = stats.snapshot(this.o.top ?? 20, this.detailed ? (this.o.breakdown ?? 10) : 0);
      for (const e of lane.flush(clock.now() - origin, snap)) this.o.timeline.append(e);
      this.snap = snap;
      for (const fn of this.listeners) fn(snap);
      run.timer = clock.setTimer(1000, tick);
    };
    run.timer = clock.setTimer(1000, tick);
    this.run = run;
  }

  async stop(): Promise<void> {
    const run = this.run;
    if (!run) return;
    this.run = undefined;
    this.snap = undefined;
    run.timer?.cancel();
    run.ac.abort(new Error('the writers view stopped'));
    await run.done;
  }
}
