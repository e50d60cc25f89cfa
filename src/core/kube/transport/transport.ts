/**
 * KubeTransport: the one HTTP(S) path to an API server for a whole load (or a whole sync loop).
 *
 * Guarantees:
 * - One keep-alive agent (see auth.ts) carries every request of this thread; paged lists (but
 *   metadata-only ones not streamed, list.ts) are walked on the transport's channel of the
 *   process's I/O thread (ioThread.ts, listStream.ts),
 *   with a keep-alive agent of the channel's own (this transport's TLS material and proxy).
 *   close() destroys both (the channel's sockets in the thread; the thread itself once no other
 *   transport uses it), so no socket outlives the transport.
 * - Every request takes an AbortSignal that really aborts: the request (and its socket) is destroyed
 *   at once, whether it is connecting, waiting for headers or streaming the body, and the promise
 *   rejects with the signal's reason. Listeners and timers are released on every outcome.
 * - Every attempt first takes a token from the client-side rate limiter (as client-go does, retries
 *   included); every wait (rate limit, Retry-After, backoff) goes through the Clock and is abortable.
 * - Non-2xx answers become KubeApiError (status, reason, message, retryAfterSeconds from the Status
 *   body and Retry-After); a reset connection, a per-request timeout or a body that is not JSON
 *   become KubeTransportError. Retries follow retry.ts and are bounded.
 * - A JSON body is collected as Buffer chunks and parsed once; the raw bytes are not retained.
 * - Compression: every request asks for gzip (`Accept-Encoding: gzip`, as client-go's transport
 *   does; kube-apiserver compresses answers above 128 KiB) unless `disableCompression`. A gzip body
 *   is inflated by zlib's streaming inflater, which runs in libuv's thread pool in small steps: no
 *   synchronous inflate ever blocks this thread. Paged lists are inflated on the I/O thread. A body
 *   that does not inflate is a 'malformed' failure; an encoding we did not ask for is one too.
 *   stats.wireBytes counts body bytes as they came off the socket, stats.bytesReceived the decoded.
 * - Bounded bodies: no body is read past maxResponseBytes of decoded bytes (so a gzip bomb stops at
 *   the cap, whatever its wire size), on either thread; a Content-Length past it fails at the
 *   headers. Either is a 'tooLarge' KubeTransportError, not retried, and the socket is destroyed.
 */
import type * as http from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { agentRequest } from './agentRequest';
import { abortReason, realClock, type Clock, type TimerHandle } from '../../clock';
import { createRequestAuth, tunnels, type HeaderMap, type RequestAuth } from './auth';
import {
  apiErrorFromResponse,
  classifyTransportError as classify,
  KubeApiError,
  KubeConfigError,
  KubeTransportError,
  malformedJson,
  responseTooLarge,
} from '../errors';
import { IoThread } from './ioThread';
import { openListStream, type ListStream, type ListStreamSpec } from './listStream';
import type { KubeContext } from '../config/kubeconfig';
import { isLoopbackHost, proxyEnvironment, resolveProxy } from './proxy';
import { createRateLimiter, DEFAULT_BURST, DEFAULT_QPS, type RateLimiter } from './rateLimiter';
import { decideRetry, DEFAULT_RETRY_POLICY, type RetryPolicy, type RetryState } from './retry';
import { distanceRttMs, LOOPBACK_TUNNEL_MIN_RTT_MS, noteRtt, observeRtt } from './rtt';
import { pageTurn } from './turns';
import { decodeProtobuf, isProtobuf } from '../protobuf';

/** A body at least this long waits for its turn before it is parsed (turns.ts); a smaller one parses at once. */
const TURN_BYTES = 64 * 1024;

export interface TransportOptions {
  clock?: Clock;
  /** Client-side rate limit; qps <= 0 disables it. Defaults 50 / 300 (see rateLimiter.ts). */
  qps?: number;
  burst?: number;
  /** Deadline for one request (headers and body), ms; 0 or unset = none. A timed-out request is retried. */
  requestTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  userAgent?: string;
  /**
   * Walk paged lists on an I/O thread (default: true unless a clock other than the real one is
   * given, since the thread keeps real time). A cluster behind an http(s) proxy keeps it (the
   * thread tunnels through the proxy too); only a socks proxy-url turns it off.
   */
  ioThread?: boolean;
  /**
   * Where HTTPS_PROXY / HTTP_PROXY / NO_PROXY (and their lower-case forms) are read; default
   * process.env. The cluster's proxy-url takes precedence (see proxy.ts).
   */
  env?: NodeJS.ProcessEnv;
  /**
   * true: never ask for gzip (kubectl's --disable-compression); false: always ask; unset: the
   * kubeconfig's disable-compression, else as wantsGzip() decides (not for a server on this machine).
   */
  disableCompression?: boolean;
  /**
   * The most decoded (inflated) bytes one response body may have, on either thread; a body that
   * outgrows it fails 'tooLarge' and its socket is destroyed. Default DEFAULT_MAX_RESPONSE_BYTES.
   */
  maxResponseBytes?: number;
}

