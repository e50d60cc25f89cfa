/**
 * Paged LIST, after client-go's tools/pager/pager.go.
 *
 * Guarantees:
 * - Pages are requested with `limit` and followed by `continue` until the continue token is empty.
 *   A page may hold fewer items than the limit, or none: only the token ends the list.
 * - Continuation requests carry no resourceVersion / resourceVersionMatch (the token encodes the
 *   snapshot; the server rejects both together), exactly as the pager clears them.
 * - A 410 Expired on a continuation (the snapshot was compacted away mid-list) restarts the list:
 *   a fresh *paged* list from the first page, the pages received so far discarded first, so no
 *   object is doubled, at most MAX_LIST_RESTARTS times; one more 410 fails the list with a message
 *   that says so. Never one unpaged list instead: client-go's pager (FullListIfExpired) does that,
 *   and for a huge type it is the one response the server and this process can least afford, with
 *   no page boundary to retry from when it times out. The restart reads at the requested
 *   resourceVersion, or at "" (most recent) when that was an exact one, now as gone as the token
 *   (client-go's reflector relists from "" for the same reason). A 410 on the first page is an
 *   error, as upstream.
 * - A walk ends: a continue token given twice, or a long run of pages without items, fails the list
 *   ('noProgress', pageProgress.ts) instead of requesting for ever.
 * - Items are pushed into the caller's `sink` page by page, in order, so on a failure the caller
 *   still holds what was received (marked partial by the loader) and the page's raw bytes are gone.
 * - Pipelining: the continue token sits in a typed list's leading metadata, so page N+1 is requested
 *   as soon as page N's first bytes arrive (continueFromHead); for a custom resource's list (items
 *   first) the I/O thread requests it when page N's body has ended, before N is parsed. Either way
 *   the server's work on N+1 overlaps the transfer and parse of N. At most one page is in flight
 *   ahead of the one being consumed;
 *   a prefetched page that turns out unneeded (error, token mismatch) is aborted. Set pipeline:false
 *   for strictly sequential pages.
 * - Where the transport has an I/O thread, that thread walks the pages of full and Table lists
 *   (../transport/listStream.ts) and this one only parses them, so the chain of requests does not
 *   wait for parsing; a Table page arrives without its rows' managedFields (unless asked for). A page the stream cannot
 *   deliver (an error answer, a failed request) is taken over by this thread from that page on, its
 *   failure counting as the first attempt: retries, Retry-After, the 410 fallback and 401 refresh are
 *   the same either way.
 * - Memory: managedFields are dropped (large, and nothing we show uses them) unless asked for; in
 *   metadata-only mode an item keeps only its metadata, whether or not the server honoured the
 *   PartialObjectMetadataList Accept header.
 * - Table transfer (`transfer: 'table'`): every page is asked for as a Table with
 *   includeObject=Metadata (the parameter rides on continuation requests too, so the token walks
 *   the same Table list); its rows become metadata items carrying their cells (table.ts). A server
 *   that answers a plain list instead gives full objects, kept as such: nothing is lost.
 */
import { capObjectDepth, depthNotices } from '../objects/depth';
import { compactManagedFields } from '../objects/managers';
import { KubeApiError, KubeTransportError } from '../errors';
import { resourcePath } from './paths';
import type { StreamedPage } from '../transport/listStream';
import { PageProgress } from './pageProgress';
import { continueFromProtobufHead, isProtobuf, PROTOBUF_ACCEPT, PROTOBUF_METADATA_LIST_ACCEPT, readsProtobuf } from '../protobuf';
import { isTableBody, TABLE_ACCEPT, TABLE_INCLUDE_OBJECT, tableItems } from './table';
import type { KubeTransport, RetryInfo } from '../transport/transport';
import type { GroupVersionResource, KubeObject, ListMeta } from '../objects/types';

/** Restarts of a paged list after its continue token expired; one more 410 is the list's error. */
export const MAX_LIST_RESTARTS = 3;

