/**
 * ListedContexts: the contexts the tree shows beside the current one (`kubeloop.contexts`), each with
 * its own ResourceModel and TreeModel, loaded, refreshed and retried independently. No 'vscode'
 * import: the glue gives it a `load` that connects and runs the extension's load (on lanes shared
 * by every context), and shows what it says.
 *
 * Guarantees:
 * - Lazy: a listed context asks nothing of its cluster until it is opened (`open`, the row
 *   expanded) or loaded by name (`load`); `loadOpened` loads only the ones opened before.
 * - Independent: each context has its own load and signal; one that hangs, fails or is unreachable
 *   never waits on, cancels or changes another (the loads share lanes fairly, see SharedLanes).
 * - An unreachable context is tried again by itself after a back-off (RetryTimer: 5 s, 10 s, ...,
 *   2 min), until it answers or is removed; a load by hand meanwhile replaces the pending retry.
 * - Removing a context (`setNames` without it, or dispose) aborts its load, drops its retry and
 *   closes its connection; nothing it started writes to a state afterwards.
 * - `onChange(name)` is called after each state change of that context, `onChange(undefined)` after
 *   the set of contexts changed.
 */
import type { Clock } from '../../core/clock';
import type { LoadProgress, LoadResult } from '../load/loadRunner';
import { ResourceModel } from '../model/resourceModel';
import { TreeModel } from '../tree/treeModel';
import { CONTEXT_RETRY_BACKOFF, RetryTimer, type BackoffSpec } from './backoff';
import type { ContextState } from './contextSet';

/** One load of a listed context into its model; never rejects (a failure is the result's summary). */
export type ContextLoad = (req: {
  name: string;
  model: ResourceModel;
  signal: AbortSignal;
  onProgress: (p: LoadProgress) => void;
}) => Promise<LoadResult & { server?: string }>;

export interface ListedContext {
  readonly name: string;
  readonly model: ResourceModel;
  readonly tree: TreeModel;
  readonly state: ContextState;
  /** Its API server, once a load has connected. */
  readonly server: string | undefined;
}

interface Entry extends ListedContext {
  state: ContextState;
  server: string | undefined;
  retry: RetryTimer;
  running: AbortController | undefined;
}

export interface ListedContextsOptions {
  clock: Clock;
  load: ContextLoad;
  /** A context left the set: close what `load` opened for it. */
  closed?: (name: string) => void;
  backoff?: BackoffSpec;
  random?: () => number;
}

export class ListedContexts {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(name: string | undefined) => void>();

  constructor(private readonly o: ListedContextsOptions) {}

  onChange(fn: (name: string | undefined) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The contexts shown, in order. */
  names(): string[] {
    return [...this.entries.keys()];
  }

  get(name: string): ListedContext | undefined {
    return this.entries.get(name);
  }

  /** The context whose tree holds a node of this path (its first segment, `c:<name>`). */
  byRootSegment(segment: string | undefined): ListedContext | undefined {
    return segment?.startsWith('c:') ? this.entries.get(segment.slice(2)) : undefined;
  }

  /** Shows exactly these contexts, in this order: new ones start idle, missing ones are dropped. */
  setNames(names: readonly string[]): void {
    const want = [...new Set(names)];
    const same = want.length === this.entries.size && want.every((n, i) => this.names()[i] === n);
    if (same) return;
    for (const [name, e] of [...this.entries]) if (!want.includes(name)) this.drop(e);
    const kept = new Map(this.entries);
    this.entries.clear();
    for (const name of want) this.entries.set(name, kept.get(name) ?? this.create(name));
    this.emit(undefined);
  }

  /** The row was expanded: load it if nothing was asked of it yet (lazy connect). */
  open(name: string): void {
    const e = this.entries.get(name);
    if (e && e.state.phase === 'idle') void this.load(name);
  }

  /**
   * Loads (or reloads) one context now; a load of it still running is replaced. `retry`: the
   * back-off's try of an unreachable one, whose row keeps saying unreachable until it answers.
   * `signal` cancels this load (as Cancel Load does).
   */
  async load(name: string, opts: { retry?: boolean; signal?: AbortSignal } = {}): Promise<void> {
    const { retry = false, signal } = opts;
    const e = this.entries.get(name);
    if (!e) return;
    e.running?.abort(new Error('superseded by a new load'));
    e.retry.cancel();
    const ac = new AbortController();
    e.running = ac;
    const onAbort = () => ac.abort(signal!.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const current = () => this.entries.get(name) === e && e.running === ac;
    if (retry && e.state.phase === 'unreachable') this.set(e, { phase: 'unreachable', reason: e.state.reason, retrying: true });
    else this.set(e, { phase: 'loading', objects: 0 });
    const r = await this.o
      .load({
        name,
        model: e.model,
        signal: ac.signal,
        onProgress: (p) => {
          if (current() && e.state.phase === 'loading' && e.state.objects !== p.objects) this.set(e, { phase: 'loading', objects: p.objects });
        },
      })
      .finally(() => signal?.removeEventListener('abort', onAbort));
    if (!current()) return; // removed, or a newer load of it runs
    e.running = undefined;
    if (r.server) e.server = r.server;
    const s = r.summary;
    if (r.unreachable) {
      e.retry.schedule();
      const at = e.retry.dueAt;
      this.set(e, { phase: 'unreachable', reason: r.unreachable, ...(at !== undefined ? { retryAt: at } : {}) });
      return;
    }
    if (s.outcome === 'failed') {
      this.set(e, { phase: 'failed', reason: s.error instanceof Error ? s.error.message : String(s.error) });
      return;
    }
    e.retry.succeeded();
    if (s.outcome === 'cancelled') this.set(e, { phase: 'cancelled', objects: e.model.objectCount });
    else this.set(e, { phase: 'loaded', objects: e.model.objectCount, namespaces: e.model.namespaces().length, failedTypes: s.failed });
  }

  /** Loads every context that was opened (any state but idle): the palette's Load Cluster Resources. */
  loadOpened(signal?: AbortSignal): Promise<void> {
    return Promise.all([...this.entries.values()].filter((e) => e.state.phase !== 'idle').map((e) => this.load(e.name, signal ? { signal } : {}))).then(
      () => undefined,
    );
  }

  /** Cancels every running load (Cancel Load); true when one ran. */
  cancel(): boolean {
    let any = false;
    for (const e of this.entries.values()) {
      if (!e.running) continue;
      e.running.abort(new Error('cancelled by the user'));
      any = true;
    }
    return any;
  }

  get loading(): boolean {
    return [...this.entries.values()].some((e) => e.running);
  }

  dispose(): void {
    for (const e of this.entries.values()) this.drop(e);
    this.entries.clear();
    this.listeners.clear();
  }

  private create(name: string): Entry {
    const model = new ResourceModel(name);
    const e: Entry = {
      name,
      model,
      tree: new TreeModel(model),
      state: { phase: 'idle' },
      server: undefined,
      running: undefined,
      retry: new RetryTimer(this.o.clock, this.o.backoff ?? CONTEXT_RETRY_BACKOFF, () => void this.load(name, { retry: true }), this.o.random),
    };
    return e;
  }

  private drop(e: Entry): void {
    e.retry.cancel();
    e.running?.abort(new Error(`context "${e.name}" was removed`));
    e.running = undefined;
    this.o.closed?.(e.name);
  }

  private set(e: Entry, state: ContextState): void {
    e.state = state;
    this.emit(e.name);
  }

  private emit(name: string | undefined): void {
    for (const l of this.listeners) {
      try {
        l(name);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}
