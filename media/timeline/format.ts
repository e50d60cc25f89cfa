/**
 * One-line labels for the timeline's event list. Plain text only: the caller puts them in the DOM
 * with textContent, so cluster-supplied names are never parsed as HTML.
 */
import type { TimelineEvent } from '../../src/core/timeline/events';

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
  const key = e.key ? ` ${e.key}` : '';
  return `${fmtTime(e.t)}  ${e.source}  ${e.op}${key} -> ${e.handler} ${e.outcome}, ${e.durationMs} ms`;
}

function fmtTime(ms: number): string {
  return `${(ms / 1000).toFixed(3)}s`;
}

/** Whether an event matches a free-text filter (case-insensitive substring of its label). */
export function matchesFilter(e: TimelineEvent, filter: string): boolean {
  return filter === '' || eventLabel(e).toLowerCase().includes(filter.toLowerCase());
}