export const METADATA_ONLY_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size; 0 or unset = a single unpaged list. */
  limit?: number;
  /** Unset = most recent (a consistent read); '0' = any (may come from the watch cache). */
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  metadataOnly?: boolean;
  /**
   * What each item carries: 'full' objects (default), 'metadata' (PartialObjectMetadataList; the
   * same as metadataOnly) or 'table' (Table rows with includeObject=Metadata: metadata plus the
   * printer's cells, see table.ts). metadataOnly: true wins over this.
   */
  transfer?: ListTransfer;
  /**
   * Keep metadata.managedFields: whole (true), or in their compact form ('compact':
   * ../objects/managers.ts, who wrote each version; what a recording keeps). Either asks for JSON.
   */
  keepManagedFields?: ManagedFieldsKept;
  /** Per-request deadline (ms), overriding the transport's. */
  requestTimeoutMs?: number;
  /** Request page N+1 as soon as its continue token is visible in page N's first bytes. Default true. */
  pipeline?: boolean;
  /**
   * Ask for protobuf where the walker reads it (../protobuf: full objects of the kinds with a field
   * set, metadata-only lists of any type); the answer is read as its Content-Type says, so a server
   * that answers JSON still works, on the calling thread and on the I/O thread alike. Default true;
   * off with keepManagedFields, 'compact' too: a list's pages are walked by the transport, which
   * keeps no managers (a watch's frames are walked with them: WatchOptions.keepManagedFields).
   */
  protobuf?: boolean;
  /**
   * The caller reads rows of the items (the loader), never a ConfigMap's data or a Secret's values:
   * those two kinds are then asked for in protobuf too, and walked without their data
   * (../protobuf/fieldsets.ts). Unset, their full objects come as JSON, data and all.
   */
  rowsOnly?: boolean;
  /**
   * Metadata-only pages go through the I/O thread's stream too, on its connections (a load that
   * warmed them: `kubeloop load`). Unset, they are walked on the calling thread, which costs less
   * CPU for them (see walkStream) but dials that thread's own connections.
   */
  streamMetadata?: boolean;
  /**
   * The caller reads how many items each page holds, never an item (a loader whose objects are all
   * let go: `kubeloop load`): a protobuf page, on either thread, has each item bounds-checked and
   * skipped, an empty object in its place; nothing of an object is decoded. The counts, pages and
   * requests are those of the same list read whole.
   */
  countsOnly?: boolean;
}

export type ListTransfer = 'full' | 'metadata' | 'table';

export interface ListHooks {
  signal?: AbortSignal;
  /** Receives every item as its page is parsed (truncated to empty when a 410 restarts the list). */
  sink?: KubeObject[];
  onPage?: (page: { index: number; items: number; bytes: number; more: boolean }) => void;
  onRetry?: (info: RetryInfo) => void;
  /** Called as the body of any page arrives (every chunk here, about once a second per stream on the I/O thread). */
  onProgress?: () => void;
  /** Called when a 410 on a continuation makes the list start over from its first page (the sink is emptied first). */
  onFallback?: (error: KubeApiError) => void;
}

export interface ListResult {
  items: KubeObject[];
  /** The list's resourceVersion: where a watch of the same selection starts. */
  resourceVersion: string;
  pages: number;
  retries: number;
  bytes: number;
  /** True when a continue token expired and the list was restarted (see `restarts`). */
  fellBackToFullList: boolean;
  /** How many times the paged list was restarted from its first page after a 410 (<= MAX_LIST_RESTARTS). */
  restarts?: number;
}

interface ListBody {
  kind?: string;
  apiVersion?: string;
  metadata?: ListMeta;
  items?: unknown[] | null;
}

/** What an item keeps of metadata.managedFields: nothing (false), all (true), or their compact form. */
export type ManagedFieldsKept = boolean | 'compact';

/**
 * An item as it is kept: managedFields dropped unless asked for (in their compact form with 'compact'), cut at MAX_OBJECT_DEPTH
 * (../objects/depth.ts). `schemaBound`: the protobuf walker built it, and no object it builds nests
 * that deep (no field set reaches a recursive message or parsed JSON: kube-protobuf-depth.test.ts),
 * so the walk over every member that would find nothing to cut is skipped.
 */
