/**
 * Part of the I/O thread (ioWorker.ts): the paged-list walker. A stream's pages are requested in
 * list order, each with one grant, and posted in that order as they complete. Shipped as source
 * text: self-contained.
 */
import type { HeaderMap } from './auth';
import type { BodyBuffers } from './ioBuffers';
import type { TableTrimmer } from './ioTable';
import type { Channel, Fetch, Load, Post, Stream, ToWorker } from './ioProtocol';

export function listStreams(load: Load, deps: { post: Post; buffers: BodyBuffers; table: TableTrimmer; launch: (s: Stream, url: string) => void }) {
  const { post, buffers, table, launch } = deps;
  const { isAscii } = load('node:buffer');
  const streams = new Map<number, Stream>();
  const isOk = (f: Fetch) => f.status >= 200 && f.status < 300;
  const live = (s: Stream) => streams.has(s.id);

  const stop = (s: Stream) => {
    streams.delete(s.id);
    for (const f of s.fetches) {
      f.done = true;
      if (f.timer) clearTimeout(f.timer);
      f.req?.destroy(); // the server sees the connection go
      f.inflater?.destroy();
    }
    s.fetches.length = 0;
  };

  /** The page's body as one buffer whose ArrayBuffer is its own (a recycled one may be longer: `length` bounds it). */
  const bodyOf = (f: Fetch): Buffer => {
    let body: Buffer;
    if (f.body) body = f.body.subarray(0, f.size);
    else {
      body = buffers.bodyBuffer(f.size);
      let at = 0;
      for (const c of f.chunks) at += c.copy(body, at);
    }
    f.chunks = [];
    f.body = undefined;
    return body;
  };

  /** Posts the pages that are complete, in order; the stream ends after the last one it can follow. */
  const flush = (s: Stream) => {
    while (live(s) && s.fetches.length > 0 && s.fetches[0].done) {
      const f = s.fetches.shift()!;
      const sent = s.sent;
      s.sent = 0;
      if (f.failure) {
        stop(s);
        post({ t: 'fail', id: s.id, ...f.failure, sent, end: true });
        return;
      }
      const ok = isOk(f);
      const end = !ok || !f.token;
      const body = bodyOf(f);
      const ab = body.buffer as ArrayBuffer;
      if (end) stop(s);
      // A Table's rows without their managedFields (ioTable.ts), cut here rather than parsed there.
      const length = ok && s.trimTable && !f.protobuf ? table.cut(body, f.size) : f.size;
      // Whether a JSON body is pure ASCII is checked here, off the parsing thread (see decodeBody).
      const ascii: boolean = !f.protobuf && isAscii(body.subarray(0, length));
      const token = ok ? (f.token ?? null) : null;
      const contentType = String(f.headers['content-type'] ?? '');
      post(
        {
          t: 'page',
          id: s.id,
          status: f.status,
          headers: ok ? {} : f.headers,
          body: ab,
          contentType,
          length,
          size: f.size,
          wire: f.wire,
          gzip: f.gzip,
          ascii,
          token,
          sent,
          end,
        },
        [ab],
      );
    }
  };

  /** Requests the page after the newest one once its token is known (with prefetch: from its first bytes). */
  const follow = (s: Stream) => {
    const n = s.newest;
    if (!n || !live(s) || s.grants <= 0 || n.followed || n.failure || !isOk(n) || !n.token) return;
    if (!s.prefetch && !n.done) return;
    n.followed = true;
    launch(s, s.next + (s.next.includes('?') ? '&' : '?') + 'continue=' + encodeURIComponent(n.token));
  };

  /** A `list` message: the stream starts with its first page. */
  const open = (m: Extract<ToWorker, { t: 'list' }>, c: Channel) => {
    const { id, next, headers, grants, prefetch, timeoutMs, maxBytes, trimTable } = m;
    const s: Stream = { id, c, next, headers, grants, prefetch, timeoutMs, maxBytes, trimTable, fetches: [], sent: 0, progressAt: Date.now() };
    streams.set(id, s);
    launch(s, m.url);
  };
  /** More requests allowed, with fresh credentials (exec plugins) for those still to come. */
  const grant = (id: number, grants: number, headers: HeaderMap) => {
    const s = streams.get(id);
    if (!s) return;
    s.grants += grants;
    s.headers = headers;
    follow(s);
  };
  const cancel = (id: number) => {
    const s = streams.get(id);
    if (s) stop(s);
  };
  /** Stops every stream of a channel that closes. */
  const stopChannel = (c: Channel) => {
    for (const s of [...streams.values()]) if (s.c === c) stop(s);
  };
  return { live, isOk, flush, follow, open, grant, cancel, stopChannel };
}

export type ListStreams = ReturnType<typeof listStreams>;
