// Layout of the timeline canvas: culling, per-pixel aggregation, hit-testing, filters and keyboard
// navigation, checked against brute force over the same data (100,000 events where it matters).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TimelineModel, itemEnd, type Item, type Lane } from '../../src/vscode/timeline/webview/model';
import { forEachInRange, hitTest, laneRows, layoutFrame, AGG_PX, type Geometry } from '../../src/vscode/timeline/webview/layout';
import { makePredicate, kindsOf, itemKinds } from '../../src/vscode/timeline/webview/filter';
import { navigate, itemsInView } from '../../src/vscode/timeline/webview/nav';
import { fitRange, span, type Viewport } from '../../src/vscode/timeline/webview/viewport';
import type { SyncIterationEvent } from '../../src/core/timeline/events';
import { syntheticTimeline } from './timeline-fixtures';

const geom: Geometry = { width: 1400, height: 600, gutter: 110, axisHeight: 22, laneHeight: 24 };
const plotW = geom.width - geom.gutter;

function modelOf(n: number, seed = 1): TimelineModel {
  const m = new TimelineModel();
  m.add(syntheticTimeline(n, { seed }));
  m.ensureSorted();
  return m;
}

function bruteInRange(lane: Lane, from: number, to: number, now: number): Set<Item> {
  return new Set(lane.items.filter((it) => it.visible && it.start <= to && itemEnd(it, now) >= from));
}

const big = modelOf(100_000);
const all = fitRange(big.minT, big.maxT);

describe('culling', () => {
  it('visits exactly the visible items that overlap the view, for any view (property, 100k events)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 1e-6, max: 1, noNaN: true }), (a, w) => {
        const from = all.start + a * span(all);
        const to = from + w * span(all);
        for (const lane of big.lanes()) {
          const got = new Set<Item>();
          forEachInRange(lane, from, to, big.maxT!, (it) => got.add(it));
          const want = bruteInRange(lane, from, to, big.maxT!);
          assert.equal(got.size, want.size, `lane ${lane.key}`);
          for (const it of want) assert.ok(got.has(it), 'got.has(it)');
        }
      }),
      { numRuns: 40 },
    );
  });

  it('a zoomed-in frame visits a small part of the history', () => {
    const v: Viewport = { start: all.start + span(all) / 2, end: all.start + span(all) / 2 + 200 };
    const f = layoutFrame(big, v, geom, laneRows(big, geom));
    assert.ok(f.stats.visited < 2000, `visited ${f.stats.visited}`);
    assert.ok(f.stats.individual > 0, 'f.stats.individual > 0');
  });

  it('draws every in-view item once: individually or in an aggregated column', () => {
    for (const v of [all, { start: 1000, end: 1500 }, { start: 5000, end: 5020 }]) {
      const rows = laneRows(big, geom);
      const f = layoutFrame(big, v, geom, rows);
      let want = 0;
      for (const r of rows) want += bruteInRange(r.lane, v.start, v.end, big.maxT!).size;
      assert.equal(f.stats.individual + f.stats.aggregated, want);
    }
  });
});