/**
 * 512 MiB. client-go reads a body whole with no limit of its own (memory is its bound); here a body
 * becomes one string for JSON.parse, and V8 cannot make a string much past 512 Mi characters
 * (buffer.constants.MAX_STRING_LENGTH), so a larger body could never load: the cap fails it early,
 * by name, before it has cost that memory. A page of a paged list is far smaller (500 objects).
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 512 * 1024 * 1024;

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestSpec {
  /** Absolute API path, e.g. /api/v1/pods. */
  path: string;
  query?: Query;
  accept?: string;
  signal?: AbortSignal;
  /** Overrides the transport's requestTimeoutMs for this request; 0 = none. */
  timeoutMs?: number;
  /** Called before each retry sleep. */
  onRetry?: (info: RetryInfo) => void;
  /**
   * Sees the start of a 2xx body (latin1, up to 4 KB) as it streams in, before the body is complete;
   * called per chunk until it returns true. The paged list uses it to read the continue token from
   * the list's leading metadata and request the next page early.
   */
  peek?: (head: string) => boolean;
  /** Called for every chunk of the body received (progress for idle timeouts). Must be cheap. */
  onProgress?: () => void;
  /** A protobuf list's items are counted, not decoded (../protobuf Reading 'count'; ListOptions.countsOnly). */
  countsOnly?: boolean;
}

/** A streaming body (a watch): the decoded bytes; `complete` once the whole response has arrived; its Content-Type. */
export type StreamBody = Readable & { readonly complete: boolean; readonly contentType?: string };

export interface RetryInfo {
  attempt: number; // 1 for the first retry
  delayMs: number;
  kind: 'retry-after' | 'backoff' | 'auth';
  error: KubeApiError | KubeTransportError;
}

export interface JsonResponse<T> {
  status: number;
  contentType: string;
  body: T;
  bytes: number;
  retries: number;
}

export interface TransportStats {
  requests: number;
  retries: number;
  /** Body bytes after decoding (inflated), of complete non-streaming answers, both threads. */
  bytesReceived: number;
  /** The same bodies' bytes as received on the wire (compressed when gzip; = bytesReceived otherwise). */
  wireBytes: number;
  /** Answers that came gzip-encoded (of those counted above). */
  gzipResponses: number;
  inFlight: number;
  /** List pages delivered by the I/O thread (the rest came through this thread). */
  streamedPages: number;
  /**
   * The smallest round-trip time to the server seen so far, ms (see rtt.ts); undefined before the
   * first sample. Never below the true RTT: every sample is a lower-bounded measure of it.
   */
  rttMs?: number;
  /** The same minimum over request samples only (rtt.ts): how a loopback address's distance is judged. */
  requestRttMs?: number;
  /** RTT samples taken from the handshakes of connections warmed on the I/O thread (preconnect). */
  warmSamples?: number;
  /** The warm probe (preconnect): sent, answered with a sample, or failed. */
  warmProbe?: 'sent' | 'answered' | 'failed';
  /** 429 answers seen (every request, both threads; each retried one counts again). */
  throttled: number;
  /** The Retry-After of those answers, in seconds, summed (what the server asked this client to wait). */
  retryAfterSeconds: number;
  /** The flow schema and priority level the server's API Priority and Fairness last reported (see flowControlOf). */
  flowControl?: FlowControlSeen;
}

/** The UIDs of X-Kubernetes-PF-FlowSchema-UID / X-Kubernetes-PF-PriorityLevel-UID on an answer. */
export interface FlowControlSeen {
  flowSchemaUID: string;
  priorityLevelUID: string;
}

/**
 * What kube-apiserver's API Priority and Fairness says it classified a request as: every answer it
 * gives a request that went through APF carries both headers (k8s.io/api flowcontrol/v1
 * ResponseHeaderMatched*UID). None with APF off, from an older server, or for an exempt path.
 */
export function flowControlOf(headers: http.IncomingHttpHeaders): FlowControlSeen | undefined {
  const fs = headers['x-kubernetes-pf-flowschema-uid'];
  const pl = headers['x-kubernetes-pf-prioritylevel-uid'];
  return typeof fs === 'string' && typeof pl === 'string' && fs !== '' && pl !== '' ? { flowSchemaUID: fs, priorityLevelUID: pl } : undefined;
}

