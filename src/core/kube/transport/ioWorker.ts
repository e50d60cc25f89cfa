/**
 * The I/O thread's side of paged-list streams (see ioThread.ts for the why and the guarantees).
 *
 * One thread serves every cluster of the process. Each cluster is a channel (`open` ... `close`):
 * its own keep-alive agent (its TLS material, its scheme, its proxy), its own spare connections and
 * warm probe; a stream belongs to one channel and uses only that channel's agent, so a cluster that
 * hangs holds only its own sockets. Stream ids are unique across channels (the main thread's host
 * numbers them). `close` of a channel ends its streams and destroys its agent and every socket of it.
 *
 * `ioWorkerMain` is shipped to the worker as source text (`ioWorkerMain.toString()`), so it must be
 * self-contained: it may use only its parameter (the worker's `require`) and what it loads with it.
 *
 * A stream walks one paged list: it GETs the first page, reads the continue token from the page's
 * leading bytes (a list's metadata precedes its items), and GETs the next page at once (pipelined,
 * at most one page ahead) or when the page has ended (`prefetch: false`). Every request spends one
 * grant; the main thread grants requests as its rate limiter allows. Pages are posted in order, each
 * as one transferred buffer. The stream ends, and says so, after the last page, after any answer
 * that is not 2xx (posted with its status, headers and body), after a failure (connection, reset,
 * timeout), or when the token cannot be read from a page's leading bytes (the main thread then
 * parses the page and goes on by itself).
 *
 * A gzip answer (the transport asks for gzip) is inflated here by zlib's streaming inflater, so the
 * loading thread gets plain JSON and never inflates; a page says how many bytes it took on the wire.
 * While a body arrives, the stream posts `progress` at most every PROGRESS_MS, so idle timeouts on
 * the main thread see a long page that is still arriving.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { HeaderMap, Tls } from './auth';
import type { TunnelAgentMaker } from './tunnel';

export type ToWorker =
  /**
   * A cluster's channel: `secure` (https), `proxy`: tunnel every connection through this http(s)
   * proxy. Sent before any other message of the channel.
   */
  | { t: 'open'; ch: number; secure: boolean; proxy?: string }
  /** The channel is over: its streams are stopped and its agent and spares destroyed. */
  | { t: 'close'; ch: number }
  | { t: 'tls'; ch: number; tls: Tls }
  | {
      t: 'list';
      ch: number;
      id: number;
      url: string;
      next: string;
      headers: HeaderMap;
      grants: number;
      prefetch: boolean;
      timeoutMs: number;
      maxBytes: number;
    }
  | { t: 'grant'; id: number; grants: number; headers: HeaderMap }
  | { t: 'cancel'; id: number }
  | { t: 'recycle'; buffer: ArrayBuffer }
  /**
   * Have `sockets` connections of the channel to `origin` open or opening (spare ones are dialled
   * now); see `warm` below. `probe`: also GET this URL once on the first connection that is up.
   */
  | { t: 'warm'; ch: number; origin: string; sockets: number; probe?: { url: string; headers: HeaderMap } };

type FailKind = 'connect' | 'reset' | 'timeout' | 'malformed' | 'tooLarge';

/** `sent`: requests sent since the stream's previous message. `end`: the stream is over. */
export type FromWorker =
  | {
      t: 'page';
      id: number;
      status: number;
      headers: IncomingHttpHeaders;
      body: ArrayBuffer;
      length: number;
      wire: number;
      gzip: boolean;
      ascii: boolean;
      token: string | null;
      sent: number;
      end: boolean;
    }
  | { t: 'fail'; id: number; kind: FailKind; code?: string; message: string; sent: number; end: true }
  | { t: 'progress'; id: number; end?: undefined }
  /**
   * An RTT sample (rtt.ts's rule) taken on this thread: from a connection's handshake, or from the
   * warm probe's answer on a connection that was already up (`probe`: then one request was sent).
   */
  | { t: 'rtt'; ch: number; ms: number; probe?: boolean; id?: undefined; end?: undefined }
  /** The warm probe was not answered (no sample; the caller probes in its own way). */
  | { t: 'probeFailed'; ch: number; id?: undefined; end?: undefined };

