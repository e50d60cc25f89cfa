/**
 * netem: a plain TCP relay on loopback that makes a local server look remote, for the remote-cluster
 * bench (bench/remote.ts). Clients connect to the relay's port and speak to the server through it
 * byte for byte (TLS stays end-to-end: the relay never looks inside).
 *
 * Guarantees, per direction (client->server "up", server->client "down"):
 *  - Bytes: every byte read from one side is written to the other, unchanged and in order; an end
 *    (FIN) is passed on after the bytes before it, with the same delay. An error or reset on either
 *    side destroys both.
 *  - Latency: a chunk is written no earlier than `latencyMs` after it arrived at the relay (checked
 *    against the monotonic clock when its timer fires, so an early timer never shortens it). A new
 *    connection also waits one round trip (2 x latencyMs, TCP's SYN / SYN-ACK) before its first
 *    byte is sent on.
 *  - Bandwidth: one link per direction, shared by every connection (as a real link is): chunks take
 *    turns on it in order of arrival and each occupies it for bytes * 8 / rate seconds, so the bytes
 *    handed on in any interval of T seconds are at most rate * T / 8 plus one chunk (<= 64 KiB). The
 *    latency is added after a chunk has crossed the link, as propagation follows serialisation.
 *  - Memory: a side is paused once more than `highWaterBytes` of its bytes wait in the relay
 *    (queued or in the other socket's write buffer) and resumed below it, so a fast sender is
 *    slowed to the link's pace by TCP's own flow control instead of filling the relay's heap.
 *    The default is twice the link's bandwidth-delay product, so the cap, not the buffer, limits.
 *
 * Not modelled: loss, jitter, reordering, and the client's own TCP window (its peer is loopback).
 * Counters: bytes relayed each way and connections accepted, readable at any time (stats()).
 */
import * as net from 'node:net';
import { realClock, type Clock, type TimerHandle } from '../src/core/clock';

export interface NetemOptions {
  /** The server to relay to. */
  target: { host: string; port: number };
  /** One-way delay added to every chunk, each direction, in ms (>= 0). */
  latencyMs: number;
  /** Link capacity of each direction in bits per second; 0 or Infinity: uncapped. */
  rateBitsPerSec: number;
  /** Where to listen (default: the target's host, so a certificate issued for it still matches). */
  host?: string;
  highWaterBytes?: number;
  /** Aborting closes the relay and every connection through it. */
  signal?: AbortSignal;
  /** The clock the delays are measured and timed on (default the real one; tests pass a FakeClock). */
  clock?: Clock;
}

export interface NetemStats {
  /** Bytes relayed client -> server. */
  up: number;
  /** Bytes relayed server -> client. */
  down: number;
  /** Connections accepted so far. */
  connections: number;
  /** Connections still open (either side). */
  live: number;
  /** Bytes held by the relay now: queued, or in a socket's write buffer (the `highWaterBytes` measure). */
  held: number;
}

