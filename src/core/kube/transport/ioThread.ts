/**
 * IoThread: a worker thread that walks paged lists, so the thread that parses the pages and keeps
 * the objects does not also decrypt TLS, parse HTTP, gather chunks and chase continue tokens.
 *
 * Why: a load is bound by the thread that decodes the pages (JSON.parse, or the protobuf walker for
 * the kinds asked for in protobuf). When that thread also drives the requests,
 * every link of a long list's chain (read the token, send the next request) waits behind whatever
 * parsing is queued, and the network work competes with the parsing for the same thread. On this
 * thread the chains move at the server's pace and the parsing thread only decodes and parses; each
 * page crosses as one transferred buffer (no copy between threads), with its Content-Type; a Table
 * page without its rows' managedFields, which the parsing thread would only drop (ioTable.ts).
 *
 * One thread per process: every IoThread (one per transport, so per cluster) is a channel of the
 * same worker, which keeps each channel's agent (its TLS material, scheme and proxy) and spare
 * connections apart. Five clusters cost one isolate, not five (measured: five threads were most of
 * the extra CPU of a five-cluster load on 2 cores). Each cluster's rate limiter stays with its
 * transport on the calling thread, which grants that cluster's requests (below).
 *
 * Guarantees:
 * - A stream's messages arrive in list order, and the last one says `end`; after cancel() nothing
 *   more arrives, and the worker has destroyed the stream's requests (the server sees them go).
 * - The worker sends a request only with a grant; the transport grants as its rate limiter allows.
 * - A channel's requests use only its own agent: a cluster that hangs holds its own sockets, and
 *   the other channels' streams go on (the thread does no blocking work).
 * - close() ends the channel: its streams are cancelled and its agent, with every socket of it, is
 *   destroyed in the thread; the other channels are untouched. The thread is reference-counted: the
 *   last channel's close() terminates it, and the next start() starts a new one.
 * - The worker keeps the process alive only while a stream is open (it is unref'd when idle).
 * - If the worker dies, every open stream of every channel ends with a reset failure (retried by
 *   the transport's policy on the calling thread) and each channel's `failed` is set, so no new
 *   stream is opened on it (its lists stay on the calling thread); a start() after that starts a
 *   new thread.
 * - Streams opened while the thread boots wait in the worker's queue, in order. The CLI starts the thread ahead (prestartIoThread), so
 *   that its boot overlaps the command's start-up; a multi-cluster load boots it once (five
 *   threads booting at once on 2 cores held each cluster's first lists 200-450 ms).
 */
import { Worker } from 'node:worker_threads';
import type { HeaderMap, Tls } from './auth';
import type { FromWorker, ListStreamRequest, ToWorker } from './ioProtocol';
import { ioWorkerMain, type IoWorkerParts } from './ioWorker';
import { pageTokens } from './ioPages';
import { protobufListMeta } from './ioProtobuf';
import { bodyBuffers } from './ioBuffers';
import { spareConnections } from './ioSpares';
import { channelAgents } from './ioAgents';
import { connectionWarmer } from './ioWarm';
import { listStreams } from './ioStreams';
import { pageBodyReader } from './ioBody';
import { pageFetcher } from './ioFetch';
import { tableTrimmer } from './ioTable';
import { tunnelAgentFactory } from './tunnel';

export type StreamMessage =
  | (Omit<Extract<FromWorker, { t: 'page' }>, 'body' | 'id'> & { body: Buffer })
  | Omit<Extract<FromWorker, { t: 'fail' }>, 'id'>
  | Omit<Extract<FromWorker, { t: 'progress' }>, 'id'>;

/**
 * PEM material as text: a Buffer crosses to the worker as a plain Uint8Array, which the https agent
 * would turn into a comma-separated byte list for its connection-pool key on every request. A PKCS#12
 * (pfx) stays binary and is made a Buffer again in the worker.
 */
function cloneableTls(tls: Tls): Tls {
  const text = (v: unknown): unknown => (Buffer.isBuffer(v) ? v.toString('utf8') : Array.isArray(v) ? v.map(text) : v);
  return { ...tls, ca: text(tls.ca) as Tls['ca'], cert: text(tls.cert) as Tls['cert'], key: text(tls.key) as Tls['key'] };
}

/** The worker's parts (ioWorker.ts), by the names its entry calls them. */
export const IO_WORKER_PARTS: IoWorkerParts = {
  pageTokens,
  protobufListMeta,
  bodyBuffers,
  spareConnections,
  channelAgents,
  connectionWarmer,
  listStreams,
  pageBodyReader,
  pageFetcher,
  tableTrimmer,
};

