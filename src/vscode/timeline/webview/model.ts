/**
 * TimelineModel: the webview's picture of the timeline, built from the host's TimelineItems.
 * Pure (no DOM): the layout, hit-testing and keyboard code read it, and unit tests drive it in node.
 *
 * - Loader task events (start/page/retry/finish) are grouped by loadId+taskId into one Bar on the
 *   lane of their worker. Sync-loop iterations are one Mark each on the lane of their source.
 *   Controller reconciles (the in-process demo cluster's) are one Mark each on the lane of their
 *   controller, `controller/<name>`. A real kubelet's log lines (a lab node's) are one Mark each on
 *   the lane of their node, `kubelet <node>`, after the sync sources: the judge below what it judges.
 * - Lanes: one per worker seen (ascending; grouped by cluster when the loads of several contexts
 *   are seen, each cluster's workers together, clusters in the order first seen), then one per controller seen (in upstream's order: a
 *   Deployment's change flows down through them), then one per sync source in a fixed order (always
 *   shown, so a user sees where iterations will appear before the loop runs).
 *
 * Guarantees:
 * - Every item of a lane is in `lane.items`, sorted by `start` whenever `ensureSorted()` returned
 *   (events normally arrive in time order, so sorting is rare and appends are O(1)).
 * - `lane.maxSpan` is at least `end - start` of every finished item of the lane, and every bar
 *   without a finish is in `lane.open`: together they let the layout cull by binary search without
 *   ever missing an item that overlaps the view.
 * - Any event id of an item resolves to that item (`byId`) until the item is pruned or the model reset.
 */
import type {
  ControllerReconcileEvent,
  GroupVersionResource,
  KubeletLineEvent,
  LoaderTaskEvent,
  SyncIterationEvent,
  SyncSource,
  WritesEvent,
} from '../../../core/timeline/events';
import type { TimelineItem } from '../../../shared/protocol';
import { orderWriterLanes, writerLaneKey, writerLaneLabel, writesFlagged } from './writersLane';

export const SYNC_SOURCES: readonly SyncSource[] = ['config', 'pleg', 'sync', 'probe', 'housekeeping', 'informer', 'podworker', 'freshness'];
/** The demo cluster's controllers in the order work flows through them (unknown names sort after). */
export const CONTROLLER_ORDER: readonly string[] = ['cronjob', 'job', 'deployment', 'replicaset', 'statefulset', 'daemonset', 'garbagecollector'];
/** The filterable sources: the loader's tasks, the controllers' reconciles (all lanes at once), each sync-loop source, and the real kubelets' log lines (all nodes at once). */
export type SourceName = 'loader' | 'controllers' | SyncSource | 'kubelet' | 'writers';
export const SOURCES: readonly SourceName[] = ['loader', 'controllers', ...SYNC_SOURCES, 'kubelet', 'writers'];

export type BarOutcome = 'ok' | 'error' | 'cancelled' | 'running';

export interface Bar {
  readonly type: 'bar';
  /** The id of the first event seen of this task: the handle a selection keeps. */
  readonly id: number;
  /** Every event id of this task, in arrival order. */
  readonly ids: number[];
  readonly loadId: string;
  readonly taskId: number;
  readonly worker: number;
  /** The kubeconfig context the task listed (absent in events of older hosts). */
  readonly context: string | undefined;
  readonly gvr: GroupVersionResource;
  readonly namespace: string | undefined;
  /** `resource` or `resource.group`, as kubectl names a type. */
  readonly resource: string;
  start: number;
  /** t of the finish phase; undefined while the task runs. */
  end: number | undefined;
  /** t and item count of each page. */
  readonly pages: { t: number; count?: number }[];
  /** t and message of each retry. */
  readonly retries: { t: number; message?: string }[];
  outcome: BarOutcome;
  count?: number;
  durationMs?: number;
  status?: number;
  message?: string;
  lane: Lane;
  /** Whether the current filter shows it (kept up to date by TimelineModel.applyFilter). */
  visible: boolean;
  /** How bad the outcome is (SEVERITY): the worst wins a shared pixel. Kept in step with `outcome`. */
  sev: number;
  /** The lower-case text the name filter searches, made on first use (filter.ts). */
  search?: string;
}

