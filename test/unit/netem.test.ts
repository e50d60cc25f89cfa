/**
 * bench/netem.ts, the relay the remote-cluster bench puts between a client and a local server: over
 * real loopback sockets it relays every byte exactly and in order each way (ends included) and
 * counts them; a chunk arrives no sooner than the set latency after it was sent; the bandwidth cap
 * holds for one connection and for several sharing a direction. Timing is asserted only as lower
 * bounds, which the relay guarantees outright (it never writes a chunk before it is due), so a busy
 * machine can make these tests slower but never make them fail.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as net from 'node:net';
import { startNetem, type Netem } from '../../bench/netem';

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of closers.reverse()) await c();
});

/** A loopback TCP server; `onConn` gets each accepted socket. */
async function server(onConn: (s: net.Socket) => void): Promise<number> {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer({ allowHalfOpen: true }, (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    onConn(s);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => {
    for (const s of sockets) s.destroy();
    srv.close(() => r());
  }));
  return (srv.address() as net.AddressInfo).port;
}

async function relay(port: number, latencyMs: number, rateBitsPerSec = 0): Promise<Netem> {
  const n = await startNetem({ target: { host: '127.0.0.1', port }, latencyMs, rateBitsPerSec });
  closers.push(() => n.close());
  return n;
}

function connect(n: Netem): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: n.host, port: n.port, allowHalfOpen: true }, () => resolve(s));
    s.once('error', reject);
  });
}

/** Everything a socket reads until its end, and when the last byte came. */
function readAll(s: net.Socket): Promise<{ data: Buffer; lastAt: number }> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let lastAt = NaN;
    s.on('data', (b: Buffer) => {
      parts.push(b);
      lastAt = performance.now();
    });
    s.once('end', () => resolve({ data: Buffer.concat(parts), lastAt }));
    s.once('error', reject);
  });
}

/** Writes `data` in uneven pieces (1 byte to 40 KiB), then ends. */
function writeUneven(s: net.Socket, data: Buffer): void {
  let off = 0;
  let step = 1;
  while (off < data.length) {
    const n = Math.min(step, data.length - off);
    s.write(data.subarray(off, off + n));
    off += n;
    step = (step * 7 + 13) % 40_960 || 1;
  }
  s.end();
}

