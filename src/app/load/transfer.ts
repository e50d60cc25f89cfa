/**
 * Which transfer each type of the tree's load uses, from kubeloop.treeTransfer (and the older
 * kubeloop.metadataOnly, which means `metadata` and wins). `auto` is core's per-type rule
 * (treeTransferFor, core/syncloop/state/tableView.ts): Table rows where the printer shows every
 * field the row's view has, metadata where the view is a name, full objects otherwise.
 *
 * Measured (bench/transfer-forms.ts, demo cluster, pages of 500; see the numbers there): a pod is
 * ~2.0 KB as a full object, ~0.8 KB as PartialObjectMetadata and ~0.9 KB as a Table row with its
 * metadata, parsed ~2x faster than a full page; a ConfigMap row costs more than its metadata item.
 * Hence Table only where its cells are needed, metadata where they are not.
 */
import type { ListTransfer } from '../../core/kube/list';
import type { LoadTask } from '../../core/loader/types';
import { treeTransferFor } from '../../core/syncloop/state/tableView';
import type { KubeLoopSettings } from '../settings';

export function treeTransfer(s: Pick<KubeLoopSettings, 'metadataOnly' | 'treeTransfer'>): ListTransfer | ((task: LoadTask) => ListTransfer) {
  if (s.metadataOnly) return 'metadata';
  if (s.treeTransfer === 'auto') return (task) => treeTransferFor(task.gvr);
  return s.treeTransfer;
}
