/**
 * IoThread: a worker thread that walks paged lists, so the thread that parses the pages and keeps
 * the objects does not also decrypt TLS, parse HTTP, gather chunks and chase continue tokens.
 *
 * Why: a load is bound by the thread that parses JSON. When that thread also drives the requests,
 * every link of a long list's chain (read the token, send the next request) waits behind whatever
 * parsing is queued, and the network work competes with the parsing for the same thread. On this
 * thread the chains move at the server's pace and the parsing thread only decodes and parses; each
 * page crosses as one transferred buffer (no copy between threads).
 *
 * Guarantees:
 * - A stream's messages arrive in list order, and the last one says `end`; after cancel() nothing
 *   more arrives, and the worker has destroyed the stream's requests (the server sees them go).
 * - The worker sends a request only with a grant; the transport grants as its rate limiter allows.
 * - close() terminates the worker and with it every socket of its agent.
 * - The worker keeps the process alive only while a stream is open (it is unref'd when idle).
 * - If the worker dies, every open stream ends with a reset failure (retried by the transport's
 *   policy on the calling thread) and `failed` is set, so no new stream is opened on it.
 * - `ready` turns true when the thread has booted (its 'ready' message). Until then the transport
 *   opens no stream on it: a list that starts before (the first lists of a load whose thread was
 *   not started ahead, e.g. the second and later clusters of a multi-cluster load) is walked on the
 *   calling thread instead of waiting tens to hundreds of ms for a booting isolate.
 */
import { Worker } from 'node:worker_threads';
import type { HeaderMap, Tls } from './auth';
import { ioWorkerMain, type FromWorker, type IoWorkerData, type ToWorker } from './ioWorker';
import { tunnelAgentFactory } from './tunnel';

export type StreamMessage =
  | (Omit<Extract<FromWorker, { t: 'page' }>, 'body' | 'id'> & { body: Buffer })
  | Omit<Extract<FromWorker, { t: 'fail' }>, 'id'>
  | Omit<Extract<FromWorker, { t: 'progress' }>, 'id'>;

export interface ListStreamRequest {
  /** First page's URL, and the URL a continue token is appended to. */
  url: string;
  next: string;
  headers: HeaderMap;
  grants: number;
  prefetch: boolean;
  timeoutMs: number;
}

/**
 * PEM material as text: a Buffer crosses to the worker as a plain Uint8Array, which the https agent
 * would turn into a comma-separated byte list for its connection-pool key on every request. A PKCS#12
 * (pfx) stays binary and is made a Buffer again in the worker.
 */
function cloneableTls(tls: Tls): Tls {
  const text = (v: unknown): unknown => (Buffer.isBuffer(v) ? v.toString('utf8') : Array.isArray(v) ? v.map(text) : v);
  return { ...tls, ca: text(tls.ca) as Tls['ca'], cert: text(tls.cert) as Tls['cert'], key: text(tls.key) as Tls['key'] };
}

// `__name`: bundlers that keep function names (esbuild's keepNames, as tsx uses) wrap functions in
// a helper of the bundle's scope; the worker's copy of the source gets a no-op one.
const SOURCE = `var __name = (f) => f;\n(${ioWorkerMain.toString()})(require, (${tunnelAgentFactory.toString()})(require));`;

/**
 * A worker started ahead of need (prestartIoThread), kept on globalThis so that another bundle of
 * the same build (the CLI launcher starts it; the command's bundle takes it) can hand it over.
 */
interface Prestarted {
  worker: Worker;
  failure?: Error;
  ready?: boolean;
}
const PRESTARTED = Symbol.for('kubeloop.ioThread.prestarted');
type Slot = { [PRESTARTED]?: Prestarted };

function spawnWorker(secure: boolean): Worker {
  const workerData: IoWorkerData = { secure };
  return new Worker(SOURCE, { eval: true, workerData, name: 'kubeloop-io' });
}

/**
 * Starts the I/O thread now, so that its boot (tens of ms) overlaps the caller's own start-up; the
 * next IoThread.start() takes it. Unclaimed, it does not keep the process alive, and
 * discardPrestartedIoThread() ends it. Best effort: a failure here only means a later start.
 */
