// The host side of the timeline webview: the history streams in chunks, appends are batched, every
// event arrives exactly once and in order, and a hidden webview or a cleared store is handled.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { FakeClock } from '../../src/core/clock';
import { TimelineStore } from '../../src/core/timeline/store';
import type { TimelineEvent } from '../../src/core/timeline/events';
import type { HostToWebviewMessage, TimelineItem } from '../../src/shared/protocol';
import { TimelineFeed, APPEND_BATCH_MS, CHUNK_SIZE } from '../../src/app/timeline/feed';
import { syntheticTimeline } from './timeline-fixtures';

/** A webview stand-in that records messages; `post` resolves on the next microtask, like a hand-over. */
function recorder() {
  const sent: HostToWebviewMessage[] = [];
  const post = (m: HostToWebviewMessage) => {
    sent.push(structuredClone(m)); // what crosses postMessage is a copy
    return Promise.resolve(true);
  };
  /** Every item delivered since the last init/reset, in delivery order. */
  const delivered = (): TimelineItem[] => {
    let out: TimelineItem[] = [];
    for (const m of sent) {
      if (m.type === 'init') out = [...m.events];
      else if (m.type === 'reset') out = [];
      else if (m.type === 'chunk' || m.type === 'append') out.push(...m.events);
    }
    return out;
  };
  return { sent, post, delivered };
}

const events = syntheticTimeline(100_000, { seed: 9 }).map((it) => it.event);

function storeWith(n: number, capacity = 100_000): TimelineStore {
  const s = new TimelineStore(capacity);
  for (let i = 0; i < n; i++) s.append(events[i]!);
  return s;
}

