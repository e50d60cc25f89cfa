/**
 * Keyboard navigation and the list of items in view (the accessible fallback of the canvas). Pure.
 *
 * Guarantees: navigation only ever lands on a visible (filtered-in) item of a shown lane; Left/Right
 * walk one lane in time order, Up/Down go to the nearest-in-time item of the next lane that has one.
 */
import { itemEnd, type Item, type TimelineModel } from './model';
import { forEachInRange, lowerBound, type LaneRow } from './layout';
import type { Viewport } from './viewport';

export type NavKey = 'left' | 'right' | 'up' | 'down' | 'home' | 'end';

/** Position of `item` in its lane's sorted items, or -1. */
export function indexInLane(item: Item): number {
  const items = item.lane.items;
  const i = lowerBound(items, item.start);
  for (let j = i; j < items.length && items[j]!.start === item.start; j++) if (items[j] === item) return j;
  return items.indexOf(item); // only if the lane is not sorted yet
}

function firstVisibleFrom(items: readonly Item[], from: number, dir: 1 | -1): Item | undefined {
  for (let i = from; i >= 0 && i < items.length; i += dir) if (items[i]!.visible) return items[i];
  return undefined;
}

/** The visible item of a lane nearest in time to t (by start). */
function nearestInLane(items: readonly Item[], t: number): Item | undefined {
  const i = lowerBound(items, t);
  const after = firstVisibleFrom(items, i, 1);
  const before = firstVisibleFrom(items, i - 1, -1);
  if (!after) return before;
  if (!before) return after;
  return after.start - t < t - before.start ? after : before;
}

/** Where a navigation key moves the selection; undefined when there is nothing to move to. */
export function navigate(model: TimelineModel, rows: readonly LaneRow[], current: Item | undefined, key: NavKey, view: Viewport): Item | undefined {
  model.ensureSorted();
  const shown = current && rows.some((r) => r.lane === current.lane) && current.visible ? current : undefined;
  if (!shown) {
    // Nothing selected: the first item in view, top lane first; else the first item at all.
    for (const row of rows) {
      const it = firstVisibleFrom(row.lane.items, lowerBound(row.lane.items, view.start), 1);
      if (it && it.start <= view.end) return it;
    }
    for (const row of rows) {
      const it = firstVisibleFrom(row.lane.items, 0, 1);
      if (it) return it;
    }
    return undefined;
  }
  const items = shown.lane.items;
  switch (key) {
    case 'left':
      return firstVisibleFrom(items, indexInLane(shown) - 1, -1) ?? shown;
    case 'right':
      return firstVisibleFrom(items, indexInLane(shown) + 1, 1) ?? shown;
    case 'home':
      return firstVisibleFrom(items, 0, 1) ?? shown;
    case 'end':
      return firstVisibleFrom(items, items.length - 1, -1) ?? shown;
    case 'up':
    case 'down': {
      const dir = key === 'down' ? 1 : -1;
      const at = rows.findIndex((r) => r.lane === shown.lane);
      for (let r = at + dir; r >= 0 && r < rows.length; r += dir) {
        const it = nearestInLane(rows[r]!.lane.items, shown.start);
        if (it) return it;
      }
      return shown;
    }
  }
}

export interface InView {
  /** Up to `limit` items, earliest first. */
  items: Item[];
  /** How many visible items overlap the view in all. */
  total: number;
}

/** The visible items that overlap the view, across shown lanes, earliest first, at most `limit`. */
export function itemsInView(model: TimelineModel, rows: readonly LaneRow[], view: Viewport, limit: number): InView {
  model.ensureSorted();
  const now = model.maxT ?? 0;
  let total = 0;
  let picked: Item[] = [];
  for (const row of rows) {
    const mine: Item[] = [];
    forEachInRange(row.lane, view.start, view.end, now, (item) => {
      total++;
      if (mine.length < limit) mine.push(item);
    });
    picked = picked.concat(mine);
  }
  picked.sort((a, b) => a.start - b.start || itemEnd(a, now) - itemEnd(b, now));
  return { items: picked.slice(0, limit), total };
}
