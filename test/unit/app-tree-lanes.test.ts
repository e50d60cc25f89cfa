// Refresh lanes over a real model and tree (FakeClock): churn in an expanded 10,000-pod kind that
// leaves its shown page alone re-reads the kind once a second (its count, and its "Show more" row's),
// not its 500-row page every 100 ms; a change on the page, or a row's status, still shows within its window.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { computeObjectView } from '../../src/core/rows/objectView';
import { ResourceModel } from '../../src/app/model/resourceModel';
import { TreeModel } from '../../src/app/tree/treeModel';
import { COUNTS_MS, FIRST_RESULT_HOLD_MS, ITEMS_PER_SECOND, PAGE_BURST_ROWS, PAGE_ROWS, RefreshLanes, ROWS_MS, STRUCTURE_MS } from '../../src/app/tree/lanes';
import { RefreshCoalescer } from '../../src/app/tree/coalesce';
import type { ResourceNode } from '../../src/app/tree/treeNode';
import { pod, result, task } from './vscode-fixtures';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const name = (i: number) => `p-${String(i).padStart(5, '0')}`;
const view = (n: string, phase = 'Running') => computeObjectView(`big/${n}`, pod('big', n, phase), { group: '', resource: 'pods' });

function setup() {
  const model = new ResourceModel();
  model.retarget({ context: 'ctx' });
  model.applyResult(
    result(
      task(PODS, 'Pod', true),
      Array.from({ length: 10_000 }, (_, i) => pod('big', name(i))),
    ),
  );
  const tree = new TreeModel(model);
  // What VS Code has been given: the context, the namespace, the group, the kind expanded (a page of 500 + "Show more").
  const ctx = tree.roots()[0]!;
  const ns = tree.children(ctx)[0]!;
  const group = tree.children(ns)[0]!;
  const kind = tree.children(group)[0]!;
  const page = tree.children(kind);
  assert.equal(page.length, 501);
  const clock = new FakeClock();
  const fired: { at: number; ids: string[] | 'all' }[] = [];
  const lanes = new RefreshLanes(tree, (nodes) => fired.push({ at: clock.now(), ids: nodes ? nodes.map((n) => n.id) : 'all' }), clock);
  model.onChange((c) => lanes.modelChanged(c));
  const firedFor = (n: ResourceNode) => fired.filter((f) => f.ids !== 'all' && f.ids.includes(n.id)).map((f) => f.at);
  return { model, tree, kind, more: page[500]!, firstRow: page[0]!, clock, lanes, fired, firedFor };
}

