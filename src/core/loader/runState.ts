/**
 * The state of one load while its tasks run: the feeder's queue, the tasks planned so far, the
 * tasks out on the pool, the lists' progress, the lane throttle and the seats each list held.
 *
 * Guarantee kept here: each (type, namespace) pair is planned at most once per load, so the 403
 * fallback (narrow) can never loop; the load ends when the queue is empty and nothing is out.
 */
import type { Clock } from '../clock';
import type { KubeObject } from '../kube';
import { DEFAULT_LIST_SEATS, type FlowControlFacts } from './apf';
import { LaneThrottle } from './laneThrottle';
import type { ApiCost, SeatSpan } from './loadCost';
import { seatUsage } from './loadCost';
import { byLikelySize, pairKey } from './results';
import type { LoadPlan, LoadSummary, LoadTask, LoadTaskResult } from './types';

/** One running list's progress. */
export interface Progress {
  sink: KubeObject[];
  /** Objects received that the transform let go (counted, not kept). */
  dropped: number;
  pages: number;
  retries: number;
  bytes: number;
  /** The largest page's bytes: what its seats are estimated from (apf.ts, pageSeats). */
  maxPageBytes: number;
  resourceVersion: string;
  fellBack: boolean;
  /** Estimated seats, once the list has ended. */
  seats?: number;
  /** When the lane throttle gave the list its turn: the task's start on the timeline and in its result. */
  turnAt?: number;
}

export class RunState {
  /** The feeder's queue: the plan, then the per-namespace tasks that replace a refused all-namespaces task. */
  readonly queue: LoadTask[];
  private readonly planned: Set<string>;
  private nextId: number;
  /** Tasks submitted to the pool whose result has not come yet. */
  outstanding = 0;
  wake: (() => void) | undefined;
  /** The task the feeder waits for before it submits more (see ClusterLoader.feed). */
  headStart: number | undefined;
  readonly progress = new Map<number, Progress>();
  readonly throttle: LaneThrottle;
  readonly spans: SeatSpan[] = [];
  /** The most seats one list may take at this load's level (the default guess when unknown). */
  readonly listSeats: number;

  constructor(
    readonly signal: AbortSignal,
    readonly summary: LoadSummary,
    readonly plan: LoadPlan,
    clock: Clock,
    readonly facts: FlowControlFacts | undefined,
    /** Counts a result in the summary and delivers it. */
    readonly count: (r: LoadTaskResult) => void,
  ) {
    this.queue = byLikelySize(plan.tasks);
    this.planned = new Set(plan.tasks.map((t) => pairKey(t)));
    this.nextId = plan.tasks.length;
    this.throttle = new LaneThrottle(summary.concurrency ?? 1, clock);
    this.listSeats = facts && !facts.exempt ? facts.listSeats : DEFAULT_LIST_SEATS;
  }

  notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** The per-namespace tasks that replace an all-namespaces task the server refused (403), none planned before. */
  narrow(result: LoadTaskResult): LoadTask[] {
    const t = result.task;
    if (result.outcome !== 'error' || result.status !== 403 || !t.namespaced || t.namespace !== undefined || this.signal.aborted) return [];
    const by: LoadTask[] = [];
    for (const ns of this.plan.fallbackNamespaces) {
      const next: LoadTask = { ...t, id: this.nextId, namespace: ns, fallbackOf: t.id };
      if (this.planned.has(pairKey(next))) continue;
      this.planned.add(pairKey(next));
      this.nextId++;
      by.push(next);
    }
    return by;
  }
}

type Counters = { requests?: number; bytesReceived?: number; throttled?: number; retryAfterSeconds?: number };

/** The load's API cost from the transport's counters before and after, and the run's seat spans. */
export function apiCostOf(st: RunState, summary: LoadSummary, before: Counters, after: Counters | undefined): ApiCost {
  const delta = (k: keyof Counters) => (after?.[k] ?? 0) - (before[k] ?? 0);
  const seats = seatUsage(st.spans);
  return {
    requests: summary.requests ?? 0,
    bytes: after?.bytesReceived !== undefined ? delta('bytesReceived') : summary.bytes,
    throttled: delta('throttled'),
    retryAfterSeconds: delta('retryAfterSeconds'),
    seatsPeak: seats.peak,
    seatSeconds: seats.seatSeconds,
    listSeats: st.listSeats,
    ...(st.facts ? { flowControl: st.facts } : {}),
    lanesLowest: st.throttle.lowest,
    halvings: st.throttle.halvings,
  };
}
