import type { Clock } from '../../clock';
import { hostSlicer, runSteps, runStepsSliced, type Steps, type TimeSlicer } from '../../slice';
import { Channel } from '../channel';
import type { Pod } from '../../kube/objects/pod';
import type { PodLifecycleEvent } from '../types';
import { containerNameOf, exitOf } from '../prober/exits';
import { GenericPLEG } from './generic';
import { PodCache } from './podcache';

/** Upstream plegChannelCapacity. */
export const PLEG_CHANNEL_CAPACITY = 1000;
/** Upstream plegRelistPeriod. */
export const PLEG_RELIST_PERIOD_MS = 1000;
/** Upstream relistThreshold: a PLEG that has not relisted for this long is unhealthy. */
export const PLEG_RELIST_THRESHOLD_MS = 3 * 60 * 1000;

/**
 * Reads the observed set: every pod the watches hold now (local state, no request). Throws
 * (PodsNotSynced) when that state cannot be trusted, e.g. a pods watch is down: the relist then
 * fails like upstream's when the runtime does not answer, and the PLEG's health counts from the
 * last relist that succeeded.
 */
export type ReadPods = () => Iterable<Pod>;

export class PodsNotSynced extends Error {
  override name = 'PodsNotSynced';
}

export interface PlegHealth {
  healthy: boolean;
  /** Upstream's wording when unhealthy: "pleg was last seen active 3m5s ago; threshold is 3m0s". */
  message?: string;
  /** ms since the last successful relist (or since the relister started, before the first). */
  sinceLastRelistMs: number;
}

/**
 * PlegRelister: runs GenericPLEG.relist every period (sliding: the period counts from the end of the
 * previous relist, like wait.Until) and sends the events on plegCh.
 *
 * The kubelet's PLEG relists its node's container runtime, which is local and cheap. Ours relists
 * the pod store the watches already keep (readPods): it costs no request. GenericPLEG diffs only
 * the pods whose object changed since the previous relist, so a relist of a large, quiet store is
 * a walk over references.
 *
 * Like upstream, the send is non-blocking: when plegCh is full the event is discarded and counted.
 * That keeps a stalled loop from stalling the relist; the sync tick and housekeeping re-sync every
 * pod anyway, so a lost PLEG event delays a sync, it never loses one.
 * A failed read is an error value (counted, kept in lastError), not "every pod vanished": the
 * records are kept.
 */
export class PlegRelister {
  readonly pleg = new GenericPLEG();

  discarded = 0;
  relists = 0;
  errors = 0;
  lastRelistTime: number | undefined;
  lastError: unknown;
  /** When the relister was made: health before the first relist counts from here. */
  readonly startedAt: number;

  constructor(
    private readonly readPods: ReadPods,
    private readonly clock: Clock,
    /** plegCh; the loop owns it (SyncLoop.channels.pleg). */
    readonly eventChannel: Channel<PodLifecycleEvent> = new Channel<PodLifecycleEvent>(PLEG_CHANNEL_CAPACITY, 'plegCh'),
    readonly periodMs = PLEG_RELIST_PERIOD_MS,
    readonly thresholdMs = PLEG_RELIST_THRESHOLD_MS,
    /** The slicer the run loop's relists ask (default: this thread's; tests give their own). */
    private readonly slicer: TimeSlicer = hostSlicer,
    /**
     * The pod cache the pod workers wait on (SyncLoopOptions.podCache): each pod with events is
     * stamped with the relist's start before its events are sent, and the cache's global time moves
     * to that start once the relist is done (upstream Relist: cache.Set, then cache.UpdateTime).
     */
    readonly podCache: PodCache = new PodCache(),
  ) {
    this.startedAt = clock.now();
  }

  /** One relist: read, diff, send. Returns false when the read failed. Synchronous: no I/O. */
  relistOnce(): boolean {
    return runSteps(this.relistSteps());
  }