/**
 * The worker's one text: the entry called with the worker's `require`, the tunnel factory and each
 * part, every function as its own source (so each must be self-contained: ioWorker.ts). The parts
 * are passed by property name, which a minifier keeps, never by a function's own name, which it may
 * change. `__name`: bundlers that keep function names (esbuild's keepNames, as tsx uses) wrap
 * functions in a helper of the bundle's scope; the worker's copy of the source gets a no-op one.
 */
export const IO_WORKER_SOURCE = [
  'var __name = (f) => f;',
  `(${ioWorkerMain.toString()})(require, (${tunnelAgentFactory.toString()})(require), {`,
  ...Object.entries(IO_WORKER_PARTS).map(([name, part]) => `  ${JSON.stringify(name)}: (${part.toString()}),`),
  '});',
].join('\n');

/**
 * A worker started ahead of need (prestartIoThread), kept on globalThis so that another bundle of
 * the same build (the CLI launcher starts it; the command's bundle takes it) can hand it over.
 */
interface Prestarted {
  worker: Worker;
  failure?: Error;
}
const PRESTARTED = Symbol.for('kubeloop.ioThread.prestarted');
type Slot = { [PRESTARTED]?: Prestarted };

function spawnWorker(): Worker {
  return new Worker(IO_WORKER_SOURCE, { eval: true, name: 'kubeloop-io' });
}

/**
 * Starts the I/O thread now, so that its boot (tens of ms) overlaps the caller's own start-up; the
 * next IoThread.start() takes it (and every later one shares it). Unclaimed, it does not keep the process alive, and
 * discardPrestartedIoThread() ends it. Best effort: a failure here only means a later start.
 */
export function prestartIoThread(): void {
  const slot = globalThis as Slot;
  if (slot[PRESTARTED]) return;
  try {
    const p: Prestarted = { worker: spawnWorker() };
    p.worker.unref();
    p.worker.on('error', (e) => (p.failure ??= e));
    p.worker.on('exit', (code) => (p.failure ??= new Error(`I/O thread exited with code ${code}`)));
    slot[PRESTARTED] = p;
  } catch {
    // worker threads unavailable: start() will say so in its own way
  }
}

/** Ends a prestarted thread nobody took (the command failed before it needed one). */
export function discardPrestartedIoThread(): void {
  const slot = globalThis as Slot;
  const p = slot[PRESTARTED];
  delete slot[PRESTARTED];
  if (p) void p.worker.terminate();
}

function takePrestarted(): Worker | undefined {
  const slot = globalThis as Slot;
  const p = slot[PRESTARTED];
  delete slot[PRESTARTED];
  if (!p) return undefined;
  p.worker.removeAllListeners('error');
  p.worker.removeAllListeners('exit');
  if (p.failure) {
    void p.worker.terminate();
    return undefined;
  }
  return p.worker;
}

/** A stream's owner and where its messages go. */
interface OpenStream {
  channel: IoThread;
  deliver: (m: StreamMessage) => void;
}

/**
 * The one worker of the process and what is open on it: its channels (reference count) and its
 * streams (ids unique across channels). Made by the first start(), dropped by the last close() or
 * by the worker's death.
 */