/** `makeTunnel`: tunnel.ts's factory, shipped alongside (for a cluster behind a proxy). */
export function ioWorkerMain(load: (id: string) => any, makeTunnel: TunnelAgentMaker): void {
  const { parentPort } = load('node:worker_threads');
  const { isAscii } = load('node:buffer');
  const http = load('node:http');
  const https = load('node:https');
  const zlib = load('node:zlib');
  const net = load('node:net');
  const tls = load('node:tls');
  const PROGRESS_MS = 250;
  /** One TLS context per agent, not one per connection (secureContext.ts says why; kept in step with it). */
  const sharedContext = (t: Tls): Tls & { secureContext?: unknown } => {
    try {
      const { ca, cert, key, pfx, passphrase } = t as Record<string, unknown>;
      const material = Object.fromEntries(Object.entries({ ca, cert, key, pfx, passphrase }).filter(([, v]) => v !== undefined));
      return { ...t, secureContext: tls.createSecureContext(material) };
    } catch {
      return t;
    }
  };
  /** The most fresh memory a Content-Length header alone may have a body buffer take. */
  const PREALLOC_BYTES = 8 * 1024 * 1024;
  /** A spare connection nobody took is closed after this long (unref'd: it never holds the thread). */
  const SPARE_IDLE_MS = 30_000;
  // A list's continue token is looked for in its first 64 KB, before `"items"` (a typed list, every
  // built-in type, writes its metadata first); a page whose token is not found there ends the stream
  // (token null). An unstructured list (custom resources: a Go map, keys sorted) writes apiVersion,
  // items, kind, metadata: its token is read from the last TAIL bytes when the body has ended, and
  // the next page is requested then, before the page is posted and parsed.
  const SCAN = 64 * 1024;
  const TAIL = 4096;
  const CONTINUE = /"continue"\s*:\s*"((?:[^"\\]|\\.)*)"/;
  /** One cluster's connections: what `open` set up, the agent of its current TLS material. */
  interface Channel {
    ch: number;
    secure: boolean;
    proxyHref?: string;
    agent: any;
    /** Every agent the channel made (a TLS rotation makes a new one): `close` destroys them all. */
    agents: any[];
    /** A warm probe asked for and not sent yet: it goes on the channel's next connection that is up. */
    probing?: { url: string; headers: HeaderMap };
  }
  const channels = new Map<number, Channel>();
  // Spare connections (the `warm` message): opened ahead of the lists, while the main thread still
  // waits for discovery and the access reviews, so a lane's first page does not also wait for a TCP
  // and TLS handshake (two round trips far away). They belong to the agent that opened them (so to
  // one channel); the agent's createConnection hands one out before it would dial. A spare is a
  // connection, never a request: the server sees no request it would not have seen.
  interface Spare {
    socket: import('node:net').Socket;
    owner: unknown;
    key: string;
    timer: ReturnType<typeof setTimeout>;
    /** Its handshake is done. */
    ready: boolean;
  }
  let spares: Spare[] = [];
  const dropSpare = (sp: Spare) => {
    clearTimeout(sp.timer);
    spares = spares.filter((x) => x !== sp);
  };
  const takeSpare = (owner: unknown, key: string): import('node:net').Socket | undefined => {
    const fits = (x: Spare) => x.owner === owner && x.key === key && !x.socket.destroyed;
    let at = spares.findIndex((x) => fits(x) && x.ready);
    if (at < 0) at = spares.findIndex(fits);
    if (at < 0) return undefined;
    const sp = spares[at];
    dropSpare(sp);
    return sp.socket;
  };
  /** Destroys the spares of one agent (the others' channels keep theirs). */
  const destroySpares = (owner: unknown) => {
    const mine = spares.filter((x) => x.owner === owner);
    spares = spares.filter((x) => x.owner !== owner);
    for (const sp of mine) (clearTimeout(sp.timer), sp.socket.destroy());
  };
  const sparing = (a: any) => {
    const dial = a.createConnection;
    a.createConnection = function (this: unknown, options: { host?: string; port?: number | string }, cb: unknown) {
      return takeSpare(a, `${options.host}:${options.port}`) ?? dial.call(this, options, cb);
    };
    a.dial = dial;
    return a;
  };
  /** The channel's agent for new connections (the old one's spares go; its busy sockets finish). */
  const makeAgent = (c: Channel, tls: Tls) => {
    if (c.agent) destroySpares(c.agent);
    c.agent = c.proxyHref
      ? makeTunnel(c.secure, tls, c.proxyHref)
      : sparing(c.secure ? new https.Agent({ keepAlive: true, ...sharedContext(tls) }) : new http.Agent({ keepAlive: true }));
    c.agents.push(c.agent);
  };
  /** Connections of the channel's agent (busy, free) plus its spares. */
  const openSockets = (c: Channel): number => {
    let n = spares.filter((x) => x.owner === c.agent).length;
    for (const pool of [c.agent.sockets, c.agent.freeSockets]) for (const list of Object.values(pool ?? {})) n += (list as unknown[]).length;
    return n;
  };
  /**
   * The warm probe: one GET on a connection that is up, sent before the channel's lists start, so
   * the time to its answer's headers is one round trip plus the server's (small) work, with none of
   * a handshake's CPU in it, which near a busy server is most of a handshake sample. Other clusters'
   * pages may be moving through the thread meanwhile: that can only make a sample larger (each is
   * an upper bound, rtt.ts), and the loader re-checks a near figure with its own idle-time probe.
   * At most one per `warm` message; posts its sample, or probeFailed.
   */
  const sendProbe = (c: Channel, probe: { url: string; headers: HeaderMap }) => {
    const t0 = performance.now();
    let reused = false;
    let settled = false;
    const failed = () => settled || ((settled = true), post({ t: 'probeFailed', ch: c.ch }));
    const req = (c.secure ? https : http).request(probe.url, { method: 'GET', agent: c.agent, headers: probe.headers });
    req.setTimeout(10_000, () => req.destroy(new Error('probe timed out')));
    req.once('socket', (sock: import('node:net').Socket) => (reused = !sock.connecting));
    req.on('error', failed);
    req.on('response', (res: import('node:http').IncomingMessage) => {
      const ms = performance.now() - t0;
      res.resume(); // the body is not read: only its timing matters
      res.on('error', () => undefined);
      if (settled) return;
      settled = true;
      post(reused ? { t: 'rtt', ch: c.ch, ms, probe: true } : { t: 'probeFailed', ch: c.ch });
    });
    req.end();
  };

  const up = (c: Channel) => {
    const p = c.probing;
    c.probing = undefined;
    if (p && channels.get(c.ch) === c) sendProbe(c, p);
  };
  const liveSpares = (c: Channel) => spares.filter((x) => x.owner === c.agent && !x.socket.destroyed);
  /** Opens spares until `sockets` connections are open or opening; posts each handshake's RTT sample. */
  const warm = (c: Channel, origin: string, sockets: number, probe?: { url: string; headers: HeaderMap }) => {
    const agent = c.agent;
    if (c.proxyHref || typeof agent.dial !== 'function') return void (probe && post({ t: 'probeFailed', ch: c.ch })); // a tunnel's connections go through the proxy: not warmed
    if (probe) {
      c.probing = probe;
      // A connection already up (a ready spare, a free socket of the agent) takes it at once.
      if (liveSpares(c).some((x) => x.ready) || Object.values(agent.freeSockets ?? {}).some((l) => (l as unknown[]).length > 0)) up(c);
    }
    const u = new URL(origin);
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const port = Number(u.port || (c.secure ? 443 : 80));
    const key = `${host}:${port}`;
    for (let n = openSockets(c); n < sockets; n++) {
      // The options the agent itself would dial with (its TLS material, keep-alive; SNI: the
      // cluster's tls-server-name when set, as the agent's requests present it, else as Node
      // derives it: the host name, none for an IP address).
      const servername = agent.options?.servername || (net.isIP(host) ? '' : host);
      const options = { ...agent.options, host, port, servername, encoding: null };
      const t0 = performance.now();
      let connectMs = 0;
      let socket: import('node:net').Socket;
      try {
        socket = agent.dial.call(agent, options);
      } catch {
        return; // the request will dial, and fail, in its own way
      }
      const sp: Spare = { socket, owner: agent, key, ready: false, timer: setTimeout(() => (dropSpare(sp), socket.destroy()), SPARE_IDLE_MS) };
      sp.timer.unref?.();
      spares.push(sp);
      socket.once('connect', () => (connectMs = performance.now() - t0));
      if (c.secure && socket instanceof tls.TLSSocket) {
        const s = socket as import('node:tls').TLSSocket;
        s.once('secureConnect', () => {
          const rounds = s.getProtocol() === 'TLSv1.3' || s.isSessionReused() ? 1 : 2;
          post({ t: 'rtt', ch: c.ch, ms: Math.max(connectMs, (performance.now() - t0) / (1 + rounds)) });
          sp.ready = true;
          up(c);
        });
      } else
        socket.once('connect', () => {
          post({ t: 'rtt', ch: c.ch, ms: connectMs });
          sp.ready = true;
          up(c);
        });
      // A spare that fails is dropped; a list that needs a connection then dials its own.
      socket.on('error', () => {
        dropSpare(sp);
        if (c.probing && liveSpares(c).length === 0) up(c); // no spare left to carry it: the agent dials (and the sample is refused)
      });
      socket.once('close', () => dropSpare(sp));
    }
    // Nothing dialling (every connection busy): the probe takes its turn on the agent.
    if (c.probing && liveSpares(c).length === 0) up(c);
  };
  const post = (m: FromWorker, transfer?: ArrayBuffer[]) => parentPort.postMessage(m, transfer);

  interface Fetch {
    req?: { destroy(): void };
    timer?: ReturnType<typeof setTimeout>;
    status: number;
    headers: IncomingHttpHeaders;
    /** The body: copied into one buffer of the announced Content-Length as it arrives (see PREALLOC_BYTES), else gathered. */
    body?: Buffer;
    chunks: Buffer[];
    size: number;
    /** Body bytes as received (compressed when gzip). */
    wire: number;
    gzip: boolean;
    head: string;
    /** undefined: not known yet; null: cannot be read; '': the last page. */
    token?: string | null;
    /** The list writes its items before its metadata: the token is in the body's tail. */
    atTail?: boolean;
    done: boolean;
    /** The page after this one has been requested. */
    followed: boolean;
    failure?: { kind: FailKind; code?: string; message: string };
    inflater?: { destroy(): void };
  }
  interface Stream {
    id: number;
    /** The cluster whose agent carries its requests. */
    c: Channel;
    next: string;
    headers: HeaderMap;
    grants: number;
    prefetch: boolean;
    timeoutMs: number;
    maxBytes: number;
    /** Requested and not yet posted, in list order. */
    fetches: Fetch[];
    /** The page requested last (possibly posted already). */
    newest?: Fetch;
    sent: number;
    /** When `progress` was last posted (ms). */
    progressAt: number;
  }
  const streams = new Map<number, Stream>();
  // Body buffers the main thread has decoded and sent back: reused, so bodies cost no fresh memory
  // (no page faults here, no unmapping there).
  const pool: ArrayBuffer[] = [];
  /** A buffer of the pool that holds `size` bytes (the smallest such), if any. */
  const pooled = (size: number): Buffer | undefined => {
    let best = -1;
    for (let i = 0; i < pool.length; i++) if (pool[i].byteLength >= size && (best < 0 || pool[i].byteLength < pool[best].byteLength)) best = i;
    if (best < 0) return undefined;
    const ab = pool.splice(best, 1)[0];
    return Buffer.from(ab, 0, size);
  };
  const bodyBuffer = (size: number): Buffer => pooled(size) ?? Buffer.allocUnsafeSlow(size);
  const isOk = (f: Fetch) => f.status >= 200 && f.status < 300;

  /** The token of a list body from its leading bytes, once `"items"` is in view (else undefined); 'tail' for items-first lists. */
  const tokenOf = (head: string): string | null | undefined | 'tail' => {
    const at = head.indexOf('"items"');
    if (at < 0) return head.length >= SCAN ? null : undefined;
    if (head.lastIndexOf('"metadata"', at) < 0) return 'tail'; // a typed list always writes metadata first
    const m = CONTINUE.exec(head.slice(0, at));
    if (!m) return '';
    try {
      return JSON.parse(`"${m[1]}"`) as string;
    } catch {
      return null;
    }
  };

  /** The token of an items-first list from its last bytes: the list's metadata is its last key. */
  const tailTokenOf = (f: Fetch): string | null => {
    let tail: string;
    if (f.body) tail = f.body.toString('latin1', Math.max(0, f.size - TAIL), f.size);
    else {
      const last: Buffer[] = [];
      for (let i = f.chunks.length - 1, n = 0; i >= 0 && n < TAIL; i--) (last.unshift(f.chunks[i]), (n += f.chunks[i].length));
      const b = Buffer.concat(last);
      tail = b.toString('latin1', Math.max(0, b.length - TAIL));
    }
    const at = tail.lastIndexOf('"metadata":');
    if (at < 0) return null;
    const m = CONTINUE.exec(tail.slice(at));
    if (!m) return '';
    try {
      return JSON.parse(`"${m[1]}"`) as string;
    } catch {
      return null;
    }
  };

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

  /** Posts the pages that are complete, in order; the stream ends after the last one it can follow. */
  const flush = (s: Stream) => {
    while (streams.has(s.id) && s.fetches.length > 0 && s.fetches[0].done) {
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
      // The body's ArrayBuffer is its own (never a slice of Node's shared pool), so it can be
      // transferred; a recycled one may be longer than the body, which `length` bounds.
      let body: Buffer;
      if (f.body) body = f.body.subarray(0, f.size);
      else {
        body = bodyBuffer(f.size);
        let at = 0;
        for (const c of f.chunks) at += c.copy(body, at);
      }
      f.chunks = [];
      f.body = undefined;
      const ab = body.buffer as ArrayBuffer;
      if (end) stop(s);
      // Whether the body is pure ASCII is checked here, off the parsing thread (see decodeBody).
      post(
        {
          t: 'page',
          id: s.id,
          status: f.status,
          headers: ok ? {} : f.headers,
          body: ab,
          length: f.size,
          wire: f.wire,
          gzip: f.gzip,
          ascii: isAscii(body),
          token: ok ? (f.token ?? null) : null,
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
    if (!n || !streams.has(s.id) || s.grants <= 0 || n.followed || n.failure || !isOk(n) || !n.token) return;
    if (!s.prefetch && !n.done) return;
    n.followed = true;
    launch(s, s.next + (s.next.includes('?') ? '&' : '?') + 'continue=' + encodeURIComponent(n.token));
  };

  const launch = (s: Stream, url: string) => {
    s.grants--;
    s.sent++;
    const f: Fetch = { status: 0, headers: {}, chunks: [], size: 0, wire: 0, gzip: false, head: '', done: false, followed: false };
    s.fetches.push(f);
    s.newest = f;
    const fail = (failure: NonNullable<Fetch['failure']>) => {
      if (f.done) return;
      f.done = true;
      f.failure = failure;
      if (f.timer) clearTimeout(f.timer);
      f.req?.destroy();
      f.inflater?.destroy();
      f.chunks = [];
      f.body = undefined;
      flush(s);
    };
    const tooLarge = (declared?: number) =>
      fail({ kind: 'tooLarge', message: `response larger than ${s.maxBytes} bytes${declared !== undefined ? ` (Content-Length says ${declared})` : ''}` });
    const req = (s.c.secure ? https : http).request(url, { method: 'GET', agent: s.c.agent, headers: s.headers });
    f.req = req;
    if (s.timeoutMs > 0) f.timer = setTimeout(() => fail({ kind: 'timeout', message: `no complete response within ${s.timeoutMs} ms` }), s.timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => fail({ kind: 'connect', code: e.code, message: e.message }));
    req.on('response', (res: import('node:http').IncomingMessage) => {
      f.status = res.statusCode ?? 0;
      f.headers = res.headers;
      const ok = isOk(f);
      const enc = String(res.headers['content-encoding'] ?? '')
        .trim()
        .toLowerCase();
      f.gzip = enc === 'gzip' || enc === 'x-gzip';
      if (!f.gzip && enc !== '' && enc !== 'identity') return fail({ kind: 'malformed', message: `unsupported Content-Encoding ${enc}` });
      // The announced length is the body's on the wire: the decoded size only without gzip. It is
      // only a claim: a body past the cap fails now, and memory for the body is taken from the
      // header only up to PREALLOC_BYTES (or from a buffer already held); a larger one grows as its
      // bytes arrive, so a lying header costs nothing.
      const declared = f.gzip ? NaN : Number(res.headers['content-length']);
      if (declared > s.maxBytes) return tooLarge(declared);
      if (Number.isSafeInteger(declared) && declared > 0)
        f.body = pooled(declared) ?? (declared <= PREALLOC_BYTES ? Buffer.allocUnsafeSlow(declared) : undefined);
      res.on('data', (c: Buffer) => {
        f.wire += c.length;
        const now = Date.now();
        if (now - s.progressAt >= PROGRESS_MS && streams.has(s.id)) {
          s.progressAt = now;
          post({ t: 'progress', id: s.id });
        }
      });
      let body: import('node:stream').Readable = res;
      if (f.gzip) {
        const gz = zlib.createGunzip();
        f.inflater = gz;
        res.pipe(gz);
        gz.on('error', (e: Error) => fail({ kind: 'malformed', message: `gzip body does not inflate (${e.message})` }));
        body = gz;
      }
      body.on('data', (c: Buffer) => {
        if (f.done) return;
        if (f.size + c.length > s.maxBytes) return tooLarge();
        if (f.body && f.size + c.length <= f.body.length) c.copy(f.body, f.size);
        else {
          if (f.body) (f.chunks.push(f.body.subarray(0, f.size)), (f.body = undefined)); // longer than announced
          f.chunks.push(c);
        }
        f.size += c.length;
        if (ok && f.token === undefined && !f.atTail) {
          f.head += c.toString('latin1', 0, Math.min(c.length, SCAN - f.head.length));
          const t = tokenOf(f.head);
          if (t === 'tail') f.atTail = true;
          else if ((f.token = t) !== undefined) follow(s);
        }
      });
      body.on('end', () => {
        if (f.done) return;
        if (f.timer) clearTimeout(f.timer);
        if (ok && f.token === undefined) {
          const t = f.atTail ? 'tail' : tokenOf(f.head);
          f.token = t === 'tail' ? tailTokenOf(f) : (t ?? null);
        }
        f.done = true;
        follow(s); // without prefetch, the next page is requested now, before this one is posted
        flush(s);
      });
      res.on('aborted', () => fail({ kind: 'reset', message: 'connection reset while reading the response' }));
      res.on('error', (e: NodeJS.ErrnoException) => fail({ kind: 'reset', code: e.code, message: e.message }));
      res.on('close', () => {
        if (!res.complete) fail({ kind: 'reset', message: 'connection closed before the response was complete' });
      });
    });
    req.end();
  };

  parentPort.on('message', (m: ToWorker) => {
    if (m.t === 'list') {
      const c = channels.get(m.ch);
      // never happens (a channel's messages precede its close); said, so that no stream waits forever
      if (!c) return post({ t: 'fail', id: m.id, kind: 'connect', message: "the cluster's I/O channel is closed", sent: 0, end: true });
      const s: Stream = {
        id: m.id,
        c,
        next: m.next,
        headers: m.headers,
        grants: m.grants,
        prefetch: m.prefetch,
        timeoutMs: m.timeoutMs,
        maxBytes: m.maxBytes,
        fetches: [],
        sent: 0,
        progressAt: Date.now(),
      };
      streams.set(m.id, s);
      launch(s, m.url);
    } else if (m.t === 'grant') {
      const s = streams.get(m.id);
      if (!s) return;
      s.grants += m.grants;
      s.headers = m.headers; // fresh credentials (exec plugins) for the requests still to come
      follow(s);
    } else if (m.t === 'recycle') {
      if (pool.length < 16) pool.push(m.buffer);
    } else if (m.t === 'warm') {
      const c = channels.get(m.ch);
      if (c) warm(c, m.origin, m.sockets, m.probe);
    } else if (m.t === 'cancel') {
      const s = streams.get(m.id);
      if (s) stop(s);
    } else if (m.t === 'open') {
      const c: Channel = { ch: m.ch, secure: m.secure, proxyHref: m.proxy, agent: undefined, agents: [] };
      makeAgent(c, {});
      channels.set(m.ch, c);
    } else if (m.t === 'close') {
      const c = channels.get(m.ch);
      if (!c) return;
      channels.delete(m.ch);
      for (const s of [...streams.values()]) if (s.c === c) stop(s);
      for (const a of c.agents) (destroySpares(a), a.destroy());
      c.agents = [];
    } else if (m.t === 'tls') {
      const c = channels.get(m.ch);
      if (!c) return;
      // New credentials (e.g. a rotated client certificate): new connections use them.
      const bin = (v: unknown): unknown =>
        v instanceof Uint8Array
          ? Buffer.from(v.buffer, v.byteOffset, v.byteLength)
          : Array.isArray(v)
            ? v.map(bin)
            : v && typeof v === 'object' && 'buf' in v
              ? { ...v, buf: bin((v as { buf: unknown }).buf) } // PxfObject
              : v;
      makeAgent(c, { ...m.tls, pfx: bin(m.tls.pfx) as Tls['pfx'] });
    }
  });
}
