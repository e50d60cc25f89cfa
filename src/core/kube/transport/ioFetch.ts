/**
 * Part of the I/O thread (ioWorker.ts): one page's request. It spends one of the stream's grants,
 * fails on a connection error or the per-request timeout, and hands the answer to the body reader
 * (ioBody.ts). Shipped as source text: self-contained.
 */
import type { IncomingMessage } from 'node:http';
import type { Failure, Fetch, Load, Stream } from './ioProtocol';
import type { BodyReader } from './ioBody';
import type { ListStreams } from './ioStreams';

export function pageFetcher(load: Load, deps: { read: BodyReader['read']; streams: Pick<ListStreams, 'flush'> }) {
  const { read, streams } = deps;
  const http = load('node:http');
  const https = load('node:https');
  /** Sends the request for `url`, the stream's next page; its Fetch joins the stream's in list order. */
  const launch = (s: Stream, url: string) => {
    s.grants--;
    s.sent++;
    const f: Fetch = { status: 0, headers: {}, chunks: [], size: 0, wire: 0, gzip: false, head: '', done: false, followed: false };
    s.fetches.push(f);
    s.newest = f;
    /** Ends the page with `failure` (once): its request and inflater go, and the stream posts it in turn. */
    const fail = (failure: Failure) => {
      if (f.done) return;
      f.done = true;
      f.failure = failure;
      if (f.timer) clearTimeout(f.timer);
      f.req?.destroy();
      f.inflater?.destroy();
      f.chunks = [];
      f.body = undefined;
      streams.flush(s);
    };
    const req = (s.c.secure ? https : http).request(url, { method: 'GET', agent: s.c.agent, headers: s.headers });
    f.req = req;
    if (s.timeoutMs > 0) f.timer = setTimeout(() => fail({ kind: 'timeout', message: `no complete response within ${s.timeoutMs} ms` }), s.timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => fail({ kind: 'connect', code: e.code, message: e.message }));
    req.on('response', (res: IncomingMessage) => read(s, f, res, fail));
    req.end();
  };
  return { launch };
}