export interface Netem {
  host: string;
  port: number;
  stats(): NetemStats;
  /** Resolves true once no connection is open, false if that takes longer than `timeoutMs`. */
  idle(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** One direction of the link: a serialisation clock shared by every connection. */
class Link {
  private freeAt = 0;
  constructor(private readonly bytesPerMs: number) {}
  /** When a chunk of `bytes` arriving now has crossed the link (ms, on the relay's clock). */
  cross(now: number, bytes: number): number {
    if (!(this.bytesPerMs > 0 && Number.isFinite(this.bytesPerMs))) return now;
    this.freeAt = Math.max(now, this.freeAt) + bytes / this.bytesPerMs;
    return this.freeAt;
  }
}

interface Item {
  due: number;
  chunk: Buffer | null; // null: the end of the stream
}

/** Relays src -> dst through `link`, with the delay and back-pressure described above. */
class Pipe {
  private readonly queue: Item[] = [];
  private head = 0;
  private queued = 0;
  private timer: TimerHandle | undefined;
  private paused = false;
  bytes = 0;

  constructor(
    private readonly src: net.Socket,
    private readonly dst: net.Socket,
    private readonly link: Link,
    private readonly latencyMs: number,
    private readonly notBefore: number,
    private readonly highWater: number,
    private readonly clock: Clock,
  ) {
    src.on('data', (chunk: Buffer) => this.push(chunk));
    src.on('end', () => this.push(null));
    dst.on('drain', () => this.maybeResume());
  }

  private push(chunk: Buffer | null): void {
    const now = this.clock.now();
    const crossed = chunk ? this.link.cross(now, chunk.length) : now;
    const last = this.head < this.queue.length ? this.queue[this.queue.length - 1]!.due : 0;
    // max(last, ...) keeps the order even if an end arrives after data still on the link.
    const due = Math.max(last, this.notBefore + this.latencyMs, crossed + this.latencyMs);
    this.queue.push({ due, chunk });
    if (chunk) {
      this.queued += chunk.length;
      if (!this.paused && this.held() > this.highWater) {
        this.paused = true;
        this.src.pause();
      }
    }
    this.arm();
  }

  private arm(): void {
    if (this.timer || this.head >= this.queue.length) return;
    const wait = this.queue[this.head]!.due - this.clock.now();
    this.timer = this.clock.setTimer(Math.max(0, Math.ceil(wait)), () => {
      this.timer = undefined;
      this.flush();
    });
  }

  private flush(): void {
    const now = this.clock.now();
    while (this.head < this.queue.length && this.queue[this.head]!.due <= now) {
      const { chunk } = this.queue[this.head++]!;
      if (this.dst.destroyed) return;
      if (chunk === null) {
        this.dst.end();
      } else {
        this.queued -= chunk.length;
        this.bytes += chunk.length;
        this.dst.write(chunk);
      }
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.maybeResume();
    this.arm();
  }

  private maybeResume(): void {
    if (this.paused && this.held() <= this.highWater) {
      this.paused = false;
      this.src.resume();
    }
  }

  /** Bytes of this direction the relay holds (what `highWater` bounds). */
  held(): number {
    return this.queued + this.dst.writableLength;
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }
}

/** Starts the relay; resolves once it listens (on an ephemeral port). */
export async function startNetem(opts: NetemOptions): Promise<Netem> {
  if (!(opts.latencyMs >= 0)) throw new Error(`netem: latencyMs must be >= 0, got ${opts.latencyMs}`);
  if (!(opts.rateBitsPerSec >= 0)) throw new Error(`netem: rateBitsPerSec must be >= 0, got ${opts.rateBitsPerSec}`);
  opts.signal?.throwIfAborted();
  const clock = opts.clock ?? realClock;
  const bytesPerMs = opts.rateBitsPerSec / 8 / 1000;
  const up = new Link(bytesPerMs);
  const down = new Link(bytesPerMs);
  // Capped: twice the bandwidth-delay product of a round trip (4 x rate x latency), at least 1 MiB.
  // Uncapped, no product bounds it: 64 MiB, enough that the buffer is not what limits a loopback sender.
  const capped = Number.isFinite(bytesPerMs) && bytesPerMs > 0;
  const highWater = opts.highWaterBytes ?? (capped ? Math.max(1 << 20, 4 * bytesPerMs * opts.latencyMs) : 64 << 20);
  const totals = { up: 0, down: 0, connections: 0 };
  const live = new Set<{ a: net.Socket; b: net.Socket; pipes: Pipe[] }>();
  const idleWaiters = new Set<() => void>();

  let closing: Promise<void> | undefined;
  const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true }, (client) => {
    if (closing) return void client.destroy(); // accepted by the kernel before close()
    totals.connections++;
    const accepted = clock.now();
    const upstream = net.connect({ host: opts.target.host, port: opts.target.port, allowHalfOpen: true });
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    const handshakeDone = accepted + 2 * opts.latencyMs;
    const conn = {
      a: client,
      b: upstream,
      pipes: [
        new Pipe(client, upstream, up, opts.latencyMs, handshakeDone, highWater, clock),
        new Pipe(upstream, client, down, opts.latencyMs, handshakeDone, highWater, clock),
      ],
    };
    live.add(conn);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      for (const p of conn.pipes) p.stop();
      totals.up += conn.pipes[0]!.bytes;
      totals.down += conn.pipes[1]!.bytes;
      live.delete(conn);
      client.destroy();
      upstream.destroy();
      if (live.size === 0) for (const w of [...idleWaiters]) w();
    };
    // Either side failing ends both; both sides closed (each direction ended) ends the pair.
    client.on('error', finish);
    upstream.on('error', finish);
    // A socket closes once both its directions are done; the pair is done when both have closed.
    let closed = 0;
    const onClose = () => {
      if (++closed === 2) finish();
    };
    client.on('close', onClose);
    upstream.on('close', onClose);
    upstream.on('connect', () => client.resume());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, opts.host ?? opts.target.host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  const close = (): Promise<void> =>
    (closing ??= new Promise<void>((resolve) => {
      opts.signal?.removeEventListener('abort', onAbort);
      server.close(() => resolve());
      for (const c of [...live]) {
        c.a.destroy();
        c.b.destroy();
      }
    }));
  const onAbort = () => void close();
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  const address = server.address() as net.AddressInfo;
  return {
    host: address.address,
    port: address.port,
    stats: () => {
      let u = totals.up;
      let d = totals.down;
      let held = 0;
      for (const c of live) {
        u += c.pipes[0]!.bytes;
        d += c.pipes[1]!.bytes;
        held += c.pipes[0]!.held() + c.pipes[1]!.held();
      }
      return { up: u, down: d, connections: totals.connections, live: live.size, held };
    },
    idle: (timeoutMs) =>
      new Promise<boolean>((resolve) => {
        if (live.size === 0) return resolve(true);
        const done = (v: boolean) => {
          clearTimeout(timer);
          idleWaiters.delete(onIdle);
          resolve(v);
        };
        const onIdle = () => done(true);
        const timer = setTimeout(() => done(false), timeoutMs);
        idleWaiters.add(onIdle);
      }),
    close,
  };
}
