/**
 * The visible time range and the arithmetic of zoom, pan, fit and the time axis. Pure functions of
 * plain values, so every rule here is checked in node.
 *
 * Guarantees:
 * - Zooming anchored at a time keeps that time under the same pixel (the pointer does not drift).
 * - Every viewport returned has a finite start and a span within [MIN_SPAN_MS, MAX_SPAN_MS].
 * - Axis ticks are "nice" (1, 2 or 5 x 10^k ms) and at least `minPx` apart.
 */

/** A time range in milliseconds on the timeline's clock (relative to the store's origin). */
export interface Viewport {
  start: number;
  end: number;
}

/** 1 microsecond: below that the events' own resolution (they are rounded to µs) is meaningless. */
export const MIN_SPAN_MS = 0.001;
/** About 11.5 days: a loop left running for a week still fits, and the numbers stay well-behaved. */
export const MAX_SPAN_MS = 1e9;
/** The view before any event exists: the first second. */
export const EMPTY_VIEW: Viewport = { start: 0, end: 1000 };

export function span(v: Viewport): number {
  return v.end - v.start;
}

function clampSpan(s: number): number {
  if (!Number.isFinite(s)) return MAX_SPAN_MS;
  return Math.min(MAX_SPAN_MS, Math.max(MIN_SPAN_MS, s));
}

/** A viewport whose numbers are usable, whatever it was given (e.g. state restored from an old version). */
export function sanitize(v: Partial<Viewport> | undefined): Viewport {
  const start = Number(v?.start);
  const end = Number(v?.end);
  if (!Number.isFinite(start) || !Number.isFinite(end) || end <= start) return { ...EMPTY_VIEW };
  const s = clampSpan(end - start);
  return { start, end: start + s };
}

export function timeToX(v: Viewport, width: number, t: number): number {
  return ((t - v.start) * width) / span(v);
}

export function xToTime(v: Viewport, width: number, x: number): number {
  return v.start + (x * span(v)) / width;
}

/**
 * Zooms by `factor` (> 1 zooms in) keeping time `anchor` at the same fraction of the width.
 * When the span hits its limits the anchor still stays put.
 */
export function zoomAt(v: Viewport, factor: number, anchor: number): Viewport {
  const old = span(v);
  const next = clampSpan(old / factor);
  const frac = old > 0 ? (anchor - v.start) / old : 0.5;
  const start = anchor - frac * next;
  return { start, end: start + next };
}

/** Shifts the view by `dt` milliseconds (positive: later). */
export function panBy(v: Viewport, dt: number): Viewport {
  if (!Number.isFinite(dt)) return v;
  return { start: v.start + dt, end: v.end + dt };
}

/** Shifts the view by `dx` pixels of a `width`-pixel plot (dragging right shows earlier times). */
export function panByPixels(v: Viewport, width: number, dx: number): Viewport {
  return panBy(v, (-dx * span(v)) / width);
}

/** The view that shows [min, max] with a small margin on both sides. */
export function fitRange(min: number | undefined, max: number | undefined, margin = 0.02): Viewport {
  if (min === undefined || max === undefined || !Number.isFinite(min) || !Number.isFinite(max)) return { ...EMPTY_VIEW };
  const raw = Math.max(max - min, 0);
  const s = clampSpan(raw === 0 ? 10 : raw * (1 + 2 * margin));
  const mid = (min + max) / 2;
  return { start: mid - s / 2, end: mid + s / 2 };
}

/** Keeps the span, moving the view so `t` is visible with `margin` of the span after it (follow mode). */
export function followTo(v: Viewport, t: number, margin = 0.05): Viewport {
  const s = span(v);
  const end = t + s * margin;
  return end > v.end ? { start: end - s, end } : v;
}

/** Moves the view (keeping its span) so [a, b] is inside it, if it is not already; centres it otherwise. */
export function reveal(v: Viewport, a: number, b: number): Viewport {
  const s = span(v);
  if (a >= v.start && b <= v.end) return v;
  const mid = (a + b) / 2;
  return { start: mid - s / 2, end: mid + s / 2 };
}

export interface Tick {
  /** Pixel offset in the plot. */
  x: number;
  t: number;
  label: string;
}

/** 1, 2 or 5 times a power of ten: the smallest such step that is at least `raw`. */
export function niceStep(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

/** Formats a time for an axis whose ticks are `step` ms apart: seconds from 100 ms steps up, else ms. */
export function formatTick(t: number, step: number): string {
  const v = Math.abs(t) < step * 1e-6 ? 0 : t; // no "-0.000"
  if (step >= 100) {
    const decimals = Math.max(0, Math.ceil(-Math.log10(step / 1000) - 1e-9));
    return `${(v / 1000).toFixed(decimals)} s`;
  }
  const decimals = Math.max(0, Math.ceil(-Math.log10(step) - 1e-9));
  return `${v.toFixed(decimals)} ms`;
}

/** Axis ticks for a plot `width` pixels wide, at least `minPx` apart. */
export function ticks(v: Viewport, width: number, minPx = 90): Tick[] {
  if (width <= 0) return [];
  const step = niceStep((span(v) * minPx) / width);
  const out: Tick[] = [];
  const first = Math.ceil(v.start / step);
  for (let i = first; ; i++) {
    const t = i * step;
    if (t > v.end) break;
    out.push({ x: timeToX(v, width, t), t, label: formatTick(t, step) });
    if (out.length > 1000) break; // cannot happen with minPx > 0; a guard against a bad width
  }
  return out;
}
