/**
 * Layout: from the model and a viewport to a Frame, the list of rectangles and texts one canvas
 * frame draws. Pure and allocation-light, so it runs (and is measured) in node with 100,000 events.
 *
 * Guarantees:
 * - Culling: only items that overlap the viewport are visited (binary search on `start`, widened by
 *   the lane's `maxSpan`, plus the lane's open bars), so a zoomed-in frame costs what it shows.
 * - Aggregation: items narrower than AGG_PX are not drawn one by one; they mark the pixel columns
 *   they cover, and each run of columns with the same (worst) outcome is one rectangle. A frame
 *   therefore draws at most a few rectangles per pixel column per lane, however many events exist,
 *   and an error is never hidden by the successes that share its pixel (worst outcome wins).
 * - Hit-testing sees exactly what is drawn: visible (filtered-in) items of shown lanes.
 */
import { itemEnd, type Bar, type Item, type Lane, type TimelineModel } from './model';
import { span, ticks, type Tick, type Viewport } from './viewport';

/** Items narrower than this many pixels are aggregated into pixel columns. */
export const AGG_PX = 3;
/** Bars at least this wide carry their resource name. */
export const LABEL_PX = 48;

export interface Geometry {
  /** CSS pixels of the whole canvas. */
  width: number;
  height: number;
  /** The left column that holds lane labels. */
  gutter: number;
  axisHeight: number;
  laneHeight: number;
}

export interface LaneRow {
  lane: Lane;
  y: number;
  h: number;
}

export type Style =
  | 'bar-ok'
  | 'bar-running'
  | 'bar-cancelled'
  | 'bar-error'
  | 'mark-skipped'
  | 'mark-ok'
  | 'mark-error'
  /** An outline around a mark the workstation inferred (drawn stroked, not filled). */
  | 'mark-inferred'
  | 'retry'
  | 'page';

export const STYLES: readonly Style[] = [
  'bar-ok',
  'bar-running',
  'bar-cancelled',
  'bar-error',
  'mark-skipped',
  'mark-ok',
  'mark-error',
  'mark-inferred',
  'page',
  'retry',
];

/** Styles by severity code (model.ts SEVERITY): index = item.sev. */
const BAR_STYLE: (Style | undefined)[] = [undefined, 'bar-ok', 'bar-running', 'bar-cancelled', 'bar-error'];
const MARK_STYLE: (Style | undefined)[] = [undefined, 'mark-skipped', 'mark-ok', undefined, 'mark-error'];

export interface Label {
  x: number;
  y: number;
  maxWidth: number;
  text: string;
}

export interface Frame {
  geom: Geometry;
  view: Viewport;
  rows: LaneRow[];
  /** Per style, flattened x, y, w, h in canvas CSS pixels. */
  rects: Record<Style, number[]>;
  labels: Label[];
  /** Ticks with x in canvas coordinates (the gutter already added). */
  ticks: Tick[];
  selection?: { x: number; y: number; w: number; h: number };
  stats: { visited: number; individual: number; aggregated: number; rects: number };
}

/** The lanes shown, top to bottom, below the axis. */
export function laneRows(model: TimelineModel, geom: Geometry, showLane: (lane: Lane) => boolean = () => true): LaneRow[] {
  const rows: LaneRow[] = [];
  let y = geom.axisHeight;
  for (const lane of model.lanes()) {
    if (!showLane(lane)) continue;
    rows.push({ lane, y, h: geom.laneHeight });
    y += geom.laneHeight;
  }
  return rows;
}

/** Index of the first item whose start is >= t (items sorted by start). */
export function lowerBound(items: readonly Item[], t: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid]!.start < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Calls `fn` for every visible item of `lane` that overlaps [from, to], finished items in start
 * order, then the open (running) bars. `now` is where running bars end.
 */
