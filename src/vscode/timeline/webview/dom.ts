/**
 * The webview's static DOM: toolbar (filters, zoom, fit, follow, list), the plot (canvas and lane
 * labels), the accessible event list, the details pane, a live region and the hover tip.
 * Built with createElement and textContent only: no markup strings, so no data is ever parsed as HTML.
 */
import { SOURCES, type SourceName } from './model';

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
  attrs: Record<string, string> = {},
): HTMLElementTagNameMap[K] {
  const e = Object.assign(document.createElement(tag), props);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

export interface Dom {
  root: HTMLDivElement;
  /** Shown only in a recording's panel (the host's `banner` message). */
  banner: HTMLDivElement;
  status: HTMLSpanElement;
  sourceButtons: Map<SourceName, HTMLButtonElement>;
  kindSelect: HTMLSelectElement;
  clusterSelect: HTMLSelectElement;
  nameInput: HTMLInputElement;
  zoomIn: HTMLButtonElement;
  zoomOut: HTMLButtonElement;
  fit: HTMLButtonElement;
  follow: HTMLButtonElement;
  listToggle: HTMLButtonElement;
  plot: HTMLDivElement;
  stage: HTMLDivElement;
  canvas: HTMLCanvasElement;
  lanes: HTMLUListElement;
  listSection: HTMLElement;
  listHeading: HTMLHeadingElement;
  list: HTMLUListElement;
  details: HTMLElement;
  detailsTitle: HTMLHeadingElement;
  detailsBody: HTMLDListElement;
  /** "Previous logs": shown while the selection is a restart mark (shared/restartMark.ts). */
  previousLogs: HTMLButtonElement;
  announce: HTMLDivElement;
  tip: HTMLDivElement;
}

function button(text: string, title: string, extra: Record<string, string> = {}): HTMLButtonElement {
  return el('button', { type: 'button', textContent: text, title }, { 'aria-label': title, ...extra });
}

export function buildDom(parent: HTMLElement): Dom {
  const root = el('div', { id: 'timeline-root' });
  const banner = el('div', { id: 'timeline-banner', hidden: true }, { role: 'note' });
  const header = el('header', { className: 'toolbar' });
  const title = el('h1', { textContent: 'KubeLoop Timeline' });
  const status = el('span', { id: 'timeline-status', textContent: 'waiting for the extension...' }, { role: 'status' });

  const sources = el('div', { className: 'group', id: 'timeline-sources' }, { role: 'group', 'aria-label': 'Sources shown' });
  const sourceButtons = new Map<SourceName, HTMLButtonElement>();
  for (const s of SOURCES) {
    const b = button(
      s,
      `Show ${s === 'loader' ? 'loader tasks' : s === 'controllers' ? "the in-process demo cluster's controller reconciles" : s === 'kubelet' ? "the lab's real kubelets' own log lines" : s === 'writers' ? "busy field managers' writes" : `${s} iterations`}`,
      { 'aria-pressed': 'true', 'data-source': s },
    );
    b.className = 'toggle';
    sourceButtons.set(s, b);
    sources.append(b);
  }
  // Hidden until the loads of two clusters are seen; context names are text (option textContent).
  const clusterSelect = el('select', { id: 'timeline-cluster', hidden: true }, { 'aria-label': 'Filter by cluster' });
  clusterSelect.append(el('option', { value: '', textContent: 'All clusters' }));
  const kindSelect = el('select', { id: 'timeline-kind' }, { 'aria-label': 'Filter by kind' });
  kindSelect.append(el('option', { value: '', textContent: 'All kinds' }));
  const nameInput = el(
    'input',
    { id: 'timeline-filter', type: 'search', placeholder: 'Filter by name' },
    { 'aria-label': 'Filter by name (pod key, resource or namespace)' },
  );

  const nav = el('div', { className: 'group' }, { role: 'group', 'aria-label': 'View' });
  const zoomOut = button('−', 'Zoom out (-)');
  const zoomIn = button('+', 'Zoom in (+)');
  const fit = button('Fit', 'Fit all (0)');
  const follow = button('Follow', 'Follow new events (F)', { 'aria-pressed': 'false' });
  follow.className = 'toggle';
  const listToggle = button('List', 'Show the event list', { 'aria-pressed': 'false', 'aria-controls': 'timeline-list' });
  listToggle.className = 'toggle';
  nav.append(zoomOut, zoomIn, fit, follow, listToggle);
  header.append(title, status, sources, clusterSelect, kindSelect, nameInput, nav);

  const body = el('div', { className: 'body' });
  const plot = el('div', { id: 'timeline-plot' });
  const stage = el('div', { id: 'timeline-stage' });
  // An interactive widget with its own keys: screen readers pass keys through to it; the selection is
  // announced in #timeline-announce and the List button shows the same events as an accessible list.
  const canvas = el(
    'canvas',
    { id: 'timeline-canvas', tabIndex: 0 },
    {
      role: 'application',
      'aria-roledescription': 'timeline chart',
      'aria-label':
        'Timeline chart. Arrow keys move the selection, Enter shows it, plus and minus zoom, 0 fits all, F follows new events. The List button shows the same events as a list.',
    },
  );
  const lanes = el('ul', { id: 'timeline-lanes' }, { 'aria-label': 'Lanes' });
  const tip = el('div', { id: 'timeline-tip', hidden: true }, { role: 'tooltip' });
  stage.append(canvas, lanes, tip);
  plot.append(stage);

  const listSection = el('section', { id: 'timeline-list', className: 'sr-only' }, { 'aria-label': 'Events in view' });
  const listHeading = el('h2', { textContent: 'Events in view' });
  const list = el('ul', { id: 'timeline-events', tabIndex: -1 }, { role: 'listbox', 'aria-label': 'Events in view' });
  listSection.append(listHeading, list);
  body.append(plot, listSection);

  const details = el('section', { id: 'timeline-details' }, { 'aria-label': 'Selected event', 'aria-live': 'polite' });
  const detailsTitle = el('h2', { textContent: 'Select an event to see its details.' });
  const detailsBody = el('dl');
  const previousLogs = button('Previous logs', "Show the logs of this container's previous instance (its last lines before the restart)", {
    id: 'timeline-previous-logs',
  });
  previousLogs.hidden = true;
  details.append(detailsTitle, previousLogs, detailsBody);

  const announce = el('div', { id: 'timeline-announce', className: 'sr-only' }, { 'aria-live': 'polite' });
  root.append(banner, header, body, details, announce);
  parent.append(root);
  return {
    root,
    banner,
    status,
    sourceButtons,
    kindSelect,
    clusterSelect,
    nameInput,
    zoomIn,
    zoomOut,
    fit,
    follow,
    listToggle,
    plot,
    stage,
    canvas,
    lanes,
    listSection,
    listHeading,
    list,
    details,
    detailsTitle,
    detailsBody,
    previousLogs,
    announce,
    tip,
  };
}

/** Replaces the details pane's rows (textContent only). */
export function showDetails(dom: Dom, title: string, rows: readonly [string, string][]): void {
  dom.detailsTitle.textContent = title;
  const nodes: HTMLElement[] = [];
  for (const [k, v] of rows) nodes.push(el('dt', { textContent: k }), el('dd', { textContent: v }));
  dom.detailsBody.replaceChildren(...nodes);
}

/** Keeps a select's options equal to `values` (plus its first, "all", option) without losing the choice. */
export function syncOptions(select: HTMLSelectElement, values: readonly string[], chosen: string): void {
  const have = Array.from(select.options)
    .slice(1)
    .map((o) => o.value);
  const want = chosen && !values.includes(chosen) ? [...values, chosen] : values;
  if (have.length !== want.length || have.some((v, i) => v !== want[i])) {
    select.replaceChildren(select.options[0]!, ...want.map((v) => el('option', { value: v, textContent: v })));
  }
  select.value = chosen;
}
