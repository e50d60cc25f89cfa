/**
 * TypeFreshness: is what the loop holds of one watched type (in one namespace, or all) current?
 * It records what the type's reflector heard and did, as facts with clock times, and judges
 * staleness from them when asked (verdict(now)), so a verdict moves with time alone, no timer.
 *
 * Facts: the last watch event, the last bookmark, the last relist and why (initial list, 410 Gone,
 * a watch error, a cut connection, events that outran the loop, a consistency repair), and the last
 * consistency check's verdict (consistent / diverged: N differences / repaired / failed).
 *
 * A type is stale, with the first reason that holds:
 * - a confirmed divergence not yet repaired: the consistency check saw the same differences on two
 *   lists (consistency.ts), so the watch missed events; stale until the relist's full state is in;
 * - its watch down (listing, backing off) for longer than WATCH_DOWN_STALE_MS;
 * - watching, but nothing heard (event, bookmark, list, clean close) for longer than the bookmark
 *   interval allows: BOOKMARK_FREQUENCY_MS plus BOOKMARK_GRACE_MS. Only once the server has shown
 *   that it sends periodic bookmarks on this type's watch: the API makes no promise (a client "should
 *   not assume bookmarks are returned at any specific interval", API concepts, Watch bookmarks), and
 *   a watch served without the watch cache gets none, so a quiet type on such a server is not stale.
 */
import type { Clock } from '../../clock';

/**
 * kube-apiserver's watch cache sends a bookmark to a watcher that asked for them "roughly every
 * minute", and one 2 s before the watch's deadline (k8s.io/apiserver storage/cacher:
 * defaultBookmarkFrequency = time.Minute; cacheWatcher.nextBookmarkTime).
 */
export const BOOKMARK_FREQUENCY_MS = 60_000;
/**
 * The slack past the minute: the same 15 s the cacher adds to the bookmark frequency for the
 * events it keeps (DefaultEventFreshDuration), which covers its one-second dispatch buckets.
 */
export const BOOKMARK_GRACE_MS = 15_000;
/**
 * A watch down this long is stale: longer than the reflector's longest backoff (30 s) plus a list
 * of a large type, shorter than the PLEG's 3-minute threshold, so a type says so before the loop does.
 */
export const WATCH_DOWN_STALE_MS = 60_000;

export type CheckVerdict =
  | { kind: 'consistent'; at: number }
  /** Seen once: possibly events still in flight; `confirmed` once a second list saw them again. */
  | { kind: 'diverged'; at: number; differences: number; confirmed: boolean }
  | { kind: 'repaired'; at: number; differences: number }
  | { kind: 'failed'; at: number; error: string };

export interface Relist {
  at: number;
  why: string;
}

export interface Verdict {
  stale: boolean;
  /** Why it is stale ("missed 2 events, relisting", "watch down for 1m 5s: ..."). */
  reason?: string;
  /** Clock time it has been stale since. */
  since?: number;
}

/** The facts at one time, for the texts (all times on the record's clock). */
export interface FreshnessFacts {
  lastEventAt?: number;
  lastBookmarkAt?: number;
  lastRelist?: Relist;
  relisting: boolean;
  lastCheck?: CheckVerdict;
  periodicBookmarks: boolean;
  watchDownSince?: number;
  lastError?: string;
}

export class TypeFreshness {
  private lastEventAt: number | undefined;
  private lastBookmarkAt: number | undefined;
  /** The last time anything was heard: an event, a bookmark, a full list, a clean close. */
  private lastHeardAt: number | undefined;
  private lastRelist: Relist | undefined;
  private relisting = false;
  /** Set once a full state is in; why the next relist happens, decided by what ended that watch. */
  private synced = false;
  private nextWhy: string | undefined;
  private lastCheck: CheckVerdict | undefined;
  /** A confirmed divergence waiting for its relist. */
  private repair: { since: number; differences: number } | undefined;
  private periodicBookmarks = false;
  private watchDownSince: number | undefined;
  private lastError: string | undefined;
  /** Changes of what the verdict reads from (not every event): relists, syncs, watches, checks. */
  private readonly listeners = new Set<() => void>();

  constructor(private readonly clock: Clock) {}

  /** A LIST or a watch-list starts: the watch is down until its state is in. */
  listStarted(): void {
    const now = this.clock.now();
    if (!this.relisting) this.lastRelist = { at: now, why: this.synced ? (this.nextWhy ?? 'relist requested') : 'initial list' };
    this.relisting = true;
    this.watchDownSince ??= now;
    this.changed();
  }

