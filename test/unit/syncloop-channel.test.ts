import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock } from '../../src/core/clock';
import { Channel, ChannelClosedError } from '../../src/core/syncloop/channel';
import { Selector } from '../../src/core/syncloop/select';
import { Ticker } from '../../src/core/syncloop/ticker';

const drain = () => new Promise<void>((r) => setImmediate(r));

describe('Channel', () => {
  it('is a bounded FIFO: never holds more than its capacity, receives in send order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.oneof(fc.constant('recv' as const), fc.integer()), { maxLength: 200 }), (cap, ops) => {
        const ch = new Channel<number>(cap);
        const model: number[] = [];
        for (const op of ops) {
          if (op === 'recv') {
            const r = ch.tryRecv();
            const m = model.shift();
            assert.equal(r.ok, m !== undefined);
            if (r.ok) assert.equal(r.value, m);
          } else {
            const ok = ch.trySend(op);
            assert.equal(ok, model.length < cap);
            if (ok) model.push(op);
          }
          assert.ok(ch.length <= cap);
          assert.equal(ch.length, model.length);
        }
      }),
    );
  });

  it('blocks senders when full and admits them in the order they blocked', async () => {
    const ch = new Channel<number>(2);
    const sent: number[] = [];
    const sends = [1, 2, 3, 4, 5].map((v) => ch.send(v).then(() => sent.push(v)));
    await drain();
    assert.deepEqual(sent, [1, 2]);
    assert.equal(ch.waitingSenders, 3);
    const got: number[] = [];
    for (let i = 0; i < 5; i++) got.push((await ch.recv()).value!);
    await Promise.all(sends);
    assert.deepEqual(got, [1, 2, 3, 4, 5]);
    assert.deepEqual(sent, [1, 2, 3, 4, 5]);
  });

  it('an aborted blocked send never delivers its value', async () => {
    const ch = new Channel<string>(1);
    ch.trySend('a');
    const ac = new AbortController();
    const p = ch.send('b', ac.signal);
    const q = ch.send('c');
    ac.abort(new Error('stop'));
    await assert.rejects(p, /stop/);
    assert.equal(ch.tryRecv().value, 'a');
    await q;
    assert.equal(ch.tryRecv().value, 'c');
    assert.equal(ch.tryRecv().ok, false);
  });

  it('close rejects blocked and later senders but keeps buffered values receivable', async () => {
    const ch = new Channel<number>(1);
    ch.trySend(1);
    const blocked = ch.send(2);
    ch.close();
    await assert.rejects(blocked, ChannelClosedError);
    assert.throws(() => ch.trySend(3), ChannelClosedError);
    assert.deepEqual(await ch.recv(), { ok: true, value: 1 });
    assert.deepEqual(await ch.recv(), { ok: false });
  });
});

describe('Selector', () => {
  it('property: a ready case is chosen within n consecutive selects, whatever the arrivals (no starvation)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.array(fc.array(fc.nat(6), { maxLength: 7 }), { minLength: 1, maxLength: 300 }), (n, arrivals) => {
        const chans = Array.from({ length: n }, (_, i) => new Channel<number>(3, `c${i}`));
        const sel = new Selector();
        const waiting = new Array<number>(n).fill(0);
        for (const step of arrivals) {
          for (const i of step) if (i < n) chans[i]!.trySend(i);
          const readyBefore = chans.map((c) => c.ready);
          const r = sel.trySelect(chans);
          if (!readyBefore.some(Boolean)) {
            assert.equal(r, undefined);
            continue;
          }
          assert.ok(r && readyBefore[r.index]);
          for (let i = 0; i < n; i++) {
            if (i === r.index || !readyBefore[i]) waiting[i] = 0;
            else waiting[i]!++;
            assert.ok(waiting[i]! < n, `case ${i} passed over ${waiting[i]} times with ${n} cases`);
          }
        }
      }),
    );
  });

  it('shares evenly among always-ready cases', () => {
    const chans = [0, 1, 2, 3].map((i) => new Channel<number>(1, `c${i}`));
    const sel = new Selector();
    const counts = [0, 0, 0, 0];
    for (let k = 0; k < 4000; k++) {
      for (const c of chans) if (!c.ready) c.trySend(1);
      counts[sel.trySelect(chans)!.index]!++;
    }
    assert.deepEqual(counts, [1000, 1000, 1000, 1000]);
  });

  it('a blocked select wakes on the first value and leaves no listeners behind', async () => {
    const a = new Channel<string>(1, 'a');
    const b = new Channel<string>(1, 'b');
    const sel = new Selector();
    const p = sel.select([a, b] as const);
    await drain();
    assert.equal(a.listenerCount, 1);
    b.trySend('x');
    const r = await p;
    assert.deepEqual(r, { index: 1, ok: true, value: 'x' });
    assert.equal(a.listenerCount + b.listenerCount, 0);

    const ac = new AbortController();
    const q = sel.select([a, b] as const, ac.signal);
    ac.abort(new Error('bye'));
    await assert.rejects(q, /bye/);
    assert.equal(a.listenerCount + b.listenerCount, 0);
  });

  it('reports a closed case as ok: false', async () => {
    const a = new Channel<number>(1);
    a.close();
    const r = await new Selector().select([a] as const);
    assert.deepEqual(r, { index: 0, ok: false, value: undefined });
  });
});

describe('Ticker', () => {
  it('ticks on the period grid, holds one tick, drops the rest, and leaks no timer once stopped', async () => {
    const clock = new FakeClock();
    const t = new Ticker(clock, 1000);
    await clock.advance(999);
    assert.equal(t.C.length, 0);
    await clock.advance(1);
    assert.deepEqual(t.C.tryRecv(), { ok: true, value: 1000 });
    await clock.advance(5000);
    assert.equal(t.C.length, 1);
    assert.equal(t.dropped, 4);
    assert.deepEqual(t.C.tryRecv(), { ok: true, value: 2000 });
    t.stop();
    assert.equal(clock.pendingTimers(), 0);
  });
});