describe('netem relay', () => {
  it('relays every byte exactly and in order, both ways, passes ends on, and counts the bytes', async () => {
    const up = randomBytes(700_000);
    const down = randomBytes(900_000);
    let received: Promise<{ data: Buffer }> | undefined;
    const port = await server((s) => {
      received = readAll(s);
      writeUneven(s, down);
    });
    const n = await relay(port, 5);
    const c = await connect(n);
    const back = readAll(c);
    writeUneven(c, up);
    const [got, gotBack] = await Promise.all([back, back.then(() => received!)]);
    assert.ok(gotBack.data.equals(up), 'server received the client\'s bytes unchanged and in order');
    assert.ok(got.data.equals(down), 'client received the server\'s bytes unchanged and in order');
    assert.equal(await n.idle(10_000), true, 'both sides ended: the connection is done');
    assert.deepEqual(n.stats(), { up: up.length, down: down.length, connections: 1, live: 0, held: 0 });
    c.destroy();
  });

  it('delays every chunk by at least the latency, each way, and the first by a handshake more', async () => {
    const L = 40;
    const seenAt: number[] = [];
    const port = await server((s) =>
      s.on('data', (b: Buffer) => {
        seenAt.push(performance.now());
        s.write(b); // echo
      }),
    );
    const n = await relay(port, L);
    const connectedAt = performance.now();
    const c = await connect(n);
    const replies: number[] = [];
    let waiting: (() => void) | undefined;
    c.on('data', () => {
      replies.push(performance.now());
      waiting?.();
    });
    for (let i = 0; i < 4; i++) {
      const sentAt = performance.now();
      const got = new Promise<void>((r) => (waiting = r));
      c.write(`ping ${i}`);
      await got;
      const oneWay = seenAt[i]! - sentAt;
      const roundTrip = replies[i]! - sentAt;
      assert.ok(oneWay >= L, `ping ${i}: client -> server took ${oneWay.toFixed(1)} ms, latency is ${L} ms`);
      assert.ok(roundTrip >= 2 * L, `ping ${i}: round trip ${roundTrip.toFixed(1)} ms, latency is ${L} ms each way`);
      if (i === 0) assert.ok(seenAt[0]! - connectedAt >= 3 * L, `first byte after ${(seenAt[0]! - connectedAt).toFixed(1)} ms: handshake (2L) + L`);
    }
    c.destroy();
  });

  it('keeps one connection under the cap, uploading and downloading', async () => {
    const rate = 16_000_000; // 2 MB/s
    const size = 1_000_000;
    let upDone: Promise<{ lastAt: number; data: Buffer }> | undefined;
    const port = await server((s) => {
      upDone = readAll(s);
      s.write(randomBytes(size), () => s.end());
    });
    const n = await relay(port, 2, rate);
    const start = performance.now();
    const c = await connect(n);
    const down = readAll(c);
    c.end(randomBytes(size));
    const [d] = await Promise.all([down, down.then(() => upDone!)]);
    const u = await upDone!;
    const floorMs = (size * 8 * 1000) / rate; // 500 ms
    assert.equal(u.data.length, size);
    assert.equal(d.data.length, size);
    // Upload and download each crossed their own link: each alone took at least size / rate.
    assert.ok(u.lastAt - start >= floorMs, `upload took ${(u.lastAt - start).toFixed(0)} ms, cap allows no less than ${floorMs} ms`);
    assert.ok(d.lastAt - start >= floorMs, `download took ${(d.lastAt - start).toFixed(0)} ms, cap allows no less than ${floorMs} ms`);
    c.destroy();
  });

  it('shares one direction\'s cap between connections, as one link', async () => {
    const rate = 16_000_000;
    const size = 500_000;
    const done: Promise<{ lastAt: number; data: Buffer }>[] = [];
    let bothAccepted!: () => void;
    const accepted = new Promise<void>((r) => (bothAccepted = r));
    const port = await server((s) => {
      done.push(readAll(s));
      s.end();
      if (done.length === 2) bothAccepted();
    });
    const n = await relay(port, 2, rate);
    const start = performance.now();
    const [a, b] = await Promise.all([connect(n), connect(n)]);
    const ends = [readAll(a), readAll(b)];
    a.end(randomBytes(size));
    b.end(randomBytes(size));
    await accepted;
    const results = await Promise.all(done);
    await Promise.all(ends);
    const last = Math.max(...results.map((r) => r.lastAt));
    const floorMs = (2 * size * 8 * 1000) / rate; // 500 ms for both together
    assert.deepEqual(results.map((r) => r.data.length), [size, size]);
    assert.ok(last - start >= floorMs, `two uploads together took ${(last - start).toFixed(0)} ms; one link at the cap needs ${floorMs} ms`);
    assert.equal(n.stats().up, 2 * size);
    assert.equal(n.stats().connections, 2);
    a.destroy();
    b.destroy();
  });

  it('holds no more than its high-water mark of a sender\'s bytes when the receiver stops reading', async () => {
    const highWaterBytes = 256 * 1024;
    const size = 32 << 20; // far more than the relay and the kernel's socket buffers hold together
    const data = randomBytes(size);
    let serverSide!: net.Socket;
    let accepted!: () => void;
    const gotConn = new Promise<void>((r) => (accepted = r));
    const port = await server((s) => {
      serverSide = s;
      s.pause(); // reads nothing until told
      accepted();
    });
    const n = await startNetem({ target: { host: '127.0.0.1', port }, latencyMs: 1, rateBitsPerSec: 0, highWaterBytes });
    closers.push(() => n.close());
    const c = await connect(n);
    c.write(data);
    c.end();
    await gotConn;
    // Wait (on state, polled) until the relay has stopped taking bytes: it holds its mark or more.
    const poll = () => new Promise((r) => setTimeout(r, 5));
    const deadline = Date.now() + 20_000;
    while (n.stats().held <= highWaterBytes) {
      assert.ok(Date.now() < deadline, `the relay never filled: holds ${n.stats().held}`);
      await poll();
    }
    // While the receiver still reads nothing, the relay stays within its mark plus one read (64 KiB).
    for (let i = 0; i < 20; i++) {
      const held = n.stats().held;
      assert.ok(held <= highWaterBytes + 65_536, `the relay holds ${held} bytes, mark ${highWaterBytes}`);
      assert.ok(c.writableLength > 0, 'the sender is held back (its own buffer is not empty)');
      await poll();
    }
    const received = readAll(serverSide);
    serverSide.resume();
    const got = await received;
    assert.ok(got.data.equals(data), 'every byte arrived, in order, after the pause');
    c.destroy();
  });

  it('closes every connection through it on close() or its signal, and refuses bad settings', async () => {
    const port = await server(() => {});
    const ac = new AbortController();
    const n = await startNetem({ target: { host: '127.0.0.1', port }, latencyMs: 1, rateBitsPerSec: 0, signal: ac.signal });
    const c = await connect(n);
    // The relay destroys its side: this half-open client sees the end (or a reset).
    const ended = new Promise((r) => {
      c.once('end', r);
      c.once('error', r);
    });
    c.resume();
    ac.abort();
    await ended;
    c.destroy();
    await n.close(); // idempotent: the same promise
    await assert.rejects(connect(n), /ECONNREFUSED/);
    await assert.rejects(startNetem({ target: { host: '127.0.0.1', port }, latencyMs: -1, rateBitsPerSec: 0 }), /latencyMs must be >= 0/);
    await assert.rejects(startNetem({ target: { host: '127.0.0.1', port }, latencyMs: 0, rateBitsPerSec: NaN }), /rateBitsPerSec must be >= 0/);
  });
});