export function prestartIoThread(): void {
  const slot = globalThis as Slot;
  if (slot[PRESTARTED]) return;
  try {
    const p: Prestarted = { worker: spawnWorker(true) };
    p.worker.unref();
    p.worker.on('error', (e) => (p.failure ??= e));
    p.worker.on('exit', (code) => (p.failure ??= new Error(`I/O thread exited with code ${code}`)));
    p.worker.on('message', (m: FromWorker) => {
      if (m.t === 'ready') p.ready = true;
    });
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

function takePrestarted(): { worker: Worker; ready: boolean } | undefined {
  const slot = globalThis as Slot;
  const p = slot[PRESTARTED];
  delete slot[PRESTARTED];
  if (!p) return undefined;
  p.worker.removeAllListeners('error');
  p.worker.removeAllListeners('exit');
  // the taker attaches its own listener in the same tick: no message falls between the two
  p.worker.removeAllListeners('message');
  if (p.failure) {
    void p.worker.terminate();
    return undefined;
  }
  return { worker: p.worker, ready: !!p.ready };
}

export class IoThread {
  private readonly worker: Worker;
  private readonly streams = new Map<number, (m: StreamMessage) => void>();
  private nextId = 1;
  private closed = false;
  private tlsVersion = -1;
  /** Set when the worker died: no new stream is opened on it. */
  failed: Error | undefined;
  /** The thread has booted (see the guarantees). */
  ready = false;
  /** Gets each RTT sample the thread takes (warmed connections' handshakes; `probe`: the warm probe's answer). */
  onRtt: ((ms: number, probe: boolean) => void) | undefined;
  /** The warm probe got no sample. */
  onProbeFailed: (() => void) | undefined;

  /**
   * A running thread, or undefined where worker threads are not available (lists then stay here).
   * `proxy`: an http(s) proxy URL every connection of the thread tunnels through (tunnel.ts).
   */
  static start(secure: boolean, proxy?: string): IoThread | undefined {
    try {
      return new IoThread(secure, proxy);
    } catch {
      return undefined;
    }
  }

  private constructor(secure: boolean, proxy?: string) {
    const early = takePrestarted();
    this.worker = early?.worker ?? spawnWorker(secure);
    this.ready = !!early?.ready;
    // a prestarted worker was told `secure: true`; messages are ordered, so this precedes any list
    if (early && !secure) this.worker.postMessage({ t: 'secure', secure } satisfies ToWorker);
    if (proxy) this.worker.postMessage({ t: 'proxy', url: proxy } satisfies ToWorker);
    this.worker.unref();
    this.worker.on('message', (m: FromWorker) => this.onMessage(m));
    this.worker.on('error', (e) => this.die(e));
    this.worker.on('exit', (code) => {
      if (!this.closed) this.die(new Error(`I/O thread exited with code ${code}`));
    });
  }

  /** Not closed, and the worker did not die. */
  get usable(): boolean {
    return !this.closed && !this.failed;
  }

  /** TLS material for new connections; `version` changes when it rotates. */
  useTls(tls: Tls, version: number): void {
    if (version === this.tlsVersion) return;
    this.tlsVersion = version;
    this.post({ t: 'tls', tls: cloneableTls(tls) });
  }

  /** Opens a stream; `onMessage` gets its pages and its end. Returns the stream's id. */
  openList(r: ListStreamRequest, onMessage: (m: StreamMessage) => void): number {
    const id = this.nextId++;
    if (this.streams.size === 0) this.worker.ref();
    this.streams.set(id, onMessage);
    this.post({ t: 'list', id, ...r });
    return id;
  }

  grant(id: number, grants: number, headers: HeaderMap): void {
    if (this.streams.has(id)) this.post({ t: 'grant', id, grants, headers });
  }

  /** Hands a body's buffer back to the worker for reuse (the caller must not touch it again). */
  recycle(body: Buffer): void {
    const ab = body.buffer as ArrayBuffer;
    if (this.usable && body.byteOffset === 0 && ab.byteLength >= 64 * 1024) this.worker.postMessage({ t: 'recycle', buffer: ab } satisfies ToWorker, [ab]);
  }

  /**
   * Asks the thread to have `sockets` connections to `origin` open or opening, dialled now (spares
   * its agent hands out before it would dial). Connections only, no request, but for `probe`: one
   * GET on the first connection that is up, for an idle-time RTT sample. A spare unused for 30 s
   * is closed. Not done through a proxy. Call useTls first.
   */
  warm(origin: string, sockets: number, probe?: { url: string; headers: HeaderMap }): void {
    this.post({ t: 'warm', origin, sockets, ...(probe ? { probe } : {}) });
  }

  cancel(id: number): void {
    if (this.forget(id)) this.post({ t: 'cancel', id });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.streams.clear();
    void this.worker.terminate();
  }

  private post(m: ToWorker): void {
    if (this.usable) this.worker.postMessage(m);
  }

  private forget(id: number): boolean {
    if (!this.streams.delete(id)) return false;
    if (this.streams.size === 0) this.worker.unref();
    return true;
  }

  private onMessage(m: FromWorker): void {
    if (m.t === 'ready') return void (this.ready = true);
    if (m.t === 'rtt') return void this.onRtt?.(m.ms, !!m.probe);
    if (m.t === 'probeFailed') return void this.onProbeFailed?.();
    const deliver = this.streams.get(m.id);
    if (!deliver) return; // cancelled meanwhile
    if (m.end) this.forget(m.id);
    if (m.t === 'page') {
      const { id: _id, body, ...rest } = m;
      deliver({ ...rest, body: Buffer.from(body, 0, m.length) });
    } else if (m.t === 'progress') {
      deliver({ t: 'progress' });
    } else {
      const { id: _id, ...rest } = m;
      deliver(rest);
    }
  }

  private die(e: Error): void {
    if (this.failed || this.closed) return;
    this.failed = e;
    const open = [...this.streams.values()];
    this.streams.clear();
    for (const deliver of open) deliver({ t: 'fail', kind: 'reset', message: `I/O thread failed: ${e.message}`, sent: 0, end: true });
    void this.worker.terminate();
  }
}