class IoHost {
  readonly worker: Worker;
  readonly channels = new Set<IoThread>();
  readonly streams = new Map<number, OpenStream>();
  nextStream = 1;
  nextChannel = 1;
  failed: Error | undefined;
  /** Ended because no stream was open for ioThreadIdleMs: its channels move to the next thread when they need one. */
  retired = false;
  private ended = false;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    this.worker = takePrestarted() ?? spawnWorker();
    this.worker.unref();
    this.worker.on('message', (m: FromWorker) => this.onMessage(m));
    this.worker.on('error', (e) => this.die(e));
    this.worker.on('exit', (code) => {
      if (!this.ended) this.die(new Error(`I/O thread exited with code ${code}`));
    });
  }

  get usable(): boolean {
    return !this.ended && !this.failed;
  }

  post(m: ToWorker, transfer?: ArrayBuffer[]): void {
    if (this.usable) this.worker.postMessage(m, transfer);
  }

  /** Body buffers handed back to the worker so far (diagnostics: sharedIoThread). */
  recycled = 0;

  openStream(s: OpenStream): number {
    const id = this.nextStream++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.streams.size === 0) this.worker.ref();
    this.streams.set(id, s);
    return id;
  }

  /** Forgets a stream of `channel` (no more messages reach it); false when it was not open. */
  forget(id: number, channel?: IoThread): boolean {
    const s = this.streams.get(id);
    if (!s || (channel && s.channel !== channel)) return false;
    this.streams.delete(id);
    if (this.streams.size === 0) {
      this.worker.unref();
      this.idleTimer ??= setTimeout(() => this.retire(), idleMs);
      this.idleTimer.unref();
    }
    return true;
  }

  /**
   * No stream for idleMs: the thread ends, and with it its heap, its buffer pool and its
   * connections (measured: ~40 MB of RSS held by an idle thread after a 100,000-object load, in the
   * extension host every other extension shares). Channels stay open; the next one that needs a
   * thread starts a new one and opens itself there again (IoThread.attach).
   */
  private retire(): void {
    this.idleTimer = undefined;
    if (this.streams.size > 0 || this.ended) return;
    this.retired = true;
    this.end();
  }

  /** A channel closed: its streams are forgotten; the last one ends the thread. */
  release(channel: IoThread, ch: number): void {
    if (!this.channels.delete(channel)) return;
    for (const [id, s] of this.streams) if (s.channel === channel) this.forget(id);
    this.post({ t: 'close', ch });
    if (this.channels.size === 0) this.end();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (shared === this) shared = undefined;
    this.streams.clear();
    void this.worker.terminate();
  }

  private onMessage(m: FromWorker): void {
    if (m.t === 'rtt' || m.t === 'probeFailed') {
      for (const c of this.channels) if (c.ch === m.ch) c.fromWorker(m);
      return;
    }
    const s = this.streams.get(m.id);
    if (!s) return; // cancelled meanwhile
    if (m.end) this.forget(m.id);
    if (m.t === 'page') {
      const { id: _id, body, ...rest } = m;
      s.deliver({ ...rest, body: Buffer.from(body, 0, m.length) });
    } else if (m.t === 'progress') {
      s.deliver({ t: 'progress' });
    } else {
      const { id: _id, ...rest } = m;
      s.deliver(rest);
    }
  }

  private die(e: Error): void {
    if (this.failed || this.ended) return;
    this.failed = e;
    if (shared === this) shared = undefined; // the next start() gets a new thread
    const open = [...this.streams.values()];
    this.streams.clear();
    this.worker.unref();
    for (const s of open) s.deliver({ t: 'fail', kind: 'reset', message: `I/O thread failed: ${e.message}`, sent: 0, end: true });
    void this.worker.terminate();
  }
}

/** The process's thread while any channel is open on it. */
let shared: IoHost | undefined;

/** How long the thread stays up with no stream open before it retires (IoHost.retire). */
export const IO_THREAD_IDLE_MS = 15_000;
let idleMs = IO_THREAD_IDLE_MS;

/** Sets the idle time before the thread retires (tests); returns the previous one. */
export function setIoThreadIdleMs(ms: number): number {
  const was = idleMs;
  idleMs = ms;
  return was;
}

/**
 * The process's I/O thread as it is now, for diagnostics and tests: its thread id, the channels
 * (transports) open on it, their open streams and the body buffers handed back for reuse; undefined when none runs. `kill()` terminates the
 * worker as a crash would (every open stream fails with a reset and its list goes on here).
 */
export function sharedIoThread(): { threadId: number; channels: number; streams: number; recycled: number; kill(): Promise<number> } | undefined {
  const h = shared;
  if (!h || !h.usable) return undefined;
  return { threadId: h.worker.threadId, channels: h.channels.size, streams: h.streams.size, recycled: h.recycled, kill: () => h.worker.terminate() };
}

/** One cluster's channel of the process's I/O thread (see the guarantees above). */
export class IoThread {
  /** The channel's number in its worker (a new one after the thread retired). */
  ch: number;
  private closed = false;
  private tlsVersion = -1;
  /** Gets each RTT sample the thread takes (warmed connections' handshakes; `probe`: the warm probe's answer). */
  onRtt: ((ms: number, probe: boolean) => void) | undefined;
  /** The warm probe got no sample. */
  onProbeFailed: (() => void) | undefined;

  /**
   * A channel of the running thread (started now if there is none), or undefined where worker
   * threads are not available (lists then stay here). `secure`: the server is https. `proxy`: an
   * http(s) proxy URL every connection of the channel tunnels through (tunnel.ts).
   */
  static start(secure: boolean, proxy?: string): IoThread | undefined {
    try {
      shared ??= new IoHost();
      return new IoThread(shared, secure, proxy);
    } catch {
      return undefined;
    }
  }

