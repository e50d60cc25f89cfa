import type { Clock, TimerHandle } from '../../clock';
import { KubeApiError, KubeTransportError } from '../../kube/errors';
import type { ListHooks, ListOptions, ListResult } from '../../kube/listwatch/list';
import type { WatchEnd, WatchEvent, WatchOptions } from '../../kube/listwatch/watch';
import { asStoredObject, type GroupVersionResource } from '../../kube/objects/types';
import { kv, silentLogger, type SyncLogger } from '../log';
import type { StoredObject } from '../../kube/objects/types';

/** What a reflector needs from the client (KubeClient satisfies it). */
export interface ListWatchClient {
  list(gvr: GroupVersionResource, opts?: ListOptions, hooks?: ListHooks): Promise<ListResult>;
  watch(gvr: GroupVersionResource, opts: WatchOptions, onEvent: (e: WatchEvent) => void, signal?: AbortSignal): Promise<WatchEnd>;
}

/** Where a reflector puts what it sees (client-go's Store: Replace, then Add/Update/Delete). */
export interface ReflectorSink {
  /** The full list (SET). Awaited: backpressure reaches the reflector. */
  replace(items: StoredObject[], resourceVersion: string): Promise<void>;
  /** One watch event, in stream order. */
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: StoredObject): Promise<void>;
}

export interface ReflectorOptions {
  gvr: GroupVersionResource;
  namespace?: string;
  fieldSelector?: string;
  /** A name for logs and the timeline (e.g. the config source). */
  name: string;
  clock: Clock;
  logger?: SyncLogger;
  pageSize?: number;
  /** Watch events waiting for the sink; beyond this the watch is dropped and the reflector relists. */
  maxQueuedEvents?: number;
  /** A watching reflector that has heard nothing (not even a bookmark) for this long is stalled. */
  stallAfterMs?: number;
  random?: () => number;
  /**
   * Sync by streaming watch-list (sendInitialEvents) instead of LIST, where the server supports it.
   * Default true; a server that rejects it (400, 422) is listed from then on.
   */
  watchList?: boolean;
  /**
   * A namespaced type watched across all namespaces: where a 403 narrows the watch to, once (the
   * loader's fallback). Unset: a 403 makes the type forbidden.
   */
  narrowTo?: string;
  /** List and watch as PartialObjectMetadata (see WatchedType.metadataOnly); objects get `kind` when given. */
  metadataOnly?: { kind?: string };
  /**
   * Objects keep metadata.managedFields in their compact form (core/kube/objects/managers.ts), for a
   * flight recording's writers: watches stay protobuf (the walker reads that form itself), a LIST
   * asks for JSON. Changed later with keepManagers().
   */
  compactManagers?: boolean;
  /**
   * How long a LIST may go without a page, or a watch-list without an initial event, before it is
   * given up (then retried after the backoff, as any failure); 0 = never. Default
   * LIST_PROGRESS_TIMEOUT_MS. Progress, not the whole list: a slow list that keeps delivering pages
   * is never cut.
   */
  listProgressTimeoutMs?: number;
  /** Called once when the server answers 403 where the reflector may not narrow further; the reflector then stops. */
  onForbidden?: (message: string, namespace: string | undefined) => void;
}

/** The annotation on the BOOKMARK that ends a watch-list's initial events. */
export const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

type WatchLoopEnd = 'relist' | 'error' | 'stopped' | 'fallback';

/** How one watch request ended, with what its consumer made of it. */
interface WatchOutcome {
  end: WatchEnd;
  /** Events outran the sink: the watch was dropped. */
  overflow: boolean;
  /** The state is in: always for a plain watch; for a watch-list, once its initial-events-end bookmark came. */
  synced: boolean;
  /** Why the sink failed to take an event (the watch then ended as a failure). */
  sinkFailed?: string;
}

/** 'forbidden': the server answered 403 where the reflector could not narrow; it stopped for good (not restarted). */
export type ReflectorState = 'idle' | 'listing' | 'watching' | 'backoff' | 'stopped' | 'forbidden';

export const REFLECTOR_BACKOFF_BASE_MS = 800;
export const REFLECTOR_BACKOFF_MAX_MS = 30_000;
/**
 * kube-apiserver gives up on a request it has not answered within its own --request-timeout (60 s
 * by default): a page that has not come in that long is not coming.
 */
