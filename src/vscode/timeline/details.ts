/**
 * Text renderings of timeline events for the details pane. No 'vscode' import.
 * The result is plain text: the webview puts it in the DOM with textContent, so a name such as
 * `<img src=x onerror=alert(1)>` shows as those characters.
 */
import type { GroupVersionResource, TimelineEvent } from '../../core/timeline/events';

export function gvrText(gvr: GroupVersionResource): string {
  return gvr.group ? `${gvr.resource}.${gvr.group}/${gvr.version}` : `${gvr.resource}/${gvr.version}`;
}

/** "key: value" lines, in a fixed order, omitting absent fields. */
export function formatEventDetails(e: TimelineEvent): string {
  const rows: [string, unknown][] =
    e.kind === 'task'
      ? [
          ['Loader task', `#${e.taskId} (load ${e.loadId})`],
          ['Phase', e.phase],
          ['Resource', gvrText(e.gvr)],
          ['Namespace', e.namespace ?? '(all namespaces / cluster-scoped)'],
          ['Worker', e.worker],
          ['At', `${e.t} ms`],
          ['Items', e.count],
          ['Pages', e.pages],
          ['Retries', e.retries],
          ['Duration', e.durationMs === undefined ? undefined : `${e.durationMs} ms`],
          ['Outcome', e.outcome],
          ['HTTP status', e.status],
          ['Message', e.message],
        ]
      : [
          ['Sync loop iteration', `${e.source} / ${e.op}`],
          ['Pod', e.key || '(none)'],
          ['Handler', e.handler],
          ['At', `${e.t} ms`],
          ['Duration', `${e.durationMs} ms`],
          ['Outcome', e.outcome],
          ['Message', e.message],
        ];
  return rows
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join('\n');
}