  /**
   * relistOnce in slices of the thread (through the relister's slicer): what the run loop does, so
   * a relist of a large store never holds the event loop for long.
   */
  relistOnceSliced(): Promise<boolean> {
    return runStepsSliced(this.relistSteps(), this.slicer);
  }

  private *relistSteps(): Steps<boolean> {
    const timestamp = this.clock.now();
    let events: PodLifecycleEvent[];
    try {
      // Read and diff in one pass; a read that throws midway leaves the records as they were for
      // the pods not reached yet, and a failed relist removes nothing (removal comes after the pass).
      events = (yield* this.pleg.relistSteps(this.readPods())).events;
    } catch (e) {
      this.errors++;
      this.lastError = e;
      return false;
    }
    for (const e of events) this.podCache.set(e.id, timestamp);
    for (const e of events) {
      if (this.eventChannel.closed) break;
      if (!this.eventChannel.trySend(e)) this.discarded++;
    }
    this.relists++;
    this.lastRelistTime = this.clock.now();
    this.podCache.updateTime(timestamp);
    return true;
  }

  /**
   * A watch change of one pod, before the loop hears of it (sources/sinks.ts): the PLEG events its
   * status says happened (the kubelet's relist saw them before it wrote that status), each
   * ContainerDied with the exit the status reports. The pod cache keeps the object as the latest
   * observation, and is stamped when there are events: a worker waiting for news of the pod goes on.
   */
  observePod(pod: Pod, opts: { sandboxDeath?: boolean | 'with-containers' } = {}): PodLifecycleEvent[] {
    const events = this.pleg.observePod(pod, opts);
    this.podCache.observe(pod);
    if (events.length === 0) return events;
    this.podCache.set(pod.metadata.uid, this.clock.now());
    for (const e of events) {
      if (e.type !== 'ContainerDied') continue;
      const exit = exitOf(pod, e.data);
      if (exit) e.exit = exit;
      const container = containerNameOf(pod, e.data);
      if (container) e.container = container;
    }
    return events;
  }

  /**
   * One pod is gone from the API (a watch DELETED) before the loop hears of it: containers it still
   * showed running died without the workstation seeing them stop (inferred), then all are removed.
   */
  observeGone(pod: Pod): PodLifecycleEvent[] {
    const events = this.pleg.observeGone(pod.metadata.uid);
    if (events.length === 0) return events;
    this.podCache.set(pod.metadata.uid, this.clock.now());
    for (const e of events) {
      if (e.type !== 'ContainerDied') continue;
      e.inferred = true;
      e.exit = exitOf(pod, e.data) ?? 'not seen: the pod was deleted while the workstation last saw this container running';
      const container = containerNameOf(pod, e.data);
      if (container) e.container = container;
    }
    return events;
  }

  /** Relists until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.relistOnceSliced();
        await this.clock.sleep(this.periodMs, signal);
      } catch {
        if (signal.aborted) return;
      }
    }
  }

  /** Upstream Healthy(): relisted within the threshold. Before the first relist: healthy until the threshold has passed since start. */
  healthy(): boolean {
    return this.health().healthy;
  }

  health(): PlegHealth {
    const since = this.clock.now() - (this.lastRelistTime ?? this.startedAt);
    if (since <= this.thresholdMs) return { healthy: true, sinceLastRelistMs: since };
    const message =
      this.lastRelistTime === undefined
        ? `pleg has yet to be successful; threshold is ${goDuration(this.thresholdMs)}`
        : `pleg was last seen active ${goDuration(since)} ago; threshold is ${goDuration(this.thresholdMs)}`;
    return { healthy: false, message, sinceLastRelistMs: since };
  }
}

/** A duration as Go's time.Duration prints it: "3m0s", "3m5.25s", "1h2m3s", "450ms". */
export function goDuration(ms: number): string {
  if (ms < 0) return `-${goDuration(-ms)}`;
  if (ms === 0) return '0s';
  if (ms < 1000) return `${trim(ms.toFixed(3))}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = trim(((ms % 60_000) / 1000).toFixed(3));
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}

function trim(fixed: string): string {
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}