describe('per-pixel aggregation', () => {
  it('keeps a fit-all frame of 100k events to at most one rectangle per pixel column per lane', () => {
    const rows = laneRows(big, geom);
    const f = layoutFrame(big, all, geom, rows);
    assert.ok(f.stats.aggregated > 90_000 * 0.2, 'most items are aggregated at this zoom');
    assert.ok(f.stats.rects <= rows.length * plotW, `${f.stats.rects} rects`);
  });

  it('lets an error win the pixel it shares with successes', () => {
    const m = new TimelineModel();
    const ev = (t: number, outcome: SyncIterationEvent['outcome']): SyncIterationEvent => ({
      kind: 'iteration',
      t,
      source: 'sync',
      op: 'tick',
      key: 'a/b',
      handler: 'HandlePodSyncs',
      durationMs: 0.001,
      outcome,
    });
    const items = Array.from({ length: 1000 }, (_, i) => ({ id: i, event: ev(500 + i * 0.001, i === 617 ? 'error' : 'ok') }));
    m.add(items);
    const f = layoutFrame(m, { start: 0, end: 10_000 }, geom, laneRows(m, geom));
    assert.equal(f.rects['mark-error'].length / 4, 1, 'the error shows');
    const x = f.rects['mark-error'][0]!;
    assert.ok(Math.abs(x - (geom.gutter + (500 * plotW) / 10_000)) <= 2, 'Math.abs(x - (geom.gutter + 500 * plotW / 10_000)) <= 2');
  });

  it("outlines a mark the workstation inferred (its fill stays its outcome's), and only that one", () => {
    const m = new TimelineModel();
    const ev = (t: number, inferred: boolean): SyncIterationEvent => ({
      kind: 'iteration',
      t,
      source: 'probe',
      op: 'liveness',
      key: 'default/probe-me',
      handler: 'HandlePodSyncs',
      durationMs: 1,
      outcome: 'ok',
      ...(inferred ? { inferred } : {}),
    });
    m.add([
      { id: 0, event: ev(100, false) },
      { id: 1, event: ev(200, true) },
    ]);
    const f = layoutFrame(m, { start: 50, end: 250 }, geom, laneRows(m, geom));
    assert.equal(f.rects['mark-ok'].length / 4, 2);
    assert.equal(f.rects['mark-inferred'].length / 4, 1);
    assert.equal(f.rects['mark-inferred'][0], f.rects['mark-ok'][4], 'the outline sits on the inferred mark');
  });

  it('draws items at least AGG_PX wide one by one, with labels on wide bars', () => {
    const v: Viewport = { start: 2000, end: 2400 };
    const f = layoutFrame(big, v, geom, laneRows(big, geom));
    assert.ok(f.labels.length > 0, 'f.labels.length > 0');
    for (const l of f.labels) assert.ok(l.maxWidth >= 48 - 8 - 1e-9, 'l.maxWidth >= 48 - 8 - 1e-9');
    const barRects = f.rects['bar-ok'];
    for (let i = 0; i < barRects.length; i += 4) assert.ok(barRects[i + 2]! >= 1, 'barRects[i + 2]! >= 1');
    assert.ok(AGG_PX >= 1, 'AGG_PX >= 1');
  });
});