export const LIST_PROGRESS_TIMEOUT_MS = 60_000;

/**
 * Reflector: client-go's tools/cache reflector for one type (and namespace) — list, then watch from
 * the list's resourceVersion, feeding a sink. Where the server supports it (WatchList, v1.32+
 * and the demo cluster) the list is a streaming watch-list instead, as client-go's reflector does
 * with WatchListClient: one watch with sendInitialEvents=true, resourceVersionMatch=NotOlderThan
 * and bookmarks, whose ADDED events up to the BOOKMARK annotated "k8s.io/initial-events-end" are
 * the full state (one SET into the sink), and which then goes on as the watch. A watch-list that
 * ends in any way before that bookmark falls back to LIST + watch for that attempt (and for good
 * when the server rejects the request: 400 or 422), as client-go falls back.
 *
 * Guarantees:
 * - Events reach the sink in stream order, one at a time, each awaited (the sink's backpressure).
 * - The watch resumes from the last resourceVersion seen (events and bookmarks) when the server
 *   closes it normally; a 410 (too old) relists; any other failure backs off (800 ms doubling to
 *   30 s, each wait stretched by a random 0..100 %) and relists: a relist repairs whatever was missed.
 * - Memory: at most `maxQueuedEvents` undelivered events; a watch that outruns the sink is dropped
 *   and replaced by a relist (whose SET the merge turns into the same minimal updates).
 * - relist() (housekeeping's restart) aborts the current list or watch and lists again at once.
 * - A LIST that goes listProgressTimeoutMs without a page (a server that never answers, or trickles
 *   one page for ever), or a watch-list as long without an initial event, is given up: a watch-list
 *   falls back to LIST, a LIST fails and is retried after the backoff. The reflector never stays
 *   'listing' for ever.
 * - A sink that throws ends the watch as a failure does (backoff, then a relist), never the process.
 * - A 403 across all namespaces with `narrowTo` set narrows the reflector to that namespace once
 *   (logged at warning level) and lists there at once, without backoff. Any other 403 is reported
 *   once (a warning and onForbidden) and ends run() in state 'forbidden': a forbidden request is
 *   never retried.
 * - run() never rejects; it resolves when its signal aborts (or the type is forbidden).
 */
export class Reflector {
  state: ReflectorState = 'idle';
  lastResourceVersion = '';
  /** Clock time of the last thing heard from the server (list, event, bookmark, clean close). */
  lastHeardAt: number | undefined;
  /** lists counts full syncs, by LIST or by watch-list (watchLists of them); listRequests only the LISTs. */
  readonly stats = {
    lists: 0,
    watchLists: 0,
    watchListFallbacks: 0,
    listRequests: 0,
    watches: 0,
    expired: 0,
    errors: 0,
    overflows: 0,
    events: 0,
    relistRequests: 0,
    rewatchRequests: 0,
    consecutiveErrors: 0,
  };
  lastError: string | undefined;
  /** The namespace watched now: the options', or `narrowTo` after a cluster-wide 403. */
  namespace: string | undefined;
  /** Times a cluster-wide 403 narrowed the watch (0 or 1). */
  narrowed = 0;
  private current: AbortController | undefined;
  private relistRequested = false;
  private rewatchRequested = false;
  private backoff = REFLECTOR_BACKOFF_BASE_MS;
  /** False once the server has rejected a watch-list (or the options said no). */
  private watchListSupported: boolean;
  /** Whether requests keep managedFields in their compact form (ReflectorOptions.compactManagers). */
  private managers: boolean;

  constructor(
    private readonly client: ListWatchClient,
    private readonly sink: ReflectorSink,
    readonly opts: ReflectorOptions,
  ) {
    this.watchListSupported = opts.watchList !== false;
    this.namespace = opts.namespace;
    this.managers = opts.compactManagers === true;
  }

  /**
   * From the next request on, objects keep (or drop) managedFields in their compact form; a watch
   * under way is reopened from the last resourceVersion seen (no list). Objects already held keep
   * what they were delivered with until their next change.
   */
  keepManagers(on: boolean): void {
    if (on === this.managers) return;
    this.managers = on;
    this.rewatch(on ? 'keep managers' : 'drop managers');
  }

  /** Restarts from a fresh list now (used by housekeeping for dead or inconsistent watches). */
  relist(reason: string): void {
    this.stats.relistRequests++;
    this.relistRequested = true;
    (this.opts.logger ?? silentLogger).info(`Reflector relist requested${kv({ reflector: this.opts.name, reason })}`, 2);
    this.current?.abort(new Error(`relist: ${reason}`));
  }