export function compactItem(
  raw: unknown,
  metadataOnly: boolean,
  keepManagedFields: ManagedFieldsKept,
  schemaBound = false,
  /** The walker read managedFields in their compact form already (a watch's frames with 'compact'). */
  managersCompact = false,
): KubeObject {
  const o = raw as KubeObject;
  const meta = o.metadata ?? {};
  if (meta.managedFields && keepManagedFields !== true && !(keepManagedFields === 'compact' && managersCompact)) {
    const compact = keepManagedFields === 'compact' ? compactManagedFields(meta.managedFields) : undefined;
    if (compact) meta.managedFields = compact;
    else delete meta.managedFields;
  }
  const kept = metadataOnly ? { metadata: meta } : o;
  // named by the whole object: a metadata-only one has no kind of its own
  if (!schemaBound && capObjectDepth(kept) > 0) depthNotices.report(o);
  return kept;
}

/**
 * The continue token of a list response, read from the first bytes of its body: kube-apiserver
 * encodes a typed list (every built-in type) as kind, apiVersion, metadata, then items, so the token
 * is known long before the items have arrived. Returns the token ('' = this is the last page) once
 * `"items"` is in view, or undefined while it cannot tell. An unstructured list (custom resources:
 * a Go map, keys sorted: apiVersion, items, kind, metadata) has its token at the end: undefined
 * here (the I/O thread reads it from the body's tail and requests the next page before parsing).
 */
export function continueFromHead(head: string): string | undefined {
  // A protobuf list (its magic "k8s\0" first) has its token up front as well.
  if (head.startsWith('k8s\0')) return continueFromProtobufHead(Buffer.from(head, 'latin1'));
  // A Table (kind, apiVersion, metadata, columnDefinitions, rows) has its token up front too.
  let itemsAt = -1;
  for (const marker of ['"items"', '"columnDefinitions"', '"rows"']) {
    const at = head.indexOf(marker);
    if (at >= 0 && (itemsAt < 0 || at < itemsAt)) itemsAt = at;
  }
  if (itemsAt < 0) return undefined;
  // Items before metadata (an unstructured list: custom resources, keys sorted): the token is at the end.
  if (head.lastIndexOf('"metadata"', itemsAt) < 0) return undefined;
  const m = /"continue"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(head.slice(0, itemsAt));
  if (!m) return '';
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return undefined;
  }
}

/** What the walk keeps of a streamed page once taken: its continue token, and the one the stream read. */
interface StreamedNext {
  next: string;
  items: number;
  token: string | null;
}

interface Page {
  items: KubeObject[];
  next: string;
  bytes: number;
  resourceVersion?: string;
}

/**
 * One page request, and possibly its successor: when `prefetch` is on and the continue token shows
 * up in this page's leading bytes, the next page is requested at once, so the server builds page
 * N+1 while page N is still arriving and being parsed. At most one page is fetched ahead.
 */
interface Fetch {
  query: Record<string, string | number | undefined>;
  promise: Promise<Page>;
  ac: AbortController;
  /** Token seen early in this page's body, if any. */
  peeked?: string;
  /** The successor already requested with `peeked`. */
  ahead?: Fetch;
  /** True while this fetch is the one the consumer waits for (only it may start a successor). */
  current: boolean;
}

