/**
 * Part of the I/O thread (ioWorker.ts): one page's answer, read as it arrives. Shipped as source
 * text: self-contained.
 *
 * A gzip answer (the transport asks for gzip) is inflated here by zlib's streaming inflater, so the
 * loading thread gets plain JSON and never inflates; a page says how many bytes it took on the
 * wire. A body past the stream's maxBytes fails 'tooLarge' as soon as it is known to be. The
 * continue token is read from the body's first bytes (a JSON page: ioPages.ts; a protobuf one, as
 * its Content-Type says: ioProtobuf.ts), and with it the next page is requested (prefetch). While a body arrives, the stream posts `progress` at most every
 * PROGRESS_MS, so idle timeouts on the main thread see a long page that is still arriving.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { BodyBuffers } from './ioBuffers';
import type { PageTokens } from './ioPages';
import type { ProtobufListMeta } from './ioProtobuf';
import type { Failure, Fetch, Load, Post, Stream } from './ioProtocol';
import type { ListStreams } from './ioStreams';

export function pageBodyReader(load: Load, deps: { post: Post; buffers: BodyBuffers; pages: PageTokens; protobuf: ProtobufListMeta; streams: ListStreams }) {
  const { post, buffers, pages, protobuf, streams } = deps;
  const zlib = load('node:zlib');
  const PROGRESS_MS = 250;
  /** The most fresh memory a Content-Length header alone may have a body buffer take. */
  const PREALLOC_BYTES = 8 * 1024 * 1024;

  /** The token as far as the head tells it: 'tail' for a JSON list that writes its metadata last. */
  const headToken = (f: Fetch): string | null | undefined | 'tail' => {
    if (!f.protobuf) return pages.tokenOf(f.head);
    const t = protobuf.tokenOf(f.head);
    return t === undefined && f.head.length >= pages.SCAN ? null : t;
  };

  /** Keeps a body's bytes; reads the token from its first ones (and follows it). */
  const take = (s: Stream, f: Fetch, ok: boolean, c: Buffer, fail: (x: Failure) => void) => {
    if (f.done) return;
    if (f.size + c.length > s.maxBytes) return fail({ kind: 'tooLarge', message: `response larger than ${s.maxBytes} bytes` });
    if (f.body && f.size + c.length <= f.body.length) c.copy(f.body, f.size);
    else {
      if (f.body) (f.chunks.push(f.body.subarray(0, f.size)), (f.body = undefined)); // longer than announced
      f.chunks.push(c);
    }
    f.size += c.length;
    if (ok && f.token === undefined && !f.atTail) {
      f.head += c.toString('latin1', 0, Math.min(c.length, pages.SCAN - f.head.length));
      const t = headToken(f);
      if (t === 'tail') f.atTail = true;
      else if ((f.token = t) !== undefined) streams.follow(s);
    }
  };

  const read = (s: Stream, f: Fetch, res: IncomingMessage, fail: (x: Failure) => void) => {
    f.status = res.statusCode ?? 0;
    f.headers = res.headers;
    const ok = streams.isOk(f);
    const enc = String(res.headers['content-encoding'] ?? '')
      .trim()
      .toLowerCase();
    f.gzip = enc === 'gzip' || enc === 'x-gzip';
    f.protobuf = protobuf.isProtobuf(res.headers['content-type']);
    if (!f.gzip && enc !== '' && enc !== 'identity') return fail({ kind: 'malformed', message: `unsupported Content-Encoding ${enc}` });
    // The announced length is the body's on the wire: the decoded size only without gzip. It is
    // only a claim: a body past the cap fails now, and memory for the body is taken from the
    // header only up to PREALLOC_BYTES (or from a buffer already held); a larger one grows as its
    // bytes arrive, so a lying header costs nothing.
    const declared = f.gzip ? NaN : Number(res.headers['content-length']);
    if (declared > s.maxBytes) return fail({ kind: 'tooLarge', message: `response larger than ${s.maxBytes} bytes (Content-Length says ${declared})` });
    if (Number.isSafeInteger(declared) && declared > 0)
      f.body = buffers.pooled(declared) ?? (declared <= PREALLOC_BYTES ? Buffer.allocUnsafeSlow(declared) : undefined);
    res.on('data', (c: Buffer) => {
      f.wire += c.length;
      const now = Date.now();
      if (now - s.progressAt >= PROGRESS_MS && streams.live(s)) {
        s.progressAt = now;
        post({ t: 'progress', id: s.id });
      }
    });
    let body: Readable = res;
    if (f.gzip) {
      const gz = zlib.createGunzip();
      f.inflater = gz;
      res.pipe(gz);
      gz.on('error', (e: Error) => fail({ kind: 'malformed', message: `gzip body does not inflate (${e.message})` }));
      body = gz;
    }
    body.on('data', (c: Buffer) => take(s, f, ok, c, fail));
    body.on('end', () => {
      if (f.done) return;
      if (f.timer) clearTimeout(f.timer);
      if (ok && f.token === undefined) {
        const t = f.atTail ? 'tail' : headToken(f);
        f.token = t === 'tail' ? pages.tailTokenOf(f) : (t ?? null);
      }
      f.done = true;
      streams.follow(s); // without prefetch, the next page is requested now, before this one is posted
      streams.flush(s);
    });
    res.on('aborted', () => fail({ kind: 'reset', message: 'connection reset while reading the response' }));
    res.on('error', (e: NodeJS.ErrnoException) => fail({ kind: 'reset', code: e.code, message: e.message }));
    res.on('close', () => {
      if (!res.complete) fail({ kind: 'reset', message: 'connection closed before the response was complete' });
    });
  };
  return { read };
}

export type BodyReader = ReturnType<typeof pageBodyReader>;