  /**
   * Ends the current watch and opens a new one from the last resourceVersion seen: no list. For a
   * watch gone silent (a dead connection nobody noticed): a new watch finds out cheaply, and
   * relists only if the server answers 410. A no-op unless watching.
   */
  rewatch(reason: string): void {
    if (this.state !== 'watching') return;
    this.stats.rewatchRequests++;
    this.rewatchRequested = true;
    this.heard(); // the new watch gets its own stallAfterMs
    (this.opts.logger ?? silentLogger).info(
      `Reflector rewatch requested${kv({ reflector: this.opts.name, reason, resourceVersion: this.lastResourceVersion })}`,
      2,
    );
    this.current?.abort(new Error(`rewatch: ${reason}`));
  }

  /** Watching, but silent for longer than stallAfterMs. */
  stalled(): boolean {
    const after = this.opts.stallAfterMs;
    return after !== undefined && this.state === 'watching' && this.lastHeardAt !== undefined && this.opts.clock.now() - this.lastHeardAt > after;
  }

  async run(signal: AbortSignal): Promise<void> {
    const log = this.opts.logger ?? silentLogger;
    this.backoff = REFLECTOR_BACKOFF_BASE_MS;
    const random = this.opts.random ?? Math.random;
    while (!signal.aborted) {
      this.relistRequested = false;
      this.rewatchRequested = false;
      const attempt = this.child(signal);
      try {
        this.state = 'listing';
        if (this.watchListSupported) {
          const end = await this.watchLoop(attempt, signal, true);
          if (end === 'error') throw new Error(this.lastError ?? 'watch failed');
          if (end !== 'fallback') continue;
          this.stats.watchListFallbacks++;
          log.info(`Reflector watch-list ended before its initial events, falling back to list${kv({ reflector: this.opts.name, err: this.lastError })}`, 2);
          if (signal.aborted) break;
        }
        await this.listAndSync(attempt);
        const end = await this.watchLoop(attempt, signal, false);
        if (end === 'error') throw new Error(this.lastError ?? 'watch failed');
      } catch (e) {
        if (signal.aborted) break;
        if (isForbidden(e) && !this.relistRequested) {
          const message = (e as Error).message;
          this.lastError = message;
          if (this.namespace === undefined && this.opts.narrowTo) {
            this.namespace = this.opts.narrowTo;
            this.narrowed++;
            warn(log)(
              `Reflector forbidden across all namespaces, narrowing to the context namespace${kv({ reflector: this.opts.name, namespace: this.namespace, err: message })}`,
            );
            continue;
          }
          this.state = 'forbidden';
          warn(log)(
            `Reflector forbidden, not retrying${kv({ reflector: this.opts.name, type: typeName(this.opts.gvr), namespace: this.namespace ?? '(all namespaces)', err: message })}`,
          );
          this.opts.onForbidden?.(message, this.namespace);
          return;
        }
        if (!this.relistRequested) {
          this.stats.errors++;
          this.stats.consecutiveErrors++;
          this.lastError = e instanceof Error ? e.message : String(e);
          log.error(`Reflector failed, retrying${kv({ reflector: this.opts.name, err: this.lastError, backoff: `${Math.round(this.backoff)}ms` })}`);
          this.state = 'backoff';
          const wait = this.child(signal);
          try {
            await this.opts.clock.sleep(this.backoff * (1 + random()), wait.signal);
          } catch {
            if (signal.aborted) break;
          } finally {
            wait.abort(new Error('backoff over')); // releases its listener on the loop's signal
          }
          this.backoff = Math.min(REFLECTOR_BACKOFF_MAX_MS, this.backoff * 2);
        }
      } finally {
        attempt.abort(new Error('attempt over')); // releases its listener on the loop's signal
      }
    }
    this.state = 'stopped';
  }

