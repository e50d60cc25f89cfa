/**
 * FreshnessMarks on a FakeClock: what one TypeFreshness's transitions put on the timeline. Each
 * relist is a span with its why, each consistency check a mark with its verdict, and a stale spell
 * a 'stale' mark as it begins and a 'stale spell' span once it ends, whether a fact (a confirmed
 * divergence, its relist) or time alone (a watch down too long, read by poll) moved the verdict.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { TypeFreshness, WATCH_DOWN_STALE_MS } from '../../src/core/syncloop/sources/freshness';
import { FreshnessMarks, freshnessKey } from '../../src/core/syncloop/sources/freshnessMarks';
import type { SyncIterationEvent } from '../../src/core/timeline/events';

const ORIGIN = 1_000;

function setup() {
  const clock = new FakeClock();
  const f = new TypeFreshness(clock);
  const marks: SyncIterationEvent[] = [];
  const m = new FreshnessMarks(f, { key: freshnessKey({ group: '', resource: 'configmaps' }, undefined), clock, origin: ORIGIN, append: (e) => marks.push(e) });
  /** The marks as [op, t, durationMs, outcome, data or message]. */
  const brief = () => marks.map((e) => [e.op, e.t, e.durationMs, e.outcome, e.data ?? e.message]);
  return { clock, f, m, marks, brief };
}

describe('FreshnessMarks', () => {
  it('keys a type across namespaces and in one, so the kind filter reads the type', () => {
    assert.equal(freshnessKey({ group: '', resource: 'configmaps' }, undefined), 'configmaps:*');
    assert.equal(freshnessKey({ group: 'apps', resource: 'deployments' }, 'shop'), 'deployments.apps:shop/*');
  });

  it('the initial list, a consistent check, a missed event confirmed, its repair: spans and marks in order', async () => {
    const { clock, f, marks, brief } = setup();
    await clock.advance(ORIGIN + 100);
    f.listStarted();
    await clock.advance(250);
    f.listed();
    f.watching();
    assert.deepEqual(brief(), [['relist', 100, 250, 'ok', 'initial list']]);
    assert.equal(marks[0]!.source, 'freshness');
    assert.equal(marks[0]!.key, 'configmaps:*');

    await clock.advance(1000);
    f.checked({ kind: 'consistent', at: clock.now() });
    await clock.advance(1000);
    f.checked({ kind: 'diverged', at: clock.now(), differences: 1, confirmed: false });
    assert.deepEqual(brief().slice(1), [
      ['consistency check', 1350, 0, 'ok', 'consistent'],
      ['consistency check', 2350, 0, 'error', 'diverged 1'],
    ]);
    assert.match(marks[2]!.message!, /seen on one list/);

    await clock.advance(1000);
    f.checked({ kind: 'diverged', at: clock.now(), differences: 1, confirmed: true });
    assert.deepEqual(brief().slice(3), [
      ['consistency check', 3350, 0, 'error', 'diverged 1'],
      ['stale', 3350, 0, 'error', 'missed an event, relisting'],
    ]);
    // the repair: the reflector relists because of it
    f.watchEnded('consistency repair: 1 missed event', false);
    f.listStarted();
    await clock.advance(400);
    f.listed();
    f.watching();
    assert.deepEqual(brief().slice(5), [
      ['relist', 3350, 400, 'ok', 'consistency repair: 1 missed event'],
      ['stale spell', 3350, 400, 'error', 'stale until current again: missed an event, relisting'],
    ]);
    assert.equal(f.facts().lastCheck?.kind, 'repaired', 'a repaired verdict is the relist, not a check of its own');
    assert.equal(marks.length, 7);
  });

  it('a failed check is marked with its error; the same verdict is not marked twice', async () => {
    const { clock, f, brief } = setup();
    await clock.advance(ORIGIN);
    f.checked({ kind: 'failed', at: clock.now(), error: 'the server is busy' });
    f.watching(); // another change: no new check
    assert.deepEqual(brief(), [['consistency check', 0, 0, 'error', 'failed']]);
    f.checked({ kind: 'failed', at: clock.now() + 1, error: 'again' });
    assert.equal(brief().length, 2);
  });

  it('a watch down past the limit: marked stale by poll, at the verdict\u2019s since, and the spell ends when it watches again', async () => {
    const { clock, f, m, brief } = setup();
    await clock.advance(ORIGIN);
    f.listStarted();
    f.listed();
    f.watching();
    f.watchEnded('watch error: boom', false);
    f.listStarted();
    await clock.advance(WATCH_DOWN_STALE_MS);
    m.poll();
    assert.equal(brief().length, 1, 'down exactly the limit is not stale');
    await clock.advance(5_000);
    m.poll();
    m.poll();
    assert.deepEqual(brief().slice(1), [['stale', WATCH_DOWN_STALE_MS, 0, 'error', 'watch down for 1m: watch error: boom']]);
    await clock.advance(1_000);
    f.listed();
    f.watching();
    assert.deepEqual(brief().slice(2), [
      ['relist', 0, WATCH_DOWN_STALE_MS + 6_000, 'ok', 'watch error: boom'],
      ['stale spell', WATCH_DOWN_STALE_MS, 6_000, 'error', 'stale until current again: watch down for 1m: watch error: boom'],
    ]);
  });

  it('close stops the marks', async () => {
    const { clock, f, m, marks } = setup();
    m.close();
    f.listStarted();
    await clock.advance(10);
    f.listed();
    assert.equal(marks.length, 0);
  });
});
