/**
 * The timeline webview script (first version: a filterable list of events and a details pane).
 * Runs in the webview under a strict CSP; talks to the host only through src/shared/protocol.ts.
 *
 * Guarantees: everything that came from the cluster is put into the DOM with textContent (never
 * innerHTML); the selection, filter and scroll position survive the panel being hidden and shown
 * (getState/setState), because the host does not keep this document alive while hidden.
 */
import type { HostToWebviewMessage, ThemeKind, TimelineItem, TimelineViewState, WebviewToHostMessage } from '../../src/shared/protocol';
import { eventLabel, matchesFilter } from './format';

interface VsCodeApi {
  postMessage(msg: WebviewToHostMessage): void;
  getState(): TimelineViewState | undefined;
  setState(state: TimelineViewState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** Rendering 100,000 list rows is not useful nor fast; the canvas timeline will draw them all. */
const MAX_ROWS = 2000;

const vscode = acquireVsCodeApi();
let state: TimelineViewState = vscode.getState() ?? {};
let items: TimelineItem[] = [];
let dropped = 0;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}): HTMLElementTagNameMap[K] {
  return Object.assign(document.createElement(tag), props);
}

const root = el('div', { id: 'timeline-root' });
const header = el('header');
const title = el('h1', { textContent: 'KubeLoop Timeline' });
const status = el('span', { id: 'timeline-status', textContent: 'waiting for the extension...' });
const filter = el('input', { id: 'timeline-filter', type: 'search', placeholder: 'Filter by source, kind or name', value: state.filter ?? '' });
filter.setAttribute('aria-label', 'Filter events');
header.append(title, status, filter);
const list = el('ul', { id: 'timeline-events' });
list.setAttribute('role', 'listbox');
list.setAttribute('aria-label', 'Timeline events');
const details = el('pre', { id: 'timeline-details', textContent: 'Select an event to see its details.' });
root.append(header, list, details);
document.body.append(root);

function saveState(patch: Partial<TimelineViewState>): void {
  state = { ...state, ...patch };
  vscode.setState(state);
}

function render(): void {
  const f = filter.value.trim();
  const matching = f ? items.filter((it) => matchesFilter(it.event, f)) : items;
  const shown = matching.slice(-MAX_ROWS);
  const rows = shown.map((it) => {
    const li = el('li', { textContent: eventLabel(it.event), tabIndex: -1 });
    li.dataset.id = String(it.id);
    li.dataset.kind = it.event.kind;
    li.setAttribute('role', 'option');
    if (it.id === state.selectedEventId) li.setAttribute('aria-selected', 'true');
    return li;
  });
  list.replaceChildren(...rows);
  const partial = matching.length > shown.length ? ` (showing the last ${shown.length})` : '';
  const lost = dropped > 0 ? `; ${dropped} older events dropped` : '';
  status.textContent = `${matching.length} of ${items.length} events${partial}${lost}`;
  root.dataset.count = String(items.length);
}

function select(id: number): void {
  saveState({ selectedEventId: id });
  list.querySelectorAll('li[aria-selected]').forEach((li) => li.removeAttribute('aria-selected'));
  list.querySelector(`li[data-id="${id}"]`)?.setAttribute('aria-selected', 'true');
  details.textContent = 'Loading details...';
  vscode.postMessage({ type: 'select', eventId: id });
  vscode.postMessage({ type: 'requestDetails', eventId: id });
}

function applyTheme(theme: ThemeKind): void {
  document.body.dataset.theme = theme;
}

list.addEventListener('click', (ev) => {
  const li = (ev.target as HTMLElement).closest('li');
  const id = li?.dataset.id;
  if (id !== undefined) select(Number(id));
});
list.addEventListener('scroll', () => saveState({ scrollTop: list.scrollTop }), { passive: true });
filter.addEventListener('input', () => {
  saveState({ filter: filter.value });
  render();
});

window.addEventListener('message', (ev: MessageEvent<HostToWebviewMessage>) => {
  const msg = ev.data;
  switch (msg?.type) {
    case 'init':
      items = msg.events;
      dropped = msg.dropped;
      applyTheme(msg.theme);
      render();
      list.scrollTop = state.scrollTop ?? 0;
      if (state.selectedEventId !== undefined && items.some((it) => it.id === state.selectedEventId)) select(state.selectedEventId);
      root.dataset.ready = 'true';
      break;
    case 'append':
      items.push(...msg.events);
      render();
      break;
    case 'reset':
      items = [];
      dropped = 0;
      saveState({ selectedEventId: undefined, scrollTop: 0 });
      details.textContent = 'Select an event to see its details.';
      render();
      break;
    case 'theme':
      applyTheme(msg.theme);
      break;
    case 'details':
      if (msg.eventId === state.selectedEventId) details.textContent = msg.text ?? 'This event is no longer in the timeline.';
      break;
  }
});

vscode.postMessage({ type: 'ready' });