export async function listAll(t: KubeTransport, gvr: GroupVersionResource, opts: ListOptions = {}, hooks: ListHooks = {}): Promise<ListResult> {
  const path = resourcePath(gvr, opts.namespace);
  const items = hooks.sink ?? [];
  const transfer: ListTransfer = opts.metadataOnly ? 'metadata' : (opts.transfer ?? 'full');
  const accept = listAccept(gvr, transfer, opts);
  let columns: readonly string[] | undefined;
  const result: ListResult = { items, resourceVersion: '', pages: 0, retries: 0, bytes: 0, fellBackToFullList: false, restarts: 0 };
  const onRetry = (info: RetryInfo) => {
    result.retries++;
    hooks.onRetry?.(info);
  };
  // includeObject rides with the selectors: on the first page, every continuation and every restart.
  const selectors = { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector, ...(transfer === 'table' ? TABLE_INCLUDE_OBJECT : {}) };
  const limit = opts.limit && opts.limit > 0 ? opts.limit : undefined;
  const prefetch = limit !== undefined && opts.pipeline !== false;
  const contQuery = (token: string) => ({ ...selectors, limit, continue: token });

  const toPage = (b: unknown, bytes: number, walked: boolean): Page => {
    const page = pageOf(b, bytes, path, transfer, columns, opts.keepManagedFields ?? false, walked);
    columns = page.columns ?? columns;
    return page;
  };
  const { start, launchAhead, dropAhead } = pageRequests(t, { path, accept, prefetch, opts, hooks, onRetry, contQuery, toPage });
  const take = (page: Page) => {
    for (let i = 0; i < page.items.length; i++) items.push(page.items[i]);
    result.pages++;
    result.bytes += page.bytes;
    result.resourceVersion = page.resourceVersion ?? result.resourceVersion;
    hooks.onPage?.({ index: result.pages - 1, items: page.items.length, bytes: page.bytes, more: page.next !== '' });
  };

  /**
   * A streamed page parsed, made items and taken in one synchronous step, off this async function's
   * frame: a suspended async function keeps its locals, so a page held in one would stay alive
   * through the wait for the next page (promoted by the young generation's collections, with every
   * list in flight holding one). Only the tokens come back.
   */
  const takeStreamed = (p: StreamedPage): StreamedNext => {
    const page = toPage(p.body, p.bytes, p.protobuf);
    take(page);
    return { next: page.next, items: page.items.length, token: p.token };
  };

  /**
   * One walk of the list from its first page (`first`). Resolves 'done' when the last page has been
   * taken, or with the 410 of an expired continue token (the caller restarts); throws anything else.
   */
  const walk = async (first: Fetch['query']): Promise<'done' | KubeApiError> => {
    // The I/O thread's stream first; the loop below takes over at the page it could not deliver.
    const progress = new PageProgress(path);
    const streamed =
      limit !== undefined && (transfer !== 'metadata' || opts.streamMetadata)
        ? await walkStream(
            t,
            { path, accept, trimTable: transfer === 'table' && !opts.keepManagedFields, first, nextQuery: { ...selectors, limit }, prefetch, opts, hooks },
            takeStreamed,
            contQuery,
            progress,
          )
        : undefined;
    if (streamed === 'done') return 'done';
    const { from, prior, isContinuation: streamedOn } = streamed ?? { from: first, prior: undefined, isContinuation: false };
    let isContinuation = streamedOn;
    let cur = start(from, true, prior);
    for (;;) {
      let page: Page;
      try {
        page = await cur.promise;
      } catch (e) {
        dropAhead(cur);
        if (isContinuation && e instanceof KubeApiError && e.isExpired) return e;
        throw e;
      }
      try {
        take(page);
        progress.check(page.items.length, page.next);
      } catch (e) {
        dropAhead(cur); // the caller's hook refused the page, or the walk would not end: no request may outlive the list
        throw e;
      }
      if (!page.next) {
        dropAhead(cur);
        return 'done';
      }
      isContinuation = true;
      let next = cur.ahead;
      if (!next || cur.peeked !== page.next) {
        // No early token (or, defensively, a different one than the parsed body says): fetch it now.
        dropAhead(cur);
        next = start(contQuery(page.next), true);
      }
      next.current = true;
      launchAhead(next); // its token may already be known
      cur = next;
    }
  };

  if (limit === undefined) {
    // Unpaged: one request, no continue token that could expire.
    await walk(cont0(selectors, limit, opts));
    return result;
  }
  await walkRestarting(walk, path, (first) => cont0(selectors, limit, first), opts, hooks, result);
  return result;
}

interface PageRequestContext {
  path: string;
  accept: string;
  prefetch: boolean;
  opts: ListOptions;
  hooks: ListHooks;
  onRetry: (info: RetryInfo) => void;
  contQuery: (token: string) => Fetch['query'];
  /** `walked`: the body is the protobuf walker's (its depth bounded by the schema), not JSON.parse's. */
  toPage: (body: unknown, bytes: number, walked: boolean) => Page;
}

/**
 * The page requests of one list: each aborted with the caller's signal (and its listener removed
 * when it settles), and, with `prefetch`, at most one successor requested as soon as its continue
 * token shows in the leading bytes of the page the consumer waits for. `dropAhead` aborts every
 * successor of a fetch, so no request outlives the list.
 */
