/**
 * The server-side Table form of a list (meta.k8s.io/v1 Table, what `kubectl get` asks for): the
 * printer's columns and, with `includeObject=Metadata`, each row's PartialObjectMetadata. Every
 * kube-apiserver serves it for every type (custom resources print their additionalPrinterColumns,
 * or Name and Created At); so does the demo cluster.
 *
 * Guarantees:
 * - A row becomes an item `{ metadata }` (the row's PartialObjectMetadata, without its kind) that
 *   carries its cells by column NAME (never by position: servers of different versions add and
 *   reorder columns) and its conditions; `tableRowOf` reads them back. Nothing else of the row is kept.
 * - Columns come from the page's columnDefinitions; a page without them (a server honouring
 *   noHeaders) uses the previous page's. A page whose rows cannot be read is a clear error naming
 *   the path, never a silently empty list.
 */
import { KubeTransportError } from '../errors';
import type { KubeObject } from '../objects/types';

/** Table first, a plain list from a server (or aggregated API) that cannot print one. */
export const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

/** The query parameter that makes each row carry its object's metadata (PartialObjectMetadata). */
export const TABLE_INCLUDE_OBJECT = { includeObject: 'Metadata' } as const;

/**
 * A Table lacks a column its reader needs (another server version's printer). The loader lists
 * that type again as full objects when a transform throws it.
 */
export class TableColumnError extends Error {
  override readonly name = 'TableColumnError';
}

/** A row's condition (metav1.TableRowCondition): kube-apiserver marks finished pods Completed. */
export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TableRowCells {
  /** Cell values by column name, as the server sent them (strings, numbers, booleans). */
  cells: Readonly<Record<string, unknown>>;
  conditions?: readonly TableRowCondition[];
}

const ROW = Symbol('kubeloop.tableRow');
type RowCarrier = KubeObject & { [ROW]?: TableRowCells };

/** The cells of an item that came from a Table row; undefined for any other object. */
export function tableRowOf(obj: KubeObject): TableRowCells | undefined {
  return (obj as RowCarrier)[ROW];
}

interface TableBody {
  kind?: string;
  columnDefinitions?: { name?: unknown }[] | null;
  rows?: unknown[] | null;
}

/** Whether a list answer is a Table (the server honoured the Accept header). */
export function isTableBody(b: unknown): boolean {
  return !!b && typeof b === 'object' && (b as TableBody).kind === 'Table' && 'rows' in (b as object);
}

/**
 * The rows of one Table page as items. `columns` is the previous page's column names (or
 * undefined); the result's `columns` is what the next page inherits.
 */
export function tableItems(body: unknown, columns: readonly string[] | undefined, path: string): { items: KubeObject[]; columns: readonly string[] } {
  const b = body as TableBody;
  const defs = b.columnDefinitions;
  const names = Array.isArray(defs) && defs.length > 0 ? defs.map((d) => (typeof d?.name === 'string' ? d.name : '')) : columns;
  const rows = b.rows ?? [];
  if (!Array.isArray(rows)) throw new KubeTransportError('malformed', `GET ${path}: Table response has no rows array`, path);
  if (!names && rows.length > 0) throw new KubeTransportError('malformed', `GET ${path}: Table response has rows but no columnDefinitions`, path);
  const items: KubeObject[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as { cells?: unknown; object?: { metadata?: unknown }; conditions?: unknown } | null;
    const meta = r?.object?.metadata;
    if (!r || !Array.isArray(r.cells) || !meta || typeof meta !== 'object') {
      throw new KubeTransportError('malformed', `GET ${path}: Table row ${i} has no cells or no object metadata (was includeObject=Metadata honoured?)`, path);
    }
    const cells: Record<string, unknown> = {};
    for (let c = 0; c < names!.length && c < r.cells.length; c++) if (names![c]) cells[names![c]!] = r.cells[c];
    const item: RowCarrier = { metadata: meta as KubeObject['metadata'] };
    item[ROW] = Array.isArray(r.conditions) ? { cells, conditions: r.conditions as TableRowCondition[] } : { cells };
    items[i] = item;
  }
  return { items, columns: names ?? [] };
}
