/**
 * The pod-log reader against a real node:http server (lines across chunks, a line past the bound
 * in pieces, backpressure: a consumer that stops pulling stops the server), and LogMerge on a
 * FakeClock (time order, one line held per source, a silent source waited for at most settleMs).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { KubeTransport } from '../../src/core/kube';
import { openPodLog, splitTimestamp } from '../../src/core/kube/listwatch/podLog';
import { LogMerge, type MergedLine } from '../../src/core/kube/listwatch/logMerge';
import { eventually } from '../support/eventually';
import { contextFor, startServer } from './kube-helpers';

describe('openPodLog over a real socket', () => {
  it('joins lines cut across chunks and hands out a line past maxLineBytes in pieces', async () => {
    const s = await startServer((req, res) => {
      if (!req.url!.includes('/log')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"metadata":{"name":"p"}}');
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('one\ntw');
      setImmediate(() => res.end(`o\n${'é'.repeat(10)}\nlast`));
    });
    const t = await KubeTransport.create(contextFor(s.url), { qps: 0 });
    try {
      const open = await openPodLog(t, 'ns', 'p', { maxLineBytes: 7 });
      assert.ok(open.ok);
      const lines: string[] = [];
      for await (const l of open.log.lines) lines.push(l);
      // 'é' is two bytes: pieces of at most 7 bytes, never cut inside a character.
      assert.deepEqual(lines, ['one', 'two', 'ééé', 'ééé', 'ééé', 'é', 'last']);
      assert.deepEqual(open.log.end(), { kind: 'ended', lines: 7, bytes: 'one\ntwo\n'.length + 21 + 4, unterminated: true });
    } finally {
      t.close();
      await s.close();
    }
  });

  it('a consumer that stops pulling stops the server: the log is never read whole', async () => {
    const total = 64 * 1024 * 1024;
    let sent = 0;
    let blocked = false;
    const s = await startServer((req, res) => {
      if (!req.url!.includes('/log')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"metadata":{"name":"p"}}');
      res.writeHead(200, { 'content-type': 'text/plain' });
      const line = `${'x'.repeat(99)}\n`.repeat(640); // 64000 bytes
      const pump = () => {
        while (sent < total) {
          sent += line.length;
          if (!res.write(line)) {
            blocked = true;
            return void res.once('drain', () => ((blocked = false), pump()));
          }
        }
        res.end();
      };
      pump();
    });
    const t = await KubeTransport.create(contextFor(s.url), { qps: 0 });
    const stop = new AbortController();
    try {
      const open = await openPodLog(t, 'ns', 'p', {}, stop.signal);
      assert.equal(open.ok, true, open.ok ? '' : open.failure.message);
      if (!open.ok) return;
      const it = open.log.lines[Symbol.asyncIterator]();
      assert.equal((await it.next()).value, 'x'.repeat(99));
      await eventually(() => blocked, { description: 'the server to wait for the reader', timeoutMs: 10_000 });
      assert.ok(sent < 16 * 1024 * 1024, `the server sent ${sent} bytes of ${total} while one line was read`);
      stop.abort(new Error('done'));
      const r = await it.next();
      assert.equal(r.done, true);
      const end = open.log.end();
      assert.equal(end.kind === 'failed' && end.failure.reason, 'aborted');
    } finally {
      t.close();
      await s.close();
    }
  });

  it("a 403 is the missing right, the server's message kept; no second request", async () => {
    let logRequests = 0;
    const s = await startServer((req, res) => {
      if (req.url!.includes('/log')) logRequests++;
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: 'pods "p" is forbidden: no' }));
    });
    const t = await KubeTransport.create(contextFor(s.url), { qps: 0 });
    try {
      const open = await openPodLog(t, 'team-a', 'p', {});
      assert.equal(open.ok, false);
      assert.deepEqual(!open.ok && open.failure, {
        reason: 'forbidden',
        status: 403,
        message: 'forbidden: you may not read pods/log in team-a',
        detail: 'pods "p" is forbidden: no',
      });
      assert.equal(logRequests, 1);
    } finally {
      t.close();
      await s.close();
    }
  });
});

describe('splitTimestamp', () => {
  it('reads RFC3339Nano prefixes, orders by seconds then nanoseconds', () => {
    const a = splitTimestamp('2026-12-07T10:00:05Z hello world');
    const b = splitTimestamp('2026-12-07T10:00:05.1Z next');
    assert.equal(a.text, 'hello world');
    assert.equal(a.time, '2026-12-07T10:00:05Z');
    assert.equal(a.sortKey, b.sortKey);
    assert.equal(a.fraction, 0);
    assert.equal(b.fraction, 100_000_000);
    assert.deepEqual(splitTimestamp('no time here'), { text: 'no time here' });
  });
});

/** A source whose lines a test pushes; counts how many the merge pulled. */
function source() {
  const queue: (string | null)[] = [];
  let wake: (() => void) | undefined;
  const s = {
    pulled: 0,
    push(line: string | null) {
      queue.push(line);
      wake?.();
    },
    async *lines(): AsyncGenerator<string> {
      for (;;) {
        while (!queue.length) await new Promise<void>((r) => (wake = r));
        const l = queue.shift()!;
        if (l === null) return;
        s.pulled++;
        yield l;
      }
    },
  };
  return s;
}