function pageRequests(t: KubeTransport, c: PageRequestContext) {
  const { path, accept, prefetch, opts, hooks, onRetry, contQuery, toPage } = c;
  const start = (query: Fetch['query'], current: boolean, prior?: KubeApiError | KubeTransportError): Fetch => {
    const ac = new AbortController();
    const outer = hooks.signal;
    const onAbort = () => ac.abort(outer!.reason);
    if (outer?.aborted) ac.abort(outer.reason);
    else outer?.addEventListener('abort', onAbort, { once: true });
    const f: Fetch = { query, ac, current, promise: undefined as unknown as Promise<Page> };
    const peek = prefetch
      ? (head: string) => {
          const token = continueFromHead(head);
          if (token === undefined) return false;
          if (token && f.peeked === undefined) {
            f.peeked = token;
            if (f.current) launchAhead(f);
          }
          return true;
        }
      : undefined;
    f.promise = t
      .getJson<ListBody>(
        { path, query, accept, signal: ac.signal, onRetry, timeoutMs: opts.requestTimeoutMs, peek, onProgress: hooks.onProgress, countsOnly: opts.countsOnly },
        prior,
      )
      .then((res) => toPage(res.body, res.bytes, isProtobuf(res.contentType)))
      .finally(() => outer?.removeEventListener('abort', onAbort));
    f.promise.catch(() => {}); // a prefetched page's failure is handled when (if) the consumer reaches it
    return f;
  };
  const launchAhead = (f: Fetch) => {
    if (f.peeked && !f.ahead) f.ahead = start(contQuery(f.peeked), false);
  };
  const dropAhead = (f: Fetch | undefined) => {
    for (let a = f?.ahead; a; a = a.ahead) a.ac.abort(new Error('prefetched page not needed'));
  };
  return { start, launchAhead, dropAhead };
}

/**
 * Walks a paged list, restarting it from its first page when a continue token expires (410), at
 * most MAX_LIST_RESTARTS times (see the guarantees above); `result` says how often.
 */
async function walkRestarting(
  walk: (first: Fetch['query']) => Promise<'done' | KubeApiError>,
  path: string,
  firstQuery: (o: ListOptions) => Fetch['query'],
  opts: ListOptions,
  hooks: ListHooks,
  result: ListResult,
): Promise<void> {
  let first = firstQuery(opts);
  for (let restarts = 0; ; restarts++) {
    const end = await walk(first);
    if (end === 'done') return;
    // The continue token expired mid-list: what we hold is from a snapshot that no longer exists.
    if (restarts >= MAX_LIST_RESTARTS) {
      throw new KubeApiError(
        410,
        end.reason,
        `GET ${path}: the continue token expired ${restarts + 1} times in a row; the list was restarted ${restarts} times and never finished within the server's compaction window (last answer: ${end.message})`,
        undefined,
        path,
      );
    }
    hooks.onFallback?.(end);
    result.items.length = 0;
    result.fellBackToFullList = true;
    result.restarts = restarts + 1;
    // A fresh paged list. A specific resourceVersion read exactly is as gone as the token was, so
    // the restart asks for the most recent state ("", a consistent read), as the reflector relists.
    const exact = !!opts.resourceVersion && opts.resourceVersion !== '0' && opts.resourceVersionMatch !== 'NotOlderThan';
    first = exact ? firstQuery({}) : firstQuery(opts);
  }
}

/** Where the walk goes on after the I/O thread's stream: the page it could not deliver, and that failure. */
interface AfterStream {
  from: Fetch['query'];
  prior: KubeApiError | KubeTransportError | undefined;
  isContinuation: boolean;
}

/**
 * The pages the I/O thread walks (../transport/listStream.ts), taken in order; 'done' after the
 * last, else where the calling thread takes over. Full objects and Tables: a Table's rows come
 * without their managedFields, cut on the thread (`trimTable`, ../transport/ioTable.ts), so this
 * thread parses a fraction of the page's bytes. Metadata-only lists only with `streamMetadata` (a
 * counting load's, for the lanes' warmed connections): protobuf, walked quickly here, and there the
 * thread costs more than it saves (measured: metadata-only load of 100k objects 0.82 s on this
 * thread, 0.96 s on the I/O thread). Its pages are asked for as the calling
 * thread's are (`accept`: protobuf where the walker reads it) and decoded by their Content-Type.
 */