  /**
   * LIST, then its SET into the sink. A method of its own so that no frame that lives on (run()'s,
   * awaiting the watch for minutes) holds the list: the sink keeps what it keeps, and the listed
   * versions of objects changed since are garbage (at 100,000 objects a LIST result kept for the
   * watch's life was about 110 bytes an object, and every changed object's old version).
   */
  private async listAndSync(attempt: AbortController): Promise<void> {
    const listing = this.child(attempt.signal);
    const deadline = this.progressDeadline(listing, (ms) => `list ${typeName(this.opts.gvr)}: no page within ${ms} ms`);
    let listed;
    try {
      listed = await this.client.list(
        this.opts.gvr,
        { ...this.scope(), limit: this.opts.pageSize ?? 500 },
        { signal: listing.signal, onPage: deadline.progress },
      );
    } finally {
      deadline.cancel();
      listing.abort(new Error('list over')); // releases its listener on the attempt's signal
    }
    this.stats.listRequests++;
    await this.synced(this.stamped(storedItems(listed.items)), listed.resourceVersion);
  }

  /** A watch-list's initial events as one SET (in a frame of its own, as listAndSync's). */
  private async syncedFrom(state: Map<string, StoredObject>, resourceVersion: string): Promise<void> {
    const items = [...state.values()];
    state.clear();
    await this.synced(items, resourceVersion);
  }

  /** The full state is in (a list, or a watch-list's initial events): one SET into the sink. */
  private async synced(items: StoredObject[], resourceVersion: string): Promise<void> {
    this.stats.lists++;
    this.heard();
    this.lastResourceVersion = resourceVersion;
    await this.sink.replace(items, resourceVersion);
    this.stats.consecutiveErrors = 0;
    this.backoff = REFLECTOR_BACKOFF_BASE_MS;
  }

  /**
   * Watches until a relist is needed ('relist'), the watch failed ('error'), or we stop. With
   * `initial`, the first watch is a watch-list: its events up to the initial-events-end bookmark
   * are the full state; a stream that ends before that bookmark returns 'fallback'.
   */
  private async watchLoop(attempt: AbortController, signal: AbortSignal, initial: boolean): Promise<WatchLoopEnd> {
    let syncing = initial;
    for (;;) {
      if (signal.aborted) return 'stopped';
      if (this.relistRequested || attempt.signal.aborted) return 'relist';
      this.state = syncing ? 'listing' : 'watching';
      const w = await this.watchOnce(attempt, syncing);
      if (signal.aborted) return 'stopped';
      if (w.sinkFailed !== undefined) {
        this.lastError = w.sinkFailed;
        return 'error';
      }
      if (syncing && !w.synced) return this.watchListCutShort(w, attempt);
      syncing = false;
      if (w.overflow) {
        this.stats.overflows++;
        (this.opts.logger ?? silentLogger).error(`Reflector watch dropped, relisting${kv({ reflector: this.opts.name, reason: 'events outran the loop' })}`);
        return 'relist';
      }
      const next = this.afterWatch(w.end, attempt);
      if (next !== 'resume') return next;
    }
  }

  /**
   * One watch request, its events applied in order while the stream keeps arriving (at most
   * maxQueuedEvents waiting: beyond that the watch is dropped). `streaming`: a watch-list, given up
   * when no initial event comes within listProgressTimeoutMs.
   */
  private async watchOnce(attempt: AbortController, streaming: boolean): Promise<WatchOutcome> {
    const watchAbort = this.child(attempt.signal);
    const deadline = streaming
      ? this.progressDeadline(watchAbort, (ms) => `watch-list ${typeName(this.opts.gvr)}: no initial event within ${ms} ms`)
      : undefined;
    const queue = new WatchQueue(this.opts.maxQueuedEvents ?? 1000, () => watchAbort.abort(new Error('watch outran the sink')));
    // A sink that throws (a bug, or an object a walk cannot take) ends this watch as a failure
    // (backoff, then a relist), never the process: its rejection is handled from the start, not
    // only once the watch has ended (an unhandled rejection ends a Node process).
    let sinkFailed: string | undefined;
    const consumed = this.consume(queue, watchAbort.signal, deadline).catch((e: unknown) => {
      sinkFailed = `the loop failed to take a watch event: ${e instanceof Error ? e.message : String(e)}`;
      watchAbort.abort(new Error(sinkFailed));
      return false;
    });
    this.stats.watches++;
    const onEvent = (e: WatchEvent) => {
      this.heard();
      deadline?.progress();
      queue.push(e);
    };
    const end = await this.client.watch(this.opts.gvr, this.watchOptions(streaming), onEvent, watchAbort.signal);
    queue.end();
    deadline?.cancel();
    const synced = await consumed;
    watchAbort.abort(new Error('watch over')); // releases its listener on the attempt's signal
    return { end, overflow: queue.overflow, synced, ...(sinkFailed !== undefined ? { sinkFailed } : {}) };
  }

