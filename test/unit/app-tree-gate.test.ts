// The gate before onDidChangeTreeData (FakeClock): VS Code holds tree events that come less than
// 200 ms apart until they pause, so the gate spaces its firings just over that and merges the rest.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock } from '../../src/core/clock';
import { GATE_MS, LOAD_GATE_MS, RefreshGate, VSCODE_TREE_DEBOUNCE_MS } from '../../src/app/tree/gate';

const n = (id: string) => ({ id });

function setup() {
  const clock = new FakeClock();
  const fired: { at: number; ids: string[] | 'all' }[] = [];
  const gate = new RefreshGate<{ id: string }>((nodes) => fired.push({ at: clock.now(), ids: nodes ? nodes.map((x) => x.id).sort() : 'all' }), clock);
  return { clock, fired, gate };
}

describe('RefreshGate', () => {
  it('passes the first push at once, merges a burst into one firing GATE_MS later', async () => {
    const t = setup();
    assert.ok(GATE_MS > VSCODE_TREE_DEBOUNCE_MS);
    t.gate.push([n('a')]);
    assert.deepEqual(t.fired, [{ at: 0, ids: ['a'] }]);
    for (const [at, id] of [
      [50, 'b'],
      [100, 'c'],
      [150, 'b'],
    ] as const) {
      await t.clock.advance(at - t.clock.now());
      t.gate.push([n(id)]);
    }
    await t.clock.advance(GATE_MS - t.clock.now());
    assert.deepEqual(t.fired, [
      { at: 0, ids: ['a'] },
      { at: GATE_MS, ids: ['b', 'c'] },
    ]);
    await t.clock.advance(1000);
    t.gate.push([n('d')]);
    assert.deepEqual(t.fired.at(-1), { at: GATE_MS + 1000, ids: ['d'] }, 'after a pause: at once again');
    t.gate.dispose();
  });

  it('everything absorbs the nodes; `now` passes at once; dispose ends the timer', async () => {
    const t = setup();
    t.gate.push([n('a')]);
    t.gate.push([n('b')]);
    t.gate.push(undefined);
    t.gate.push([n('c')]);
    await t.clock.advance(GATE_MS);
    assert.deepEqual(t.fired.at(-1), { at: GATE_MS, ids: 'all' });
    t.gate.push([n('x')], { now: true });
    assert.deepEqual(t.fired.at(-1), { at: GATE_MS, ids: ['x'] });
    t.gate.push([n('y')]);
    t.gate.dispose();
    await t.clock.advance(10 * GATE_MS);
    assert.equal(t.fired.at(-1)!.ids[0], 'x');
    assert.equal(t.clock.pendingTimers(), 0);
  });

  it("a load paces firings LOAD_GATE_MS apart; back to GATE_MS after it; never under VS Code's debounce", async () => {
    const t = setup();
    t.gate.setGap(LOAD_GATE_MS);
    for (let i = 0; i < 30; i++) {
      t.gate.push([n(`l${i}`)]);
      await t.clock.advance(50); // a task finishing every 50 ms
    }
    await t.clock.advance(LOAD_GATE_MS);
    const during = t.fired.map((f) => f.at);
    assert.deepEqual(during, [0, 500, 1000, 1500], 'every 500 ms while the load runs');
    assert.equal(new Set(t.fired.flatMap((f) => (f.ids === 'all' ? [] : f.ids))).size, 30, 'every node fired');
    t.gate.setGap(GATE_MS);
    assert.equal(t.gate.gap, GATE_MS);
    const from = t.clock.now();
    for (let i = 0; i < 10; i++) {
      t.gate.push([n(`c${i}`)]);
      await t.clock.advance(50);
    }
    await t.clock.advance(GATE_MS);
    const after = t.fired.map((f) => f.at).filter((at) => at >= from);
    assert.deepEqual(
      after.map((at) => at - from),
      [0, GATE_MS, 2 * GATE_MS, 3 * GATE_MS],
      'the usual pace again (pushes until +450 ms)',
    );
    t.gate.setGap(10);
    assert.ok(t.gate.gap > VSCODE_TREE_DEBOUNCE_MS, "a gap under VS Code's own debounce would be held by it");
    t.gate.dispose();
  });

  it('under any stream of pushes: firings are GATE_MS apart, each push fired within GATE_MS (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 40 }), async (gaps) => {
        const t = setup();
        const pushedAt: [number, string][] = [];
        for (const [i, g] of gaps.entries()) {
          await t.clock.advance(g);
          t.gate.push([n(`p${i}`)]);
          pushedAt.push([t.clock.now(), `p${i}`]);
        }
        await t.clock.advance(GATE_MS);
        for (let i = 1; i < t.fired.length; i++) assert.ok(t.fired[i]!.at - t.fired[i - 1]!.at >= GATE_MS);
        for (const [at, id] of pushedAt) {
          const f = t.fired.find((x) => x.at >= at && x.ids !== 'all' && x.ids.includes(id));
          assert.ok(f && f.at - at <= GATE_MS, `${id} pushed at ${at} fired at ${f?.at}`);
        }
        t.gate.dispose();
      }),
      { numRuns: 100 },
    );
  });
});
