/**
 * Watch: a chunked stream of newline-delimited JSON events, or of length-prefixed protobuf frames
 * when the client asks for protobuf, as the apiserver sends them (watch-events.ts).
 *
 * Guarantees:
 * - Start point: resourceVersion unset or "0" first sends a synthetic ADDED per current object (a
 *   consistent snapshot taken at subscription time), then every later event; N sends every event
 *   after N from history, or one ERROR event carrying a 410 Expired Status when history no longer
 *   reaches N. sendInitialEvents=true sends the ADDED events and then a BOOKMARK annotated
 *   "k8s.io/initial-events-end"; so does a watch from "" or "0" that allows bookmarks (v1.34+).
 * - Events are delivered in resourceVersion order, none twice: the subscription is made before the
 *   history/snapshot read, and anything at or below the last delivered revision is skipped.
 * - BOOKMARK events (only with allowWatchBookmarks=true) carry just metadata.resourceVersion.
 * - The initial events are written as the client reads them (paced): a big watch-list is neither
 *   cut for its own size nor holds the event loop.
 * - The stream ends after timeoutSeconds; the subscription and timers are always released when the
 *   stream ends for any reason (client gone, timeout, server stop); a client too slow to keep up
 *   (over 16 MiB unsent) is cut off, as the apiserver does with unresponsive watchers.
 */
import type { DemoObject, StoreEvent } from '../store';
import { requestNamespace, requireVerb, resolveTarget, type ServerContext, type Target } from './serverContext';
import type { Exchange } from './exchange';
import { negotiate } from './forms';
import { parseRV, protobufOffer, selectorFor } from './list';
import { isTrue } from './requestinfo';
import type { Matcher } from './selectors';
import { ApiError, badRequest, resourceVersionTooOld } from './status';
import { watchEncoder, type WireType } from './watch-events';

const MAX_UNSENT = 16 * 1024 * 1024;

/** A watch request's parameters, checked as kube-apiserver checks them. */
interface WatchParams {
  ns: string | undefined;
  match: Matcher | undefined;
  startRV: number | undefined;
  initialEvents: boolean;
  initialEventsEnd: boolean;
  bookmarks: boolean;
  timeoutS: number;
}

function watchParams(ctx: ServerContext, t: Target, x: Exchange): WatchParams {
  const ns = requestNamespace(t, x);
  let match: Matcher | undefined = selectorFor(t, x);
  if (x.info.name) {
    // GET .../pods/{name}?watch=1 is a watch with fieldSelector metadata.name={name}.
    const name = x.info.name;
    const m = match;
    match = (o) => o.metadata.name === name && (!m || m(o));
  }
  const rvParam = x.query.get('resourceVersion') ?? '';
  const startRV = rvParam === '' || rvParam === '0' ? undefined : parseRV(rvParam);
  const sendInitial = x.query.get('sendInitialEvents');
  if (sendInitial !== null && x.query.get('resourceVersionMatch') !== 'NotOlderThan') {
    throw new ApiError(
      422,
      'Invalid',
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    );
  }
  const initialEvents = sendInitial !== null ? isTrue(sendInitial) : startRV === undefined;
  const bookmarks = isTrue(x.query.get('allowWatchBookmarks'));
  // Since v1.34 (WatchList) the apiserver defaults a legacy watch (resourceVersion "" or "0", no
  // sendInitialEvents) to sendInitialEvents=true: with bookmarks allowed, the initial ADDED events
  // then end with the initial-events-end BOOKMARK as well.
  const initialEventsEnd = initialEvents && (sendInitial !== null || bookmarks);
  const timeoutRaw = x.query.get('timeoutSeconds');
  const timeoutS = timeoutRaw ? Number(timeoutRaw) : ctx.options.defaultWatchTimeoutSeconds;
  if (!Number.isFinite(timeoutS) || timeoutS < 0) throw badRequest(`invalid timeoutSeconds: ${timeoutRaw}`);
  return { ns, match, startRV, initialEvents, initialEventsEnd, bookmarks, timeoutS };
}