/**
 * Outcome severities, higher is worse. A number on the item, so the per-item loop of a frame does no
 * string comparisons.
 */
export const SEVERITY = { ok: 1, running: 2, cancelled: 3, error: 4, skipped: 1, markOk: 2 } as const;

export interface Mark {
  readonly type: 'mark';
  readonly id: number;
  readonly event: MarkEvent;
  /** The kinds of the objects in `event.key` (see keyKinds); empty for a tick that touched nothing. */
  readonly kinds: readonly string[];
  readonly start: number;
  readonly end: number;
  lane: Lane;
  visible: boolean;
  sev: number;
  search?: string;
}

export type Item = Bar | Mark;

/** The events drawn as one mark each. */
export type MarkEvent = SyncIterationEvent | ControllerReconcileEvent | KubeletLineEvent | WritesEvent;

export interface Lane {
  /** Stable across updates: `worker:3`, `controller:deployment`, `source:pleg` or `kubelet:lab-1`. */
  readonly key: string;
  readonly kind: 'worker' | 'controller' | 'source' | 'kubelet' | 'writer';
  /** Its name as shown; a worker lane's names its cluster once the loads of several are seen. */
  label: string;
  /** A worker lane's cluster (kubeconfig context), when its events named one. */
  readonly context?: string;
  /** The worker number, the controller, or the sync source. */
  readonly worker?: number;
  readonly controller?: string;
  readonly source?: SyncSource;
  /** A kubelet lane's node. */
  readonly node?: string;
  /** A writer lane's field manager. */
  readonly manager?: string;
  readonly items: Item[];
  maxSpan: number;
  readonly open: Set<Bar>;
  sorted: boolean;
}

/** Where an item ends for drawing and culling; a running bar reaches the latest time seen. */
export function itemEnd(item: Item, now: number): number {
  return item.type === 'mark' ? item.end : (item.end ?? Math.max(now, item.start));
}

export function sourceOf(item: Item): SourceName {
  if (item.type === 'bar') return 'loader';
  const e = item.event;
  return e.kind === 'reconcile' ? 'controllers' : e.kind === 'kubelet' ? 'kubelet' : e.kind === 'writes' ? 'writers' : e.source;
}

/** The filter source a lane belongs to. */
export function laneSource(lane: Lane): SourceName {
  if (lane.kind === 'writer') return 'writers';
  return lane.kind === 'worker' ? 'loader' : lane.kind === 'controller' ? 'controllers' : lane.kind === 'kubelet' ? 'kubelet' : lane.source!;
}

export function resourceName(gvr: GroupVersionResource): string {
  return gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource;
}

export type ItemPredicate = (item: Item) => boolean;

export class TimelineModel {
  private readonly lanesByKey = new Map<string, Lane>();
  /** The per-event lane lookups, without building a key string. */
  private readonly sourceLanes = new Map<string, Lane>();
  private ordered: Lane[] | undefined;
  /** Bars by loadId, then taskId (no key string built per event). */
  private readonly bars = new Map<string, Map<number, Bar>>();
  private readonly idIndex = new Map<number, Item>();
  private predicate: ItemPredicate = () => true;
  /** Smallest and largest time of any event; undefined before the first. */
  minT: number | undefined;
  maxT: number | undefined;
  /** Events the host's store dropped before this model saw them (history is partial). */
  dropped = 0;
  /** Every kind seen (a task's resource, `pods` for keyed iterations), for the kind filter; kept across pruning. */
  readonly kinds = new Set<string>();
  /** Every cluster (kubeconfig context) seen in loader events, in the order first seen; kept across pruning. */
  readonly contexts: string[] = [];
  /** Bumped whenever items change, so views can cache what they derive. */
  version = 0;
  /** Events held, and how many of them belong to items the filter shows. */
  eventCount = 0;
  visibleEvents = 0;
  private prunedBelow = 0;
  private itemCount = 0;

