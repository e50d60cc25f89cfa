/**
 * bench/netem.ts, the relay the remote-cluster bench puts between a client and a local server: over
 * real loopback sockets it relays every byte exactly and in order each way (ends included) and
 * counts them; a chunk arrives no sooner than the set latency after it was sent; the bandwidth cap
 * holds for one connection and for several sharing a direction. Time is a FakeClock wherever
 * timing is asserted: the relay hands a chunk on only from a timer on its clock, so what it has
 * handed on at each fake instant is exact, whatever the machine's load.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as net from 'node:net';
import { startNetem, type Netem } from '../../bench/netem';
import { FakeClock } from '../../src/core/clock';
import { eventually } from '../support/eventually';

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
  closers.push(
    () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        srv.close(() => r());
      }),
  );
  return (srv.address() as net.AddressInfo).port;
}

async function relay(port: number, latencyMs: number, rateBitsPerSec = 0, clock?: FakeClock): Promise<Netem> {
  const n = await startNetem({ target: { host: '127.0.0.1', port }, latencyMs, rateBitsPerSec, ...(clock ? { clock } : {}) });
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
    assert.ok(gotBack.data.equals(up), "server received the client's bytes unchanged and in order");
    assert.ok(got.data.equals(down), "client received the server's bytes unchanged and in order");
    assert.equal(await n.idle(10_000), true, 'both sides ended: the connection is done');
    assert.deepEqual(n.stats(), { up: up.length, down: down.length, connections: 1, live: 0, held: 0 });
    c.destroy();
  });

  it('delays every chunk by the latency, each way, and the first by a handshake more (fake clock)', async () => {
    // Time is a FakeClock: the relay can hand a chunk on only from a timer, so its byte counters
    // (stats().up/down, counted when it writes) say exactly when a chunk went.
    const L = 40;
    const clock = new FakeClock();
    const seen: string[] = [];
    const port = await server((s) =>
      s.on('data', (b: Buffer) => {
        seen.push(b.toString());
        s.write(b); // echo
      }),
    );
    const n = await relay(port, L, 0, clock);
    const c = await connect(n);
    const replies: string[] = [];
    c.on('data', (b: Buffer) => replies.push(b.toString()));
    let sent = 0;
    for (let i = 0; i < 4; i++) {
      const ping = `ping ${i}`;
      const start = clock.now();
      c.write(ping);
      // The first chunk waits out the handshake (2L) and then L; every later one L.
      const upDue = start + (i === 0 ? 3 * L : L);
      await eventually(() => n.stats().held === ping.length && clock.pendingTimers() >= 1, { description: `${ping} held by the relay` });
      await clock.advance(upDue - 1 - clock.now());
      assert.equal(n.stats().up, sent, `${ping} went up before ${upDue} ms`);
      await clock.advance(1);
      assert.equal(n.stats().up, sent + ping.length, `${ping} went up at ${upDue} ms`);
      await eventually(() => seen.length === i + 1 && n.stats().held === ping.length, { description: `${ping} at the server and its echo held by the relay` });
      assert.equal(seen[i], ping);
      await clock.advance(L - 1);
      assert.equal(n.stats().down, sent, `the echo of ${ping} came down in less than ${L} ms`);
      await clock.advance(1);
      assert.equal(n.stats().down, sent + ping.length, `the echo of ${ping} came down after ${L} ms`);
      await eventually(() => replies.length === i + 1, { description: `the echo of ${ping} at the client` });
      sent += ping.length;
    }
    c.destroy();
  });

  /**
   * Lets `size` bytes each way (or up only) queue in the relay at fake time 0, then steps the clock:
   * at no time T are more than rate * T / 8 bytes plus one chunk (64 KiB) handed on in a direction,
   * and the last byte goes only once the link has carried them all (floorMs) plus the latency.
   * (checkCap reads the relay's own counters, so the bytes must all be queued in it first.)
   */
  async function checkCap(n: Netem, clock: FakeClock, dirs: ('up' | 'down')[], total: number, rate: number, latencyMs: number) {
    const floorMs = (total * 8 * 1000) / rate;
    for (const t of [floorMs / 4, floorMs / 2, (3 * floorMs) / 4]) {
      await clock.advance(t - clock.now());
      for (const dir of dirs) {
        const moved = n.stats()[dir];
        assert.ok(moved <= (rate * t) / 8000 + 65_536, `${dir}: ${moved} bytes by ${t} ms, the cap allows ${(rate * t) / 8000} plus one chunk`);
        assert.ok(moved < total, `${dir}: all ${total} bytes by ${t} ms, the cap needs ${floorMs} ms`);
      }
    }
    await clock.advance(floorMs + latencyMs - 1 - clock.now());
    for (const dir of dirs) assert.ok(n.stats()[dir] < total, `${dir}: the last byte before the link carried it (${floorMs} ms) plus the latency`);
    // A due time is fractional (bytes / rate) and the relay's timers whole ms (rounded up): 1 ms more.
    await clock.advance(2);
    for (const dir of dirs) assert.equal(n.stats()[dir], total, `${dir}: every byte handed on by ${floorMs + latencyMs + 1} ms`);
  }

  /**
   * Moves the fake clock on until `done` settles: an end (FIN) can reach the relay after the bytes
   * were checked, and the relay passes it on only from a timer on that clock.
   */
  async function runOut(clock: FakeClock, done: Promise<unknown>, what: string): Promise<void> {
    let settled = false;
    void done.then(
      () => (settled = true),
      () => (settled = true),
    );
    await eventually(
      async () => {
        if (!settled) await clock.advance(5);
        return settled;
      },
      { description: what },
    );
  }

  it('keeps one connection under the cap, uploading and downloading (fake clock)', async () => {
    const rate = 16_000_000; // 2 MB/s
    const size = 1_000_000; // below the relay's high-water mark (1 MiB): all of it queues at time 0
    const clock = new FakeClock();
    let upDone: Promise<{ data: Buffer }> | undefined;
    const port = await server((s) => {
      upDone = readAll(s);
      s.write(randomBytes(size), () => s.end());
    });
    const n = await relay(port, 2, rate, clock);
    const c = await connect(n);
    const down = readAll(c);
    c.end(randomBytes(size));
    await eventually(() => n.stats().held === 2 * size, { description: 'both directions queued in the relay' });
    // Upload and download each cross their own link: each alone takes size / rate.
    await checkCap(n, clock, ['up', 'down'], size, rate, 2);
    const both = Promise.all([down, down.then(() => upDone!)]);
    await runOut(clock, both, 'both ends to see the other side end');
    const [d, u] = await both;
    assert.equal(u.data.length, size);
    assert.equal(d.data.length, size);
    c.destroy();
  });

  it("shares one direction's cap between connections, as one link (fake clock)", async () => {
    const rate = 16_000_000;
    const size = 500_000;
    const clock = new FakeClock();
    const done: Promise<{ data: Buffer }>[] = [];
    const port = await server((s) => {
      done.push(readAll(s));
      s.end();
    });
    const n = await relay(port, 2, rate, clock);
    const [a, b] = await Promise.all([connect(n), connect(n)]);
    const ends = [readAll(a), readAll(b)];
    a.end(randomBytes(size));
    b.end(randomBytes(size));
    await eventually(() => n.stats().held === 2 * size, { description: 'both uploads queued in the relay' });
    // Two uploads of size together need as long as one of 2 x size: they share the link.
    await checkCap(n, clock, ['up'], 2 * size, rate, 2);
    const all = Promise.all([...done, ...ends]);
    await runOut(clock, all, 'every side to see its peer end');
    const results = await Promise.all(done);
    assert.deepEqual(
      results.map((r) => r.data.length),
      [size, size],
    );
    assert.equal(n.stats().up, 2 * size);
    assert.equal(n.stats().connections, 2);
    a.destroy();
    b.destroy();
  });

  it("holds no more than its high-water mark of a sender's bytes when the receiver stops reading", async () => {
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
    // Wait until the relay has stopped taking bytes: it holds its mark or more.
    await eventually(() => n.stats().held > highWaterBytes, { description: `the relay to fill past its mark (${highWaterBytes} bytes)`, timeoutMs: 20_000 });
    // While the receiver still reads nothing, the relay stays within its mark plus one read (64 KiB).
    // A deliberate "nothing more happens" check: 20 looks 5 ms apart, as the bytes keep coming.
    const poll = () => new Promise((r) => setTimeout(r, 5));
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
