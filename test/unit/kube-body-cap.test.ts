/**
 * The cap on one response body (TransportOptions.maxResponseBytes), against real HTTP servers on
 * loopback: a body that outgrows it, decoded, fails with 'tooLarge' on both threads (the I/O
 * thread's list streams and the calling thread's requests), its socket destroyed; a Content-Length
 * past it fails at the headers; a gzip bomb is counted by its inflated bytes. Each server sends a
 * bounded body (a few times the cap), so that the code before the cap existed ends (wrongly) too.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { gzipSync } from 'node:zlib';
import { KubeTransportError } from '../../src/core/kube';
import { serverAndClient } from './kube-helpers';
import { eventually } from '../support/eventually';

const pods = { group: '', version: 'v1', resource: 'pods' };
const CAP = 1024 * 1024;
const serve = serverAndClient({ qps: 0, maxResponseBytes: CAP, disableCompression: false, retry: { maxBackoffRetries: 0 } });
const setup = (handler: (req: http.IncomingMessage, res: http.ServerResponse) => void, ioThread: boolean) => serve(handler, { ioThread });

const HEAD = '{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[';
const filler = Buffer.from('{"metadata":{"name":"x"}},'.repeat(4096));

/** A list body that goes on (chunked) for `total` bytes, then ends as valid JSON. */
function longList(total: number) {
  return (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(HEAD);
    let sent = 0;
    const more = () => {
      while (sent < total) {
        sent += filler.length;
        if (!res.write(filler)) return void res.once('drain', more);
      }
      res.end('{"metadata":{"name":"last"}}]}');
    };
    res.on('close', () => (sent = Infinity));
    more();
  };
}

/** 64 MiB of zeros, gzipped: about 64 KB. Sent `members` times it inflates to members x 64 MiB. */
const member = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
function bomb(members: number) {
  return (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    let n = 0;
    const more = () => {
      while (n < members) {
        n++;
        if (!res.write(member)) return void res.once('drain', more);
      }
      res.end();
    };
    res.on('close', () => (n = Infinity));
    more();
  };
}

const tooLarge = (e: unknown) =>
  e instanceof KubeTransportError && e.kind === 'tooLarge' && /^GET \/api\/v1\/pods: response larger than 1048576 bytes/.test(e.message);

for (const ioThread of [true, false]) {
  const where = ioThread ? 'I/O thread' : 'calling thread';
  describe(`response body cap (${where})`, () => {
    it('a body that outgrows the cap fails tooLarge, naming the path and the limit, and its socket is destroyed', async () => {
      const { s, c } = await setup(longList(8 * CAP), ioThread);
      await assert.rejects(c.list(pods, { limit: 500 }), tooLarge);
      await eventually(() => s.closedSockets >= 1, { description: 'the server saw the connection go' });
      assert.equal(s.seen.length, 1, 'not retried');
    });

    it('a gzip bomb is stopped at the cap of inflated bytes', async () => {
      const { s, c } = await setup(bomb(16), ioThread); // ~1 MB on the wire, 1 GiB inflated
      await assert.rejects(c.list(pods, { limit: 500 }), tooLarge);
      assert.ok(c.transport.stats.bytesReceived < 2 * CAP);
      await eventually(() => s.closedSockets >= 1, { description: 'the server saw the connection go' });
    });

    it('a Content-Length past the cap fails at the headers, before the body arrives', async () => {
      let res: http.ServerResponse | undefined;
      const { c } = await setup((_req, r) => {
        res = r;
        r.writeHead(200, { 'content-type': 'application/json', 'content-length': String(1024 * CAP) });
        r.write(HEAD); // and nothing more while the test runs
      }, ioThread);
      await assert.rejects(c.list(pods, { limit: 500 }), (e: unknown) => tooLarge(e) && /Content-Length says 1073741824/.test((e as Error).message));
      res?.destroy();
    });

    it('a body under the cap loads as before', async () => {
      const { c } = await setup(longList(CAP / 2), ioThread);
      const r = await c.list(pods, { limit: 500 });
      assert.equal(r.items.at(-1)?.metadata.name, 'last');
    });
  });
}

describe('response body cap: discovery and error bodies', () => {
  it('a discovery document past the cap fails tooLarge', async () => {
    const { c } = await setup(longList(4 * CAP), false);
    await assert.rejects(c.discover(), (e: unknown) => e instanceof KubeTransportError && e.kind === 'tooLarge' && /response larger than/.test(e.message));
  });

  it("a watch's error answer past the cap fails tooLarge rather than being read whole", async () => {
    const { c } = await setup((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.write('{"kind":"Status","message":"');
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const more = () => {
        while (sent < 4 * CAP) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end('"}');
      };
      res.on('close', () => (sent = Infinity));
      more();
    }, false);
    const end = await c.watch(pods, { resourceVersion: '1' }, () => undefined);
    assert.equal(end.kind, 'error');
    assert.ok(
      end.kind === 'error' && end.error instanceof KubeTransportError && end.error.kind === 'tooLarge',
      String(end.kind === 'error' && end.error.message),
    );
  });
});
