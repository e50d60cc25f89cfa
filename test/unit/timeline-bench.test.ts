// How long one timeline frame takes with 100,000 events, without a browser: the layout (culling and
// aggregation) plus the draw calls issued against a counting 2D context. The figures are printed as
// test diagnostics; the bounds asserted are loose and on CPU time (a shared 2-core machine), the point
// is the order of magnitude: a frame must fit in a 60 Hz budget (16 ms) with room for the real canvas.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TimelineModel } from '../../media/timeline/model';
import { hitTest, laneRows, layoutFrame, type Geometry } from '../../media/timeline/layout';
import { drawFrame, type Canvas2D } from '../../media/timeline/draw';
import { makePredicate } from '../../media/timeline/filter';
import { readPalette } from '../../media/timeline/theme';
import { fitRange, span, zoomAt } from '../../media/timeline/viewport';
import { syntheticTimeline } from './timeline-fixtures';

/** A 2D context that only counts calls: what the draw code issues, without a rasteriser. */
function countingContext(): Canvas2D & { calls: number } {
  const ctx = { calls: 0 } as Canvas2D & { calls: number };
  for (const name of ['setTransform', 'fillRect', 'strokeRect', 'fillText', 'save', 'restore', 'beginPath', 'rect', 'clip'] as const) {
    (ctx as unknown as Record<string, () => void>)[name] = () => void ctx.calls++;
  }
  return ctx;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

type Timing = number & { cpu?: number };

/**
 * Median wall time of `fn` in ms. On a shared machine wall time includes waiting for a core; the
 * CPU time (process.cpuUsage) of the same runs is reported beside it as `cpu`.
 */
function time(fn: () => void, runs = 15): Timing {
  fn(); // warm-up (JIT)
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fn();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return Object.assign(median(wall), { cpu: median(cpu) });
}

function fmt(ms: Timing, digits = 2): string {
  return `${ms.toFixed(digits)} ms (cpu ${ms.cpu?.toFixed(digits)} ms)`;
}

const geom: Geometry = { width: 1600, height: 700, gutter: 110, axisHeight: 22, laneHeight: 24 };
const palette = readPalette(() => '', 'dark');

describe('timeline frame with 100,000 events (node, no canvas)', () => {
  const items = syntheticTimeline(100_000, { seed: 11 });
  const model = new TimelineModel();
  const ingestMs = time(() => {
    model.reset();
    model.add(items);
    model.ensureSorted();
  }, 5);
  const rows = laneRows(model, geom);
  const all = fitRange(model.minT, model.maxT);

  it('lays out and draws a fit-all frame well inside 16 ms', (t) => {
    const ctx = countingContext();
    let rects = 0;
    const layoutMs = time(() => void (rects = layoutFrame(model, all, geom, rows).stats.rects));
    const frameMs = time(() => drawFrame(ctx, layoutFrame(model, all, geom, rows), palette, 2));
    t.diagnostic(`ingest 100k events: ${fmt(ingestMs, 1)} (once per snapshot)`);
    t.diagnostic(`fit-all layout: ${fmt(layoutMs)}, ${rects} rects; layout + draw calls: ${fmt(frameMs)}`);
    // bounds on CPU time: wall time on a shared machine measures the neighbours too
    assert.ok(frameMs.cpu! < 40, `frame took ${fmt(frameMs)}`);
  });

  it('a zoomed-in frame costs what it shows', (t) => {
    const ctx = countingContext();
    const zoomed = zoomAt(all, 500, all.start + span(all) * 0.6);
    let stats = layoutFrame(model, zoomed, geom, rows).stats;
    const frameMs = time(() => {
      const f = layoutFrame(model, zoomed, geom, rows);
      stats = f.stats;
      drawFrame(ctx, f, palette, 2);
    });
    t.diagnostic(`zoomed 500x: layout + draw ${fmt(frameMs, 3)}, visited ${stats.visited}, ${stats.individual} drawn one by one`);
    assert.ok(frameMs.cpu! < 5, `zoomed frame took ${fmt(frameMs, 3)}`);
  });

  it('hit-testing and re-filtering 100k events are interactive', (t) => {
    let i = 0;
    const hundredHits = time(() => {
      for (let k = 0; k < 100; k++) hitTest(model, all, geom, rows, geom.gutter + ((i++ * 37) % 1400), rows[k % rows.length]!.y + 10);
    });
    const hitMs = hundredHits / 100;
    const filterMs = time(() => model.applyFilter(makePredicate({ hiddenSources: ['housekeeping'], kind: '', name: 'pod-1' })), 5);
    model.applyFilter(() => true);
    t.diagnostic(`hit-test at fit-all: ${(hitMs * 1000).toFixed(1)} µs; apply a filter to 100k: ${fmt(filterMs, 1)}`);
    assert.ok(hundredHits.cpu! / 100 < 2, `hit-test took ${hitMs} ms`);
    assert.ok(filterMs.cpu! < 150, `filter took ${fmt(filterMs, 1)}`);
  });
});
