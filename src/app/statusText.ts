/**
 * The status bar item's text and tooltip: context, objects, what the loader and the sync loop are
 * doing. No 'vscode' import (codicons are `$(name)` text).
 *
 * No spinning icons (`~spin`): a spinning codicon is redrawn about 20 times a second for as long as
 * it shows, by the workbench, on the cores the load itself uses. Measured in code-server on the
 * 100,000-object demo cluster, 24 palette loads each way: palette to final count, median 1.98 s
 * with `$(loading~spin)`, 1.76 s with a still icon. The text says the progress (types done of
 * types found), and the notification shows a bar once a load runs long.
 */
import type { LoadProgress } from './load/loadRunner';
import { formatCount } from '../core/formatCount';
import { redactUrl } from '../core/kube/redactUrl';

export type SyncState = 'off' | 'starting' | 'running';

export interface StatusState {
  context?: string;
  server?: string;
  demo: boolean;
  objects: number;
  loading?: LoadProgress;
  sync: SyncState;
  /** The node the sync loop is scoped to (absent: all nodes). */
  syncNode?: string;
  /** "PLEG is not healthy: ..." while the sync loop's PLEG is unhealthy. */
  plegProblem?: string;
  filter?: string;
  /** The sync loop's watched types: all current, or which are stale and why (sync/freshnessText.ts). */
  freshness?: string;
  /** The last load's API cost, as load/apiCost.ts words it (apiCostTooltip). */
  apiCost?: string;
}

const fmt = formatCount;

/** The icon the item shows while a load runs (a still one, see above). */
export const LOADING_ICON = 'cloud-download';

export function statusBarText(s: StatusState): { text: string; tooltip: string } {
  if (!s.context) {
    return { text: '$(server-environment) KubeLoop', tooltip: 'KubeLoop: no cluster loaded. Click to show the timeline.' };
  }
  const name = `${s.context}${s.demo ? ' (demo)' : ''}`;
  const parts = [s.loading ? `$(${LOADING_ICON}) ${name}` : `$(server-environment) ${name}`];
  parts.push(s.loading && s.loading.typesTotal > 0 ? `${s.loading.typesDone}/${s.loading.typesTotal} types` : `${fmt(s.objects)} objects`);
  const on = s.syncNode ? ` ${s.syncNode}` : '';
  if (s.sync === 'running') parts.push(s.plegProblem ? `$(warning) syncing${on}, PLEG unhealthy` : `$(sync) syncing${on}`);
  if (s.sync === 'starting') parts.push(`$(sync) sync starting${on}`);
  const tooltip = [
    `KubeLoop: context "${s.context}"${s.demo ? ' (embedded demo cluster)' : ''}`,
    s.server ? `Server: ${redactUrl(s.server)}` : undefined,
    `${fmt(s.objects)} objects in the tree${s.filter ? ` (filter "${s.filter}")` : ''}`,
    s.loading ? `Loading: ${s.loading.typesDone}/${s.loading.typesTotal} types, ${fmt(s.loading.objects)} objects` : undefined,
    `Sync loop: ${s.sync === 'off' ? 'stopped' : s.sync === 'starting' ? 'starting (waiting for the first lists)' : 'running'}${s.syncNode ? `, pods of node ${s.syncNode}` : ''}`,
    s.sync !== 'off' ? s.plegProblem : undefined,
    s.sync !== 'off' ? s.freshness : undefined,
    s.apiCost,
    'Click to show the timeline.',
  ]
    .filter(Boolean)
    .join('\n');
  return { text: parts.join(' · '), tooltip };
}
