// Zoom, pan, fit and the time axis of the timeline webview.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  fitRange,
  followTo,
  formatTick,
  MAX_SPAN_MS,
  MIN_SPAN_MS,
  niceStep,
  panByPixels,
  reveal,
  sanitize,
  span,
  ticks,
  timeToX,
  xToTime,
  zoomAt,
} from '../../src/vscode/timeline/webview/viewport';

const close = (a: number, b: number, eps = 1e-6) => Math.abs(a - b) <= eps * Math.max(1, Math.abs(a), Math.abs(b));

describe('zoom', () => {
  it('keeps the anchor under the same pixel, for any view, factor and anchor (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        fc.double({ min: 0.01, max: 1e6, noNaN: true }),
        fc.double({ min: 0.05, max: 20, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (start, s, factor, frac) => {
          const v = { start, end: start + s };
          const width = 1200;
          const anchor = xToTime(v, width, frac * width);
          const z = zoomAt(v, factor, anchor);
          // Times near `start` are exact only to a few ulps of its magnitude; on a short view one ulp
          // is many pixels' millionths (seen: 3.5e-6 px at start 131072 ms, span 0.01 ms), so the
          // bound is 1e-6 px or a few ulps in pixels, whichever is larger.
          const ulpPx = (8 * Number.EPSILON * Math.max(1, Math.abs(start), Math.abs(z.start), Math.abs(z.end)) * width) / Math.min(span(v), span(z));
          const x = timeToX(z, width, anchor);
          assert.ok(
            Math.abs(x - frac * width) <= Math.max(1e-6 * Math.max(1, frac * width), ulpPx),
            `anchor pixel moved: ${x} vs ${frac * width} (± ${ulpPx})`,
          );
          // end - start is exact only up to the spacing of doubles near start (1 µs at 1.3e5 ms is
          // already 3e-8 relative), so the bound holds to a few ulps of the view's magnitude
          const slack = 4 * Number.EPSILON * Math.max(1, Math.abs(z.start), Math.abs(z.end));
          assert.ok(span(z) >= MIN_SPAN_MS - slack && span(z) <= MAX_SPAN_MS + slack, `span ${span(z)} outside [${MIN_SPAN_MS}, ${MAX_SPAN_MS}] ± ${slack}`);
        },
      ),
    );
  });

  it('zooming in then out by the same factor returns the same view', () => {
    const v = { start: 100, end: 1100 };
    const back = zoomAt(zoomAt(v, 4, 350), 1 / 4, 350);
    assert.ok(close(back.start, 100) && close(back.end, 1100), 'close(back.start, 100) && close(back.end, 1100)');
  });

  it('stops at 1 µs and at the maximum span', () => {
    assert.ok(close(span(zoomAt({ start: 0, end: 1 }, 1e9, 0.5)), MIN_SPAN_MS), 'close(span(zoomAt({ start: 0, end: 1 }, 1e9, 0.5)), MIN_SPAN_MS)');
    assert.ok(close(span(zoomAt({ start: 0, end: 1e8 }, 1e-9, 0)), MAX_SPAN_MS), 'close(span(zoomAt({ start: 0, end: 1e8 }, 1e-9, 0)), MAX_SPAN_MS)');
  });
});

describe('pan, fit, follow, reveal', () => {
  it('dragging right by the plot width shows the previous span', () => {
    assert.deepEqual(panByPixels({ start: 1000, end: 2000 }, 500, 500), { start: 0, end: 1000 });
  });

  it('fit shows every event with a margin, and a single instant as 10 ms', () => {
    const f = fitRange(100, 1100);
    assert.ok(f.start < 100 && f.end > 1100 && span(f) < 1100, 'f.start < 100 && f.end > 1100 && span(f) < 1100');
    assert.equal(span(fitRange(5, 5)), 10);
    assert.deepEqual(fitRange(undefined, undefined), { start: 0, end: 1000 });
  });

  it('follow moves the view only when an event passed its end, keeping the span', () => {
    const v = { start: 0, end: 100 };
    assert.equal(followTo(v, 50), v);
    const f = followTo(v, 200);
    assert.equal(span(f), 100);
    assert.ok(f.end > 200 && f.start < 200, 'f.end > 200 && f.start < 200');
  });

  it('reveal centres an item outside the view and leaves a visible one alone', () => {
    const v = { start: 0, end: 100 };
    assert.equal(reveal(v, 10, 20), v);
    assert.deepEqual(reveal(v, 490, 510), { start: 450, end: 550 });
  });

  it('sanitize turns any restored value into a usable view', () => {
    assert.deepEqual(sanitize(undefined), { start: 0, end: 1000 });
    assert.deepEqual(sanitize({ start: 5, end: 1 }), { start: 0, end: 1000 });
    assert.deepEqual(sanitize({ start: Number.NaN, end: 1 }), { start: 0, end: 1000 });
    assert.deepEqual(sanitize({ start: 10, end: 20 }), { start: 10, end: 20 });
  });
});

describe('time axis', () => {
  it('uses 1/2/5 x 10^k steps', () => {
    assert.deepEqual([0.7, 1, 1.5, 3, 7, 12, 450].map(niceStep), [1, 1, 2, 5, 10, 20, 500]);
  });

  it('puts ticks at least minPx apart, on multiples of the step, inside the view (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e5, max: 1e7, noNaN: true }),
        fc.double({ min: 0.01, max: 1e7, noNaN: true }),
        fc.integer({ min: 200, max: 4000 }),
        (start, s, width) => {
          const v = { start, end: start + s };
          const ts = ticks(v, width, 80);
          assert.ok(ts.length >= 1 && ts.length <= width / 80 + 2, 'ts.length >= 1 && ts.length <= width / 80 + 2');
          // A thousandth of a pixel of slack: at 2e6 ms one double step is ~5e-10 ms, which a 0.01 ms
          // span over 4000 px turns into ~2e-4 px; nothing a screen can show.
          for (let i = 1; i < ts.length; i++)
            assert.ok(ts[i]!.x - ts[i - 1]!.x >= 80 - 1e-3, `ticks ${i - 1} and ${i} are ${ts[i]!.x - ts[i - 1]!.x} px apart`);
          for (const t of ts) assert.ok(t.t >= start - 1e-9 && t.t <= start + s + 1e-6, 't.t >= start - 1e-9 && t.t <= start + s + 1e-6');
        },
      ),
    );
  });

  it('labels in seconds from 100 ms steps, in ms below, with just enough decimals', () => {
    assert.equal(formatTick(2000, 1000), '2 s');
    assert.equal(formatTick(1500, 500), '1.5 s');
    assert.equal(formatTick(1200, 200), '1.2 s');
    assert.equal(formatTick(50, 10), '50 ms');
    assert.equal(formatTick(12.5, 0.5), '12.5 ms');
    assert.equal(formatTick(0.02, 0.01), '0.02 ms');
    assert.equal(formatTick(-1e-12, 1), '0 ms');
  });
});
