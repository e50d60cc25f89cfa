/**
 * The watch decoder's frames (watchFrames.ts): a line past client-go's 16 MiB cap ends the watch
 * 'tooLarge' as soon as it passes the cap (real server on loopback); an event just under it arrives
 * whole; a long line fed in many small chunks costs work linear in its size.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import * as net from 'node:net';
import { KubeClient, KubeTransportError, type WatchEvent } from '../../src/core/kube';
import { LineFrames, WATCH_FRAME_MAX_BYTES } from '../../src/core/kube/listwatch/watchFrames';
import { contextFor, serverAndClient } from './kube-helpers';

const pods = { group: '', version: 'v1', resource: 'pods' };
const MiB = 1024 * 1024;
const setup = serverAndClient({ qps: 0 });

/** Writes `body` in pieces of 64 KiB, minding backpressure; ends with `tail`. */
function sendIn64k(res: http.ServerResponse, body: Buffer, tail: string) {
  res.writeHead(200, { 'content-type': 'application/json' });
  let at = 0;
  const more = () => {
    while (at < body.length) {
      const piece = body.subarray(at, at + 64 * 1024);
      at += piece.length;
      if (!res.write(piece)) return void res.once('drain', more);
    }
    res.end(tail);
  };
  res.on('close', () => (at = Infinity));
  more();
}

/** An ADDED event whose pod carries an annotation of `size` bytes of 'é' (two bytes each) and 'a'. */
function bigEvent(size: number): string {
  const filler = 'é'.repeat(Math.floor(size / 4)) + 'a'.repeat(size - 2 * Math.floor(size / 4));
  return JSON.stringify({ type: 'ADDED', object: { kind: 'Pod', metadata: { name: 'big', resourceVersion: '11', annotations: { x: filler } } } });
}

describe('watch frames', () => {
  it('an event line past 16 MiB ends the watch tooLarge, naming the cap', async () => {
    const { c } = await setup((_q, res) => sendIn64k(res, Buffer.from(bigEvent(WATCH_FRAME_MAX_BYTES + MiB)), '\n'));
    const got: WatchEvent[] = [];
    const end = await c.watch(pods, { resourceVersion: '10' }, (e) => got.push(e));
    assert.equal(end.kind, 'error');
    const error = end.kind === 'error' ? end.error : undefined;
    assert.ok(error instanceof KubeTransportError && error.kind === 'tooLarge', String(error));
    assert.equal(error.message, `watch /api/v1/pods: event larger than ${WATCH_FRAME_MAX_BYTES} bytes`);
    assert.equal(got.length, 0);
  });

  it('an event just under the cap, multi-byte characters cut across chunks, arrives whole; the next one too', async () => {
    const big = bigEvent(WATCH_FRAME_MAX_BYTES - 4096);
    assert.ok(Buffer.byteLength(big) < WATCH_FRAME_MAX_BYTES);
    const next = JSON.stringify({ type: 'DELETED', object: { kind: 'Pod', metadata: { name: 'big', resourceVersion: '12' } } });
    // an odd offset: 64 KiB pieces then cut the two-byte characters
    const { c } = await setup((_q, res) => sendIn64k(res, Buffer.from(' ' + big + '\n'), next + '\n'));
    const got: WatchEvent[] = [];
    const end = await c.watch(pods, { resourceVersion: '10' }, (e) => got.push(e));
    assert.deepEqual(end, { kind: 'closed', events: 2 });
    assert.equal(got[0].object.metadata.annotations?.x, (JSON.parse(big) as WatchEvent).object.metadata.annotations?.x);
    assert.equal(got[1].type, 'DELETED');
  });
});

describe('watch: the end of a stream waits for chunks held for a time slice', () => {
  it('the last event, held for a later time slice when the body ends, is still delivered', async () => {
    // Written by hand on a raw socket, in one write: headers and the chunks of a chunked body, cut so
    // that the first two events each fill one socket read exactly (64 KiB: libuv then reads again at
    // once), then the last event and the body's end. Each ADDED event's handler keeps the thread busy
    // past the time slice (slice.ts): the second event is held for a later slice, the last one
    // again, and the response has ended (its end already read) while the last one is held.
    const event = (type: string, rv: string) => JSON.stringify({ type, object: { kind: 'Pod', metadata: { name: 'a', resourceVersion: rv } } });
    const read = 64 * 1024;
    const frame = (body: string) => `${body.length.toString(16)}\r\n${body}\r\n`;
    /** One chunk of the body that makes `before` plus itself one socket read; the event padded with spaces. */
    const fill = (before: string, ev: string) => {
      const size = read - before.length - frame('').length - 3; // a size near 64 KiB has 4 hex digits, not 1
      const f = frame(ev + ' '.repeat(size - ev.length - 1) + '\n');
      assert.equal(before.length + f.length, read);
      return f;
    };
    const server = net.createServer((sock) => {
      sock.once('data', () => {
        const head = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
        sock.end(head + fill(head, event('ADDED', '11')) + fill('', event('ADDED', '12')) + frame(event('DELETED', '13') + '\n') + '0\r\n\r\n');
      });
      sock.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const c = await KubeClient.connect(contextFor(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`), { qps: 0 });
    try {
      const got: string[] = [];
      const end = await c.watch(pods, { resourceVersion: '10' }, (e) => {
        got.push(e.type);
        const t0 = performance.now();
        while (e.type === 'ADDED' && performance.now() - t0 < 20); // busy past the 8 ms slice
      });
      assert.deepEqual(got, ['ADDED', 'ADDED', 'DELETED']);
      assert.deepEqual(end, { kind: 'closed', events: 3 });
    } finally {
      c.close();
      server.close();
    }
  });
});

describe('LineFrames', () => {
  it('a 16 MiB line fed in 256-byte chunks is scanned once: linear work, not a rescan per chunk', () => {
    // A rescan of the held line per chunk would scan 65,536 x 8 MiB on average (512 GiB): hours.
    // Scanned once, it is 16 MiB plus 65,536 small pushes: tens of ms. The bound is CPU time of this
    // thread (not wall time), with a margin of well over 20x for a loaded machine.
    const line = Buffer.alloc(WATCH_FRAME_MAX_BYTES, 'a');
    const frames = new LineFrames();
    const cpu = process.cpuUsage();
    for (let at = 0; at < line.length; at += 256) assert.deepEqual(frames.push(line.subarray(at, at + 256)), []);
    const lines = frames.push(Buffer.from('\nb\nc'));
    const used = process.cpuUsage(cpu);
    const ms = (used.user + used.system) / 1000;
    assert.ok(Array.isArray(lines) && lines.length === 2 && lines[0].length === WATCH_FRAME_MAX_BYTES && lines[1] === 'b');
    assert.equal(frames.end(), 'c');
    assert.ok(ms < 3000, `took ${ms.toFixed(0)} ms of CPU`);
  });

  it('a line one byte past the cap fails as its bytes pass it; nothing past the cap is held', () => {
    const frames = new LineFrames(1000);
    assert.deepEqual(frames.push(Buffer.alloc(600, 'a')), []);
    assert.equal(frames.push(Buffer.alloc(401, 'a')), 'tooLarge');
    const exact = new LineFrames(1000);
    assert.deepEqual(exact.push(Buffer.alloc(600, 'a')), []);
    assert.deepEqual(exact.push(Buffer.concat([Buffer.alloc(400, 'a'), Buffer.from('\n')])), ['a'.repeat(1000)]);
  });
});