  /** A watch-list starts from the current state (NotOlderThan ""), a watch from what we hold. */
  private watchOptions(streaming: boolean): WatchOptions {
    return {
      ...this.scope(),
      ...(streaming
        ? { resourceVersion: '', sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' as const }
        : { resourceVersion: this.lastResourceVersion }),
      allowWatchBookmarks: true,
      // Like client-go: a random 5..10 min server-side timeout, so no watch lives forever.
      timeoutSeconds: Math.floor(300 * (1 + (this.opts.random ?? Math.random)())),
    };
  }

  /**
   * Applies one watch's events to the sink in stream order, each awaited. With `listing` (a
   * watch-list), the initial events are gathered by UID until the initial-events-end bookmark and
   * go in as one SET; resolves true once the state is in (at once for a plain watch).
   */
  private async consume(queue: WatchQueue, signal: AbortSignal, listing: { cancel: () => void } | undefined): Promise<boolean> {
    const log = this.opts.logger ?? silentLogger;
    const state = new Map<string, StoredObject>();
    let syncing = listing !== undefined;
    for (let e = await queue.next(); e; e = await queue.next()) {
      if (queue.overflow || signal.aborted) break;
      const rv = e.object.metadata?.resourceVersion;
      // a bookmark carries only a resourceVersion; every other event an object the server stored
      const obj = e.type === 'BOOKMARK' ? undefined : this.stamp(asStoredObject(e.object));
      if (e.type !== 'BOOKMARK' && !obj) {
        warn(log)(`Reflector skipped a watch event without a name or uid${kv({ reflector: this.opts.name, type: e.type })}`);
        continue;
      }
      if (syncing) {
        if (!obj) {
          if (e.object.metadata?.annotations?.[INITIAL_EVENTS_END] === 'true') {
            syncing = false;
            listing?.cancel();
            this.stats.watchLists++;
            await this.syncedFrom(state, rv ?? '');
            this.state = 'watching';
          }
        } else if (e.type === 'DELETED') state.delete(obj.metadata.uid);
        else state.set(obj.metadata.uid, obj);
        continue;
      }
      if (e.type !== 'BOOKMARK' && obj) {
        this.stats.events++;
        await this.sink.apply(e.type, obj);
      }
      if (rv) this.lastResourceVersion = rv;
    }
    return !syncing;
  }

  /** A watch-list that ended before its initial-events-end bookmark: not a state to resume from. */
  private watchListCutShort(w: WatchOutcome, attempt: AbortController): 'relist' | 'fallback' {
    const { end } = w;
    if (this.relistRequested || attempt.signal.aborted) return 'relist';
    if (w.overflow) this.stats.overflows++;
    if (end.kind === 'expired') {
      this.stats.expired++;
      (this.opts.logger ?? silentLogger).info(`Reflector watch expired, relisting${kv({ reflector: this.opts.name, resourceVersion: '' })}`, 2);
    }
    if (end.kind === 'error' && isForbidden(end.error)) throw end.error; // a LIST would only be refused too
    if (end.kind === 'error' || end.kind === 'expired') {
      this.lastError = end.error.message;
      if (end.error instanceof KubeApiError && (end.error.status === 400 || end.error.status === 422)) this.watchListSupported = false;
    } else if (end.kind === 'aborted' && end.reason instanceof KubeTransportError) this.lastError = end.reason.message;
    else this.lastError = `watch-list ended (${end.kind}) before its initial events`;
    return 'fallback';
  }

  /** How a watching reflector goes on after its watch ended: 'resume' opens the next from the last resourceVersion. */
  private afterWatch(end: WatchEnd, attempt: AbortController): 'resume' | 'relist' | 'error' {
    switch (end.kind) {
      case 'closed':
        this.heard();
        return 'resume'; // a normal end
      case 'expired':
        this.stats.expired++;
        (this.opts.logger ?? silentLogger).info(
          `Reflector watch expired, relisting${kv({ reflector: this.opts.name, resourceVersion: this.lastResourceVersion })}`,
          2,
        );
        return 'relist';
      case 'aborted':
        if (this.rewatchRequested && !this.relistRequested && !attempt.signal.aborted) {
          this.rewatchRequested = false;
          return 'resume'; // rewatch()
        }
        return 'relist';
      case 'error':
        this.lastError = end.error.message;
        if (isForbidden(end.error)) throw end.error;
        return 'error';
    }
  }

  /** A metadata-only object named by its kind (it carries none). */
  private stamp<T extends StoredObject | undefined>(obj: T): T {
    const kind = this.opts.metadataOnly?.kind;
    if (obj && kind && !obj.kind) obj.kind = kind;
    return obj;
  }

  private stamped(items: StoredObject[]): StoredObject[] {
    if (this.opts.metadataOnly?.kind) for (const o of items) this.stamp(o);
    return items;
  }

  private scope(): { namespace?: string; fieldSelector?: string; metadataOnly?: boolean; keepManagedFields?: 'compact' } {
    return {
      ...(this.namespace ? { namespace: this.namespace } : {}),
      ...(this.opts.fieldSelector ? { fieldSelector: this.opts.fieldSelector } : {}),
      ...(this.opts.metadataOnly ? { metadataOnly: true } : {}),
      ...(this.managers ? { keepManagedFields: 'compact' as const } : {}),
    };
  }

  private child(parent: AbortSignal): AbortController {
    const ac = new AbortController();
    const onAbort = () => ac.abort(parent.reason);
    if (parent.aborted) ac.abort(parent.reason);
    else parent.addEventListener('abort', onAbort, { once: true });
    ac.signal.addEventListener('abort', () => parent.removeEventListener('abort', onAbort), { once: true });
    this.current = ac;
    return ac;
  }

  /**
   * Aborts `ac` with a 'timeout' error once listProgressTimeoutMs pass without progress(). One timer
   * at a time, re-armed for what is left when it fires (progress may come thousands of times).
   */
  private progressDeadline(ac: AbortController, message: (ms: number) => string): { progress: () => void; cancel: () => void } {
    const ms = this.opts.listProgressTimeoutMs ?? LIST_PROGRESS_TIMEOUT_MS;
    if (!(ms > 0)) return { progress: () => undefined, cancel: () => undefined };
    const clock = this.opts.clock;
    let last = clock.now();
    let timer: TimerHandle | undefined;
    const arm = (wait: number) => {
      timer = clock.setTimer(wait, () => {
        const left = last + ms - clock.now();
        if (left > 0) arm(left);
        else ac.abort(new KubeTransportError('timeout', message(ms)));
      });
    };
    arm(ms);
    return {
      progress: () => (last = clock.now()),
      cancel: () => timer?.cancel(),
    };
  }

  private heard(): void {
    this.lastHeardAt = this.opts.clock.now();
  }
}

function isForbidden(e: unknown): boolean {
  return e instanceof KubeApiError && e.status === 403;
}

/** A list's items narrowed to stored objects; an item without a name or uid is skipped. */
export function storedItems(items: readonly unknown[]): StoredObject[] {
  const out: StoredObject[] = [];
  for (const i of items) {
    const o = asStoredObject(i);
    if (o) out.push(o);
  }
  return out;
}

function typeName(g: GroupVersionResource): string {
  return g.group ? `${g.resource}.${g.group}` : g.resource;
}

/** The logger's warning level, or its error level for a logger without one. */
function warn(log: SyncLogger): (line: string) => void {
  return log.warn ? (l) => log.warn!(l) : (l) => log.error(l);
}

/**
 * One watch's events between the stream and the sink, in order. Bounded: the event past `max`
 * is dropped and `onOverflow` called once (the watch is then abandoned for a relist).
 */
class WatchQueue {
  private readonly events: WatchEvent[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  overflow = false;

  constructor(
    private readonly max: number,
    private readonly onOverflow: () => void,
  ) {}

  push(e: WatchEvent): void {
    if (this.overflow) return;
    if (this.events.length >= this.max) {
      this.overflow = true;
      this.onOverflow();
      return;
    }
    this.events.push(e);
    this.wake?.();
  }

  /** The stream is over: next() drains what is queued, then resolves undefined. */
  end(): void {
    this.ended = true;
    this.wake?.();
  }

  /** The next event, waiting for one; undefined once the stream ended (or overflowed) with none left. */
  async next(): Promise<WatchEvent | undefined> {
    for (;;) {
      const e = this.events.shift();
      if (e) return e;
      if (this.ended || this.overflow) return undefined;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }
}
