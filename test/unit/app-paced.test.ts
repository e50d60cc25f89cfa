// Paced (src/app/paced.ts) on a FakeClock: a load's progress goes to the workbench at most once
// per gap, always its latest value, never late by more than the gap, and nothing after dispose.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock } from '../../src/core/clock';
import { Paced, PROGRESS_GAP_MS } from '../../src/app/paced';

function setup() {
  const clock = new FakeClock();
  const got: { at: number; v: number }[] = [];
  const paced = new Paced<number>((v) => got.push({ at: clock.now(), v }), clock);
  return { clock, got, paced };
}

describe('Paced', () => {
  it('the first value at once, then the latest one per gap; flush delivers what is pending now', async () => {
    const t = setup();
    t.paced.push(1);
    assert.deepEqual(t.got, [{ at: 0, v: 1 }]);
    t.paced.push(2);
    t.paced.push(3);
    await t.clock.advance(PROGRESS_GAP_MS - 1);
    assert.equal(t.got.length, 1, 'nothing before the gap');
    await t.clock.advance(1);
    assert.deepEqual(t.got.at(-1), { at: PROGRESS_GAP_MS, v: 3 }, 'the latest, not the first skipped');
    t.paced.push(4);
    t.paced.flush();
    assert.deepEqual(t.got.at(-1), { at: PROGRESS_GAP_MS, v: 4 });
    assert.equal(t.clock.pendingTimers(), 0);
    t.paced.push(5);
    t.paced.dispose();
    await t.clock.advance(10 * PROGRESS_GAP_MS);
    assert.equal(t.got.at(-1)!.v, 4, 'nothing after dispose');
    assert.equal(t.clock.pendingTimers(), 0);
  });

  it('under any stream of values: deliveries a gap apart, in order, each value superseded or delivered within the gap (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 600 }), { minLength: 1, maxLength: 50 }), async (gaps) => {
        const t = setup();
        const pushed: { at: number; v: number }[] = [];
        for (const [i, g] of gaps.entries()) {
          await t.clock.advance(g);
          t.paced.push(i);
          pushed.push({ at: t.clock.now(), v: i });
        }
        await t.clock.advance(PROGRESS_GAP_MS);
        for (let i = 1; i < t.got.length; i++) {
          assert.ok(t.got[i]!.at - t.got[i - 1]!.at >= PROGRESS_GAP_MS);
          assert.ok(t.got[i]!.v > t.got[i - 1]!.v, 'in order');
        }
        assert.equal(t.got.at(-1)!.v, gaps.length - 1, 'the last value always goes out');
        for (const p of pushed) {
          // delivered itself, or a later value was, within the gap
          const d = t.got.find((g) => g.v >= p.v);
          assert.ok(d && d.at - p.at <= PROGRESS_GAP_MS, `value ${p.v} pushed at ${p.at}: first delivery covering it at ${d?.at}`);
        }
        t.paced.dispose();
      }),
      { numRuns: 150 },
    );
  });
});