describe('hit-testing', () => {
  it('finds the item drawn under the pointer: the nearest within 4 px, shortest among containing ones (property)', () => {
    const rows = laneRows(big, geom);
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 0.99, noNaN: true }),
        fc.integer({ min: 1, max: 2000 }),
        fc.nat(rows.length - 1),
        fc.integer({ min: 0, max: plotW - 1 }),
        (a, spanMs, r, px) => {
          const v = { start: all.start + a * span(all), end: all.start + a * span(all) + spanMs };
          const row = rows[r]!;
          const hit = hitTest(big, v, geom, rows, geom.gutter + px + 0.5, row.y + row.h / 2);
          const t = v.start + ((px + 0.5) * spanMs) / plotW;
          const tol = (4 * spanMs) / plotW;
          const dist = (it: Item) => Math.max(0, it.start - t, t - itemEnd(it, big.maxT!));
          const candidates = row.lane.items.filter((it) => it.visible && dist(it) <= tol);
          if (candidates.length === 0) return assert.equal(hit, undefined);
          assert.ok(hit, 'something within tolerance was missed');
          const best = Math.min(...candidates.map(dist));
          assert.ok(Math.abs(dist(hit) - best) < 1e-9, 'not the nearest');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('sees nothing in the gutter, the axis, or below the lanes', () => {
    const rows = laneRows(big, geom);
    assert.equal(hitTest(big, all, geom, rows, 50, rows[0]!.y + 5), undefined);
    assert.equal(hitTest(big, all, geom, rows, 600, 5), undefined);
    assert.equal(hitTest(big, all, geom, rows, 600, rows[rows.length - 1]!.y + 100), undefined);
  });
});

describe('filters', () => {
  it('by source hides the lanes and items of that source', () => {
    const m = modelOf(5000, 2);
    m.applyFilter(makePredicate({ hiddenSources: ['loader', 'pleg'], kind: '', name: '' }));
    for (const lane of m.lanes()) {
      const hidden = lane.kind === 'worker' || lane.source === 'pleg';
      assert.ok(
        lane.items.every((it) => it.visible === !hidden),
        lane.key,
      );
    }
  });

  it('by kind: a task resource, or the kind of an object in an iteration key', () => {
    const m = modelOf(5000, 2);
    for (const k of ['deployments.apps', 'pods', 'configmaps', 'secrets']) assert.ok(kindsOf(m).includes(k), `kinds lack ${k}`);
    m.applyFilter(makePredicate({ hiddenSources: [], kind: 'configmaps', name: '' }));
    const marks = m
      .lanes()
      .flatMap((l) => l.items)
      .filter((it) => it.visible);
    assert.ok(marks.length > 0, 'some iterations touched configmaps');
    for (const it of marks)
      assert.ok(it.type === 'mark' ? it.event.kind !== 'writes' && it.event.key.includes('configmaps:') : it.resource === 'configmaps', 'only configmaps');
    m.applyFilter(makePredicate({ hiddenSources: [], kind: 'deployments.apps', name: '' }));
    let shown = 0;
    for (const lane of m.lanes()) for (const it of lane.items) if (it.visible) (shown++, assert.deepEqual(itemKinds(it), ['deployments.apps']));
    assert.ok(shown > 0, 'shown > 0');
  });

  it('by name: a case-insensitive substring of the pod key or of the task namespace/resource', () => {
    const m = modelOf(5000, 2);
    m.applyFilter(makePredicate({ hiddenSources: [], kind: '', name: 'POD-1' }));
    for (const lane of m.lanes()) {
      for (const it of lane.items) {
        if (it.type === 'mark') assert.equal(it.visible, it.event.kind !== 'writes' && it.event.key.toLowerCase().includes('pod-1'));
        else assert.equal(it.visible, false);
      }
    }
    m.applyFilter(makePredicate({ hiddenSources: [], kind: '', name: 'team-a/' }));
    const bars = m
      .lanes()
      .flatMap((l) => l.items)
      .filter((it) => it.visible && it.type === 'bar');
    assert.ok(
      bars.length > 0 && bars.every((b) => b.type === 'bar' && b.namespace === 'team-a'),
      "bars.length > 0 && bars.every((b) => b.type === 'bar' && b.namespace === 'team-a')",
    );
  });

  it('filtered-out items are neither drawn nor hit nor counted', () => {
    const m = modelOf(20_000, 4);
    const rows = laneRows(m, geom);
    const v = fitRange(m.minT, m.maxT);
    const before = layoutFrame(m, v, geom, rows).stats;
    m.applyFilter(makePredicate({ hiddenSources: [], kind: 'secrets', name: '' }));
    const after = layoutFrame(m, v, geom, rows).stats;
    assert.ok(
      after.individual + after.aggregated < (before.individual + before.aggregated) / 4,
      'after.individual + after.aggregated < (before.individual + before.aggregated) / 4',
    );
    for (let px = 0; px < plotW; px += 7) {
      for (const r of rows) {
        const hit = hitTest(m, v, geom, rows, geom.gutter + px, r.y + 5);
        if (hit) assert.ok(itemKinds(hit).includes('secrets'), `hit ${itemKinds(hit)}`);
      }
    }
    assert.ok(m.visibleEvents < m.eventCount, 'm.visibleEvents < m.eventCount');
  });
});

describe('keyboard navigation', () => {
  it('left/right walk a lane in time order over visible items only; up/down change lane to the nearest in time', () => {
    const m = modelOf(3000, 6);
    const rows = laneRows(m, geom);
    const v = fitRange(m.minT, m.maxT);
    const first = navigate(m, rows, undefined, 'right', v)!;
    assert.equal(first.lane, rows[0]!.lane, 'starts in the top lane');
    const second = navigate(m, rows, first, 'right', v)!;
    assert.ok(
      second.start >= first.start && second !== first && second.lane === first.lane,
      'second.start >= first.start && second !== first && second.lane === first.lane',
    );
    assert.equal(navigate(m, rows, second, 'left', v), first);
    const down = navigate(m, rows, first, 'down', v)!;
    assert.equal(down.lane, rows[1]!.lane);
    const others = rows[1]!.lane.items.filter((it) => it.visible);
    const nearest = Math.min(...others.map((it) => Math.abs(it.start - first.start)));
    assert.equal(Math.abs(down.start - first.start), nearest);
    m.applyFilter((it) => it.type === 'mark' || it.id % 2 === 0);
    let at = navigate(m, rows, undefined, 'home', v)!;
    for (let i = 0; i < 50; i++) {
      at = navigate(m, rows, at, 'right', v)!;
      assert.ok(at.visible, 'at.visible');
    }
    const end = navigate(m, rows, at, 'end', v)!;
    assert.equal(navigate(m, rows, end, 'right', v), end, 'stays at the end');
  });

  it('lists the items in view for the accessible list, earliest first, capped', () => {
    const rows = laneRows(big, geom);
    const { items, total } = itemsInView(big, rows, all, 200);
    assert.equal(items.length, 200);
    assert.ok(total > 50_000, 'total > 50_000');
    for (let i = 1; i < items.length; i++) assert.ok(items[i - 1]!.start <= items[i]!.start, 'items[i - 1]!.start <= items[i]!.start');
  });
});
