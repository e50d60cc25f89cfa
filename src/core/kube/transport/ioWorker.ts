/**
 * The I/O thread's side of paged-list streams (see ioThread.ts for the why and the guarantees).
 *
 * One thread serves every cluster of the process. Each cluster is a channel (`open` ... `close`):
 * its own keep-alive agent (its TLS material, its scheme, its proxy), its own spare connections and
 * warm probe; a stream belongs to one channel and uses only that channel's agent, so a cluster that
 * hangs holds only its own sockets. Stream ids are unique across channels (the main thread's host
 * numbers them). `close` of a channel ends its streams and destroys its agent and every socket of it.
 *
 * A stream walks one paged list: it GETs the first page, reads the continue token from the page's
 * leading bytes (a list's metadata precedes its items, in JSON and in protobuf), and GETs the next page at once (pipelined,
 * at most one page ahead) or when the page has ended (`prefetch: false`). Every request spends one
 * grant; the main thread grants requests as its rate limiter allows. Pages are posted in order, each
 * as one transferred buffer. The stream ends, and says so, after the last page, after any answer
 * that is not 2xx (posted with its status, headers and body), after a failure (connection, reset,
 * timeout), or when the token cannot be read from a page's leading bytes (the main thread then
 * parses the page and goes on by itself).
 *
 * The thread runs one text with no file behind it (the extension is one bundled file): ioThread.ts
 * assembles it from the `toString()` of `ioWorkerMain` and of each part it is handed (IoWorkerParts).
 * So every one of them must be self-contained: it may use only its parameters (the worker's
 * `require`, the parts, what the other parts return) and the worker's globals, never an import
 * (types aside) nor anything else of its module. kube-iothread-source.test.ts checks each.
 */
import type { TunnelAgentMaker } from './tunnel';
import type { Channel, Post, ToWorker } from './ioProtocol';
import type { pageTokens } from './ioPages';
import type { protobufListMeta } from './ioProtobuf';
import type { bodyBuffers } from './ioBuffers';
import type { spareConnections } from './ioSpares';
import type { channelAgents } from './ioAgents';
import type { connectionWarmer } from './ioWarm';
import type { listStreams } from './ioStreams';
import type { pageBodyReader } from './ioBody';
import type { pageFetcher } from './ioFetch';
import type { tableTrimmer } from './ioTable';

/** The parts the worker is built of, each shipped as its own source text. */
export interface IoWorkerParts {
  pageTokens: typeof pageTokens;
  protobufListMeta: typeof protobufListMeta;
  bodyBuffers: typeof bodyBuffers;
  spareConnections: typeof spareConnections;
  channelAgents: typeof channelAgents;
  connectionWarmer: typeof connectionWarmer;
  listStreams: typeof listStreams;
  pageBodyReader: typeof pageBodyReader;
  pageFetcher: typeof pageFetcher;
  tableTrimmer: typeof tableTrimmer;
}

/** The worker's entry: wires the parts and serves the main thread's messages. `makeTunnel`: tunnel.ts's factory. */
export function ioWorkerMain(load: (id: string) => any, makeTunnel: TunnelAgentMaker, parts: IoWorkerParts): void {
  const { parentPort } = load('node:worker_threads');
  const post: Post = (m, transfer) => parentPort.postMessage(m, transfer);
  const channels = new Map<number, Channel>();
  const buffers = parts.bodyBuffers();
  const spares = parts.spareConnections();
  const agents = parts.channelAgents(load, makeTunnel, spares);
  const { warm } = parts.connectionWarmer(load, { spares, channels, post });
  // The walker and the fetcher call each other (a page's token launches the next page's request).
  const fetcher: { launch?: ReturnType<IoWorkerParts['pageFetcher']>['launch'] } = {};
  const streams = parts.listStreams(load, { post, buffers, table: parts.tableTrimmer(), launch: (s, url) => fetcher.launch!(s, url) });
  const { read } = parts.pageBodyReader(load, { post, buffers, pages: parts.pageTokens(), protobuf: parts.protobufListMeta(), streams });
  fetcher.launch = parts.pageFetcher(load, { read, streams }).launch;

  parentPort.on('message', (m: ToWorker) => {
    if (m.t === 'list') {
      const c = channels.get(m.ch);
      // never happens (a channel's messages precede its close); said, so that no stream waits forever
      if (!c) return post({ t: 'fail', id: m.id, kind: 'connect', message: "the cluster's I/O channel is closed", sent: 0, end: true });
      streams.open(m, c);
    } else if (m.t === 'grant') streams.grant(m.id, m.grants, m.headers);
    else if (m.t === 'recycle') buffers.recycle(m.buffer);
    else if (m.t === 'warm') {
      const c = channels.get(m.ch);
      if (c) warm(c, m.origin, m.sockets, m.probe);
    } else if (m.t === 'cancel') streams.cancel(m.id);
    else if (m.t === 'open') channels.set(m.ch, agents.open(m.ch, m.secure, m.proxy));
    else if (m.t === 'close') {
      const c = channels.get(m.ch);
      if (!c) return;
      channels.delete(m.ch);
      streams.stopChannel(c);
      agents.close(c);
    } else if (m.t === 'tls') {
      const c = channels.get(m.ch);
      if (c) agents.retls(c, m.tls);
    }
  });
}