const at = (sec: number, text: string) => `2026-12-07T10:00:${String(sec).padStart(2, '0')}Z ${text}`;

describe('LogMerge', () => {
  it('logs read to their end come out in time order, tagged, pulling one line per source at a time', async () => {
    const clock = new FakeClock();
    const out: MergedLine[] = [];
    const m = new LogMerge((l) => void out.push(l), { follow: false, clock });
    const a = source();
    const b = source();
    m.add('pod/a/c', a.lines());
    m.add('pod/b/c', b.lines());
    m.start();
    for (const s of [1, 3, 5]) a.push(at(s, `a${s}`));
    await clock.advance(0);
    assert.equal(out.length, 0, 'nothing out while b has said nothing');
    assert.equal(a.pulled, 1, 'one line of a held');
    for (const s of [2, 3, 4]) b.push(at(s, `b${s}`));
    a.push(null);
    b.push(null);
    m.close();
    await m.done();
    assert.deepEqual(
      out.map((l) => `${l.source} ${l.text}`),
      ['pod/a/c a1', 'pod/b/c b2', 'pod/a/c a3', 'pod/b/c b3', 'pod/b/c b4', 'pod/a/c a5'],
    );
    assert.equal(out[0]!.time, '2026-12-07T10:00:01Z');
  });

  it('followed, a head waits for a silent source at most settleMs; a source joining later is merged too', async () => {
    const clock = new FakeClock();
    const out: string[] = [];
    const stop = new AbortController();
    const m = new LogMerge((l) => void out.push(l.text), { follow: true, settleMs: 200, clock, signal: stop.signal });
    const a = source();
    const quiet = source();
    m.add('a', a.lines());
    m.add('quiet', quiet.lines());
    m.start();
    a.push(at(1, 'a1'));
    await clock.advance(199);
    assert.deepEqual(out, []);
    await clock.advance(1);
    assert.deepEqual(out, ['a1']);
    const late = source();
    m.add('late', late.lines());
    late.push(at(0, 'late0'));
    quiet.push(at(2, 'q2'));
    a.push(at(3, 'a3'));
    await clock.advance(0);
    assert.deepEqual(out, ['a1', 'late0'], 'every source had a head: the earliest went at once');
    await clock.advance(199);
    assert.deepEqual(out, ['a1', 'late0'], 'late is silent again: q2 waits for it');
    await clock.advance(1);
    assert.deepEqual(out, ['a1', 'late0', 'q2', 'a3']);
    stop.abort();
    await m.done();
    assert.equal(clock.pendingTimers(), 0);
  });
});
