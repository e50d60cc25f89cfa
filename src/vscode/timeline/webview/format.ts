/**
 * The webview's texts: one-line labels (the accessible list, announcements, the hover tip) and the
 * details of a bar or mark. Plain strings only: the caller puts them in the DOM with textContent, so
 * cluster-supplied names are never parsed as HTML.
 */
import type { TimelineEvent } from '../../../core/timeline/events';
import { eventDetailRows, formatDuration, formatTime, gvrText, presentRows, reconcileSummary, type DetailRow } from '../../../shared/details';
import { itemEnd, type Bar, type Item } from './model';
import { writerLaneLabel, writesLabel } from './writersLane';
import { writesSummary } from '../../../shared/writesDetails';

export function eventLabel(e: TimelineEvent): string {
  if (e.kind === 'task') {
    const gvr = e.gvr.group ? `${e.gvr.resource}.${e.gvr.group}` : e.gvr.resource;
    const where = e.namespace ? ` in ${e.namespace}` : '';
    const extra =
      e.phase === 'finish'
        ? ` ${e.outcome ?? 'ok'}${e.count !== undefined ? `, ${e.count} items` : ''}${e.durationMs !== undefined ? `, ${e.durationMs} ms` : ''}`
        : e.phase === 'page' && e.count !== undefined
          ? ` ${e.count} items`
          : '';
    return `${fmtTime(e.t)}  worker ${e.worker}  ${e.phase} ${gvr}${where}${extra}`;
  }
  if (e.kind === 'reconcile')
    return `${fmtTime(e.t)}  controller/${e.controller}  ${e.handler} ${e.key}: ${e.outcome}, ${reconcileSummary(e)}, ${e.durationMs} ms`;
  if (e.kind === 'kubelet')
    return `${fmtTime(e.t)}  kubelet ${e.node}  ${e.source} ${e.op}${e.key ? ` ${e.key}` : ''}${e.handler !== 'none' ? ` -> ${e.handler}` : ''} ${e.outcome}`;
  if (e.kind === 'writes') return writesLabel(e, fmtTime(e.t));
  const key = e.key ? ` ${e.key}` : '';
  return `${fmtTime(e.t)}  ${e.source}  ${e.op}${key} -> ${e.handler} ${e.outcome}${e.inferred ? ' (inferred)' : ''}, ${e.durationMs} ms`;
}

function fmtTime(ms: number): string {
  return `${(ms / 1000).toFixed(3)}s`;
}

/** One line for a bar or mark. */
export function itemLabel(item: Item): string {
  if (item.type === 'mark') return eventLabel(item.event);
  const where = item.namespace ? ` in ${item.namespace}` : '';
  const state =
    item.outcome === 'running'
      ? 'running'
      : `${item.outcome}${item.count !== undefined ? `, ${item.count} items` : ''}, ${formatDuration(barDuration(item, item.end!))}`;
  return `${fmtTime(item.start)}  worker ${item.worker}  list ${item.resource}${where}: ${state}`;
}

/** A long key (the sync loop joins up to 20 objects) cut for a one-line title; the rows keep all of it. */
function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export interface Description {
  title: string;
  rows: DetailRow[];
}

function barDuration(bar: Bar, end: number): number {
  return bar.durationMs ?? end - bar.start;
}

/** Everything known about an item, for the details pane. `now` is where a running bar has got to. */
export function describeItem(item: Item, now: number): Description {
  if (item.type === 'mark') {
    const e = item.event;
    if (e.kind === 'reconcile')
      return { title: `controller/${e.controller} · ${e.handler} · ${clip(e.key, 100)} · ${reconcileSummary(e)}`, rows: eventDetailRows(e) };
    if (e.kind === 'writes') return { title: `${writerLaneLabel(e.manager)} · ${writesSummary(e)}`, rows: eventDetailRows(e) };
    if (e.kind === 'kubelet') return { title: `kubelet ${e.node} · ${e.source} · ${e.op}${e.key ? ` · ${clip(e.key, 100)}` : ''}`, rows: eventDetailRows(e) };
    return { title: `${e.source} · ${e.op}${e.key ? ` · ${clip(e.key, 100)}` : ''}${e.node ? ` · node ${e.node}` : ''}`, rows: eventDetailRows(e) };
  }
  const bar = item;
  const end = itemEnd(bar, now);
  const pageCounts = bar.pages.map((p) => p.count).filter((c): c is number => c !== undefined);
  const pages =
    bar.pages.length === 0
      ? undefined
      : pageCounts.length === bar.pages.length && bar.pages.length <= 20
        ? `${bar.pages.length} (${pageCounts.join(', ')} items)`
        : String(bar.pages.length);
  const retries = bar.retries.length === 0 ? undefined : bar.retries.map((r) => `${formatTime(r.t)}${r.message ? ` ${r.message}` : ''}`).join('; ');
  return {
    title: `list ${bar.resource}${bar.namespace ? ` in ${bar.namespace}` : ''}`,
    rows: presentRows([
      ['Loader task', `#${bar.taskId} (load ${bar.loadId})`],
      ['Context', bar.context],
      ['Resource', gvrText(bar.gvr)],
      ['Namespace', bar.namespace ?? '(all namespaces / cluster-scoped)'],
      ['Worker', bar.worker],
      ['Started', formatTime(bar.start)],
      ['Finished', bar.end === undefined ? '(still running)' : formatTime(bar.end)],
      ['Duration', `${formatDuration(barDuration(bar, end))}${bar.end === undefined ? ' so far' : ''}`],
      ['Outcome', bar.outcome],
      ['Items', bar.count],
      ['Pages', pages],
      ['Retries', retries === undefined ? undefined : `${bar.retries.length}: ${retries}`],
      ['HTTP status', bar.status],
      ['Message', bar.message],
    ]),
  };
}
