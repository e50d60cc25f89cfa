// Refresh lanes over a real model and tree (FakeClock): churn in an expanded 10,000-pod kind that
// leaves its shown page alone re-reads the kind once a second (its count), not its 500-row page
// every 100 ms; a change on the page, or a row's status, still shows within its window.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { computeObjectView } from '../../src/core/syncloop/state/view';
import { ResourceModel } from '../../src/app/model/resourceModel';
import { TreeModel } from '../../src/app/tree/treeModel';
import { COUNTS_MS, RefreshLanes, ROWS_MS, STRUCTURE_MS } from '../../src/app/tree/lanes';
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
});
