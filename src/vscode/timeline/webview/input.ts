/**
 * User input of the timeline: pointer (drag to pan, click to select, double-click to zoom, hover
 * tip), wheel (zoom anchored at the pointer; shift+wheel or a sideways swipe pans), keyboard on the
 * canvas and in the list, and the toolbar. Translates input into TimelineView calls; no state here.
 */
import { itemLabel } from './format';
import { panBy, panByPixels, xToTime } from './viewport';
import type { NavKey } from './nav';
import type { TimelineView } from './view';

/** Zoom per wheel pixel: one notch (about 100 px) zooms by about 1.16x. */
const WHEEL_ZOOM = 0.0015;
const BUTTON_ZOOM = 1.5;
const DRAG_SLOP_PX = 3;

const NAV_KEYS: Record<string, NavKey> = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down', Home: 'home', End: 'end' };

export function bindInput(v: TimelineView): void {
  const at = pointerGeometry(v);
  bindWheel(v, at);
  bindPointer(v, at);
  bindCanvasKeys(v);
  bindList(v);
  bindToolbar(v);
  v.dom.previousLogs.addEventListener('click', () => v.previousLogs());
  v.dom.plot.addEventListener('scroll', () => v.saveSoon(), { passive: true });
}

interface PointerGeometry {
  /** The event's point on the canvas. */
  local(e: { clientX: number; clientY: number }): { x: number; y: number };
  /** The time under a canvas x (right of the gutter). */
  timeAt(x: number): number;
}

function pointerGeometry(v: TimelineView): PointerGeometry {
  return {
    local: (e) => {
      const r = v.dom.canvas.getBoundingClientRect();
      return { x: e.clientX - r.left, y: e.clientY - r.top };
    },
    timeAt: (x) => xToTime(v.view(), v.plotWidth(), x - v.geom.gutter),
  };
}

/** Wheel: zoom anchored at the pointer; shift+wheel or a sideways swipe pans. */
function bindWheel(v: TimelineView, at: PointerGeometry): void {
  const { canvas, tip } = v.dom;
  canvas.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      tip.hidden = true;
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? canvas.clientHeight : 1;
      const dx = e.deltaX * unit;
      const dy = e.deltaY * unit;
      const { x } = at.local(e);
      if (e.shiftKey || (!e.ctrlKey && Math.abs(dx) > Math.abs(dy))) {
        const d = e.shiftKey ? dx || dy : dx;
        v.setView(panBy(v.view(), (d * v.spanMs()) / v.plotWidth()));
        return;
      }
      const anchor = x > v.geom.gutter ? at.timeAt(x) : undefined;
      v.zoom(Math.exp(-dy * WHEEL_ZOOM), anchor);
    },
    { passive: false },
  );
}

/** Pointer: drag to pan, click to select, double-click to zoom, hover tip. */
function bindPointer(v: TimelineView, at: PointerGeometry): void {
  const { canvas, tip } = v.dom;
  let drag: { x: number; view: ReturnType<TimelineView['view']>; moved: boolean; id: number } | undefined;
  canvas.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    canvas.focus();
    const { x } = at.local(e);
    if (x < v.geom.gutter) return;
    drag = { x: e.clientX, view: v.view(), moved: false, id: e.pointerId };
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener('pointermove', (e) => {
    const p = at.local(e);
    if (drag && drag.id === e.pointerId) {
      const dx = e.clientX - drag.x;
      if (!drag.moved && Math.abs(dx) < DRAG_SLOP_PX) return;
      drag.moved = true;
      tip.hidden = true;
      canvas.classList.add('dragging');
      v.setView(panByPixels(drag.view, v.plotWidth(), dx));
      return;
    }
    showTip(v, p);
  });
  const endDrag = (e: PointerEvent, cancelled: boolean) => {
    if (!drag || drag.id !== e.pointerId) return;
    const click = !drag.moved && !cancelled;
    drag = undefined;
    canvas.classList.remove('dragging');
    if (!click) return;
    const p = at.local(e);
    v.select(v.hit(p.x, p.y));
  };
  canvas.addEventListener('pointerup', (e) => endDrag(e, false));
  canvas.addEventListener('pointercancel', (e) => endDrag(e, true));
  canvas.addEventListener('pointerleave', () => (tip.hidden = true));
  canvas.addEventListener('dblclick', (e) => {
    const { x } = at.local(e);
    if (x > v.geom.gutter) v.zoom(2, at.timeAt(x));
  });
}