describe('RefreshLanes', () => {
  it('creates and deletes beyond the page: the kind is re-read once per COUNTS_MS, with its "Show more" row', async () => {
    const t = setup();
    let next = 0;
    let gone = 9_999;
    for (let w = 0; w < 10; w++) {
      for (let k = 0; k < 20; k++) {
        const n = `z-churn-${next++}`;
        assert.ok(t.model.applyView(`big/${n}`, view(n)));
        assert.ok(t.model.applyView(`big/${name(gone--)}`, undefined));
      }
      await t.clock.advance(STRUCTURE_MS);
    }
    assert.deepEqual(t.firedFor(t.kind), [COUNTS_MS], 'the kind row once, after the counts window');
    assert.deepEqual(t.firedFor(t.more), [], 'the "Show more" row ("500 of N") is re-read with its kind, not on its own');
    assert.equal(t.fired.length, 1, 'one tree event for 400 joins and leaves in a second');
    assert.equal(t.tree.item(t.kind).description, '10,000');
    assert.equal(t.tree.item(t.more).description, '500 of 10,000 shown');
    t.lanes.dispose();
  });

  it('a change on the page re-reads the kind within STRUCTURE_MS; a row status within ROWS_MS; a row that left says "gone" at once', async () => {
    const t = setup();
    const gone = t.tree.children(t.kind)[3]!;
    assert.ok(t.model.applyView(`big/${name(3)}`, undefined)); // on the page
    assert.ok(t.model.applyView(`big/${name(0)}`, view(name(0), 'Pending'))); // a row's status
    await t.clock.advance(ROWS_MS);
    assert.deepEqual(t.firedFor(t.firstRow), [ROWS_MS]);
    assert.deepEqual(t.firedFor(gone), [ROWS_MS]);
    assert.equal(t.tree.item(gone).description, 'gone');
    assert.deepEqual(t.firedFor(t.kind), []);
    await t.clock.advance(STRUCTURE_MS - ROWS_MS);
    assert.deepEqual(t.firedFor(t.kind), [STRUCTURE_MS]);
    // The page was re-read: a name that now sorts into it (before the last shown row) is a page change too.
    t.tree.children(t.kind);
    assert.ok(t.model.applyView('big/p-00000a', view('p-00000a')));
    await t.clock.advance(STRUCTURE_MS);
    assert.deepEqual(t.firedFor(t.kind), [STRUCTURE_MS, 2 * STRUCTURE_MS], 'the bucket had rows to spare: not paced');
    await t.clock.advance(COUNTS_MS);
    assert.deepEqual(t.firedFor(t.kind), [STRUCTURE_MS, 2 * STRUCTURE_MS], 'no count refresh on top of the page refreshes');
    t.lanes.dispose();
  });

  it('page changes that keep coming: after its burst, VS Code re-reads the page at ITEMS_PER_SECOND rows a second; the last changes go out', async () => {
    const t = setup();
    const cost = t.tree.refreshCost(t.kind);
    assert.equal(cost, 1 + 501, 'the kind row, its 500 rows and "Show more"');
    // A pod on the page deleted and a new one sorted into it, every 50 ms for 60 s.
    const SECONDS = 60;
    for (let next = 0; next < SECONDS * 20; next++) {
      assert.ok(t.model.applyView(`big/${name(next)}`, undefined));
      assert.ok(t.model.applyView(`big/a-new-${next}`, view(`a-new-${next}`)));
      await t.clock.advance(50);
      t.tree.children(t.kind); // what VS Code shows is the page as re-read (the cost stays one page)
    }
    const at = t.firedFor(t.kind);
    const spent = at.length * cost;
    assert.ok(spent <= PAGE_BURST_ROWS + ITEMS_PER_SECOND * SECONDS + cost, `${at.length} re-reads of ${cost} rows in ${SECONDS} s`);
    assert.ok(spent >= ITEMS_PER_SECOND * SECONDS - cost, `only ${at.length} re-reads of ${cost} rows in ${SECONDS} s: paced harder than the rate`);
    // The burst: the first re-reads came a structure window apart, until the bucket ran dry.
    const burst = at.findIndex((x, i) => i > 0 && x - at[i - 1]! > STRUCTURE_MS);
    assert.ok(burst >= Math.floor(PAGE_BURST_ROWS / cost), `a burst of ${burst} re-reads`);
    // Then (after the one that spent the rest of the bucket) one page's worth of refill between re-reads.
    for (let i = burst + 1; i < at.length; i++)
      assert.ok(at[i]! - at[i - 1]! >= (cost * 1000) / ITEMS_PER_SECOND - 1, `re-reads ${at[i - 1]} and ${at[i]} too close`);
    // The changes of the last 50 ms are shown: one more re-read comes within the pace.
    await t.clock.advance((cost * 1000) / ITEMS_PER_SECOND + STRUCTURE_MS);
    assert.ok(t.firedFor(t.kind).at(-1)! > SECONDS * 1000 - 50, 'the last joins went out');
    t.lanes.dispose();
  });

  it('a small kind is not paced: each page change goes out within STRUCTURE_MS', async () => {
    const model = new ResourceModel();
    model.retarget({ context: 'ctx' });
    model.applyResult(
      result(
        task(PODS, 'Pod', true),
        Array.from({ length: 20 }, (_, i) => pod('small', name(i))),
      ),
    );
    const tree = new TreeModel(model);
    const kind = tree.children(tree.children(tree.children(tree.roots()[0]!)[0]!)[0]!)[0]!;
    tree.children(kind);
    assert.ok(tree.refreshCost(kind) <= PAGE_ROWS);
    const clock = new FakeClock();
    const at: number[] = [];
    const lanes = new RefreshLanes(tree, (nodes) => nodes?.some((n) => n.id === kind.id) && at.push(clock.now()), clock);
    model.onChange((c) => lanes.modelChanged(c));
    for (let i = 0; i < 5; i++) {
      assert.ok(model.applyView(`small/${name(i)}`, undefined));
      await clock.advance(STRUCTURE_MS);
      tree.children(kind);
    }
    assert.deepEqual(
      at,
      [1, 2, 3, 4, 5].map((k) => k * STRUCTURE_MS),
    );
    lanes.dispose();
  });

  it('a reset drops the pending count refresh; dispose stops every lane', async () => {
    const t = setup();
    assert.ok(t.model.applyView('big/z-1', view('z-1')));
    t.model.reset('other');
    await t.clock.advance(COUNTS_MS);
    assert.deepEqual(t.firedFor(t.kind), []);
    assert.ok(t.fired.some((f) => f.ids === 'all'));
    const before = t.fired.length;
    t.model.reset('ctx');
    t.lanes.dispose();
    await t.clock.advance(COUNTS_MS);
    assert.equal(t.fired.length, before);
    assert.equal(t.clock.pendingTimers(), 0);
  });

  it('a new load: its reset waits for the first bucket and goes out with it, at once (one tree event, not two)', async () => {
    const model = new ResourceModel();
    const tree = new TreeModel(model);
    const clock = new FakeClock();
    const fired: { at: number; ids: string[] | 'all' }[] = [];
    const lanes = new RefreshLanes(tree, (nodes) => fired.push({ at: clock.now(), ids: nodes ? nodes.map((n) => n.id) : 'all' }), clock);
    model.onChange((c) => lanes.modelChanged(c));
    model.retarget({ context: 'ctx' });
    await clock.advance(STRUCTURE_MS + 20); // later than the structure window: the reset is still held
    assert.equal(fired.length, 0);
    model.applyResult(result(task({ group: '', version: 'v1', resource: 'namespaces' }, 'Namespace', false), []));
    model.applyResult(result(task(PODS, 'Pod', true), [pod('a', 'p-1')]));
    assert.deepEqual(fired, [{ at: STRUCTURE_MS + 20, ids: 'all' }], 'the first bucket flushed the held reset with it, without waiting');
    const ns = tree.children(tree.roots()[0]!)[0]!;
    assert.equal(ns.namespace, 'a');
    // The buckets after the first take the structure lane as before.
    model.applyResult(result(task(PODS, 'Pod', true, 'b'), [pod('b', 'p-2')]));
    await clock.advance(STRUCTURE_MS);
    assert.equal(fired.length, 2);
    assert.equal(fired[1]!.at, 2 * STRUCTURE_MS + 20);
    lanes.dispose();
  });

  it('a reset with no bucket after it goes out alone after FIRST_RESULT_HOLD_MS', async () => {
    const t = setup();
    t.model.retarget({ context: 'other' });
    await t.clock.advance(FIRST_RESULT_HOLD_MS - 1);
    assert.equal(t.fired.length, 0);
    await t.clock.advance(1);
    assert.deepEqual(t.fired, [{ at: FIRST_RESULT_HOLD_MS, ids: 'all' }]);
    t.lanes.dispose();
  });
});

