/**
 * ListStream: the pages of one paged list, fetched by the transport's I/O thread (ioThread.ts) and
 * parsed here, on the calling thread, one by one as the caller asks for them.
 *
 * Guarantees:
 * - next() yields the pages in order: the body decoded as its Content-Type says (JSON.parse, or the
 *   protobuf walker: the same shape, narrowed to the kind's field set), its size, and the continue
 *   token the I/O thread read from the page's first bytes ('' after the last page; null when it could not read it,
 *   and then the stream is over and the caller goes on with the token of the parsed body).
 * - A page that is not a 2xx answer, or whose request failed (connection, reset, per-request
 *   timeout, a body past `maxBytes`), or whose body is not the JSON or protobuf it says it is, makes next() reject with the same typed error the transport
 *   would give for that request (KubeApiError / KubeTransportError), once: the stream is then over,
 *   and the caller may hand that error to getJson as the failed first attempt of the page (so
 *   retries, Retry-After and 401 refresh work as for any request).
 * - Rate limit: every request the I/O thread sends was granted a token first: the first at once,
 *   up to `window - 1` more if the bucket has them now, then one per page taken. Tokens granted for
 *   requests never sent are refunded when the stream ends.
 * - Credentials fetched for a later page (an exec plugin run) that fail end the stream: next()
 *   rejects with that error (a KubeConfigError naming the plugin), never an unhandled rejection.
 * - The caller's signal aborts the stream: next() rejects with its reason and the requests are
 *   destroyed. close() ends the stream at any time (idempotent; the caller must call it).
 * - Each page is parsed after asking the thread's slicer (slice.ts): a backlog of pages never holds
 *   the event loop for more than a slice plus one page.
 */
import type { HeaderMap, RequestAuth } from './auth';
import { apiErrorFromResponse, classifyTransportError, KubeTransportError, malformedJson } from '../errors';
import type { IoThread, StreamMessage } from './ioThread';
import type { RateLimiter } from './rateLimiter';
import { abortReason } from '../../clock';
import { hostSlicer } from '../../slice';
import { decodeProtobuf, isProtobuf } from '../protobuf';

export interface ListStreamSpec {
  path: string;
  /** Full URL of the first page, and the URL a continue token is appended to. */
  url: URL;
  next: URL;
  accept: string;
  signal?: AbortSignal;
  timeoutMs: number;
  /** A page whose decoded body outgrows this fails 'tooLarge' (TransportOptions.maxResponseBytes). */
  maxBytes: number;
  /** Request page N+1 as soon as page N's first bytes show its token (else when page N has ended). */
  prefetch: boolean;
  /** Called while pages arrive (about every 250 ms of a body, and per page), for idle timeouts. */
  onProgress?: () => void;
  /** The pages are Tables whose rows' managedFields the caller drops: the I/O thread cuts them (ioTable.ts). */
  trimTable?: boolean;
  /** The caller counts items, reading none: a protobuf page's items are walked for their bounds only (../protobuf Reading 'count'). */
  countsOnly?: boolean;
}

export interface StreamedPage {
  body: unknown;
  bytes: number;
  token: string | null;
  /** The body is the protobuf walker's (its Content-Type said protobuf), not JSON.parse's. */
  protobuf: boolean;
}

export interface ListStream {
  next(): Promise<StreamedPage>;
  close(): void;
}

/** What the stream needs of its transport. */
export interface StreamHost {
  io: IoThread;
  auth: RequestAuth;
  limiter: RateLimiter;
  stats: { requests: number; bytesReceived: number; wireBytes: number; gzipResponses: number; inFlight: number; streamedPages: number };
  headersFor(accept: string): Promise<HeaderMap>;
  /** Text of a JSON body; `ascii` when the body is known to be pure ASCII. */
  decode(body: Buffer, ascii?: boolean): string;
}

/** Pages a stream may have requested ahead of the one its caller takes. */
export const STREAM_WINDOW = 3;

type Delivered = Exclude<StreamMessage, { t: 'progress' }>;

/**
 * The stream's first grants: one token at once (waiting for it), up to STREAM_WINDOW - 1 more if
 * the bucket has them now; and the first request's headers. Nothing is kept on a failure or an
 * abort meanwhile (the tokens are refunded).
 */
async function firstGrants(h: StreamHost, spec: ListStreamSpec): Promise<{ granted: number; headers: HeaderMap }> {
  const { signal } = spec;
  await h.limiter.take(signal);
  let granted = 1;
  while (granted < STREAM_WINDOW && h.limiter.tryTake()) granted++;
  let headers: HeaderMap;
  try {
    headers = await h.headersFor(spec.accept);
  } catch (e) {
    h.limiter.refund(granted);
    throw e;
  }
  if (signal?.aborted) {
    h.limiter.refund(granted);
    throw abortReason(signal);
  }
  return { granted, headers };
}

