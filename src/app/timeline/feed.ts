/**
 * TimelineFeed: what the host sends the timeline webview, and when. No 'vscode' import: the panel
 * gives it a `post` function, so the unit tests run it against a real TimelineStore and a FakeClock.
 *
 * Guarantees:
 * - After `start()` (the webview said `ready`) the webview gets the store's whole history as one
 *   `init` and, when it holds more than `chunkSize` events, `chunk` messages of at most `chunkSize`
 *   events each, each sent only after the previous was handed over (a 100,000-event history is never
 *   one message that blocks both sides). Then the events appended since, in `append` messages
 *   batched every `batchMs`. Every event is delivered exactly once, in store order, with its id.
 * - `stop()` (the webview went away) ends an unfinished stream and drops what was pending; the next
 *   `start()` begins from a fresh snapshot. No timer outlives `stop()`/`dispose()`.
 * - When the store was cleared (the next event's id is not above the last one sent), the webview
 *   first gets `reset`, so ids from before and after the clear never meet.
 */
import { realClock, type Clock, type TimerHandle } from '../../core/clock';
import type { TimelineEvent } from '../../core/timeline/events';
import type { TimelineStore } from '../../core/timeline/store';
import type { HostToWebviewMessage, ThemeKind, TimelineItem } from '../../shared/protocol';

export const CHUNK_SIZE = 5000;
export const APPEND_BATCH_MS = 100;

export interface TimelineFeedOptions {
  store: TimelineStore;
  /** Hands a message to the webview; resolves once it is handed over. */
  post: (msg: HostToWebviewMessage) => PromiseLike<unknown>;
  theme: () => ThemeKind;
  clock?: Clock;
  chunkSize?: number;
  batchMs?: number;
}

export class TimelineFeed {
  private live = false;
  private streaming = false;
  /** Bumped by every start/stop/clear: a stream whose generation is stale stops sending. */
  private generation = 0;
  private pending: TimelineItem[] = [];
  private timer: TimerHandle | undefined;
  private lastId = -1;
  private readonly clock: Clock;
  private readonly unsubscribe: () => void;

  constructor(private readonly opts: TimelineFeedOptions) {
    this.clock = opts.clock ?? realClock;
    this.unsubscribe = opts.store.subscribe((e) => this.onAppended(e));
  }

  /** The webview is ready: stream the history, then the appends. Resolves when the history is sent. */
  async start(): Promise<void> {
    this.stop();
    const gen = this.generation;
    this.live = true;
    this.streaming = true;
    const { store } = this.opts;
    const events = store.toArray();
    const base = store.dropped;
    const size = Math.max(1, this.opts.chunkSize ?? CHUNK_SIZE);
    const total = events.length;
    this.lastId = base + total - 1;
    const slice = (from: number): TimelineItem[] => {
      const part = events.slice(from, from + size);
      return part.map((event, i) => ({ id: base + from + i, event }));
    };
    try {
      await this.opts.post({ type: 'init', events: slice(0), theme: this.opts.theme(), dropped: base, total });
      for (let from = size; from < total; from += size) {
        if (gen !== this.generation) return;
        await this.opts.post({ type: 'chunk', events: slice(from), done: from + size >= total });
      }
    } catch {
      if (gen === this.generation) this.stop(); // the webview is gone; the next `ready` starts over
      return;
    }
    if (gen !== this.generation) return;
    this.streaming = false;
    if (this.pending.length) this.scheduleFlush();
  }

  /** The webview went away (hidden or disposed): send nothing until the next start(). */
  stop(): void {
    this.generation++;
    this.live = false;
    this.streaming = false;
    this.pending = [];
    this.timer?.cancel();
    this.timer = undefined;
  }

  dispose(): void {
    this.stop();
    this.unsubscribe();
  }

  private onAppended(event: TimelineEvent): void {
    if (!this.live) return; // the next start() sends the whole history
    // Called right after the append, so the new event is the store's last: O(1), no copy of the ring.
    const { store } = this.opts;
    const id = store.dropped + store.length - 1;
    if (id <= this.lastId) {
      // The store was cleared since the last event we sent: the webview must forget the old ids first.
      this.generation++;
      this.streaming = false;
      this.pending = [];
      void Promise.resolve(this.opts.post({ type: 'reset' })).then(undefined, () => undefined);
    }
    this.lastId = id;
    this.pending.push({ id, event });
    if (!this.streaming) this.scheduleFlush();
  }

  private scheduleFlush(): void {
    this.timer ??= this.clock.setTimer(this.opts.batchMs ?? APPEND_BATCH_MS, () => this.flush());
  }

  private flush(): void {
    this.timer = undefined;
    if (!this.live || this.streaming || this.pending.length === 0) return;
    const events = this.pending;
    this.pending = [];
    void Promise.resolve(this.opts.post({ type: 'append', events, dropped: this.opts.store.dropped })).then(undefined, () => undefined);
  }

  /** Tells a live webview that the store was cleared (for callers that clear it without appending). */
  reset(): void {
    if (!this.live) return;
    this.generation++;
    this.streaming = false;
    this.pending = [];
    this.lastId = -1;
    void Promise.resolve(this.opts.post({ type: 'reset' })).then(undefined, () => undefined);
  }
}