export function forEachInRange(lane: Lane, from: number, to: number, now: number, fn: (item: Item, end: number) => void): number {
  const items = lane.items;
  let visited = 0;
  for (let i = lowerBound(items, from - lane.maxSpan); i < items.length; i++) {
    const item = items[i]!;
    if (item.start > to) break;
    visited++;
    if (!item.visible || (item.type === 'bar' && item.end === undefined)) continue;
    const end = item.type === 'mark' ? item.end : item.end!;
    if (end < from) continue;
    fn(item, end);
  }
  for (const bar of lane.open) {
    visited++;
    if (!bar.visible || bar.start > to) continue;
    const end = itemEnd(bar, now);
    if (end >= from) fn(bar, end);
  }
  return visited;
}

let columnBuffer = new Uint8Array(0);

export function layoutFrame(model: TimelineModel, view: Viewport, geom: Geometry, rows: LaneRow[], selected?: Item): Frame {
  model.ensureSorted();
  const rects = Object.fromEntries(STYLES.map((s) => [s, [] as number[]])) as Record<Style, number[]>;
  const frame: Frame = { geom, view, rows, rects, labels: [], ticks: [], stats: { visited: 0, individual: 0, aggregated: 0, rects: 0 } };
  const plotW = Math.floor(geom.width - geom.gutter);
  if (plotW <= 0) return frame;
  frame.ticks = ticks(view, plotW).map((t) => ({ ...t, x: t.x + geom.gutter }));
  const pxPerMs = plotW / span(view);
  const now = model.maxT ?? 0;
  if (columnBuffer.length < plotW + 2) columnBuffer = new Uint8Array(plotW + 2);
  const cols = columnBuffer;
  const left = geom.gutter;

  for (const row of rows) {
    const isBarLane = row.lane.kind === 'worker';
    const pad = isBarLane ? 3 : 4;
    const y = row.y + pad;
    const h = Math.max(2, row.h - 2 * pad);
    cols.fill(0, 0, plotW + 2);
    let usedCols = false;
    const isMark = row.lane.kind !== 'worker';
    frame.stats.visited += forEachInRange(row.lane, view.start, view.end, now, (item, end) => {
      const x0 = (item.start - view.start) * pxPerMs;
      const x1 = (end - view.start) * pxPerMs;
      if (x1 - x0 >= AGG_PX) {
        frame.stats.individual++;
        drawIndividual(frame, item, x0, x1, left, plotW, y, h, view, pxPerMs);
        return;
      }
      frame.stats.aggregated++;
      usedCols = true;
      const sev = item.sev;
      // x0 >= -AGG_PX here, so truncation is flooring; a mark covers at least two columns so a
      // lone event stays visible, a bar covers what it spans.
      const c0 = x0 > 0 ? x0 | 0 : 0;
      let c1 = x1 > 0 ? x1 | 0 : 0;
      if (isMark && c1 === c0) c1 = c0 + 1;
      if (c1 > plotW - 1) c1 = plotW - 1;
      for (let c = c0; c <= c1; c++) if (cols[c]! < sev) cols[c] = sev;
    });
    if (usedCols) flushColumns(rects, cols, plotW, left, y, h, isBarLane ? BAR_STYLE : MARK_STYLE);
  }

  if (selected) {
    const row = rows.find((r) => r.lane === selected.lane);
    const end = itemEnd(selected, now);
    if (row && end >= view.start && selected.start <= view.end) {
      let x0 = (selected.start - view.start) * pxPerMs;
      let x1 = (end - view.start) * pxPerMs;
      if (x1 - x0 < 4) {
        const mid = (x0 + x1) / 2;
        x0 = mid - 2;
        x1 = mid + 2;
      }
      x0 = Math.max(x0, -2);
      x1 = Math.min(x1, plotW + 2);
      frame.selection = { x: left + x0 - 1, y: row.y + 1, w: x1 - x0 + 2, h: row.h - 2 };
    }
  }
  for (const s of STYLES) frame.stats.rects += rects[s].length / 4;
  return frame;
}

