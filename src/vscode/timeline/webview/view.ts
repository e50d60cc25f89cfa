/**
 * TimelineView: the webview's controller. It owns the model, the view state and the DOM, turns host
 * messages and user input into state changes, and draws at most once per animation frame.
 *
 * Guarantees:
 * - Redraws are batched: any number of messages and input events between two animation frames cost
 *   one layout and one draw (`schedule`).
 * - The view stays where the user put it while events arrive, unless Follow is on. Before the user
 *   has moved it (or after Fit) it fits everything, live.
 * - Everything the user set (zoom, pan, filters, selection, list, scroll) is saved with setState and
 *   restored from getState, so hiding and showing the panel, or reloading the window, loses nothing.
 * - Cluster data reaches the DOM through textContent only (see dom.ts and format.ts).
 */
import type { HostToWebviewMessage, TimelineItem, TimelineViewState, WebviewToHostMessage } from '../../../shared/protocol';
import { restartLogsTarget } from '../../../shared/restartMark';
import { buildDom, el, showDetails, syncOptions, type Dom } from './dom';
import { drawFrame } from './draw';
import { isEmptyFilter, kindsOf, makePredicate } from './filter';
import { describeItem, itemLabel } from './format';
import { bindInput } from './input';
import { hitTest, laneRows, layoutFrame, type Geometry, type LaneRow } from './layout';
import { laneSource, TimelineModel, type Item, type Lane, type SourceName } from './model';
import { itemsInView, navigate, type NavKey } from './nav';
import { restoreState, saveableState, type RestoredState } from './state';
import { readPalette, themeClassOf, type Palette } from './theme';
import { fitRange, followTo, reveal, sanitize, span, zoomAt, type Viewport } from './viewport';
import { writerLaneTitle } from './writersLane';

export interface HostPort {
  postMessage(msg: WebviewToHostMessage): void;
  getState(): unknown;
  setState(state: TimelineViewState): void;
}

const AXIS_HEIGHT = 22;
const GUTTER = 110;
const LIST_LIMIT = 200;

export class TimelineView {
  readonly model = new TimelineModel();
  readonly dom: Dom;
  st: RestoredState;
  private palette!: Palette;
  private selected: Item | undefined;
  rows: LaneRow[] = [];
  geom: Geometry = { width: 0, height: 0, gutter: GUTTER, axisHeight: AXIS_HEIGHT, laneHeight: 24 };
  private dpr = 1;
  private snapshotDone = false;
  private expected = 0;
  private framePending = false;
  private listTimer: ReturnType<typeof setTimeout> | undefined;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private laneSig = '';
  private detailsVersion = -1;
  private kindCount = -1;
  private clusterCount = -1;
  private ingestMs = 0;