async function walkStream(
  t: KubeTransport,
  s: {
    path: string;
    accept: string;
    trimTable?: boolean;
    first: Fetch['query'];
    nextQuery: Fetch['query'];
    prefetch: boolean;
    opts: ListOptions;
    hooks: ListHooks;
  },
  takeStreamed: (p: StreamedPage) => StreamedNext,
  contQuery: (token: string) => Fetch['query'],
  progress: PageProgress,
): Promise<AfterStream | 'done'> {
  let from = s.first;
  let prior: KubeApiError | KubeTransportError | undefined;
  let isContinuation = false;
  const stream = await t.openListStream({
    path: s.path,
    query: from,
    nextQuery: s.nextQuery,
    accept: s.accept,
    ...(s.trimTable ? { trimTable: true } : {}),
    ...(s.opts.countsOnly ? { countsOnly: true } : {}),
    signal: s.hooks.signal,
    prefetch: s.prefetch,
    timeoutMs: s.opts.requestTimeoutMs,
    onProgress: s.hooks.onProgress,
  });
  if (!stream) return { from, prior, isContinuation };
  try {
    for (;;) {
      // The stream's failure is the page's first attempt (on the calling thread); a failure to take
      // the page (a body that is no list, the caller's hook) is the list's, as on the calling thread.
      const next = await stream.next().then(takeStreamed, (e: unknown) => ({ failed: e }));
      if ('failed' in next) {
        if (!(next.failed instanceof KubeApiError || next.failed instanceof KubeTransportError)) throw next.failed; // the caller's abort
        prior = next.failed;
        break;
      }
      if (!next.next) return 'done';
      progress.check(next.items, next.next);
      isContinuation = true;
      from = contQuery(next.next);
      if (next.token !== next.next) break; // the stream could not read this page's token: go on here
    }
  } finally {
    stream.close();
  }
  return { from, prior, isContinuation };
}

/**
 * A page's body (JSON.parse of it, or the protobuf walker's object: the same shape) made items:
 * compacted (compactItem), typed from the list's kind, or Table rows made items (table.ts).
 */
function pageOf(
  b: unknown,
  bytes: number,
  path: string,
  transfer: ListTransfer,
  columns: readonly string[] | undefined,
  keepManagedFields: ManagedFieldsKept,
  walked: boolean,
): Page & { columns?: readonly string[] } {
  const body = b as ListBody;
  const metadataOnly = transfer === 'metadata';
  if (transfer === 'table' && isTableBody(body)) {
    const t = tableItems(body, columns, path);
    for (const o of t.items) compactItem(o, false, keepManagedFields);
    return { items: t.items, next: body.metadata?.continue ?? '', bytes, resourceVersion: body.metadata?.resourceVersion, columns: t.columns };
  }
  if (!body || typeof body !== 'object' || (body.items !== undefined && body.items !== null && !Array.isArray(body.items))) {
    throw new KubeTransportError('malformed', `GET ${path}: response is not a list (no items array)`, path);
  }
  const page = body.items ?? [];
  const out: KubeObject[] = new Array(page.length);
  for (let i = 0; i < page.length; i++) out[i] = compactItem(page[i], metadataOnly, keepManagedFields, walked);
  // A typed list (every built-in type) leaves apiVersion and kind out of its items; put them
  // back from the list's own, as client-go's unstructured decoding does, so an object reads
  // the same whether it came from a list or a watch event.
  const kind = !metadataOnly && body.kind?.endsWith('List') ? body.kind.slice(0, -4) : undefined;
  if (kind) for (const o of out) if (o.kind === undefined) ((o.kind = kind), (o.apiVersion ??= body.apiVersion));
  return { items: out, next: body.metadata?.continue ?? '', bytes, resourceVersion: body.metadata?.resourceVersion };
}

/** The Accept header of a list's pages: protobuf first where the walker reads the answer (ListOptions.protobuf). */
function listAccept(gvr: GroupVersionResource, transfer: ListTransfer, opts: ListOptions): string {
  const protobuf = opts.protobuf !== false && !opts.keepManagedFields;
  if (transfer === 'table') return TABLE_ACCEPT;
  if (transfer === 'metadata') return protobuf ? PROTOBUF_METADATA_LIST_ACCEPT : METADATA_ONLY_ACCEPT;
  return protobuf && readsProtobuf(gvr, opts.rowsOnly) ? PROTOBUF_ACCEPT : 'application/json';
}

function cont0(selectors: { labelSelector?: string; fieldSelector?: string }, limit: number | undefined, opts: ListOptions) {
  return { ...selectors, limit, resourceVersion: opts.resourceVersion, resourceVersionMatch: opts.resourceVersionMatch };
}