export async function handleWatch(ctx: ServerContext, x: Exchange, onEnd: (cleanup: () => void) => void): Promise<void> {
  const t = resolveTarget(ctx, x);
  requireVerb(t, 'watch');
  const { ns, match, startRV, initialEvents, initialEventsEnd, bookmarks, timeoutS } = watchParams(ctx, t, x);
  // Each event's object is transformed alone, as kube-apiserver does: a metadata watch asks for PartialObjectMetadata.
  const encoder = watchEncoder(ctx, t, x, negotiate(x.accept, 'one', protobufOffer(ctx, t)));
  const res = x.res;

  res.writeHead(200, { 'Content-Type': encoder.contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();

  let lastRV = 0;
  const drop = new EventDropper(x.dropEvents);
  let ended = false;
  const timers: NodeJS.Timeout[] = [];

  const write = (chunk: Buffer | string): void => {
    if (ended) return;
    res.write(chunk);
    if (x.stats) {
      const n = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      x.stats.bodyBytesSent += n;
      x.stats.bodyBytesUncompressed += n;
    }
    if (res.writableLength > MAX_UNSENT) end();
  };
  const send = (type: WireType, o: DemoObject): void => {
    if (!ended) write(encoder.object(type, o));
  };
  const deliver = (e: Pick<StoreEvent, 'type' | 'object' | 'rv' | 'prevObject'>): void => {
    if (e.rv <= lastRV) return;
    lastRV = e.rv;
    let type: WireType = e.type;
    if (!inScope(t, ns, e.object)) return;
    if (match) {
      // As upstream: an object entering the selection is ADDED, one leaving it is DELETED.
      const now = e.type !== 'DELETED' && match(e.object);
      const before = e.type === 'ADDED' ? false : e.prevObject ? match(e.prevObject) : e.type === 'DELETED' ? match(e.object) : now;
      if (!now && !before) return;
      if (e.type === 'MODIFIED' && now && !before) type = 'ADDED';
      if (e.type === 'MODIFIED' && !now && before) type = 'DELETED';
    }
    if (drop.shouldDrop()) return;
    send(type, e.object);
  };

  const end = (): void => {
    if (ended) return;
    ended = true;
    unsubscribe();
    for (const tm of timers) clearTimeout(tm);
    if (!res.writableEnded) res.end();
  };

  // Subscribe first, buffering, so no write between the history read and live delivery is lost.
  let live = false;
  const pending: StoreEvent[] = [];
  const unsubscribe = ctx.store.subscribe((e) => {
    if (e.group !== t.group || e.resource !== t.resource) return;
    if (live) deliver(e);
    else pending.push(e);
  });
  onEnd(end);
  res.on('close', end);

  if (initialEvents) {
    const snap = ctx.store.list(t.group, t.resource, ns);
    const rv = Number(snap.resourceVersion);
    // Store events meanwhile wait in `pending` (live is false), as during the history read.
    await paced(
      res,
      () => ended,
      snap.items,
      (o) => {
        if (!match || match(o)) send('ADDED', o);
      },
    );
    if (ended) return;
    lastRV = rv;
    if (initialEventsEnd) write(encoder.bookmark(String(rv), true));
  } else if (startRV !== undefined) {
    const events = ctx.store.eventsSince(startRV, t.group, t.resource);
    if (events === 'expired') {
      write(encoder.error(resourceVersionTooOld(startRV, ctx.store.oldestRV).toStatus()));
      end();
      return;
    }
    lastRV = startRV;
    for (const e of events) deliver(e);
  }
  for (const e of pending) deliver(e);
  live = true;
  if (lastRV === 0) lastRV = ctx.store.currentRV;

  if (bookmarks && ctx.options.bookmarkIntervalMs > 0) {
    const tick = (): void => {
      if (ended) return;
      // Every event up to the store's current revision has been delivered (delivery is synchronous).
      write(encoder.bookmark(String(Math.max(lastRV, ctx.store.currentRV))));
      timers.push(setTimeout(tick, ctx.options.bookmarkIntervalMs).unref());
    };
    timers.push(setTimeout(tick, ctx.options.bookmarkIntervalMs).unref());
  }
  if (timeoutS > 0) timers.push(setTimeout(end, timeoutS * 1000).unref());
}

/** Unsent bytes past which the initial events wait for the client to read (under MAX_UNSENT, which ends a watch). */
const INITIAL_HIGH_WATER = 1024 * 1024;
/** How long the initial events may hold the event loop at a time (the demo runs in the extension host). */
const SLICE_MS = 10;

/**
 * Calls `each` for every item, pausing while the response holds over INITIAL_HIGH_WATER unsent
 * bytes (until 'drain') and giving the event loop a turn every SLICE_MS: a watch-list's initial
 * events of 10k pods are tens of MB, which a synchronous loop would queue at once (past
 * MAX_UNSENT: the watch was cut) while holding the thread for the whole encoding.
 */
async function paced<T>(res: Exchange['res'], ended: () => boolean, items: readonly T[], each: (item: T) => void): Promise<void> {
  let start = performance.now();
  for (const item of items) {
    if (ended()) return;
    each(item);
    if (res.writableLength > INITIAL_HIGH_WATER) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
      start = performance.now();
    } else if (performance.now() - start > SLICE_MS) {
      await new Promise((r) => setImmediate(r));
      start = performance.now();
    }
  }
}

function inScope(t: Target, ns: string | undefined, o: DemoObject): boolean {
  return !t.namespaced || ns === undefined || o.metadata.namespace === ns;
}

/** The drop-watch-events fault, per watch: skip the first `count`, or a fraction, or every n-th. */
class EventDropper {
  private seen = 0;
  private dropped = 0;
  constructor(private readonly spec: Exchange['dropEvents']) {}
  shouldDrop(): boolean {
    const s = this.spec;
    if (!s) return false;
    this.seen++;
    if (s.everyNth && s.everyNth > 0) return this.seen % s.everyNth === 0;
    if (s.count !== undefined) {
      if (this.dropped < s.count) {
        this.dropped++;
        return true;
      }
      return false;
    }
    if (s.fraction !== undefined) {
      // Deterministic spread: drop when the running share of drops falls below the fraction.
      if (this.dropped < Math.floor(this.seen * s.fraction + 1e-9)) {
        this.dropped++;
        return true;
      }
    }
    return false;
  }
}