describe('RefreshCoalescer', () => {
  it('fires within the shortest delay asked for since its last flush; a longer one never postpones it', async () => {
    const clock = new FakeClock();
    const fired: number[] = [];
    const c = new RefreshCoalescer<{ id: string; path: string[] }>(() => fired.push(clock.now()), clock, 100);
    c.add([{ id: 'a', path: ['a'] }], 500);
    await clock.advance(50);
    c.add([{ id: 'b', path: ['b'] }]); // due at 150: sooner than 500
    await clock.advance(99);
    assert.deepEqual(fired, []);
    await clock.advance(1);
    assert.deepEqual(fired, [150]);
    c.add([{ id: 'c', path: ['c'] }]); // due at 250
    c.add([{ id: 'd', path: ['d'] }], 1000); // asks for later: still 250
    await clock.advance(100);
    assert.deepEqual(fired, [150, 250]);
    assert.equal(clock.pendingTimers(), 0);
    c.dispose();
  });

  it('with spacing: a firing holds the next back by what it cost; nothing added is lost meanwhile', async () => {
    const clock = new FakeClock();
    const fired: { at: number; ids: string[] }[] = [];
    const cost: Record<string, number> = { big: 1000, small: 10 };
    const c = new RefreshCoalescer<{ id: string; path: string[] }>(
      (nodes) => fired.push({ at: clock.now(), ids: nodes!.map((n) => n.id) }),
      clock,
      100,
      (nodes) => nodes!.reduce((a, n) => a + cost[n.id]!, 0),
    );
    c.add([{ id: 'big', path: ['big'] }]);
    await clock.advance(100);
    assert.deepEqual(fired, [{ at: 100, ids: ['big'] }]);
    c.add([{ id: 'small', path: ['small'] }]); // due at 200 by its delay, held to 100 + 1000
    await clock.advance(999);
    assert.equal(fired.length, 1);
    c.add([{ id: 'big', path: ['big'] }]);
    await clock.advance(1);
    assert.deepEqual(fired[1], { at: 1100, ids: ['small', 'big'] });
    // After that firing (cost 1010) a quiet lane fires an add at the later of its delay and the pace.
    await clock.advance(2000);
    c.add([{ id: 'small', path: ['small'] }]);
    await clock.advance(100);
    assert.deepEqual(fired[2], { at: 3200, ids: ['small'] });
    c.dispose();
    assert.equal(clock.pendingTimers(), 0);
  });
});