/** A delivered message as its parsed page, or the typed error the transport would give for its request. */
function pageOf(h: StreamHost, spec: ListStreamSpec, m: Delivered): StreamedPage {
  const { path } = spec;
  if (m.t === 'fail') {
    if (m.kind !== 'connect') throw new KubeTransportError(m.kind, `GET ${path}: ${m.message}`, path);
    throw classifyTransportError(Object.assign(new Error(m.message), { code: m.code }), path);
  }
  spec.onProgress?.();
  // the page's size as the server sent it (a trimmed Table's too): what its cost and seats are read from
  const bytes = m.size;
  h.stats.bytesReceived += bytes;
  h.stats.wireBytes += m.wire;
  if (m.gzip) h.stats.gzipResponses++;
  if (m.status < 200 || m.status >= 300) throw apiErrorFromResponse(m.status, m.headers, m.body, path);
  // Asked for protobuf (listwatch/list.ts), a server may answer either: the Content-Type says which.
  if (isProtobuf(m.contentType)) {
    const d = decodeProtobuf(m.body, spec.countsOnly ? 'count' : 'rows');
    h.io.recycle(m.body); // the walker copies what it keeps: the buffer goes back to the worker
    if (!d.ok) throw new KubeTransportError('malformed', `GET ${path}: response is not valid Kubernetes protobuf (${d.error.message})`, path);
    return { body: d.value, bytes, token: m.token, protobuf: true };
  }
  let body: unknown;
  try {
    const text = h.decode(m.body, m.ascii);
    h.io.recycle(m.body); // the text is a copy: the buffer goes back to the worker
    body = JSON.parse(text);
  } catch (e) {
    throw new KubeTransportError('malformed', `GET ${path}: ${malformedJson(e, bytes, m.contentType)}`, path);
  }
  return { body, bytes, token: m.token, protobuf: false };
}

export async function openListStream(h: StreamHost, spec: ListStreamSpec): Promise<ListStream> {
  const { signal, path } = spec;
  const first = await firstGrants(h, spec);
  let granted = first.granted;
  h.io.useTls(h.auth.tls, h.auth.tlsVersion);

  const queue: Delivered[] = [];
  let waiter: { resolve: (m: Delivered) => void; reject: (e: unknown) => void } | undefined;
  let sent = 0;
  let open = true;
  let failed: unknown;
  const end = () => {
    if (!open) return;
    open = false;
    h.stats.inFlight--;
    signal?.removeEventListener('abort', onAbort);
    h.limiter.refund(granted - sent);
  };
  const close = () => {
    if (open) h.io.cancel(id);
    end();
  };
  const onAbort = () => {
    const reason = abortReason(signal!);
    close();
    failed ??= reason;
    waiter?.reject(reason);
    waiter = undefined;
  };
  const credentialsFailed = (e: unknown) => {
    if (!open || failed !== undefined) return;
    close();
    failed = e;
    waiter?.reject(e);
    waiter = undefined;
  };
  const id: number = h.io.openList(
    {
      url: spec.url.href,
      next: spec.next.href,
      headers: first.headers,
      grants: granted,
      prefetch: spec.prefetch,
      timeoutMs: spec.timeoutMs,
      maxBytes: spec.maxBytes,
      ...(spec.trimTable ? { trimTable: true } : {}),
    },
    (m) => {
      if (m.t === 'progress') return spec.onProgress?.();
      sent += m.sent;
      h.stats.requests += m.sent;
      if (m.end) end();
      if (waiter) {
        const w = waiter;
        waiter = undefined;
        w.resolve(m);
      } else queue.push(m);
    },
  );
  h.stats.inFlight++;
  signal?.addEventListener('abort', onAbort, { once: true });

  /**
   * One more request for the one a page freed, when the rate limiter allows. Fresh headers may mean
   * a credential refresh (an exec plugin run) that fails: that ends the stream with its error, which
   * the next next() gives the caller (never an unhandled rejection).
   */
  const grantOne = () =>
    h.limiter.take(signal).then(
      () => {
        if (!open) return h.limiter.refund(1);
        granted++;
        return h.headersFor(spec.accept).then(
          (hd) => h.io.grant(id, 1, hd),
          (e: unknown) => credentialsFailed(e),
        );
      },
      () => {},
    );
  const toPage = (m: Delivered): StreamedPage => {
    const page = pageOf(h, spec, m);
    if (open) void grantOne();
    h.stats.streamedPages++;
    return page;
  };

  return {
    next(): Promise<StreamedPage> {
      if (failed !== undefined) return Promise.reject(failed);
      const settle = (m: Delivered) => {
        try {
          return toPage(m);
        } catch (e) {
          failed = e;
          close();
          throw e;
        }
      };
      // A page is parsed in a slice of the thread (slice.ts): pages the I/O thread queued, or
      // delivered in one burst of its messages, would otherwise be parsed back to back in one
      // turn of the event loop (seconds of a million-object cluster's lists on the extension host).
      const sliced = (m: Delivered) => {
        const wait = hostSlicer.due();
        return wait ? wait.then(() => settle(m)) : settle(m);
      };
      const m = queue.shift();
      if (m) return Promise.resolve(m).then(sliced);
      if (!open) return Promise.reject(new KubeTransportError('reset', `GET ${path}: list stream already ended`, path));
      return new Promise<Delivered>((resolve, reject) => (waiter = { resolve, reject })).then(sliced);
    },
    close,
  };
}
