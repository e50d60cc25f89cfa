/**
 * Text renderings of timeline events, shared by the host (the `details` answer) and the webview
 * (its details pane, list and announcements). No 'vscode' import and no DOM: plain strings only.
 * The webview puts them in the DOM with textContent, so a name such as `<img src=x onerror=alert(1)>`
 * shows as those characters.
 */
import type { ControllerReconcileEvent, GroupVersionResource, TimelineEvent } from '../core/timeline/events';
import { writesDetailRows } from './writesDetails';

/** One labelled value of a details pane. */
export type DetailRow = [label: string, value: string];

export function gvrText(gvr: GroupVersionResource): string {
  return gvr.group ? `${gvr.resource}.${gvr.group}/${gvr.version}` : `${gvr.resource}/${gvr.version}`;
}

/** A duration as people read it: "850 µs", "12.4 ms", "3.20 s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  if (ms < 1) return `${Math.round(ms * 1000)} µs`;
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** A position on the timeline's clock, e.g. "12.345 s". */
export function formatTime(ms: number): string {
  return `${(ms / 1000).toFixed(3)} s`;
}

/** Keeps the rows that have a value, as strings. */
export function presentRows(rows: [string, unknown][]): DetailRow[] {
  return rows.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => [k, String(v)]);
}

/** What a controller's reconcile wrote, in words: "created 2, deleted 1, status updated, 1 Event"; "no change". */
export function reconcileSummary(e: ControllerReconcileEvent): string {
  const parts: string[] = [];
  if (e.created?.length) parts.push(`created ${e.created.length}`);
  if (e.deleted?.length) parts.push(`deleted ${e.deleted.length}`);
  if (e.updated?.length) parts.push(`updated ${e.updated.length}`);
  if (e.statusUpdates) parts.push(e.statusUpdates === 1 ? 'status updated' : `${e.statusUpdates} status updates`);
  if (e.events) parts.push(e.events === 1 ? '1 Event' : `${e.events} Events`);
  return parts.length ? parts.join(', ') : 'no change';
}

/** Up to 20 object keys, then "+N more" (a reconcile of a big ReplicaSet creates a burst). */
function keyList(keys: string[] | undefined): string | undefined {
  if (!keys?.length) return undefined;
  return keys.length <= 20 ? keys.join(', ') : `${keys.slice(0, 20).join(', ')}, +${keys.length - 20} more`;
}

/** The rows of one event, in a fixed order, omitting absent fields. */
export function eventDetailRows(e: TimelineEvent): DetailRow[] {
  if (e.kind === 'reconcile')
    return presentRows([
      ['Controller reconcile', `${e.controller} / ${e.handler}`],
      ['Object', e.key],
      ['At', formatTime(e.t)],
      ['Duration', formatDuration(e.durationMs)],
      ['Outcome', e.outcome],
      ['Did', reconcileSummary(e)],
      ['Created', keyList(e.created)],
      ['Deleted', keyList(e.deleted)],
      ['Updated', keyList(e.updated)],
      ['Message', e.message],
    ]);
  if (e.kind === 'writes') return writesDetailRows(e);
  if (e.kind === 'kubelet')
    return presentRows([
      ['Kubelet log line', `${e.source} / ${e.op}`],
      ['Node', e.node],
      ['Pods', e.key || '(none)'],
      ['UID', e.uid],
      ['Handler', e.handler === 'none' ? undefined : e.handler],
      ['At', formatTime(e.t)],
      ['Duration', e.durationMs ? formatDuration(e.durationMs) : undefined],
      ['Outcome', e.outcome],
      [e.source === 'pleg' ? 'Container' : e.source === 'probe' ? 'Status' : e.source === 'freshness' ? 'Verdict' : 'Data', e.data],
      ['Message', e.message],
      ['Line', e.raw],
    ]);
  return presentRows(
    e.kind === 'task'
      ? [
          ['Loader task', `#${e.taskId} (load ${e.loadId})`],
          ['Phase', e.phase],
          ['Resource', gvrText(e.gvr)],
          ['Namespace', e.namespace ?? '(all namespaces / cluster-scoped)'],
          ['Worker', e.worker],
          ['At', formatTime(e.t)],
          ['Items', e.count],
          ['Pages', e.pages],
          ['Retries', e.retries],
          ['Duration', e.durationMs === undefined ? undefined : formatDuration(e.durationMs)],
          ['Outcome', e.outcome],
          ['HTTP status', e.status],
          ['Message', e.message],
        ]
      : [
          [e.source === 'podworker' ? 'Pod worker sync' : e.source === 'freshness' ? 'Freshness' : 'Sync loop iteration', `${e.source} / ${e.op}`],
          // the sync loop keys a pod `namespace/name`, another object `resource:namespace/name`
          ['Objects', e.key || '(none)'],
          ['Node', e.node],
          ['UID', e.uid],
          ['Handler', e.handler],
          ['At', formatTime(e.t)],
          ['Duration', formatDuration(e.durationMs)],
          ['Outcome', e.outcome],
          ['Inferred', e.inferred ? 'yes: a workstation cannot see this; read from Events, exit codes, conditions or a vanished pod' : undefined],
          [e.source === 'pleg' ? 'Container' : e.source === 'probe' ? 'Status' : e.source === 'freshness' ? 'Verdict' : 'Data', e.data],
          ['Container name', e.container],
          ['Worker state', e.worker?.state],
          [
            'Pending slot',
            e.worker ? (e.worker.coalesced ? `${e.worker.coalesced + 1} updates coalesced into this sync` : 'one update, none coalesced') : undefined,
          ],
          ['Waited', e.worker?.waitedMs === undefined ? undefined : `${formatDuration(e.worker.waitedMs)} for the pod cache (the PLEG's next relist)`],
          ['Next due', e.worker?.nextDueT === undefined ? undefined : `${formatTime(e.worker.nextDueT)} (work queue)`],
          ['Grace period', e.worker?.gracePeriodSeconds === undefined ? undefined : `${e.worker.gracePeriodSeconds} s`],
          ['Probes', e.worker?.probes?.join('; ')],
          ['Message', e.message],
        ],
  );
}

/** "key: value" lines. */
export function formatEventDetails(e: TimelineEvent): string {
  return eventDetailRows(e)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
}
