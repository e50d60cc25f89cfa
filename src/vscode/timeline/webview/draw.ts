/**
 * Draws a Frame on a 2D canvas context. All decisions (what, where, which colour class) were made by
 * the layout; this only issues the calls, batched by fill colour. It takes the narrow Canvas2D
 * interface below, so node can run it against a counting context and time a whole frame.
 * Canvas text is drawn as text (fillText): nothing here is parsed as HTML.
 */
import { STYLES, type Frame } from './layout';
import type { Palette } from './theme';

export type Canvas2D = Pick<
  CanvasRenderingContext2D,
  | 'fillStyle'
  | 'strokeStyle'
  | 'lineWidth'
  | 'font'
  | 'textBaseline'
  | 'textAlign'
  | 'setTransform'
  | 'fillRect'
  | 'strokeRect'
  | 'fillText'
  | 'save'
  | 'restore'
  | 'beginPath'
  | 'rect'
  | 'clip'
>;

/** Cuts `text` to about `maxWidth` pixels by an average character width (measureText per label is slow). */
export function fitText(text: string, maxWidth: number, charWidth: number): string {
  const n = Math.floor(maxWidth / charWidth);
  if (n >= text.length) return text;
  return n <= 1 ? '' : `${text.slice(0, n - 1)}…`;
}

export function drawFrame(ctx: Canvas2D, frame: Frame, palette: Palette, dpr: number, emptyText?: string): void {
  const { geom, rows } = frame;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = palette.background;
  ctx.fillRect(0, 0, geom.width, geom.height);

  // lanes: alternate stripes, and a line where the loader's lanes end and the sync loop's begin
  ctx.fillStyle = palette.laneAlt;
  rows.forEach((row, i) => {
    if (i % 2 === 1) ctx.fillRect(geom.gutter, row.y, geom.width - geom.gutter, row.h);
  });
  ctx.fillStyle = palette.gutter;
  ctx.fillRect(0, 0, geom.gutter, geom.height);

  // axis: tick lines through every lane, labels above them
  const lanesBottom = rows.length ? rows[rows.length - 1]!.y + rows[rows.length - 1]!.h : geom.axisHeight;
  ctx.fillStyle = palette.grid;
  for (const t of frame.ticks) ctx.fillRect(Math.round(t.x), geom.axisHeight - 4, 1, lanesBottom - geom.axisHeight + 4);
  ctx.font = palette.font;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  ctx.fillStyle = palette.muted;
  const charWidth = palette.fontSize * 0.6;
  for (const t of frame.ticks) {
    // a label that would run off the right edge is left out rather than cut
    if (t.x + 3 + t.label.length * charWidth <= geom.width) ctx.fillText(t.label, Math.round(t.x) + 3, geom.axisHeight / 2);
  }

  ctx.fillStyle = palette.separator;
  ctx.fillRect(0, geom.axisHeight - 1, geom.width, 1);
  ctx.fillRect(geom.gutter - 1, 0, 1, geom.height);
  for (let i = 1; i < rows.length; i++) {
    if (rows[i]!.lane.kind !== rows[i - 1]!.lane.kind) ctx.fillRect(0, rows[i]!.y, geom.width, 1);
  }

  // shapes, clipped to the plot so nothing runs into the gutter
  ctx.save();
  ctx.beginPath();
  ctx.rect(geom.gutter, geom.axisHeight, geom.width - geom.gutter, geom.height - geom.axisHeight);
  ctx.clip();
  for (const style of STYLES) {
    const r = frame.rects[style];
    if (r.length === 0) continue;
    if (style === 'mark-inferred') {
      // Inferred marks keep their outcome's fill and get an outline of their own.
      ctx.strokeStyle = palette.styles[style];
      ctx.lineWidth = 2;
      for (let i = 0; i < r.length; i += 4) ctx.strokeRect(r[i]! - 1, r[i + 1]! + 1, r[i + 2]! + 2, r[i + 3]! - 2);
      continue;
    }
    ctx.fillStyle = palette.styles[style];
    for (let i = 0; i < r.length; i += 4) ctx.fillRect(r[i]!, r[i + 1]!, r[i + 2]!, r[i + 3]!);
    if (palette.contrastBorder && !style.startsWith('page')) {
      ctx.strokeStyle = palette.contrastBorder;
      ctx.lineWidth = 1;
      for (let i = 0; i < r.length; i += 4) if (r[i + 2]! >= 3) ctx.strokeRect(r[i]! + 0.5, r[i + 1]! + 0.5, r[i + 2]! - 1, r[i + 3]! - 1);
    }
  }
  if (frame.labels.length) {
    ctx.fillStyle = palette.barText;
    for (const l of frame.labels) {
      const text = fitText(l.text, l.maxWidth, charWidth);
      if (text) ctx.fillText(text, l.x, l.y);
    }
  }
  if (frame.selection) {
    const s = frame.selection;
    ctx.strokeStyle = palette.selection;
    ctx.lineWidth = 2;
    ctx.strokeRect(s.x, s.y, s.w, s.h);
  }
  ctx.restore();

  if (emptyText) {
    ctx.fillStyle = palette.muted;
    ctx.textAlign = 'center';
    ctx.fillText(emptyText, geom.gutter + (geom.width - geom.gutter) / 2, geom.axisHeight + (lanesBottom - geom.axisHeight) / 2, geom.width - geom.gutter - 20);
    ctx.textAlign = 'left';
  }
}
