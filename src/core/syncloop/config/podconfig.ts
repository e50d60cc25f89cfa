import { runStepsSliced, STEP_ITEMS } from '../../slice';
import { Channel, ChannelClosedError } from '../channel';
import { isPodResource } from '../../kube/objects/objectKey';
import { type PodUpdate } from '../types';
import { PodStorage } from './storage';

/** Upstream's configCh buffer (NewPodConfig: make(chan kubetypes.PodUpdate, 50)). */
export const CONFIG_CHANNEL_CAPACITY = 50;

/**
 * PodConfig: upstream pkg/kubelet/config PodConfig — the mux that merges every config source into
 * one ordered stream of incremental updates on `updates` (configCh).
 *
 * Guarantees:
 * - Updates are delivered in the order merges were called, and the updates of one merge stay
 *   together: merges are serialised, and each awaits room in the channel (backpressure reaches the
 *   source, the way upstream's Merge blocks on a full channel while holding its lock).
 * - A caller must await each merge before the next (a watch loop does) so the chain of pending
 *   merges stays bounded by the number of sources.
 * - A source is "seen" once it has sent a SET and that SET's updates are in the channel.
 * - Only pods go to configCh, as upstream (the kubelet's config sources deliver pods only). Another
 *   kind's merged updates go to `informer`, the handler of that kind's informer, called in merge
 *   order like client-go's ResourceEventHandler; without one they go to configCh as before. Once
 *   configCh is closed (the loop stopped) an informer merge rejects like a pod merge would.
 */
export class PodConfig {
  readonly updates: Channel<PodUpdate>;
  readonly storage = new PodStorage();
  private readonly sources = new Set<string>();
  private tail: Promise<void> = Promise.resolve();
  /** The informer handler for non-pod kinds (set by the SyncLoop). */
  informer: ((u: PodUpdate) => void | Promise<void>) | undefined;

  constructor(capacity = CONFIG_CHANNEL_CAPACITY) {
    this.updates = new Channel<PodUpdate>(capacity, 'configCh');
  }

  /** Declares a source (upstream PodConfig.Channel(source)); housekeeping waits for all declared sources. */
  addSource(source: string): void {
    this.sources.add(source);
  }

  /** Undeclares a source that will never send (a forbidden type): housekeeping stops waiting for it. */
  removeSource(source: string): void {
    this.sources.delete(source);
  }

  get sourceNames(): string[] {
    return [...this.sources];
  }

  /**
   * Merges one change from a source and delivers the resulting updates. Resolves when they are in
   * the channel; rejects if the channel closes (the loop has stopped) or the signal aborts. An abort
   * mid-delivery can drop updates the storage already recorded; the loop's housekeeping, which
   * compares desired with actual state, repairs that.
   */
  merge(source: string, change: PodUpdate, signal?: AbortSignal): Promise<void> {
    this.sources.add(source);
    const run = async () => {
      // A large SET is merged in slices of the thread (slice.ts); merges stay serialised.
      const updates =
        change.pods.length > STEP_ITEMS ? await runStepsSliced(this.storage.mergeToUpdatesSteps(source, change)) : this.storage.mergeToUpdates(source, change);
      for (const u of updates) {
        if (this.informer && !isPodResource(u.resource)) {
          if (this.updates.closed) throw new ChannelClosedError(this.updates.name);
          await this.informer(u);
        } else await this.updates.send(u, signal);
      }
    };
    const next = this.tail.then(run, run);
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** True when every declared source (or the ones named) has sent a SET. */
  seenAllSources(seenByLoop: ReadonlySet<string>): boolean {
    const all = [...this.sources];
    return all.every((s) => seenByLoop.has(s)) && this.storage.seenSources(...all);
  }
}
