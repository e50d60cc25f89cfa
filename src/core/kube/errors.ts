/**
 * Typed errors of the Kubernetes client. Every failure that crosses a boundary is one of these
 * (or the caller's own abort reason), so callers branch on type and fields, never on text.
 * Messages never contain credentials: only paths, statuses and the server's Status message.
 */
import { decodeProtobuf, isProtobuf } from './protobuf';

/** A non-2xx answer from the API server, parsed from its `Status` body when there is one. */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  constructor(
    /** HTTP status code (the Status `code`). */
    readonly status: number,
    /** Status `reason` (e.g. Forbidden, Expired, TooManyRequests, InternalError); '' when absent. */
    readonly reason: string,
    message: string,
    /** From the Retry-After header, else from Status details.retryAfterSeconds. */
    readonly retryAfterSeconds?: number,
    readonly path?: string,
  ) {
    super(message);
  }

  /** 410 on a list continuation or a watch: the resourceVersion/continue token was compacted away. */
  get isExpired(): boolean {
    return this.status === 410 || this.reason === 'Expired' || this.reason === 'ResourceExpired' || this.reason === 'Gone';
  }
}

/**
 * The request did not produce a usable answer: the connection failed or was reset, the body was not
 * the JSON it claimed to be, the per-request deadline passed, the answer outgrew a bound
 * ('tooLarge': a body past TransportOptions.maxResponseBytes, a watch event past its frame cap), or
 * a paged list's answers would never end it ('noProgress': listwatch/pageProgress.ts).
 */
export type TransportFailure = 'connect' | 'reset' | 'malformed' | 'timeout' | 'tls' | 'protocol' | 'tooLarge' | 'noProgress';

export class KubeTransportError extends Error {
  override readonly name = 'KubeTransportError';
  constructor(
    readonly kind: TransportFailure,
    message: string,
    readonly path?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * What a 'tooLarge' failure of a body says: `response larger than N bytes`, and the header's figure
 * when it was the Content-Length that told (the body was then never read).
 */
export function responseTooLarge(maxBytes: number, contentLength?: number): string {
  return `response larger than ${maxBytes} bytes${contentLength !== undefined ? ` (Content-Length says ${contentLength})` : ''}`;
}

/** A socket-level failure of a request as a KubeTransportError, its kind decided by the error code. */
export function classifyTransportError(err: NodeJS.ErrnoException, path: string): KubeTransportError {
  const code = err.code ?? '';
  let kind: TransportFailure = 'reset';
  // EPROXY: the proxy refused or botched the CONNECT tunnel (transport/tunnel.ts)
  if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ETIMEDOUT', 'EADDRNOTAVAIL', 'EPROXY'].includes(code)) kind = 'connect';
  else if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL|EPROTO/.test(code)) kind = 'tls';
  else if (code.startsWith('HPE_')) kind = 'protocol';
  const what = kind === 'reset' ? 'connection reset' : kind === 'connect' ? 'cannot connect' : kind === 'tls' ? 'TLS failure' : 'HTTP protocol error';
  return new KubeTransportError(kind, `GET ${path}: ${what}: ${err.message}${code && !err.message.includes(code) ? ` (${code})` : ''}`, path, { cause: err });
}

/**
 * What to say about a body JSON.parse refused. Never the parser's own message: V8 quotes the input
 * around the error (`Unexpected token '<', ..."c2VjcmV0",<html>" is not valid JSON`), and a body
 * may be a Secret list. Only sizes and the byte offset where parsing stopped are given.
 */
export function malformedJson(e: unknown, bytes: number, contentType?: string): string {
  return `response is not valid JSON (${whereParsingStopped(e, bytes)}${contentType !== undefined ? `, content-type ${contentType || 'none'}` : ''})`;
}

/** "parsing stopped at byte N of M" (or "M bytes"): all that is said of a JSON.parse failure. */
export function whereParsingStopped(e: unknown, bytes: number): string {
  const at = e instanceof Error ? /at position (\d+)/.exec(e.message)?.[1] : undefined;
  return at !== undefined ? `parsing stopped at byte ${at} of ${bytes}` : `${bytes} bytes`;
}

/** A kubeconfig problem: missing file, broken YAML, unknown context, no current context, bad entry. */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
}

/** Parses a Retry-After header: delta-seconds or an HTTP-date. Undefined when absent or unparsable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(v)) return Number(v);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/** Builds a KubeApiError from a non-2xx response: a Status body if it parses, else the raw text. */
export function apiErrorFromResponse(status: number, headers: Record<string, string | string[] | undefined>, body: Buffer, path: string): KubeApiError {
  const retryHeader = parseRetryAfter(headers['retry-after']);
  const protobuf = isProtobuf(headers['content-type']);
  // a protobuf body's bytes are no message to show
  const text = protobuf ? '' : body.toString('utf8');
  let reason = '';
  let message = '';
  let retryBody: number | undefined;
  try {
    // A server asked for protobuf answers its errors in protobuf too (a Status).
    const pb = protobuf ? decodeProtobuf(body) : undefined;
    const s = (pb?.ok ? pb.value : JSON.parse(text)) as { kind?: string; reason?: string; message?: string; details?: { retryAfterSeconds?: number } };
    if (s && typeof s === 'object') {
      reason = typeof s.reason === 'string' ? s.reason : '';
      message = typeof s.message === 'string' ? s.message : '';
      if (typeof s.details?.retryAfterSeconds === 'number') retryBody = s.details.retryAfterSeconds;
    }
  } catch {
    // not a Status: fall back to the text itself
  }
  if (!message) message = text.trim().slice(0, 500) || `HTTP ${status}`;
  return new KubeApiError(status, reason || defaultReason(status), message, retryHeader ?? retryBody, path);
}

function defaultReason(status: number): string {
  switch (status) {
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 410:
      return 'Gone';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return '';
  }
}