  constructor() {
    this.reset();
  }

  reset(): void {
    this.lanesByKey.clear();
    this.bars.clear();
    this.idIndex.clear();
    this.kinds.clear();
    this.contexts.length = 0;
    this.minT = this.maxT = undefined;
    this.dropped = 0;
    this.prunedBelow = 0;
    this.itemCount = 0;
    this.eventCount = 0;
    this.visibleEvents = 0;
    this.sourceLanes.clear();
    for (const s of SYNC_SOURCES) this.sourceLane(s);
    this.ordered = undefined;
    this.version++;
  }

  /** Lanes in display order: workers ascending, then the controllers seen, then the sync sources, then the kubelets seen (by node name). */
  lanes(): readonly Lane[] {
    if (!this.ordered) {
      const all = [...this.lanesByKey.values()];
      // each cluster's workers together, clusters in the order first seen (a context-less lane first)
      const group = (l: Lane) => (l.context === undefined ? -1 : this.contexts.indexOf(l.context));
      const workers = all.filter((l) => l.kind === 'worker').sort((a, b) => group(a) - group(b) || a.worker! - b.worker!);
      const several = this.contexts.length > 1;
      for (const l of workers) l.label = several && l.context !== undefined ? `${l.context} worker ${l.worker}` : `worker ${l.worker}`;
      const rank = (c: string) => (CONTROLLER_ORDER.includes(c) ? CONTROLLER_ORDER.indexOf(c) : CONTROLLER_ORDER.length);
      const controllers = all
        .filter((l) => l.kind === 'controller')
        .sort((a, b) => rank(a.controller!) - rank(b.controller!) || (a.controller! < b.controller! ? -1 : 1));
      const sources = SYNC_SOURCES.map((s) => this.lanesByKey.get(`source:${s}`)!);
      const kubelets = all.filter((l) => l.kind === 'kubelet').sort((a, b) => (a.node! < b.node! ? -1 : a.node! > b.node! ? 1 : 0));
      this.ordered = [...workers, ...controllers, ...sources, ...kubelets, ...orderWriterLanes(all)];
    }
    return this.ordered;
  }

  /** Number of bars and marks (not events: a bar holds several). */
  get size(): number {
    return this.itemCount;
  }

  byId(id: number): Item | undefined {
    return this.idIndex.get(id);
  }

  add(items: readonly TimelineItem[]): void {
    for (const it of items) {
      const e = it.event;
      if (e.kind === 'task') this.addTask(it.id, e);
      else if (e.kind === 'iteration' || e.kind === 'reconcile' || e.kind === 'kubelet' || e.kind === 'writes') this.addMark(it.id, e);
      else continue; // an event kind this webview does not know: ignore rather than break
      if (this.minT === undefined || e.t < this.minT) this.minT = e.t;
      if (this.maxT === undefined || e.t > this.maxT) this.maxT = e.t;
      if (e.kind !== 'task' && e.t + e.durationMs > this.maxT) this.maxT = e.t + e.durationMs;
    }
    this.version++;
  }

  /** Sets the filter and recomputes every item's `visible` flag (O(items), only when it changes). */
  applyFilter(predicate: ItemPredicate): void {
    this.predicate = predicate;
    this.visibleEvents = 0;
    for (const lane of this.lanesByKey.values()) {
      for (const item of lane.items) {
        item.visible = predicate(item);
        if (item.visible) this.visibleEvents += eventsOf(item);
      }
    }
    this.version++;
  }

  /** Sorts lanes that received an item out of time order. */
  ensureSorted(): void {
    for (const lane of this.lanesByKey.values()) {
      if (lane.sorted) continue;
      lane.items.sort((a, b) => a.start - b.start);
      lane.sorted = true;
    }
  }

