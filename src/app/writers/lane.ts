/**
 * The writer lanes' events: the writes of each busy field manager counted over one window (about a
 * second) and turned into one WritesEvent per manager at the window's end. No 'vscode' import.
 *
 * Guarantees:
 * - A manager gets an event for a window when it wrote at least `minWrites` times in it, or wrote at
 *   all while it is in a fight or a hot loop (a slow fight still shows on its lane).
 * - At most `maxLanes` events per window, the busiest first: a cluster of a thousand busy
 *   controllers adds a bounded number of marks a second to the timeline.
 * - Memory: the counts of one window (one entry per manager that wrote in it), cleared at its end.
 */
import type { WritesEvent } from '../../core/timeline/events';
import type { WritersSnapshot } from '../../core/writers/stats';

export interface WritesLaneOptions {
  /** Writes in one window that make a manager busy (default 2). */
  minWrites?: number;
  /** Events per window at most (default 20). */
  maxLanes?: number;
}

interface Counts {
  writes: number;
  kinds: Map<string, number>;
}

const MAX_KINDS = 5;

export class WritesLane {
  private counts = new Map<string, Counts>();
  private readonly minWrites: number;
  private readonly maxLanes: number;

  /** `start`: the first window's start, on the timeline's clock (ms from its origin). */
  constructor(
    private start: number,
    o: WritesLaneOptions = {},
  ) {
    this.minWrites = o.minWrites ?? 2;
    this.maxLanes = o.maxLanes ?? 20;
  }

  /** One write of `manager` to an object of `kind`. */
  count(manager: string, kind: string): void {
    let c = this.counts.get(manager);
    if (!c) this.counts.set(manager, (c = { writes: 0, kinds: new Map() }));
    c.writes++;
    c.kinds.set(kind, (c.kinds.get(kind) ?? 0) + 1);
  }

  /** Ends the window at `end` (timeline ms): its events, busiest first; the next window starts there. */
  flush(end: number, snap: Pick<WritersSnapshot, 'managers' | 'fights' | 'hotLoops'>): WritesEvent[] {
    const start = this.start;
    const counts = this.counts;
    this.start = end;
    this.counts = new Map();
    const out: WritesEvent[] = [];
    for (const [manager, c] of counts) {
      const fight = snap.fights.find((f) => f.managers[0] === manager || f.managers[1] === manager);
      const hot = snap.hotLoops.find((h) => h.manager === manager);
      if (c.writes < this.minWrites && !fight && !hot) continue;
      const other = fight && (fight.managers[0] === manager ? fight.managers[1] : fight.managers[0]);
      out.push({
        kind: 'writes',
        t: start,
        durationMs: end - start,
        manager,
        writes: c.writes,
        perSecond: snap.managers.find((m) => m.key === manager)?.perSecond ?? c.writes / Math.max((end - start) / 1000, 0.001),
        kinds: [...c.kinds]
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
          .slice(0, MAX_KINDS)
          .map(([k]) => k),
        ...(fight ? { fight: `${fight.key} ${fight.path} with ${other}` } : {}),
        ...(hot ? { hotLoop: `${hot.key} at ${hot.perSecond.toFixed(1)}/s` } : {}),
      });
    }
    return out.sort((a, b) => b.writes - a.writes || (a.manager < b.manager ? -1 : 1)).slice(0, this.maxLanes);
  }
}