describe('TimelineFeed', () => {
  it('streams 100,000 events as one init and chunks of CHUNK_SIZE, then appends in order, each exactly once', async () => {
    const clock = new FakeClock();
    const store = storeWith(100_000, 200_000);
    const r = recorder();
    const feed = new TimelineFeed({ store, post: r.post, theme: () => 'dark', clock });
    const streaming = feed.start();
    // events appended while the history streams come after it
    for (let i = 0; i < 300; i++) store.append(events[i]!);
    await streaming;
    await clock.advance(APPEND_BATCH_MS);
    const init = r.sent[0]!;
    assert.equal(init.type, 'init');
    assert.equal(init.type === 'init' && init.total, 100_000);
    const chunks = r.sent.filter((m) => m.type === 'chunk');
    assert.equal(chunks.length, 100_000 / CHUNK_SIZE - 1);
    assert.ok(
      r.sent.every((m) => !('events' in m) || m.events.length <= CHUNK_SIZE || m.type === 'append'),
      "r.sent.every((m) => !('events' in m) || m.events.length <= CHUNK_SIZE || m.type === 'append')",
    );
    assert.deepEqual(
      chunks.map((c) => c.type === 'chunk' && c.done),
      [...new Array(chunks.length - 1).fill(false), true],
    );
    const firstAppend = r.sent.findIndex((m) => m.type === 'append');
    assert.ok(firstAppend > r.sent.indexOf(chunks[chunks.length - 1]!), 'appends only after the last chunk');
    const got = r.delivered();
    assert.equal(got.length, 100_300);
    got.forEach((it, i) => assert.equal(it.id, i));
    assert.deepEqual(got[100_001]!.event, events[1]);
    feed.dispose();
  });

  it('batches appends: a burst within one batch period is one message', async () => {
    const clock = new FakeClock();
    const store = storeWith(0);
    const r = recorder();
    const feed = new TimelineFeed({ store, post: r.post, theme: () => 'light', clock });
    await feed.start();
    for (let i = 0; i < 1000; i++) store.append(events[i]!);
    await clock.advance(APPEND_BATCH_MS - 1);
    assert.equal(r.sent.filter((m) => m.type === 'append').length, 0);
    await clock.advance(1);
    const appends = r.sent.filter((m) => m.type === 'append');
    assert.equal(appends.length, 1);
    assert.equal(appends[0]!.type === 'append' && appends[0]!.events.length, 1000);
    feed.dispose();
    assert.equal(clock.pendingTimers(), 0);
  });

  it('tells the webview what the bounded store dropped, so it can forget those ids too', async () => {
    const clock = new FakeClock();
    const store = storeWith(1000, 1000);
    const r = recorder();
    const feed = new TimelineFeed({ store, post: r.post, theme: () => 'dark', clock, chunkSize: 300 });
    await feed.start();
    for (let i = 0; i < 500; i++) store.append(events[i]!);
    await clock.advance(APPEND_BATCH_MS);
    const last = r.sent[r.sent.length - 1]!;
    assert.equal(last.type, 'append');
    assert.equal(last.type === 'append' && last.dropped, 500);
    const ids = r.delivered().map((it) => it.id);
    assert.deepEqual(
      ids,
      Array.from({ length: 1500 }, (_, i) => i),
    );
    feed.dispose();
  });

  it('stop() (the webview hid) ends the stream and the batching; start() begins again from a fresh snapshot', async () => {
    const clock = new FakeClock();
    const store = storeWith(20_000);
    const r = recorder();
    const feed = new TimelineFeed({ store, post: r.post, theme: () => 'dark', clock, chunkSize: 1000 });
    const first = feed.start();
    await Promise.resolve();
    feed.stop();
    await first;
    const sentBefore = r.sent.length;
    assert.ok(sentBefore < 20, `the stream went on after stop: ${sentBefore} messages`);
    store.append(events[0]!);
    await clock.advance(APPEND_BATCH_MS * 3);
    assert.equal(r.sent.length, sentBefore, 'nothing is sent while stopped');
    assert.equal(clock.pendingTimers(), 0);
    r.sent.length = 0;
    await feed.start();
    assert.equal(r.delivered().length, 20_001);
    feed.dispose();
  });

  it('a cleared store makes the webview reset before the new events, whose ids start again', async () => {
    const clock = new FakeClock();
    const store = storeWith(50);
    const r = recorder();
    const feed = new TimelineFeed({ store, post: r.post, theme: () => 'dark', clock });
    await feed.start();
    store.clear();
    const next: TimelineEvent = events[7]!;
    store.append(next);
    await clock.advance(APPEND_BATCH_MS);
    const types = r.sent.map((m) => m.type);
    assert.deepEqual(types, ['init', 'reset', 'append']);
    assert.deepEqual(r.delivered(), [{ id: 0, event: next }]);
    feed.dispose();
  });

  it('a failing post (the webview went away) stops the feed instead of throwing', async () => {
    const clock = new FakeClock();
    const store = storeWith(10_000);
    let calls = 0;
    const feed = new TimelineFeed({
      store,
      post: () => (calls++ === 1 ? Promise.reject(new Error('disposed')) : Promise.resolve(true)),
      theme: () => 'dark',
      clock,
      chunkSize: 1000,
    });
    await feed.start();
    assert.equal(calls, 2);
    store.append(events[0]!);
    await clock.advance(APPEND_BATCH_MS);
    assert.equal(calls, 2);
    feed.dispose();
  });

  it('measures what streaming 100k events costs the host (serialisation per chunk)', (t) => {
    const items = syntheticTimeline(100_000, { seed: 9 });
    const t0 = performance.now();
    let bytes = 0;
    let worst = 0;
    for (let i = 0; i < items.length; i += CHUNK_SIZE) {
      const c0 = performance.now();
      bytes += JSON.stringify({ type: 'chunk', events: items.slice(i, i + CHUNK_SIZE), done: false }).length;
      worst = Math.max(worst, performance.now() - c0);
    }
    t.diagnostic(
      `100k events: ${(bytes / 1e6).toFixed(1)} MB of JSON in ${items.length / CHUNK_SIZE} chunks, ${(performance.now() - t0).toFixed(0)} ms in all, worst chunk ${worst.toFixed(1)} ms`,
    );
    assert.ok(bytes > 0, 'bytes > 0');
  });
});

describe('TimelineStore.at and .some (reads without copying the ring)', () => {
  it('agree with toArray across the wrap-around, and are undefined/false out of range', () => {
    const store = new TimelineStore(5);
    const events = syntheticTimeline(8).map((item) => item.event);
    for (const e of events) store.append(e);
    const all = store.toArray();
    assert.equal(all.length, 5);
    assert.deepEqual(all, events.slice(3), 'the oldest three were dropped');
    // Iterations come back as fresh objects (the ring packs them), equal to the ones appended.
    for (let i = 0; i < all.length; i++) assert.deepStrictEqual(store.at(i), all[i], `at(${i})`);
    for (const i of [-1, 5, 1.5, Number.NaN]) assert.equal(store.at(i), undefined, `at(${i})`);
    assert.equal(
      store.some((e) => isDeepStrictEqual(e, events[7])),
      true,
      'the newest is found',
    );
    assert.equal(
      store.some((e) => isDeepStrictEqual(e, events[0])),
      false,
      'a dropped one is not',
    );
  });
});