  private constructor(
    private host: IoHost,
    private readonly secure: boolean,
    private readonly proxy?: string,
  ) {
    this.ch = this.join(host);
  }

  private join(host: IoHost): number {
    const ch = host.nextChannel++;
    host.channels.add(this);
    // messages are ordered: the channel is open in the worker before any of its lists
    host.post({ t: 'open', ch, secure: this.secure, ...(this.proxy ? { proxy: this.proxy } : {}) });
    return ch;
  }

  /**
   * After the thread retired (idle): this channel on the running thread, started now if none
   * runs. Its TLS material is sent again by the next useTls (each list calls it first); spare
   * connections are not kept (a later warm() dials them again).
   */
  private attach(): void {
    if (this.closed || !this.host.retired) return;
    try {
      shared ??= new IoHost();
    } catch {
      return; // no thread to be had: the retired host stays, and usable says false
    }
    this.host = shared;
    this.tlsVersion = -1;
    this.ch = this.join(this.host);
  }

  /** Set when the worker died: no new stream is opened on it. */
  get failed(): Error | undefined {
    return this.host.failed;
  }

  /** Not closed, and the worker did not die (a thread that retired idle counts: the next use starts another). */
  get usable(): boolean {
    return !this.closed && (this.host.usable || this.host.retired);
  }

  /** TLS material for the channel's new connections; `version` changes when it rotates. */
  useTls(tls: Tls, version: number): void {
    this.attach();
    if (version === this.tlsVersion || !this.usable) return;
    this.tlsVersion = version;
    this.host.post({ t: 'tls', ch: this.ch, tls: cloneableTls(tls) });
  }

  /** Opens a stream; `onMessage` gets its pages and its end. Returns the stream's id. */
  openList(r: ListStreamRequest, onMessage: (m: StreamMessage) => void): number {
    this.attach();
    const id = this.host.openStream({ channel: this, deliver: onMessage });
    // The host itself must be up here (a retired one that could not be replaced never answers).
    if (!this.closed && this.host.usable) this.host.post({ t: 'list', ch: this.ch, id, ...r });
    else queueMicrotask(() => this.failStream(id, this.closed ? 'the I/O channel is closed' : 'no I/O thread'));
    return id;
  }

  grant(id: number, grants: number, headers: HeaderMap): void {
    if (this.usable && this.host.streams.get(id)?.channel === this) this.host.post({ t: 'grant', id, grants, headers });
  }

  /**
   * Hands a body's buffer back to the worker for reuse (the caller must not touch it again). One
   * message per page, on purpose: sending them 8 to a message cost 0.07-0.18 s more CPU per 100k
   * load (median of 8-10 interleaved runs, four A/Bs: more fresh buffers in the worker, more
   * external memory held here). The time a CPU profile shows in this postMessage is mostly this
   * thread descheduled while the message wakes the worker (2 cores), not CPU.
   */
  recycle(body: Buffer): void {
    const ab = body.buffer as ArrayBuffer;
    if (!this.usable || body.byteOffset !== 0 || ab.byteLength < 64 * 1024) return;
    this.host.recycled++;
    this.host.post({ t: 'recycle', buffer: ab }, [ab]);
  }

  /**
   * Asks the thread to have `sockets` connections of this channel to `origin` open or opening,
   * dialled now (spares its agent hands out before it would dial). Connections only, no request,
   * but for `probe`: one GET on the first connection that is up, for an idle-time RTT sample. A
   * spare unused for 30 s is closed. Not done through a proxy. Call useTls first.
   */
  warm(origin: string, sockets: number, probe?: { url: string; headers: HeaderMap }): void {
    this.attach();
    if (this.usable) this.host.post({ t: 'warm', ch: this.ch, origin, sockets, ...(probe ? { probe } : {}) });
  }

  cancel(id: number): void {
    if (this.host.forget(id, this)) this.host.post({ t: 'cancel', id });
  }

  /** Ends this channel (its streams, its sockets); the thread ends with its last channel. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.host.release(this, this.ch);
  }

  /** @internal the host's delivery of this channel's RTT messages */
  fromWorker(m: Extract<FromWorker, { t: 'rtt' | 'probeFailed' }>): void {
    if (this.closed) return;
    if (m.t === 'rtt') this.onRtt?.(m.ms, !!m.probe);
    else this.onProbeFailed?.();
  }

  private failStream(id: number, message: string): void {
    const s = this.host.streams.get(id);
    if (!s || !this.host.forget(id, this)) return;
    s.deliver({ t: 'fail', kind: 'reset', message, sent: 0, end: true });
  }
}
