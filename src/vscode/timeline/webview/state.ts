/**
 * The webview's saved state (TimelineViewState in the shared protocol): read back with every field
 * checked, because it may come from an older version of this webview (or be absent). Pure.
 */
import type { TimelineViewState } from '../../../shared/protocol';
import { sanitizeFilter, type FilterSpec } from './filter';
import { sanitize, type Viewport } from './viewport';

export interface RestoredState {
  selectedEventId: number | undefined;
  scrollTop: number;
  filter: FilterSpec;
  /** undefined: fit everything automatically until the user moves the view. */
  view: Viewport | undefined;
  follow: boolean;
  listOpen: boolean;
}

export function restoreState(raw: unknown): RestoredState {
  const s = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const id = s.selectedEventId;
  const view = typeof s.view === 'object' && s.view !== null ? sanitize(s.view as Partial<Viewport>) : undefined;
  return {
    selectedEventId: typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : undefined,
    scrollTop: typeof s.scrollTop === 'number' && Number.isFinite(s.scrollTop) && s.scrollTop > 0 ? s.scrollTop : 0,
    filter: sanitizeFilter({
      hiddenSources: s.hiddenSources as FilterSpec['hiddenSources'],
      kind: s.kind as string,
      name: s.filter as string,
      cluster: s.cluster as string,
    }),
    view,
    follow: s.follow === true,
    listOpen: s.listOpen === true,
  };
}

export function saveableState(r: RestoredState): TimelineViewState {
  return {
    selectedEventId: r.selectedEventId,
    scrollTop: r.scrollTop,
    filter: r.filter.name,
    view: r.view ? { start: r.view.start, end: r.view.end } : undefined,
    follow: r.follow,
    hiddenSources: [...r.filter.hiddenSources],
    kind: r.filter.kind,
    ...(r.filter.cluster ? { cluster: r.filter.cluster } : {}),
    listOpen: r.listOpen,
  };
}
