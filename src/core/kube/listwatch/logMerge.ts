/**
 * LogMerge: several logs (an owner's pods and containers) as one, interleaved by the time of the
 * `timestamps=true` prefix, each line tagged with its source (`pod/NAME/CONTAINER`, as kubectl's
 * --prefix tags it). Sources may join at any time (a new pod of a rollout, a restarted container).
 *
 * Guarantees:
 * - Bounded: one line per source is held (its head); a source is asked for its next line only
 *   after its head went out, and `emit` is awaited, so a slow consumer pauses every source
 *   (their streams stay paused; TCP holds the rest at the server).
 * - Order: the head with the earliest time goes out once every live source has a head (a source
 *   that ended no longer counts), so logs that are read to their end come out in time order,
 *   stable by source for equal times. Followed live, a source may stay silent: a head waits at
 *   most settleMs for the others, then goes out (lines that arrive later than that, older than
 *   lines already out, follow them). A line without a time goes out as soon as it is the head.
 * - Nothing goes out before start() (or close()): the sources present at the start are merged.
 * - done() resolves once close() was called and every source has ended, or when the signal aborts
 *   (its one timer cancelled then).
 */
import type { Clock, TimerHandle } from '../../clock';
import { splitTimestamp } from './podLog';

export interface MergedLine {
  /** The source's tag, e.g. `pod/web-1/nginx`. */
  source: string;
  /** The line without its timestamp. */
  text: string;
  /** The timestamp as the server wrote it (RFC3339Nano), when the line had one. */
  time?: string;
}

interface Head extends MergedLine {
  seconds: number;
  fraction: number;
  arrived: number;
}

interface Source {
  tag: string;
  order: number;
  head?: Head;
  ended: boolean;
  resume?: () => void;
}

export interface LogMergeOptions {
  /** Followed live: a head waits at most settleMs for silent sources. false: logs read to their end. */
  follow: boolean;
  settleMs?: number;
  clock: Clock;
  signal?: AbortSignal;
}

export const DEFAULT_SETTLE_MS = 250;

export class LogMerge {
  private readonly sources: Source[] = [];
  private order = 0;
  private closed = false;
  private started = false;
  private draining = false;
  private again = false;
  private timer?: TimerHandle;
  private readonly settleMs: number;
  private resolveDone!: () => void;
  private readonly donePromise = new Promise<void>((r) => {
    this.resolveDone = r;
  });

  constructor(
    private readonly emit: (line: MergedLine) => void | Promise<void>,
    private readonly opts: LogMergeOptions,
  ) {
    this.settleMs = opts.settleMs ?? DEFAULT_SETTLE_MS;
    opts.signal?.addEventListener('abort', () => this.finish(), { once: true });
  }

  /** A source joins; its lines are pulled as the merge needs them. */
  add(tag: string, lines: AsyncIterable<string>): void {
    if (this.opts.signal?.aborted) return;
    const src: Source = { tag, order: this.order++, ended: false };
    this.sources.push(src);
    void this.pump(src, lines);
  }

  /**
   * The sources known at the start have joined: lines may go out. Until then none does, so a
   * source that joins a moment after another is not behind lines the first already sent.
   */
  start(): void {
    this.started = true;
    this.drain();
  }

  /** No source will join any more (and start() is implied): done() resolves once the present ones end. */
  close(): void {
    this.closed = this.started = true;
    this.drain();
  }

  done(): Promise<void> {
    return this.donePromise;
  }

  private async pump(src: Source, lines: AsyncIterable<string>): Promise<void> {
    try {
      for await (const line of lines) {
        const t = splitTimestamp(line);
        src.head = { source: src.tag, text: t.text, time: t.time, seconds: t.sortKey ?? -Infinity, fraction: t.fraction ?? 0, arrived: this.opts.clock.now() };
        const next = new Promise<void>((r) => (src.resume = r));
        this.drain();
        await next;
        if (this.opts.signal?.aborted) break;
      }
    } finally {
      src.ended = true;
      this.drain();
    }
  }

  private finish(): void {
    this.timer?.cancel();
    this.timer = undefined;
    for (const s of this.sources) s.resume?.();
    this.resolveDone();
  }

  /** Sends out every head that may go now (see the guarantees); one drain runs at a time. */
  private drain(): void {
    if (!this.started) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = true;
    void this.drainLoop();
  }

  private async drainLoop(): Promise<void> {
    try {
      for (;;) {
        const src = this.pick();
        // `draining` is cleared (finally) in the turn pick() last looked at `again`: no wake-up is lost.
        if (!src) return;
        const head = src.head!;
        src.head = undefined;
        const out: MergedLine = { source: head.source, text: head.text };
        if (head.time !== undefined) out.time = head.time;
        await this.emit(out);
        src.resume?.();
      }
    } catch {
      // A throwing emit: the merge stops sending (the caller's emit failed, not a source).
    } finally {
      this.draining = false;
    }
  }

  /** The source whose head goes out now, or none (a timer set when a head waits for silent sources). */
  private pick(): Source | undefined {
    for (;;) {
      this.again = false;
      if (this.opts.signal?.aborted) return undefined;
      for (let i = this.sources.length - 1; i >= 0; i--) if (this.sources[i]!.ended && !this.sources[i]!.head) this.sources.splice(i, 1);
      let min: Source | undefined;
      let waiting = false;
      for (const s of this.sources) {
        if (!s.head) {
          if (!s.ended) waiting = true;
          continue;
        }
        const h = s.head;
        const m = min?.head;
        if (!m || h.seconds < m.seconds || (h.seconds === m.seconds && (h.fraction < m.fraction || (h.fraction === m.fraction && s.order < min!.order))))
          min = s;
      }
      if (!min) {
        if (!this.sources.length && this.closed) this.finish();
        if (this.again) continue;
        return undefined;
      }
      const head = min.head!;
      if (waiting && head.seconds !== -Infinity) {
        if (!this.opts.follow) {
          if (this.again) continue;
          return undefined;
        }
        const wait = head.arrived + this.settleMs - this.opts.clock.now();
        if (wait > 0) {
          this.timer?.cancel();
          this.timer = this.opts.clock.setTimer(wait, () => {
            this.timer = undefined;
            this.drain();
          });
          if (this.again) continue;
          return undefined;
        }
      }
      return min;
    }
  }
}