/** The hover tip of the item under `p`, kept inside the canvas; hidden over nothing. */
function showTip(v: TimelineView, p: { x: number; y: number }): void {
  const { tip } = v.dom;
  const item = v.hit(p.x, p.y);
  if (!item) {
    tip.hidden = true;
    return;
  }
  tip.textContent = itemLabel(item);
  tip.hidden = false;
  const maxLeft = v.geom.width - tip.offsetWidth - 4;
  tip.style.left = `${Math.max(4, Math.min(p.x + 12, maxLeft))}px`;
  tip.style.top = `${p.y + 16}px`;
}

/** Keyboard on the canvas: arrows move between items, Enter selects, +/-/0 zoom, F follows, Escape clears. */
function bindCanvasKeys(v: TimelineView): void {
  v.dom.canvas.addEventListener('keydown', (e) => {
    if (e.altKey || e.metaKey || (e.ctrlKey && e.key !== '0')) return;
    const nav = NAV_KEYS[e.key];
    if (nav) v.navigate(nav);
    else if (e.key === 'Enter' || e.key === ' ') {
      if (v.selection) v.select(v.selection, { announce: true, reveal: true });
      else v.navigate('right');
    } else if (e.key === '+' || e.key === '=') v.zoom(BUTTON_ZOOM);
    else if (e.key === '-' || e.key === '_') v.zoom(1 / BUTTON_ZOOM);
    else if (e.key === '0') v.fitAll();
    else if (e.key === 'f' || e.key === 'F') v.setFollow(!v.st.follow);
    else if (e.key === 'Escape') v.select(undefined);
    else return;
    e.preventDefault();
  });
}

/** The event list: a click selects its item; arrows, Home and End move the selection. */
function bindList(v: TimelineView): void {
  const { list } = v.dom;
  list.addEventListener('click', (e) => {
    const id = (e.target as HTMLElement).closest('li')?.dataset.id;
    const item = id === undefined ? undefined : v.model.byId(Number(id));
    if (item) v.select(item, { reveal: true });
  });
  list.addEventListener('keydown', (e) => {
    const options = Array.from(list.querySelectorAll<HTMLLIElement>('li[role="option"]'));
    if (options.length === 0) return;
    const at = options.findIndex((li) => li.getAttribute('aria-selected') === 'true');
    let next = at;
    if (e.key === 'ArrowDown') next = Math.min(options.length - 1, at + 1);
    else if (e.key === 'ArrowUp') next = Math.max(0, at - 1);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = options.length - 1;
    else if (e.key !== 'Enter') return;
    e.preventDefault();
    const item = v.model.byId(Number(options[Math.max(0, next)]!.dataset.id));
    if (item) v.select(item, { announce: true });
    options[Math.max(0, next)]!.scrollIntoView({ block: 'nearest' });
  });
}

/** The toolbar: zoom, fit, follow, the list, the source toggles and the filters. */
function bindToolbar(v: TimelineView): void {
  const { dom } = v;
  dom.zoomIn.addEventListener('click', () => v.zoom(BUTTON_ZOOM));
  dom.zoomOut.addEventListener('click', () => v.zoom(1 / BUTTON_ZOOM));
  dom.fit.addEventListener('click', () => v.fitAll());
  dom.follow.addEventListener('click', () => v.setFollow(!v.st.follow));
  dom.listToggle.addEventListener('click', () => v.setListOpen(!v.st.listOpen));
  for (const [source, b] of dom.sourceButtons) b.addEventListener('click', () => v.toggleSource(source));
  dom.kindSelect.addEventListener('change', () => v.setFilter({ ...v.st.filter, kind: dom.kindSelect.value }));
  dom.clusterSelect.addEventListener('change', () => v.setFilter({ ...v.st.filter, cluster: dom.clusterSelect.value }));
  // Typing fast re-filters at most once per frame (a pass over 100k items is a few ms each).
  let nameFrame: number | undefined;
  dom.nameInput.addEventListener('input', () => {
    nameFrame ??= requestAnimationFrame(() => {
      nameFrame = undefined;
      v.setFilter({ ...v.st.filter, name: dom.nameInput.value });
    });
  });
}
