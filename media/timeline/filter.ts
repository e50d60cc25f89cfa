/**
 * What the user filters by: sources (the loader and each sync-loop source), kind (the resource type
 * of a task, `pods` for the pod-keyed iterations), and name (a case-insensitive substring of the
 * iteration's key `namespace/name`, or of the task's resource and namespace). Pure.
 */
import { sourceOf, SOURCES, type Item, type ItemPredicate, type SourceName, type TimelineModel } from './model';

export interface FilterSpec {
  /** Sources not shown. */
  hiddenSources: SourceName[];
  /** '' shows every kind. */
  kind: string;
  /** '' shows every name. */
  name: string;
}

export const NO_FILTER: FilterSpec = { hiddenSources: [], kind: '', name: '' };

/** The kind an item is filtered by. Iterations are about pods; a housekeeping tick has no key and no kind. */
export function itemKind(item: Item): string {
  if (item.type === 'bar') return item.resource;
  return item.event.key ? 'pods' : '';
}

/** The text the name filter searches, lower case; kept on the item so typing a filter is cheap. */
function nameHaystack(item: Item): string {
  if (item.search === undefined) {
    const text = item.type === 'mark' ? item.event.key : item.namespace ? `${item.namespace}/${item.resource}` : item.resource;
    item.search = text.toLowerCase();
  }
  return item.search;
}

export function isEmptyFilter(f: FilterSpec): boolean {
  return f.hiddenSources.length === 0 && f.kind === '' && f.name.trim() === '';
}

export function makePredicate(f: FilterSpec): ItemPredicate {
  if (isEmptyFilter(f)) return () => true;
  const hidden = new Set<string>(f.hiddenSources);
  const kind = f.kind;
  const needle = f.name.trim().toLowerCase();
  return (item) => {
    if (hidden.size && hidden.has(sourceOf(item))) return false;
    if (kind && itemKind(item) !== kind) return false;
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
  return { hiddenSources: [...new Set(hidden)], kind, name };
}
