/**
 * TypeFreshness on a FakeClock: a watched type is stale while a confirmed divergence waits for its
 * relist, once its watch has been down past WATCH_DOWN_STALE_MS, and once a server that sends
 * periodic bookmarks has been silent past the bookmark interval; current again as soon as the
 * fact that made it stale is gone. Each relist carries why.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { BOOKMARK_FREQUENCY_MS, BOOKMARK_GRACE_MS, formatAge, TypeFreshness, WATCH_DOWN_STALE_MS } from '../../src/core/syncloop/sources/freshness';

/** A record past its initial list, its watch open. */
async function watchingRecord(clock: FakeClock): Promise<TypeFreshness> {
  const f = new TypeFreshness(clock);
  f.listStarted();
  await clock.advance(500);
  f.listed();
  f.watching();
  return f;
}

describe('TypeFreshness', () => {
  it('the first list is the initial list; while listing the watch is down, but not stale yet', async () => {
    const clock = new FakeClock();
    const f = new TypeFreshness(clock);
    f.listStarted();
    assert.deepEqual(f.facts().lastRelist, { at: 0, why: 'initial list' });
    assert.equal(f.facts().relisting, true);
    await clock.advance(WATCH_DOWN_STALE_MS);
    assert.equal(f.verdict().stale, false, 'down exactly the limit is not past it');
    await clock.advance(1);
    assert.match(f.verdict().reason ?? '', /^watch down for 1m/);
    f.listed();
    f.watching();
    assert.deepEqual(f.verdict(), { stale: false });
  });

  it('a confirmed divergence is stale until the relist is in, then the check reads repaired', async () => {
    const clock = new FakeClock();
    const f = await watchingRecord(clock);
    let changes = 0;
    f.onChange(() => changes++);
    f.checked({ kind: 'diverged', at: clock.now(), differences: 2, confirmed: false });
    assert.equal(f.verdict().stale, false, 'a first sighting may be events in flight');
    await clock.advance(2000);
    f.checked({ kind: 'diverged', at: clock.now(), differences: 2, confirmed: true });
    assert.deepEqual(f.verdict(), { stale: true, reason: 'missed 2 events, relisting', since: 2500 });
    // the reflector's watch is aborted for the relist, then it lists
    f.watchEnded('watch missed events: +u1@5 +u2@6', false);
    f.listStarted();
    assert.deepEqual(f.facts().lastRelist, { at: 2500, why: 'consistency repair: 2 missed events' });
    assert.equal(f.verdict().stale, true, 'still stale while relisting');
    await clock.advance(300);
    f.listed();
    f.watching();
    assert.deepEqual(f.verdict(), { stale: false });
    assert.deepEqual(f.facts().lastCheck, { kind: 'repaired', at: 2800, differences: 2 });
    assert.ok(changes >= 5, `listeners heard each fact (${changes})`);
  });

  it("a 410 or an error is the next relist's why; a clean close and a rewatch are no relist", async () => {
    const clock = new FakeClock();
    const f = await watchingRecord(clock);
    f.watchEnded(undefined, true); // the server's timeout: resumed from the last resourceVersion
    f.watching();
    f.watchEnded('the watch expired (410 Gone)', false);
    f.listStarted();
    assert.equal(f.facts().lastRelist?.why, 'the watch expired (410 Gone)');
    f.listed();
    f.watching();
    f.watchEnded('reconnect after a cut: socket hang up', false);
    // a failing retry keeps the relist's first why
    f.listStarted();
    f.listFailed('connect ECONNREFUSED');
    f.listStarted();
    assert.equal(f.facts().lastRelist?.why, 'reconnect after a cut: socket hang up');
    await clock.advance(WATCH_DOWN_STALE_MS + 5000);
    assert.deepEqual(f.verdict(), { stale: true, reason: 'watch down for 1m: connect ECONNREFUSED', since: 500 + WATCH_DOWN_STALE_MS });
    f.listed();
    f.watching();
    assert.equal(f.verdict().stale, false);
  });

  it('silence is stale only once the server has shown periodic bookmarks, and past the interval with its grace', async () => {
    const clock = new FakeClock();
    const f = await watchingRecord(clock);
    await clock.advance(10 * 60_000);
    assert.equal(f.verdict().stale, false, 'a server that sends no bookmarks promised none');
    f.bookmark();
    const heard = clock.now();
    await clock.advance(BOOKMARK_FREQUENCY_MS + BOOKMARK_GRACE_MS);
    assert.equal(f.verdict().stale, false, 'at the limit');
    await clock.advance(1);
    assert.deepEqual(f.verdict(), {
      stale: true,
      reason: 'no event or bookmark for 1m',
      since: heard + BOOKMARK_FREQUENCY_MS + BOOKMARK_GRACE_MS,
    });
    f.event();
    assert.equal(f.verdict().stale, false);
    assert.equal(f.facts().lastEventAt, clock.now());
    assert.equal(f.facts().lastBookmarkAt, heard);
  });

  it('a failed check is recorded as such, and does not make the type stale', async () => {
    const clock = new FakeClock();
    const f = await watchingRecord(clock);
    f.checked({ kind: 'failed', at: clock.now(), error: '429 Too Many Requests' });
    assert.deepEqual(f.facts().lastCheck, { kind: 'failed', at: 500, error: '429 Too Many Requests' });
    assert.equal(f.verdict().stale, false);
  });

  it('formatAge reads as a row does', () => {
    assert.equal(formatAge(999), '0s');
    assert.equal(formatAge(45_000), '45s');
    assert.equal(formatAge(125_000), '2m');
    assert.equal(formatAge(3_900_000), '1h 5m');
    assert.equal(formatAge(7_200_000), '2h');
  });
});