function drawIndividual(
  frame: Frame,
  item: Item,
  x0: number,
  x1: number,
  left: number,
  plotW: number,
  y: number,
  h: number,
  view: Viewport,
  pxPerMs: number,
): void {
  // Clip to the plot (plus a pixel either side so edges do not show): huge coordinates are slow to draw.
  const cx0 = Math.max(x0, -1);
  const cx1 = Math.min(x1, plotW + 1);
  const w = cx1 - cx0;
  const sev = item.sev;
  if (item.type === 'mark') {
    frame.rects[MARK_STYLE[sev]!].push(left + cx0, y, w, h);
    if (item.event.kind === 'iteration' && item.event.inferred) frame.rects['mark-inferred'].push(left + cx0, y, w, h);
    return;
  }
  frame.rects[BAR_STYLE[sev]!].push(left + cx0, y, w, h);
  decorateBar(frame, item, x0, x1, left, plotW, y, h, view, pxPerMs);
  if (w >= LABEL_PX) {
    const text = item.namespace ? `${item.resource} ${item.namespace}` : item.resource;
    frame.labels.push({ x: left + cx0 + 4, y: y + h / 2, maxWidth: w - 8, text });
  }
}

/** Page boundaries as thin lines and retries as short markers, when the bar is wide enough to show them. */
function decorateBar(frame: Frame, bar: Bar, x0: number, x1: number, left: number, plotW: number, y: number, h: number, view: Viewport, pxPerMs: number): void {
  const w = x1 - x0;
  if (bar.pages.length > 1 && w >= 12 && bar.pages.length <= w / 4) {
    // the last page ends the task: its line would sit on the bar's end
    for (let i = 0; i < bar.pages.length - 1; i++) {
      const x = (bar.pages[i]!.t - view.start) * pxPerMs;
      if (x > x0 + 1 && x < x1 - 1 && x >= 0 && x <= plotW) frame.rects.page.push(left + x, y + 2, 1, h - 4);
    }
  }
  if (w >= 6) {
    for (const r of bar.retries) {
      const x = (r.t - view.start) * pxPerMs;
      if (x >= 0 && x <= plotW) frame.rects.retry.push(left + x - 1, y - 2, 3, Math.max(3, h / 2));
    }
  }
}

function flushColumns(
  rects: Record<Style, number[]>,
  cols: Uint8Array,
  plotW: number,
  left: number,
  y: number,
  h: number,
  styles: (Style | undefined)[],
): void {
  let c = 0;
  while (c < plotW) {
    const sev = cols[c]!;
    if (sev === 0) {
      c++;
      continue;
    }
    let e = c + 1;
    while (e < plotW && cols[e] === sev) e++;
    const style = styles[sev];
    if (style) rects[style].push(left + c, y, e - c, h);
    c = e;
  }
}

/**
 * The item under canvas point (x, y), within `tolPx` pixels horizontally; the nearest wins, and
 * among items that contain the point the shortest wins (a mark inside nothing else, a bar's own pixels).
 */
export function hitTest(model: TimelineModel, view: Viewport, geom: Geometry, rows: readonly LaneRow[], x: number, y: number, tolPx = 4): Item | undefined {
  if (x < geom.gutter) return undefined;
  const row = rows.find((r) => y >= r.y && y < r.y + r.h);
  if (!row) return undefined;
  model.ensureSorted();
  const plotW = geom.width - geom.gutter;
  const msPerPx = span(view) / plotW;
  const t = view.start + (x - geom.gutter) * msPerPx;
  const tol = tolPx * msPerPx;
  // Marks narrower than two pixels are drawn two pixels wide: the tolerance covers that.
  let best: Item | undefined;
  let bestD = Infinity;
  let bestLen = Infinity;
  forEachInRange(row.lane, t - tol, t + tol, model.maxT ?? 0, (item, end) => {
    const d = t < item.start ? item.start - t : t > end ? t - end : 0;
    const len = end - item.start;
    if (d < bestD || (d === bestD && len < bestLen)) {
      best = item;
      bestD = d;
      bestLen = len;
    }
  });
  return bestD <= tol ? best : undefined;
}