  /**
   * Forgets items whose every event id is below `firstKept` (the host's store dropped them), once
   * enough have accumulated that the O(items) pass is worth it. Keeps the webview as bounded as the store.
   */
  prune(firstKept: number, minBatch = 5000): boolean {
    if (firstKept - this.prunedBelow < minBatch) return false;
    this.prunedBelow = firstKept;
    const lastId = (it: Item) => (it.type === 'bar' ? it.ids[it.ids.length - 1]! : it.id);
    for (const lane of this.lanesByKey.values()) {
      let w = 0;
      for (let r = 0; r < lane.items.length; r++) {
        const it = lane.items[r]!;
        if (lastId(it) >= firstKept) {
          lane.items[w++] = it;
          continue;
        }
        this.itemCount--;
        this.eventCount -= eventsOf(it);
        if (it.visible) this.visibleEvents -= eventsOf(it);
        if (it.type === 'bar') {
          for (const id of it.ids) this.idIndex.delete(id);
          this.bars.get(it.loadId)?.delete(it.taskId);
          lane.open.delete(it);
        } else this.idIndex.delete(it.id);
      }
      lane.items.length = w;
    }
    this.minT = undefined;
    for (const lane of this.lanesByKey.values()) {
      const first = lane.items[0];
      if (first && (this.minT === undefined || first.start < this.minT)) this.minT = first.start;
    }
    this.version++;
    return true;
  }

  private lane(key: string, make: () => Pick<Lane, 'kind' | 'label' | 'worker' | 'controller' | 'source' | 'node' | 'manager'>): Lane {
    let lane = this.lanesByKey.get(key);
    if (!lane) {
      lane = { key, ...make(), items: [], maxSpan: 0, open: new Set(), sorted: true };
      this.lanesByKey.set(key, lane);
      this.ordered = undefined;
    }
    return lane;
  }

  private sourceLane(s: SyncSource): Lane {
    const lane = this.lane(`source:${s}`, () => ({ kind: 'source', label: s, source: s }));
    this.sourceLanes.set(s, lane);
    return lane;
  }

  private push(lane: Lane, item: Item): void {
    const last = lane.items[lane.items.length - 1];
    if (last && item.start < last.start) lane.sorted = false;
    lane.items.push(item);
    this.itemCount++;
  }

  private addMark(id: number, e: MarkEvent): void {
    const lane =
      e.kind === 'reconcile'
        ? this.lane(`controller:${e.controller}`, () => ({ kind: 'controller', label: `controller/${e.controller}`, controller: e.controller }))
        : e.kind === 'kubelet'
          ? this.lane(`kubelet:${e.node}`, () => ({ kind: 'kubelet', label: `kubelet ${e.node}`, node: e.node }))
          : e.kind === 'writes'
            ? this.lane(writerLaneKey(e), () => ({ kind: 'writer', label: writerLaneLabel(e.manager), manager: e.manager }))
            : (this.sourceLanes.get(e.source) ?? this.sourceLane(e.source));
    const duration = Number.isFinite(e.durationMs) && e.durationMs > 0 ? e.durationMs : 0;
    const sev =
      e.kind === 'writes'
        ? writesFlagged(e)
          ? SEVERITY.error
          : SEVERITY.markOk
        : e.outcome === 'error'
          ? SEVERITY.error
          : e.outcome === 'skipped'
            ? SEVERITY.skipped
            : SEVERITY.markOk;
    // A reconcile is filtered by the kinds of its object and of everything it created or deleted.
    const kinds =
      e.kind === 'writes' ? e.kinds : e.kind === 'reconcile' ? keyKinds([e.key, ...(e.created ?? []), ...(e.deleted ?? [])].join(',')) : keyKinds(e.key);
    const mark: Mark = { type: 'mark', id, event: e, kinds, start: e.t, end: e.t + duration, lane, visible: true, sev };
    mark.visible = this.predicate(mark);
    if (duration > lane.maxSpan) lane.maxSpan = duration;
    for (const k of kinds) this.kinds.add(k);
    this.push(lane, mark);
    this.idIndex.set(id, mark);
    this.eventCount++;
    if (mark.visible) this.visibleEvents++;
  }