  /** The full state is in (a LIST's answer, a watch-list's initial-events-end bookmark). */
  listed(): void {
    const now = this.clock.now();
    this.relisting = false;
    this.synced = true;
    this.nextWhy = undefined;
    this.lastHeardAt = now;
    if (this.repair) {
      this.lastCheck = { kind: 'repaired', at: now, differences: this.repair.differences };
      this.repair = undefined;
    }
    this.changed();
  }

  /** A LIST failed: the reflector backs off and tries again (the relist's why stays). */
  listFailed(error: string): void {
    this.lastError = error;
    this.changed();
  }

  /** A plain watch is open (after a list, or resumed from the last resourceVersion). */
  watching(): void {
    this.watchDownSince = undefined;
    this.changed();
  }

  event(): void {
    this.lastEventAt = this.lastHeardAt = this.clock.now();
  }

  /** A bookmark on a watch that is past its initial events: the server sends them periodically. */
  bookmark(): void {
    this.lastBookmarkAt = this.lastHeardAt = this.clock.now();
    this.periodicBookmarks = true;
  }

  /**
   * A watch ended; `cause` says why a relist follows, if one does (undefined: a clean close or a
   * rewatch, resumed from the last resourceVersion). A clean close is the server's goodbye: heard.
   */
  watchEnded(cause: string | undefined, clean: boolean): void {
    const now = this.clock.now();
    if (clean) this.lastHeardAt = now;
    this.watchDownSince ??= now;
    if (cause !== undefined) {
      this.lastError = cause;
      if (this.synced && !this.relisting && this.nextWhy === undefined) this.nextWhy = cause;
    }
    this.changed();
  }

  /** The consistency check's verdict on one list. */
  checked(v: CheckVerdict): void {
    if (v.kind === 'diverged' && v.confirmed) {
      this.repair ??= { since: v.at, differences: v.differences };
      this.nextWhy = `consistency repair: ${v.differences} missed event${v.differences === 1 ? '' : 's'}`;
    }
    this.lastCheck = v;
    this.changed();
  }

  verdict(now = this.clock.now()): Verdict {
    if (this.repair) {
      const n = this.repair.differences;
      return { stale: true, reason: `missed ${n === 1 ? 'an event' : `${n} events`}, relisting`, since: this.repair.since };
    }
    if (this.watchDownSince !== undefined && now - this.watchDownSince > WATCH_DOWN_STALE_MS) {
      return {
        stale: true,
        reason: `watch down for ${formatAge(now - this.watchDownSince)}${this.lastError ? `: ${this.lastError}` : ''}`,
        since: this.watchDownSince + WATCH_DOWN_STALE_MS,
      };
    }
    const quietFor = BOOKMARK_FREQUENCY_MS + BOOKMARK_GRACE_MS;
    if (this.watchDownSince === undefined && this.periodicBookmarks && this.lastHeardAt !== undefined && now - this.lastHeardAt > quietFor) {
      return { stale: true, reason: `no event or bookmark for ${formatAge(now - this.lastHeardAt)}`, since: this.lastHeardAt + quietFor };
    }
    return { stale: false };
  }

  facts(): FreshnessFacts {
    return {
      ...(this.lastEventAt !== undefined ? { lastEventAt: this.lastEventAt } : {}),
      ...(this.lastBookmarkAt !== undefined ? { lastBookmarkAt: this.lastBookmarkAt } : {}),
      ...(this.lastRelist ? { lastRelist: { ...this.lastRelist } } : {}),
      relisting: this.relisting,
      ...(this.lastCheck ? { lastCheck: { ...this.lastCheck } } : {}),
      periodicBookmarks: this.periodicBookmarks,
      ...(this.watchDownSince !== undefined ? { watchDownSince: this.watchDownSince } : {}),
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
    };
  }

  /** Hears every change the verdict reads from (synchronously, after it is recorded); returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.listeners) {
      try {
        l();
      } catch {
        // a listener's failure is its own
      }
    }
  }
}

/** "45s", "3m", "1h 5m": an age for a row or a tooltip (seconds under a minute, then minutes). */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  return `${Math.floor(m / 60)}h${m % 60 ? ` ${m % 60}m` : ''}`;
}
