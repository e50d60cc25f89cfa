// Refresh lanes over a real model and tree (FakeClock): churn in an expanded 10,000-pod kind that
// leaves its shown page alone re-reads the kind once a second (its count), not its 500-row page
// every 100 ms; a change on the page, or a row's status, still shows within its window.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { computeObjectView } from '../../src/core/syncloop/state/view';
import { ResourceModel } from '../../src/app/model/resourceModel';
import { TreeModel } from '../../src/app/tree/treeModel';
import { COUNTS_MS, FIRST_RESULT_HOLD_MS, RefreshLanes, ROWS_MS, STRUCTURE_MS } from '../../src/app/tree/lanes';
import { RefreshCoalescer } from '../../src/app/tree/coalesce';
import type { ResourceNode } from '../../src/app/tree/node';
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
  it('creates and deletes beyond the page: the kind is re-read once per COUNTS_MS, "Show more" within a frame', async () => {
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
    const more = t.firedFor(t.more);
    assert.equal(more[0], ROWS_MS, 'the "Show more" row (its "500 of N") within a frame of the first change');
    assert.ok(more.length >= 10);
    assert.equal(t.tree.item(t.kind).description, '10,000');
    t.lanes.dispose();
  });

  it('a change on the page re-reads the kind within STRUCTURE_MS; a row status within ROWS_MS', async () => {
    const t = setup();
    assert.ok(t.model.applyView(`big/${name(3)}`, undefined)); // on the page
    assert.ok(t.model.applyView(`big/${name(0)}`, view(name(0), 'Pending'))); // a row's status
    await t.clock.advance(ROWS_MS);
    assert.deepEqual(t.firedFor(t.firstRow), [ROWS_MS]);
    assert.deepEqual(t.firedFor(t.kind), []);
    await t.clock.advance(STRUCTURE_MS - ROWS_MS);
    assert.deepEqual(t.firedFor(t.kind), [STRUCTURE_MS]);
    // The page was re-read: a name that now sorts into it (before the last shown row) is a page change too.
    t.tree.children(t.kind);
    assert.ok(t.model.applyView('big/p-00000a', view('p-00000a')));
    await t.clock.advance(STRUCTURE_MS);
    assert.deepEqual(t.firedFor(t.kind), [STRUCTURE_MS, 2 * STRUCTURE_MS]);
    await t.clock.advance(COUNTS_MS);
    assert.deepEqual(t.firedFor(t.kind), [STRUCTURE_MS, 2 * STRUCTURE_MS], 'no count refresh on top of the page refreshes');
    t.lanes.dispose();
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
});
