/**
 * The texts of a writer lane's mark (a WritesEvent): its one-line label and its details rows, shared
 * by the host and the webview. Plain strings: the webview puts them in the DOM with textContent.
 */
import type { WritesEvent } from '../core/timeline/events';
import { formatDuration, formatTime, presentRows, type DetailRow } from './details';

const rate = (n: number) => `${n.toFixed(1)}/s`;

/** "12 writes (9.5/s) of deployments, pods · FIGHT · HOT LOOP" */
export function writesSummary(e: WritesEvent): string {
  const kinds = e.kinds.length ? ` of ${e.kinds.join(', ')}` : '';
  return `${e.writes} write${e.writes === 1 ? '' : 's'} (${rate(e.perSecond)})${kinds}${e.fight ? ' · FIGHT' : ''}${e.hotLoop ? ' · HOT LOOP' : ''}`;
}

export function writesDetailRows(e: WritesEvent): DetailRow[] {
  return presentRows([
    ['Field manager', e.manager],
    ['Window', `${formatTime(e.t)} to ${formatTime(e.t + e.durationMs)} (${formatDuration(e.durationMs)})`],
    ['Writes', e.writes],
    ['Rate', `${rate(e.perSecond)} (decayed over about 10 s)`],
    ['Kinds', e.kinds.join(', ')],
    ['Fight', e.fight ? `${e.fight}: the field changes hands back and forth` : undefined],
    ['Hot loop', e.hotLoop],
  ]);
}