/** The content coding of an answer: 'gzip', 'identity', or what else the server said (unsupported). */
export function contentCoding(headers: http.IncomingHttpHeaders): string {
  const v = String(headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  return v === '' || v === 'identity' ? 'identity' : v === 'x-gzip' ? 'gzip' : v;
}

const USER_AGENT = 'kubeloop/0.1 (node)';
/** See wantsGzip(): a loopback server this far away is reached through a tunnel (rtt.ts). */
export const LOOPBACK_GZIP_MIN_RTT_MS = LOOPBACK_TUNNEL_MIN_RTT_MS;
const PEEK_BYTES = 4096;

export function buildUrl(server: URL, path: string, query?: Query): URL {
  const url = new URL(server.pathname.replace(/\/+$/, '') + path, server);
  if (query) for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  return url;
}

/**
 * The text of a JSON body, which API servers send as UTF-8. A body known to be pure ASCII (the I/O
 * thread checks each page, off the parsing thread) is copied as latin1, which gives the same string
 * without UTF-8 decoding. Checking here instead, on the parsing thread, costs what it saves.
 */
export function decodeBody(body: Buffer, ascii = false): string {
  return ascii ? body.toString('latin1') : body.toString('utf8');
}

/** Failures of a request sent on a reused keep-alive socket before any answer (see openStream). */
const staleSocketFailures = new WeakSet<object>();

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The auth generation whose credential the request carried. */
  authGeneration: number;
}

/** What KubeTransport.preconnect returns. */
export interface Preconnect {
  /** No more connections are dialled for this handle (those open stay for the lists). */
  stop(): void;
  /**
   * Sends the warm probe now if it has not gone yet, and resolves true once it was answered on a
   * connection that was already up (stats.rttMs then holds an idle-time sample), false when it
   * failed, took over `timeoutMs`, or there is no I/O thread. Rejects on abort.
   */
  probed(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
}

export class KubeTransport {
  readonly server: URL;
  /** The server's host is this machine (localhost, 127.0.0.0/8, ::1). */
  readonly loopback: boolean;
  readonly stats: TransportStats = {
    requests: 0,
    retries: 0,
    bytesReceived: 0,
    wireBytes: 0,
    gzipResponses: 0,
    inFlight: 0,
    streamedPages: 0,
    throttled: 0,
    retryAfterSeconds: 0,
  };
  readonly clock: Clock;
  private readonly limiter: RateLimiter;
  private readonly policy: RetryPolicy;
  private closed = false;
  /** Called after every RTT sample (preconnect's re-checks). */
  private readonly rttWatchers = new Set<() => void>();

  private constructor(
    readonly context: KubeContext,
    private readonly auth: RequestAuth,
    private readonly opts: TransportOptions,
    private readonly io: IoThread | undefined,
    /** The proxy every request goes through (see proxy.ts); undefined: direct. */
    readonly proxy: URL | undefined,
  ) {
    this.server = new URL(context.server);
    this.loopback = isLoopbackHost(this.server.hostname);
    this.clock = opts.clock ?? realClock;
    this.limiter = createRateLimiter(opts.qps ?? DEFAULT_QPS, opts.burst ?? DEFAULT_BURST, this.clock);
    this.policy = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
    if (io) {
      io.onRtt = (ms, probe) => {
        noteRtt(this.stats, ms, probe ? 'request' : 'handshake');
        if (probe) this.stats.warmProbe = 'answered';
        else this.stats.warmSamples = (this.stats.warmSamples ?? 0) + 1;
        this.rttSampled();
      };
      io.onProbeFailed = () => {
        this.stats.warmProbe = 'failed';
        this.rttSampled();
      };
    }
  }

  /** Applies the context's credentials once (exec plugins run here) and builds the shared agent. */
  static async create(context: KubeContext, opts: TransportOptions = {}): Promise<KubeTransport> {
    // The I/O thread boots while the credentials are applied and discovery runs: started at the
    // first list, its boot would delay every list of a load. Later transports share it (ioThread.ts).
    let proxy: URL | undefined;
    try {
      proxy = resolveProxy(new URL(context.server), context.cluster.proxyUrl, proxyEnvironment(opts.env ?? process.env));
    } catch (e) {
      throw new KubeConfigError(
        `context "${context.name}": ${(e as Error).message} (from ${context.cluster.proxyUrl ? "the cluster's proxy-url" : 'HTTPS_PROXY / HTTP_PROXY'})`,
      );
    }
    const wanted = opts.ioThread ?? (opts.clock === undefined || opts.clock === realClock);
    const io = wanted && (!proxy || tunnels(proxy)) ? IoThread.start(context.server.startsWith('https:'), proxy?.href) : undefined;
    try {
      return new KubeTransport(context, await createRequestAuth(context, opts.clock ?? realClock, { proxy }), opts, io, proxy);
    } catch (e) {
      io?.close();
      throw e;
    }
  }

