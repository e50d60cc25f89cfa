/**
 * What the user filters by: sources (the loader and each sync-loop source), kind (the resource type
 * of a task, or of an object in an iteration's key: `pods` for `namespace/name`, `configmaps` for
 * `configmaps:namespace/name`), and name (a case-insensitive substring of the iteration's key, or of
 * the task's namespace/resource). Pure.
 */
import { sourceOf, SOURCES, type Item, type ItemPredicate, type SourceName, type TimelineModel } from './model';
import { writesHaystack } from './writersLane';

export interface FilterSpec {
  /** Sources not shown. */
  hiddenSources: SourceName[];
  /** '' shows every kind. */
  kind: string;
  /** '' shows every name. */
  name: string;
  /** '' (or absent) shows every cluster; else only this context's loader tasks (the sync loop's and controllers' marks are the current context's, and stay). */
  cluster?: string;
}

/** The kinds an item is filtered by: a task's resource; the kinds of an iteration's objects (none for a bare tick). */
export function itemKinds(item: Item): readonly string[] {
  return item.type === 'bar' ? [item.resource] : item.kinds;
}

/** The text the name filter searches (an iteration's objects and its node; a reconcile's objects), lower case; kept on the item so typing a filter is cheap. */
function nameHaystack(item: Item): string {
  item.search ??= haystackText(item).toLowerCase();
  return item.search;
}

function haystackText(item: Item): string {
  if (item.type === 'bar') return item.namespace ? `${item.namespace}/${item.resource}` : item.resource;
  const e = item.event;
  // a reconcile: its object and every object it wrote, so a pod's name finds the reconcile that made it
  if (e.kind === 'reconcile') return [e.key, ...(e.created ?? []), ...(e.deleted ?? []), ...(e.updated ?? [])].join(' ');
  if (e.kind === 'writes') return writesHaystack(e);
  return e.node ? `${e.key} ${e.node}` : e.key; // a kubelet line's node too: its lane answers to the node's name
}

export function isEmptyFilter(f: FilterSpec): boolean {
  return f.hiddenSources.length === 0 && f.kind === '' && f.name.trim() === '' && !f.cluster;
}

export function makePredicate(f: FilterSpec): ItemPredicate {
  if (isEmptyFilter(f)) return () => true;
  const hidden = new Set<string>(f.hiddenSources);
  const kind = f.kind;
  const needle = f.name.trim().toLowerCase();
  const cluster = f.cluster ?? '';
  return (item) => {
    if (hidden.size && hidden.has(sourceOf(item))) return false;
    if (cluster && item.type === 'bar' && item.context !== cluster) return false;
    if (kind && (item.type === 'bar' ? item.resource !== kind : !item.kinds.includes(kind))) return false;
    if (needle && !nameHaystack(item).includes(needle)) return false;
    return true;
  };
}

/** The kinds present in the model, for the kind selector (sorted). */
export function kindsOf(model: TimelineModel): string[] {
  return [...model.kinds].sort();
}

/** A filter restored from saved state, keeping only values that still make sense. */
export function sanitizeFilter(raw: Partial<FilterSpec> | undefined): FilterSpec {
  const hidden = Array.isArray(raw?.hiddenSources) ? raw.hiddenSources.filter((s): s is SourceName => (SOURCES as readonly string[]).includes(s)) : [];
  const kind = typeof raw?.kind === 'string' ? raw.kind : '';
  const name = typeof raw?.name === 'string' ? raw.name : '';
  const cluster = typeof raw?.cluster === 'string' ? raw.cluster : '';
  return { hiddenSources: [...new Set(hidden)], kind, name, ...(cluster ? { cluster } : {}) };
}