  constructor(
    private readonly port: HostPort,
    parent: HTMLElement,
  ) {
    this.st = restoreState(port.getState());
    this.dom = buildDom(parent);
    this.readTheme();
    this.model.applyFilter(makePredicate(this.st.filter));
    this.syncControls();
    bindInput(this);
    new ResizeObserver(() => this.schedule()).observe(this.dom.plot);
    // a window zoom or a move to another screen changes devicePixelRatio; the next frame re-reads it
    window.addEventListener('resize', () => this.schedule());
    // VS Code changes the body's class and the document's --vscode-* variables on a theme change.
    const themeWatch = new MutationObserver(() => this.readTheme());
    themeWatch.observe(document.body, { attributes: true, attributeFilter: ['class'] });
    themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
    window.addEventListener('message', (ev: MessageEvent<HostToWebviewMessage>) => this.onMessage(ev.data));
    // A hidden webview may be torn down before a throttled save fires: write a pending one now.
    const flush = (): void => {
      if (this.saveTimer) this.save();
    };
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') flush();
    });
    window.addEventListener('pagehide', flush);
    port.postMessage({ type: 'ready' });
  }

  // ---- host messages -------------------------------------------------------------------------

  onMessage(msg: HostToWebviewMessage): void {
    const t0 = performance.now();
    switch (msg?.type) {
      case 'init':
        this.model.reset();
        this.model.applyFilter(makePredicate(this.st.filter));
        this.model.dropped = msg.dropped;
        this.expected = msg.total ?? msg.events.length;
        this.snapshotDone = false;
        this.selected = undefined;
        this.ingest(msg.events);
        if (this.expected <= msg.events.length) this.finishSnapshot();
        this.readTheme();
        break;
      case 'chunk':
        this.ingest(msg.events);
        if (msg.done) this.finishSnapshot();
        break;
      case 'append':
        this.ingest(msg.events);
        if (msg.dropped !== undefined && msg.dropped > this.model.dropped) {
          this.model.dropped = msg.dropped;
          this.model.prune(msg.dropped);
          if (this.selected && this.model.byId(this.selected.id) !== this.selected) this.select(undefined);
        }
        break;
      case 'reset':
        this.model.reset();
        this.expected = 0;
        this.snapshotDone = true;
        this.model.applyFilter(makePredicate(this.st.filter));
        this.select(undefined);
        this.st.view = undefined; // a new history: fit it
        this.save();
        break;
      case 'theme':
        this.readTheme();
        break;
      case 'banner':
        if (typeof msg.text === 'string') {
          this.dom.banner.textContent = msg.text;
          this.dom.banner.hidden = false;
        }
        break;
      case 'reveal':
        if (typeof msg.key === 'string') {
          this.setFilter({ hiddenSources: [], kind: '', name: msg.key });
          this.fitAll();
        }
        break;
    }
    if (msg?.type === 'init') this.ingestMs = 0;
    if (msg?.type === 'init' || msg?.type === 'chunk') {
      // diagnostics for tests and bug reports: time spent taking in the snapshot
      this.ingestMs += performance.now() - t0;
      this.dom.root.dataset.ingestMs = this.ingestMs.toFixed(1);
    }
    this.schedule();
  }

  private ingest(events: TimelineItem[]): void {
    if (events.length === 0) return;
    this.model.add(events);
    if (this.st.follow && this.st.view && this.model.maxT !== undefined) this.st.view = followTo(this.st.view, this.model.maxT);
  }

  private finishSnapshot(): void {
    this.snapshotDone = true;
    const id = this.st.selectedEventId;
    if (id !== undefined) {
      const item = this.model.byId(id);
      if (item) this.select(item, { notify: false });
      else this.st.selectedEventId = undefined;
    }
    this.dom.plot.scrollTop = this.st.scrollTop;
    this.dom.root.dataset.ready = 'true';
  }

  // ---- view state ----------------------------------------------------------------------------

  /** The time range drawn now (the fit of everything while the user has not moved the view). */
  view(): Viewport {
    return this.st.view ?? fitRange(this.model.minT, this.model.maxT);
  }

  plotWidth(): number {
    return Math.max(1, this.geom.width - this.geom.gutter);
  }

  /** A user moved the view: it stays there (follow ends) until Fit or Follow. */
  setView(v: Viewport): void {
    this.dom.tip.hidden = true; // it described what was under the pointer before the move
    this.st.view = sanitize(v);
    this.setFollow(false);
    this.schedule();
    this.saveSoon();
  }

  zoom(factor: number, anchor?: number): void {
    const v = this.view();
    this.setView(zoomAt(v, factor, anchor ?? (this.selected && this.inView(this.selected) ? this.selected.start : (v.start + v.end) / 2)));
  }

  fitAll(): void {
    this.dom.tip.hidden = true;
    this.st.view = undefined;
    this.setFollow(false);
    this.schedule();
    this.save();
  }

  setFollow(on: boolean): void {
    if (on && this.model.maxT !== undefined) this.st.view = followTo(this.view(), this.model.maxT);
    this.st.follow = on;
    this.dom.follow.setAttribute('aria-pressed', String(on));
    this.schedule();
    this.saveSoon();
  }

  toggleSource(source: SourceName): void {
    const hidden = new Set(this.st.filter.hiddenSources);
    if (hidden.has(source)) hidden.delete(source);
    else hidden.add(source);
    this.setFilter({ ...this.st.filter, hiddenSources: [...hidden] });
  }

  setFilter(filter: RestoredState['filter']): void {
    this.st.filter = filter;
    this.model.applyFilter(makePredicate(filter));
    if (this.selected && (!this.selected.visible || !this.showLane(this.selected.lane))) this.select(undefined);
    this.syncControls();
    this.schedule();
    this.save();
  }

  setListOpen(open: boolean): void {
    this.st.listOpen = open;
    this.syncControls();
    this.updateList();
    this.schedule();
    this.save();
  }

  showLane(lane: Lane): boolean {
    const f = this.st.filter;
    if (f.cluster && lane.kind === 'worker' && lane.context !== f.cluster) return false; // another cluster's loader lanes
    return !f.hiddenSources.includes(laneSource(lane));
  }

  private syncControls(): void {
    const f = this.st.filter;
    for (const [s, b] of this.dom.sourceButtons) b.setAttribute('aria-pressed', String(!f.hiddenSources.includes(s)));
    if (this.dom.nameInput.value !== f.name) this.dom.nameInput.value = f.name;
    syncOptions(this.dom.kindSelect, kindsOf(this.model), f.kind);
    this.syncClusters();
    this.dom.follow.setAttribute('aria-pressed', String(this.st.follow));
    this.dom.listToggle.setAttribute('aria-pressed', String(this.st.listOpen));
    this.dom.listSection.className = this.st.listOpen ? 'open' : 'sr-only';
    this.dom.list.tabIndex = this.st.listOpen ? 0 : -1;
  }

  // ---- selection -----------------------------------------------------------------------------

  get selection(): Item | undefined {
    return this.selected;
  }

  inView(item: Item): boolean {
    const v = this.view();
    return item.start <= v.end && (item.type === 'mark' ? item.end : (item.end ?? this.model.maxT ?? item.start)) >= v.start;
  }

  select(item: Item | undefined, opts: { notify?: boolean; announce?: boolean; reveal?: boolean } = {}): void {
    this.selected = item;
    this.st.selectedEventId = item?.id;
    this.detailsVersion = -1;
    this.dom.previousLogs.hidden = !(item?.type === 'mark' && restartLogsTarget(item.event));
    if (!item) {
      showDetails(this.dom, 'Select an event to see its details.', []);
    } else {
      if (opts.reveal && !this.inView(item)) {
        this.st.view = reveal(this.view(), item.start, item.type === 'mark' ? item.end : (item.end ?? item.start));
        this.setFollow(false);
      }
      if (opts.notify !== false) this.port.postMessage({ type: 'select', eventId: item.id });
      if (opts.announce) this.dom.announce.textContent = itemLabel(item);
    }
    this.markListSelection();
    this.schedule();
    this.save();
  }

  /** Asks the host for the selected restart mark's previous container logs (it resolves the id itself). */
  previousLogs(): void {
    const item = this.selected;
    if (item?.type === 'mark' && restartLogsTarget(item.event)) this.port.postMessage({ type: 'previousLogs', eventId: item.id });
  }

  navigate(key: NavKey): void {
    const next = navigate(this.model, this.rows, this.selected, key, this.view());
    if (next && next !== this.selected) this.select(next, { announce: true, reveal: true });
  }

  hit(x: number, y: number): Item | undefined {
    return hitTest(this.model, this.view(), this.geom, this.rows, x, y);
  }

  // ---- drawing -------------------------------------------------------------------------------

  schedule(): void {
    if (this.framePending) return;
    this.framePending = true;
    requestAnimationFrame(() => {
      this.framePending = false;
      this.render();
    });
  }

  private readTheme(): void {
    const style = getComputedStyle(document.body);
    this.palette = readPalette((name) => style.getPropertyValue(name).trim(), themeClassOf(document.body.className));
    this.schedule();
  }

  private render(): void {
    const t0 = performance.now();
    this.resize();
    const view = this.view();
    const frame = layoutFrame(this.model, view, this.geom, this.rows, this.selected);
    const ctx = this.dom.canvas.getContext('2d');
    const empty =
      this.model.size === 0
        ? this.snapshotDone
          ? 'No events yet: load cluster resources or start the sync loop. (Controller lanes show for the KubeLoop demo cluster only.)'
          : 'Loading…'
        : undefined;
    if (ctx) drawFrame(ctx, frame, this.palette, this.dpr, empty);
    this.updateLanes();
    this.updateStatus();
    if (this.selected && this.detailsVersion !== this.model.version) {
      const d = describeItem(this.selected, this.model.maxT ?? 0);
      showDetails(this.dom, d.title, d.rows);
      this.detailsVersion = this.model.version;
    }
    if (this.clusterCount !== this.model.contexts.length) this.syncClusters();
    if (this.kindCount !== this.model.kinds.size) {
      this.kindCount = this.model.kinds.size;
      syncOptions(this.dom.kindSelect, kindsOf(this.model), this.st.filter.kind);
    }
    this.listSoon();
    const ds = this.dom.root.dataset;
    ds.frameMs = (performance.now() - t0).toFixed(2);
    ds.rects = String(frame.stats.rects);
    ds.events = String(this.model.eventCount);
    ds.view = `${view.start.toFixed(3)},${view.end.toFixed(3)}`;
  }

  /** Sizes the canvas to the plot (device pixels for sharpness) and the lanes to the height. */
  private resize(): void {
    const plot = this.dom.plot;
    const lanes = this.model.lanes().filter((l) => this.showLane(l));
    const width = plot.clientWidth;
    const laneHeight = Math.max(18, Math.min(28, Math.floor((plot.clientHeight - AXIS_HEIGHT) / Math.max(1, lanes.length))));
    const height = Math.max(plot.clientHeight, AXIS_HEIGHT + lanes.length * laneHeight);
    this.dpr = window.devicePixelRatio || 1;
    this.geom = { width, height, gutter: GUTTER, axisHeight: AXIS_HEIGHT, laneHeight };
    this.rows = laneRows(this.model, this.geom, (l) => this.showLane(l));
    const c = this.dom.canvas;
    const bw = Math.round(width * this.dpr);
    const bh = Math.round(height * this.dpr);
    if (c.width !== bw || c.height !== bh) {
      c.width = bw;
      c.height = bh;
      c.style.width = `${width}px`;
      c.style.height = `${height}px`;
      this.dom.stage.style.height = `${height}px`;
    }
  }

  /** The cluster filter: offered once the loads of two clusters are seen (or while one is chosen). */
  private syncClusters(): void {
    this.clusterCount = this.model.contexts.length;
    const chosen = this.st.filter.cluster ?? '';
    const names = [...new Set([...this.model.contexts, ...(chosen ? [chosen] : [])])].sort();
    syncOptions(this.dom.clusterSelect, names, chosen);
    this.dom.clusterSelect.hidden = names.length < 2 && !chosen;
  }

  /** Lane labels are DOM text over the canvas gutter: readable by screen readers and tests. */
  private updateLanes(): void {
    const sig = this.rows.map((r) => `${r.lane.key}@${r.y}+${r.h}`).join('|');
    if (sig === this.laneSig) return;
    this.laneSig = sig;
    this.dom.lanes.replaceChildren(
      ...this.rows.map((r) => {
        const title =
          r.lane.kind === 'worker'
            ? `loader ${r.lane.label}`
            : r.lane.kind === 'controller' || r.lane.kind === 'kubelet' || r.lane.kind === 'writer'
              ? laneTitle(r.lane)
              : `sync loop: ${r.lane.label} iterations`;
        // what a screen reader says for the lane: what its marks are, not only its short name
        const li = el('li', { textContent: r.lane.label, title }, { 'aria-label': `Lane ${r.lane.label}: ${laneTitle(r.lane)}` });
        li.dataset.lane = r.lane.key;
        li.style.top = `${r.y}px`;
        li.style.height = `${r.h}px`;
        li.style.lineHeight = `${r.h}px`;
        li.style.width = `${GUTTER - 8}px`;
        return li;
      }),
    );
  }

  private updateStatus(): void {
    const m = this.model;
    let text: string;
    if (!this.snapshotDone && this.expected > 0) text = `loading ${m.eventCount} of ${this.expected} events…`;
    else text = `${m.visibleEvents} of ${m.eventCount} events`;
    if (m.dropped > 0) text += `; ${m.dropped} older events dropped`;
    if (this.dom.status.textContent !== text) this.dom.status.textContent = text;
  }

  // ---- the accessible list -------------------------------------------------------------------

  private listSoon(): void {
    this.listTimer ??= setTimeout(() => {
      this.listTimer = undefined;
      this.updateList();
    }, 250);
  }

  private updateList(): void {
    const { items, total } = itemsInView(this.model, this.rows, this.view(), LIST_LIMIT);
    const filtered = isEmptyFilter(this.st.filter) ? '' : ' matching the filter';
    this.dom.listHeading.textContent =
      total > items.length ? `${total} items in view${filtered}; the first ${items.length} are listed` : `${total} items in view${filtered}`;
    this.dom.list.replaceChildren(
      ...items.map((item) => {
        const li = el(
          'li',
          { id: `timeline-ev-${item.id}`, textContent: itemLabel(item) },
          { role: 'option', 'aria-selected': String(item === this.selected) },
        );
        li.dataset.id = String(item.id);
        li.dataset.kind = item.type;
        return li;
      }),
    );
    this.markListSelection();
  }

  private markListSelection(): void {
    const list = this.dom.list;
    list.querySelector('li[aria-selected="true"]')?.setAttribute('aria-selected', 'false');
    if (!this.selected) {
      list.removeAttribute('aria-activedescendant');
      return;
    }
    const li = list.querySelector(`#timeline-ev-${this.selected.id}`);
    li?.setAttribute('aria-selected', 'true');
    if (li) list.setAttribute('aria-activedescendant', li.id);
    else list.removeAttribute('aria-activedescendant');
  }

  // ---- saved state ---------------------------------------------------------------------------

  /**
   * Writes the saved state now. The root's data-saves counts the writes and data-save-pending says
   * whether a throttled one is still due, so a reader (a test, a screenshot) can tell the state it
   * sees has been saved without waiting on the throttle's clock.
   */
  save(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    this.st.scrollTop = this.dom.plot.scrollTop;
    this.port.setState(saveableState(this.st));
    const ds = this.dom.root.dataset;
    ds.saves = String(Number(ds.saves ?? 0) + 1);
    ds.savePending = 'false';
  }

  /** For continuous input (drag, wheel): at most one setState per 150 ms, the last one always. */
  saveSoon(): void {
    this.dom.root.dataset.savePending = 'true';
    this.saveTimer ??= setTimeout(() => this.save(), 150);
  }

  spanMs(): number {
    return span(this.view());
  }
}

/** What a lane's marks are, for its tooltip and what a screen reader says. */
function laneTitle(lane: Lane): string {
  if (lane.kind === 'worker') return 'loader tasks';
  if (lane.kind === 'controller') return `demo cluster ${lane.controller} controller reconciles`;
  if (lane.kind === 'writer') return writerLaneTitle(lane.manager!);
  if (lane.kind === 'kubelet') return `the real kubelet of node ${lane.node}: its own log lines (the judge of the inferred lanes above)`;
  return `sync loop ${lane.label} iterations`;
}
