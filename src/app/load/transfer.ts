/**
 * Which transfer each type of the tree's load uses, from kubeloop.treeTransfer (and the older
 * kubeloop.metadataOnly, which means `metadata` and wins). `auto` is core's per-type rule
 * (treeTransferFor, core/rows/tableView.ts): Table rows where the printer shows every
 * field the row's view has, metadata where the view is a name, full objects otherwise.
 *
 * Measured (`node --import tsx bench/transfer-forms.ts --objects 20000`, demo cluster, pages of
 * 500, best of 3, on a shared 2-core machine): per pod, full 2,225 B, PartialObjectMetadata 575 B,
 * Table+includeObject=Metadata 711 B, Table+None 128 B; parse+view time per pod page 0.24x of full
 * for Table+Metadata (0.23x metadata). Over the whole mix of 73 types: full 787 B/object,
 * metadata 344, Table+Metadata 443, auto 375 (0.48x the bytes, 0.60x the parse+view time).
 * Table+None would be smallest but its rows carry neither namespace nor uid nor deletion, which
 * every row needs; a Table row of a name-only type costs more than its metadata item. Hence Table
 * only where its cells are needed, metadata where they are not.
 *
 * On realistic objects (managedFields as kube-apiserver writes them) a Table row is mostly its
 * metadata's managedFields: the I/O thread cuts them before the page reaches the host's thread
 * (transport/ioTable.ts; a 500-pod page 1.40 MB -> 0.21 MB, its parse 104 -> 5 ms). Measured
 * against that (`bench/model-load.ts --compare`, 100k objects), full protobuf objects for the
 * Table types cost the host's main thread 0.68-0.74x of untrimmed Tables' CPU, trimmed Tables
 * 0.42-0.49x, the process about the same either way: so auto keeps Table rows.
 */
import type { ListTransfer } from '../../core/kube/listwatch/list';
import type { LoadTask } from '../../core/loader/types';
import { treeTransferFor } from '../../core/rows/tableView';
import type { KubeLoopSettings } from '../settings';

export function treeTransfer(s: Pick<KubeLoopSettings, 'metadataOnly' | 'treeTransfer'>): ListTransfer | ((task: LoadTask) => ListTransfer) {
  if (s.metadataOnly) return 'metadata';
  if (s.treeTransfer === 'auto') return (task) => treeTransferFor(task.gvr);
  return s.treeTransfer;
}
