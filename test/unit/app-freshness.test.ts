/**
 * The sync loop's freshness as the tree and the status bar show it, over a real model and tree on a
 * FakeClock: a kind row whose type turned stale says "· stale <age>" and why in its tooltip, is
 * named for a refresh when it turns stale, each time its age passes a minute, and when it is
 * current again, and reads as before once the loop stops; the status bar's tooltip sums every
 * watched type up in one line.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import type { SourceFreshness } from '../../src/core/syncloop/sources/cluster';
import { TypeFreshness } from '../../src/core/syncloop/sources/freshness';
import { ResourceModel } from '../../src/app/model/resourceModel';
import { TreeModel } from '../../src/app/tree/treeModel';
import { FreshnessRows } from '../../src/app/sync/freshnessRows';
import { freshnessSummary, timeOfDay } from '../../src/app/sync/freshnessText';
import { statusBarText } from '../../src/app/statusText';
import { pod, result, task } from './vscode-fixtures';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const CMS = { group: '', version: 'v1', resource: 'configmaps' };
/** The wall clock at FakeClock 0: 12:00:00 today, local time. */
const WALL0 = new Date(2026, 11, 7, 12, 0, 0).getTime();

function cm(ns: string, name: string) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, uid: `u-${name}`, resourceVersion: '1' } };
}

async function setup() {
  const clock = new FakeClock();
  const model = new ResourceModel();
  model.retarget({ context: 'ctx' });
  model.applyResult(result(task(PODS, 'Pod', true), [pod('default', 'web-0')]));
  model.applyResult(result(task(CMS, 'ConfigMap', true, undefined, 1), [cm('default', 'settings')]));
  const tree = new TreeModel(model);
  const record = (gvr: typeof PODS) => {
    const f = new TypeFreshness(clock);
    f.listStarted();
    f.listed();
    f.watching();
    return { source: gvr === PODS ? 'api' : 'api:configmaps', gvr, namespace: undefined, freshness: f } satisfies SourceFreshness;
  };
  const entries = [record(PODS), record(CMS)];
  const rows = new FreshnessRows(
    tree,
    () => entries,
    clock,
    () => WALL0 + clock.now(),
  );
  // What VS Code has been given: the context, the namespace, the core group, its two kinds.
  const ns = tree.children(tree.roots()[0]!)[0]!;
  const kinds = tree.children(tree.children(ns)[0]!);
  const cmsRow = kinds.find((k) => k.typeKey === 'configmaps')!;
  const podsRow = kinds.find((k) => k.typeKey === 'pods')!;
  assert.deepEqual(rows.changed(), [], 'the first comparison names nothing');
  return { clock, tree, rows, entries, cmsRow, podsRow, cms: entries[1]!.freshness };
}

describe('freshness on the kind rows', () => {
  it('a current type: no suffix; the tooltip names each fact at its time of day', async () => {
    const t = await setup();
    await t.clock.advance(5000);
    t.cms.event();
    const it = t.tree.item(t.cmsRow);
    assert.equal(it.description, '1');
    assert.deepEqual(it.tooltip!.split('\n'), [
      'configmaps (v1): 1 object',
      'Current',
      `Last event: ${timeOfDay(WALL0 + 5000)}; last bookmark: none yet`,
      `Last relist: ${timeOfDay(WALL0)} (initial list)`,
      'Last consistency check: none yet',
    ]);
  });

  it('a missed event: the row says stale, is refreshed as its age passes a minute, and again once repaired', async () => {
    const t = await setup();
    await t.clock.advance(1000);
    t.cms.checked({ kind: 'diverged', at: t.clock.now(), differences: 1, confirmed: true });
    assert.deepEqual(t.rows.changed(), [t.cmsRow], 'only the ConfigMaps row');
    assert.equal(t.tree.item(t.cmsRow).description, '1 · stale');
    assert.match(t.tree.item(t.cmsRow).tooltip!, /\nStale: missed an event, relisting\n/);
    assert.equal(t.tree.item(t.podsRow).description, '1', 'pods are current');
    await t.clock.advance(30_000);
    // no "stale 30s": the seconds move too often to spend a page's refresh on them
    assert.deepEqual(t.rows.changed(), []);
    await t.clock.advance(30_000);
    assert.deepEqual(t.rows.changed(), [t.cmsRow], 'a minute on');
    assert.equal(t.tree.item(t.cmsRow).description, '1 · stale 1m');
    t.cms.listStarted();
    t.cms.listed();
    t.cms.watching();
    assert.deepEqual(t.rows.changed(), [t.cmsRow], 'current again');
    assert.equal(t.tree.item(t.cmsRow).description, '1');
    assert.match(
      t.tree.item(t.cmsRow).tooltip!,
      /Last relist: 12:01:01 \(consistency repair: 1 missed event\)\nLast consistency check: 12:01:01, repaired 1 missed event$/,
    );
    const refreshed = t.rows.dispose().map((n) => n.id);
    assert.deepEqual(refreshed.sort(), [t.podsRow.id, t.cmsRow.id].sort(), 'every row that showed freshness');
    assert.equal(t.tree.item(t.cmsRow).tooltip, 'configmaps (v1): 1 object', 'the loop stopped: the row reads as before');
  });

  it('the status bar sums it up in one line', async () => {
    const t = await setup();
    assert.equal(freshnessSummary(t.entries, t.clock.now()), 'Freshness: all 2 watched types current');
    t.cms.checked({ kind: 'diverged', at: 0, differences: 3, confirmed: true });
    t.entries[0]!.freshness.bookmark();
    await t.clock.advance(200_000);
    const line = freshnessSummary(t.entries, t.clock.now())!;
    assert.equal(line, 'Freshness: 2 stale: pods (no event or bookmark for 3m), configmaps (missed 3 events, relisting)');
    assert.equal(freshnessSummary([], 0), undefined);
    const running = statusBarText({ context: 'ctx', demo: false, objects: 2, sync: 'running', freshness: line });
    assert.ok(running.tooltip.split('\n').includes(line));
    const off = statusBarText({ context: 'ctx', demo: false, objects: 2, sync: 'off', freshness: line });
    assert.ok(!off.tooltip.includes('Freshness'), 'no loop, no freshness');
  });
});
