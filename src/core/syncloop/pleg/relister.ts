import type { Clock } from '../../clock';
import { Channel } from '../channel';
import { objectKey, type Pod, type PodLifecycleEvent } from '../types';
import { GenericPLEG } from './generic';

/** Upstream plegChannelCapacity. */
export const PLEG_CHANNEL_CAPACITY = 1000;
/** Upstream plegRelistPeriod. */
export const PLEG_RELIST_PERIOD_MS = 1000;
/** Upstream relistThreshold: a PLEG that has not relisted for this long is unhealthy. */
export const PLEG_RELIST_THRESHOLD_MS = 3 * 60 * 1000;

export type ListPods = (signal: AbortSignal) => Promise<Pod[]>;

/**
 * PlegRelister: runs GenericPLEG.relist every period (sliding: the period counts from the end of the
 * previous relist, like wait.Until) and sends the events on plegCh.
 *
 * Like upstream, the send is non-blocking: when plegCh is full the event is discarded and counted.
 * That keeps a stalled loop from stalling the relist; the sync tick and housekeeping re-sync every
 * pod anyway, so a lost PLEG event delays a sync, it never loses one.
 * A failed list is an error value (counted, logged), not "every pod vanished": the records are kept.
 */
export class PlegRelister {
  readonly pleg = new GenericPLEG();
  /** Pod UID -> key for the pods of the last relist (the loop's fallback lookup). */
  keys = new Map<string, string>();
  discarded = 0;
  relists = 0;
  errors = 0;
  lastRelistTime: number | undefined;
  lastError: unknown;

  constructor(
    private readonly listPods: ListPods,
    private readonly clock: Clock,
    /** plegCh; the loop owns it (SyncLoop.channels.pleg). */
    readonly eventChannel: Channel<PodLifecycleEvent> = new Channel<PodLifecycleEvent>(PLEG_CHANNEL_CAPACITY, 'plegCh'),
    readonly periodMs = PLEG_RELIST_PERIOD_MS,
  ) {}

  /** One relist: list, diff, send. Resolves false when the list failed. */
  async relistOnce(signal: AbortSignal): Promise<boolean> {
    let pods: Pod[];
    try {
      pods = await this.listPods(signal);
    } catch (e) {
      if (signal.aborted) throw e;
      this.errors++;
      this.lastError = e;
      return false;
    }
    const { events } = this.pleg.relist(pods);
    const keys = new Map<string, string>();
    for (const p of pods) keys.set(p.metadata.uid, objectKey(p));
    this.keys = keys;
    for (const e of events) {
      if (this.eventChannel.closed) break;
      if (!this.eventChannel.trySend(e)) this.discarded++;
    }
    this.relists++;
    this.lastRelistTime = this.clock.now();
    return true;
  }

  /** Relists until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.relistOnce(signal);
        await this.clock.sleep(this.periodMs, signal);
      } catch {
        if (signal.aborted) return;
      }
    }
  }

  /** Upstream Healthy(): relisted within the threshold (before the first relist: healthy). */
  healthy(): boolean {
    return this.lastRelistTime === undefined || this.clock.now() - this.lastRelistTime <= PLEG_RELIST_THRESHOLD_MS;
  }
}