  private addTask(id: number, e: LoaderTaskEvent): void {
    let ofLoad = this.bars.get(e.loadId);
    if (!ofLoad) this.bars.set(e.loadId, (ofLoad = new Map()));
    let bar = ofLoad.get(e.taskId);
    if (!bar) {
      const context = typeof e.context === 'string' ? e.context : undefined;
      if (context !== undefined && !this.contexts.includes(context)) {
        this.contexts.push(context);
        this.ordered = undefined; // labels name the cluster once there are several
      }
      // The first cluster's lanes keep the plain key (`worker:3`), so a timeline of one cluster is keyed as it always was.
      const key = context === undefined || context === this.contexts[0] ? `worker:${e.worker}` : `worker:${e.worker}@${context}`;
      const lane = this.lane(key, () => ({
        kind: 'worker',
        label: `worker ${e.worker}`,
        worker: e.worker,
        ...(context !== undefined ? { context } : {}),
      }));
      bar = {
        type: 'bar',
        id,
        ids: [],
        loadId: e.loadId,
        taskId: e.taskId,
        worker: e.worker,
        context,
        gvr: e.gvr,
        namespace: e.namespace,
        resource: resourceName(e.gvr),
        start: e.t,
        end: undefined,
        pages: [],
        retries: [],
        outcome: 'running',
        lane,
        visible: true,
        sev: SEVERITY.running,
      };
      ofLoad.set(e.taskId, bar);
      this.kinds.add(bar.resource);
      lane.open.add(bar);
      this.push(lane, bar);
      bar.visible = this.predicate(bar);
    }
    bar.ids.push(id);
    this.idIndex.set(id, bar);
    this.eventCount++;
    if (bar.visible) this.visibleEvents++;
    const lane = bar.lane;
    switch (e.phase) {
      case 'start':
        this.moveStart(bar, e.t);
        break;
      case 'page':
        bar.pages.push({ t: e.t, count: e.count });
        break;
      case 'retry':
        bar.retries.push({ t: e.t, message: e.message });
        break;
      case 'finish': {
        // A finish without a start seen (it was dropped) still has its true start: t - duration.
        if (bar.ids.length === 1 && e.durationMs !== undefined) this.moveStart(bar, e.t - e.durationMs);
        bar.end = Math.max(e.t, bar.start);
        bar.outcome = e.outcome ?? 'ok';
        bar.sev = SEVERITY[bar.outcome];
        bar.count = e.count;
        bar.durationMs = e.durationMs;
        bar.status = e.status;
        bar.message = e.message;
        lane.open.delete(bar);
        lane.maxSpan = Math.max(lane.maxSpan, bar.end - bar.start);
        break;
      }
    }
    if (e.phase !== 'finish' && e.message !== undefined && bar.message === undefined) bar.message = e.message;
  }

  private moveStart(bar: Bar, t: number): void {
    if (t === bar.start) return;
    bar.start = t;
    bar.lane.sorted = false; // cheap to re-check: ensureSorted sorts only flagged lanes
    if (bar.end !== undefined) bar.lane.maxSpan = Math.max(bar.lane.maxSpan, bar.end - bar.start);
    if (this.minT === undefined || t < this.minT) this.minT = t;
  }
}

const PODS: readonly string[] = ['pods'];

/**
 * The kinds named by an iteration's key: the sync loop keys a pod `namespace/name` and any other
 * object `resource[.group]:namespace/name`, and joins several with ',' (plus a "+N more" tail).
 */
export function keyKinds(key: string): readonly string[] {
  if (key === '') return [];
  if (!key.includes(':')) return PODS; // the common case, without allocating
  const kinds = new Set<string>();
  for (const part of key.split(',')) {
    if (part === '' || part.startsWith('+')) continue;
    const colon = part.indexOf(':');
    kinds.add(colon < 0 ? 'pods' : part.slice(0, colon));
  }
  return [...kinds];
}

function eventsOf(item: Item): number {
  return item.type === 'bar' ? item.ids.length : 1;
}