  /** See TransportOptions.maxResponseBytes. */
  get maxResponseBytes(): number {
    return this.opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  /** Whether paged lists are walked by the I/O thread (see TransportOptions.ioThread). */
  get listStreams(): boolean {
    return !this.closed && !!this.io?.usable;
  }

  /** The pages of one paged list, walked by the I/O thread; undefined when list streams are off. */
  async openListStream(
    spec: Omit<ListStreamSpec, 'url' | 'next' | 'timeoutMs' | 'maxBytes'> & { query: Query; nextQuery: Query; timeoutMs?: number },
  ): Promise<ListStream | undefined> {
    const io = this.io;
    // A thread still booting takes the list when it is up (its messages wait in order): the CLI
    // starts it ahead (prestartIoThread), and every later transport of the process shares it.
    if (!io || !this.listStreams) return undefined;
    return openListStream(
      {
        io,
        auth: this.auth,
        limiter: this.limiter,
        stats: this.stats,
        headersFor: (accept) => this.headersFor({ path: spec.path, accept, signal: spec.signal }, undefined),
        decode: decodeBody,
      },
      {
        ...spec,
        url: buildUrl(this.server, spec.path, spec.query),
        next: buildUrl(this.server, spec.path, spec.nextQuery),
        timeoutMs: spec.timeoutMs ?? this.opts.requestTimeoutMs ?? 0,
        maxBytes: this.maxResponseBytes,
      },
    );
  }

  /**
   * GET a JSON document with rate limiting, retries and parsing. `firstFailure`: the first attempt
   * was made elsewhere (a list stream) and failed so; the retry policy starts from it.
   */
  async getJson<T = unknown>(spec: RequestSpec, firstFailure?: KubeApiError | KubeTransportError): Promise<JsonResponse<T>> {
    const state: RetryState = { retryAfterRetries: 0, backoffRetries: 0 };
    let retries = 0;
    let authRefreshed = false;
    let refused: number | undefined; // the auth generation a 401 refused
    let prior = firstFailure;
    for (;;) {
      let err: KubeApiError;
      let used: number | undefined; // the auth generation of the answer in hand
      if (prior instanceof KubeApiError) {
        err = prior;
        prior = undefined;
      } else {
        let raw: Raw;
        try {
          if (prior) throw prior;
          raw = await this.attempt(spec, refused);
          refused = undefined;
          used = raw.authGeneration;
        } catch (e) {
          prior = undefined;
          const d = e instanceof KubeTransportError ? decideRetry(e, state, this.policy) : { retry: false as const };
          if (!d.retry) throw e;
          retries++;
          await this.pause(spec, { attempt: retries, delayMs: d.delayMs, kind: d.kind, error: e as KubeTransportError });
          continue;
        }
        if (raw.status >= 200 && raw.status < 300) {
          const contentType = String(raw.headers['content-type'] ?? '');
          let body: T;
          if (raw.body.length >= TURN_BYTES) await pageTurn(spec.signal);
          // Asked for protobuf (listwatch/list.ts), a server may answer either: the Content-Type says which.
          if (isProtobuf(contentType)) {
            const d = decodeProtobuf(raw.body, spec.countsOnly ? 'count' : 'rows');
            if (!d.ok) throw new KubeTransportError('malformed', `GET ${spec.path}: response is not valid Kubernetes protobuf (${d.error.message})`, spec.path);
            return { status: raw.status, contentType, body: d.value as T, bytes: raw.body.length, retries };
          }
          try {
            body = JSON.parse(raw.body.toString('utf8')) as T;
          } catch (e) {
            throw new KubeTransportError('malformed', `GET ${spec.path}: ${malformedJson(e, raw.body.length, contentType)}`, spec.path);
          }
          return { status: raw.status, contentType, body, bytes: raw.body.length, retries };
        }
        err = apiErrorFromResponse(raw.status, raw.headers, raw.body, spec.path);
      }
      this.noteThrottle(err);
      if (err.status === 401 && !authRefreshed) {
        // Expired exec/auth-provider credentials: refresh once and try again (free for static auth: same headers).
        authRefreshed = true;
        refused = used ?? this.auth.generation;
        retries++;
        await this.pause(spec, { attempt: retries, delayMs: 0, kind: 'auth', error: err });
        continue;
      }
      const d = decideRetry(err, state, this.policy);
      if (!d.retry) throw err;
      retries++;
      await this.pause(spec, { attempt: retries, delayMs: d.delayMs, kind: d.kind, error: err });
    }
  }

  /**
   * Opens a streaming GET (a watch). Retries only what client-go's watch request retries (see
   * below); the caller's reflector owns relisting. Resolves once a 2xx status arrives; the caller
   * reads `res` and must end by destroying it or aborting the signal. Non-2xx rejects with KubeApiError.
   */
  async openStream(spec: RequestSpec): Promise<StreamBody> {
    // Two answers are retried here, as client-go's Request.Watch retries them, so that a watch
    // resumes across a rolling apiserver restart instead of failing into a relist:
    // - a request sent on a keep-alive socket that the server closed while it sat idle (an
    //   apiserver shutting down closes its idle connections) fails before any answer; Go's
    //   transport resends it on another connection. Bounded: each failure destroys its socket,
    //   and a failure on a fresh socket is final.
    // - 429 / 5xx with Retry-After (a shutting-down apiserver answers 503 "apiserver is shutting
    //   down", Retry-After 1): wait as told and reopen, within the retry policy's bounds.
    // Everything else fails at once: relisting is the caller's (the reflector's) business.
    const state: RetryState = { retryAfterRetries: 0, backoffRetries: 0 };
    let retries = 0;
    for (let stale = 0; ;) {
      try {
        return await this.openStreamOnce(spec);
      } catch (e) {
        if (staleSocketFailures.has(e as object) && ++stale < 4) continue;
        if (e instanceof KubeApiError) this.noteThrottle(e);
        if (!(e instanceof KubeApiError) || e.retryAfterSeconds === undefined) throw e;
        const d = decideRetry(e, state, this.policy);
        if (!d.retry) throw e;
        await this.pause(spec, { attempt: ++retries, delayMs: d.delayMs, kind: d.kind, error: e });
      }
    }
  }

  private async openStreamOnce(spec: RequestSpec): Promise<StreamBody> {
    this.ensureOpen();
    await this.limiter.take(spec.signal);
    const headers = await this.headersFor(spec, undefined);
    const signal = spec.signal;
    if (signal?.aborted) throw abortReason(signal);
    const url = buildUrl(this.server, spec.path, spec.query);
    return new Promise((resolve, reject) => {
      const req = agentRequest(url, { method: 'GET', agent: this.auth.agent, headers });
      observeRtt(req, this.stats, undefined, this.rttSampled);
      this.stats.requests++;
      this.stats.inFlight++;
      let settled = false;
      let done = false;
      const cleanup = () => {
        if (done) return;
        done = true;
        this.stats.inFlight--;
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        const r = abortReason(signal!);
        if (!settled) ((settled = true), reject(r));
        req.destroy(r);
        cleanup();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (!settled) {
          settled = true;
          const err = signal?.aborted ? abortReason(signal) : classify(e, spec.path);
          if (!signal?.aborted && req.reusedSocket) staleSocketFailures.add(err);
          reject(err);
        }
        cleanup();
      });
      req.on('response', (res) => {
        this.noteFlowControl(res.headers);
        res.on('close', cleanup);
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          settled = true;
          const coding = contentCoding(res.headers);
          const contentType = String(res.headers['content-type'] ?? '');
          if (coding === 'identity') return resolve(Object.assign(res, { contentType }));
          if (coding !== 'gzip') {
            res.destroy();
            return reject(new KubeTransportError('malformed', `GET ${spec.path}: unsupported Content-Encoding ${coding}`, spec.path));
          }
          // Inflated as it streams (libuv's pool); destroying the result destroys the response.
          const gz = zlib.createGunzip();
          pipeline(res, gz, () => {});
          Object.defineProperty(gz, 'complete', { get: () => res.complete });
          Object.assign(gz, { contentType });
          return resolve(gz as unknown as StreamBody);
        }
        const chunks: Buffer[] = [];
        const max = this.maxResponseBytes;
        const tooLarge = () => {
          settled = true;
          res.destroy();
          reject(new KubeTransportError('tooLarge', `GET ${spec.path}: ${responseTooLarge(max)}`, spec.path));
        };
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (settled) return;
          if ((size += c.length) > max) return tooLarge();
          chunks.push(c);
        });
        res.on('end', () => {
          if (settled) return;
          const body = Buffer.concat(chunks);
          // An error Status is small (never compressed by kube-apiserver), but a proxy may have.
          if (contentCoding(res.headers) !== 'gzip') return void ((settled = true), reject(apiErrorFromResponse(status, res.headers, body, spec.path)));
          zlib.gunzip(body, { maxOutputLength: max }, (e, plain) => {
            if (settled) return;
            if ((e as NodeJS.ErrnoException | null)?.code === 'ERR_BUFFER_TOO_LARGE') return tooLarge();
            settled = true;
            reject(apiErrorFromResponse(status, res.headers, e ? body : plain, spec.path));
          });
        });
        res.on('error', (e: NodeJS.ErrnoException) => {
          if (!settled) ((settled = true), reject(classify(e, spec.path)));
        });
      });
      req.end();
    });
  }

  /**
   * One cheap request (GET /version, readable by every user) whose only use is an RTT sample
   * (rtt.ts) taken while this thread has nothing else to do: the samples of a start are taken
   * while the thread is busy starting up, and a late 'connect' or answer event counts the thread's
   * lag as distance (seen: 6-9 ms on loopback). Sent on a kept-alive socket when there is one.
   * Never throws but for an abort; any answer (even an error status) is a sample; no retries.
   * Resolves with stats.rttMs.
   */
  async probeRtt(signal?: AbortSignal, timeoutMs = 10_000): Promise<number | undefined> {
    try {
      await this.attempt({ path: '/version', signal, timeoutMs }, undefined);
    } catch (e) {
      if (signal?.aborted) throw abortReason(signal);
      void e; // no sample from a failed probe; the load goes on with what it has
    }
    return this.stats.rttMs;
  }

  /**
   * Keeps `want(rttMs)` connections of the I/O thread open or opening while the handle is live:
   * dialled now, and more whenever an RTT sample makes `want` grow (the loader passes its lane
   * count, so the pool's lanes find their connections up when it starts). Connections only: no
   * request is sent, nothing is counted against the rate limiter; but for the warm probe, sent
   * once `probeWhen(rttMs)` first holds (or `probed()` is called): one GET /version on the first
   * connection that is up, while the I/O thread is idle (see KubeTransport.probeRtt for why an
   * idle-time sample matters). A no-op without the I/O thread (its lists would not use them) and
   * through a proxy.
   */
  preconnect(want: (rttMs: number | undefined) => number, probeWhen: (rttMs: number | undefined) => boolean = () => false): Preconnect {
    const io = this.io;
    if (!io || !this.listStreams || this.proxy) return { stop: () => undefined, probed: async () => false };
    io.useTls(this.auth.tls, this.auth.tlsVersion);
    let asked = 0;
    let probing: Promise<void> | undefined;
    const probe = (signal?: AbortSignal) =>
      (probing ??= (async () => {
        try {
          await this.limiter.take(signal);
          const headers = await this.headersFor({ path: '/version', signal }, undefined);
          this.stats.requests++;
          this.stats.warmProbe = 'sent';
          io.warm(this.server.origin, asked, { url: buildUrl(this.server, '/version', {}).href, headers });
        } catch {
          this.stats.warmProbe = 'failed';
          this.rttSampled();
        }
      })());
    const check = () => {
      const rtt = this.stats.rttMs;
      const n = want(rtt);
      if (n > asked && io.usable) {
        asked = n;
        io.warm(this.server.origin, n);
      }
      if (!probing && probeWhen(rtt)) void probe();
    };
    this.rttWatchers.add(check);
    check();
    return {
      stop: () => this.rttWatchers.delete(check),
      probed: (timeoutMs, signal) => {
        void probe(signal);
        return this.warmProbed(timeoutMs, signal);
      },
    };
  }

  /** Resolves true once the warm probe was answered, false when it failed or after `timeoutMs`; rejects on abort. */
  private warmProbed(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const state = () => this.stats.warmProbe;
    if (state() === 'answered') return Promise.resolve(true);
    if (state() === 'failed') return Promise.resolve(false);
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const end = () => {
        this.rttWatchers.delete(check);
        timer.cancel();
        signal?.removeEventListener('abort', onAbort);
      };
      const check = () => {
        if (state() === 'answered' || state() === 'failed') (end(), resolve(state() === 'answered'));
      };
      const onAbort = () => (end(), reject(abortReason(signal!)));
      const timer = this.clock.setTimer(timeoutMs, () => (end(), resolve(false)));
      this.rttWatchers.add(check);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private readonly rttSampled = (): void => {
    for (const w of this.rttWatchers) w();
  };

  /** Destroys the agent and its sockets. Idempotent. In-flight requests fail with a reset. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.io?.close();
    this.auth.close();
  }

  private ensureOpen(): void {
    if (this.closed) throw new KubeTransportError('connect', 'transport is closed');
  }

  /** Keeps the last classification APF reported (a user's requests all land in one schema, as a rule). */
  private noteFlowControl(headers: http.IncomingHttpHeaders): void {
    const seen = flowControlOf(headers);
    if (seen) this.stats.flowControl = seen;
  }

  /** Counts a 429 answer and its Retry-After (a list stream's failed page is counted here too, once). */
  private noteThrottle(err: KubeApiError): void {
    if (err.status !== 429) return;
    this.stats.throttled++;
    this.stats.retryAfterSeconds += err.retryAfterSeconds ?? 0;
  }

  /** The last retry's reason (a 503, a reset...), kept so that a caller giving up can say why. */
  lastRetry: { error: KubeApiError | KubeTransportError; path: string } | undefined;

  private async pause(spec: RequestSpec, info: RetryInfo): Promise<void> {
    this.stats.retries++;
    this.lastRetry = { error: info.error, path: spec.path };
    spec.onRetry?.(info);
    if (info.delayMs > 0) await this.clock.sleep(info.delayMs, spec.signal);
    else if (spec.signal?.aborted) throw abortReason(spec.signal);
  }

  /**
   * Whether a request asks for gzip. The option wins (true: never, false: always); else the kubeconfig
   * cluster's disable-compression, as client-go reads it; else (auto) always, as kubectl asks, but
   * for a server on this machine: compression saves a loopback link nothing and costs both ends CPU
   * (measured at 100,000 objects: 1.47x the time of the same load without it). A loopback address
   * with a measured round trip (of a request: rtt.ts's requestRttMs) of LOOPBACK_GZIP_MIN_RTT_MS or more is a tunnel to somewhere far (an
   * SSH or port-forward tunnel, the bench's relay): compressed like a remote server. Decided per
   * request, so lists opened after the loader's RTT probe follow what it measured.
   */
  private wantsGzip(): boolean {
    const off = this.opts.disableCompression ?? this.context.disableCompression;
    if (off !== undefined) return !off;
    if (!this.loopback) return true;
    return (distanceRttMs(this.stats, true) ?? 0) >= LOOPBACK_GZIP_MIN_RTT_MS;
  }

  /** `refused`: the auth generation a 401 refused (its dynamic credential is fetched anew), if any. */
  private async headersFor(spec: RequestSpec, refused: number | undefined): Promise<HeaderMap> {
    const h: HeaderMap = {
      ...(await this.auth.headers(refused !== undefined, refused, spec.signal)),
      Accept: spec.accept ?? 'application/json',
      'User-Agent': this.opts.userAgent ?? USER_AGENT,
    };
    if (this.wantsGzip()) h['Accept-Encoding'] = 'gzip';
    return h;
  }

  /** One rate-limited request, body fully read. */
  private async attempt(spec: RequestSpec, refused: number | undefined): Promise<Raw> {
    this.ensureOpen();
    await this.limiter.take(spec.signal);
    const headers = await this.headersFor(spec, refused);
    if (spec.signal?.aborted) throw abortReason(spec.signal);
    return this.exchange('GET', spec, headers);
  }

  /**
   * One request (a GET, or a POST with `data`), its body read whole and inflated when gzip; aborts
   * with the signal and times out after the spec's deadline, destroying the socket either way.
   */
  private exchange(method: 'GET' | 'POST', spec: RequestSpec, headers: HeaderMap, data?: Buffer): Promise<Raw> {
    const authGeneration = this.auth.generation;
    const signal = spec.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const url = buildUrl(this.server, spec.path, spec.query);
    const timeoutMs = spec.timeoutMs ?? this.opts.requestTimeoutMs ?? 0;
    const max = this.maxResponseBytes;
    return new Promise<Raw>((resolve, reject) => {
      const req = agentRequest(url, { method, agent: this.auth.agent, headers });
      observeRtt(req, this.stats, undefined, this.rttSampled);
      this.stats.requests++;
      this.stats.inFlight++;
      let finished = false;
      let timer: TimerHandle | undefined;
      let inflater: zlib.Gunzip | undefined;
      const finish = (err: unknown, raw?: Raw) => {
        if (finished) return;
        finished = true;
        this.stats.inFlight--;
        timer?.cancel();
        signal?.removeEventListener('abort', onAbort);
        if (err !== undefined) {
          req.destroy(); // really close the socket: the server sees the connection go
          inflater?.destroy();
          reject(err);
        } else resolve(raw!);
      };
      const onAbort = () => finish(abortReason(signal!));
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs > 0) {
        timer = this.clock.setTimer(timeoutMs, () =>
          finish(new KubeTransportError('timeout', `${method} ${spec.path}: no complete response within ${timeoutMs} ms`, spec.path)),
        );
      }
      req.on('error', (e: NodeJS.ErrnoException) => finish(classify(e, spec.path)));
      req.on('response', (res) => {
        this.noteFlowControl(res.headers);
        const chunks: Buffer[] = [];
        let size = 0;
        let wire = 0;
        const ok = (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300;
        let peeking = ok && !!spec.peek;
        let head = '';
        const coding = contentCoding(res.headers);
        if (coding !== 'identity' && coding !== 'gzip') {
          return finish(new KubeTransportError('malformed', `${method} ${spec.path}: unsupported Content-Encoding ${coding}`, spec.path));
        }
        const tooLarge = (declared?: number) =>
          finish(new KubeTransportError('tooLarge', `${method} ${spec.path}: ${responseTooLarge(max, declared)}`, spec.path));
        // A gzip body's Content-Length is its wire size: only the inflated bytes count for it.
        const declared = coding === 'identity' ? Number(res.headers['content-length']) : NaN;
        if (declared > max) return tooLarge(declared);
        // The decoded body: the response itself, or its inflation (zlib's async streaming inflate).
        let body: Readable = res;
        if (coding === 'gzip') {
          body = inflater = zlib.createGunzip();
          res.pipe(inflater);
          inflater.on('error', (e) =>
            finish(new KubeTransportError('malformed', `${method} ${spec.path}: gzip body does not inflate (${e.message})`, spec.path)),
          );
        }
        const onProgress = spec.onProgress;
        res.on('data', (c: Buffer) => {
          wire += c.length;
          onProgress?.();
        });
        body.on('data', (c: Buffer) => {
          if (finished) return;
          if ((size += c.length) > max) return tooLarge();
          chunks.push(c);
          if (peeking) {
            head += c.toString('latin1', 0, Math.min(c.length, PEEK_BYTES - head.length));
            try {
              peeking = !spec.peek!(head) && head.length < PEEK_BYTES;
            } catch {
              peeking = false; // a peek is an optimisation; its failure must not fail the request
            }
          }
        });
        body.on('end', () => {
          this.stats.bytesReceived += size;
          this.stats.wireBytes += wire;
          if (coding === 'gzip') this.stats.gzipResponses++;
          finish(undefined, {
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size),
            authGeneration,
          });
        });
        res.on('aborted', () => finish(new KubeTransportError('reset', `${method} ${spec.path}: connection reset while reading the response`, spec.path)));
        res.on('error', (e: NodeJS.ErrnoException) => finish(classify(e, spec.path)));
        res.on('close', () => {
          if (!res.complete) finish(new KubeTransportError('reset', `${method} ${spec.path}: connection closed before the response was complete`, spec.path));
        });
      });
      req.end(data);
    });
  }

  /**
   * POST a JSON body and parse the JSON answer: for create-only review requests
   * (SelfSubjectAccessReview, SelfSubjectRulesReview), which change nothing on the server. One
   * rate-limited request per attempt; 429/5xx are retried as getJson retries them; any other
   * non-2xx rejects with KubeApiError. The signal aborts the request at once.
   */
  async postJson<T = unknown>(spec: { path: string; body: unknown; signal?: AbortSignal; timeoutMs?: number }): Promise<JsonResponse<T>> {
    const data = Buffer.from(JSON.stringify(spec.body), 'utf8');
    const state: RetryState = { retryAfterRetries: 0, backoffRetries: 0 };
    for (let retries = 0; ; retries++) {
      let err: KubeApiError | KubeTransportError;
      try {
        this.ensureOpen();
        await this.limiter.take(spec.signal);
        const headers = {
          ...(await this.headersFor({ path: spec.path, signal: spec.signal }, undefined)),
          'Content-Type': 'application/json',
          'Content-Length': String(data.length),
        };
        const raw = await this.exchange('POST', spec, headers, data);
        if (raw.status >= 200 && raw.status < 300) {
          try {
            return {
              status: raw.status,
              contentType: String(raw.headers['content-type'] ?? ''),
              body: JSON.parse(raw.body.toString('utf8')) as T,
              bytes: raw.body.length,
              retries,
            };
          } catch (e) {
            throw new KubeTransportError('malformed', `POST ${spec.path}: ${malformedJson(e, raw.body.length)}`, spec.path);
          }
        }
        err = apiErrorFromResponse(raw.status, raw.headers, raw.body, spec.path);
        this.noteThrottle(err);
      } catch (e) {
        if (!(e instanceof KubeTransportError) || e.kind === 'malformed') throw e;
        err = e;
      }
      const d = decideRetry(err, state, this.policy);
      if (!d.retry) throw err;
      await this.pause(spec, { attempt: retries + 1, delayMs: d.delayMs, kind: d.kind, error: err });
    }
  }
}
