/**
 * What each controller's reconcile did, for the timeline's controller lanes: the key, upstream's
 * handler name, the time on the controllers' clock, the duration, and every store write made while
 * it ran (objects created, deleted or marked for deletion, updated; status writes; Events).
 *
 * Guarantees: a reconcile is synchronous (WorkQueue.drain calls one at a time), so every write
 * between its start and its end is its own and no other's; a record is handed to `emit` once per
 * reconcile, after it returned or threw (outcome 'error', the exception's message), and the
 * exception still reaches the work queue. Without an observer nothing is wrapped (no cost).
 */
import type { ControllerReconcileEvent } from '../../core/timeline/events';
import type { KubeletClock } from '../kubelet/kubeletClock';
import type { ObjectStore, StoreEvent } from '../store';

/** A reconcile as the timeline shows it; `t` is the controllers' clock (performance.now() in a real process). */
export type ReconcileRecord = Omit<ControllerReconcileEvent, 'kind'>;

interface Running {
  created: string[];
  deleted: string[];
  updated: Set<string>;
  statusUpdates: number;
  events: number;
}

/** `resource[.group]:namespace/name` (cluster-scoped: `resource[.group]:name`), as the sync loop keys non-pod objects. */
export function objectKey(group: string, resource: string, namespace: string | undefined, name: string): string {
  return `${group ? `${resource}.${group}` : resource}:${namespace ? `${namespace}/${name}` : name}`;
}

export class ReconcileObserver {
  private running: Running | undefined;
  private mode: 'status' | 'delete' | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    store: ObjectStore,
    private readonly clock: KubeletClock,
    private readonly emit: (r: ReconcileRecord) => void,
  ) {
    this.unsubscribe = store.subscribe((e) => this.onWrite(e));
  }

  /** fn, reporting each call as a reconcile of `controller` (keyText turns the queue key into an object key). */
  wrap(controller: string, handler: string, keyText: (key: string) => string, fn: (key: string) => void): (key: string) => void {
    return (key) => {
      const run: Running = { created: [], deleted: [], updated: new Set(), statusUpdates: 0, events: 0 };
      this.running = run;
      const t = this.clock.now();
      let failure: unknown;
      let failed = false;
      try {
        fn(key);
      } catch (e) {
        failed = true;
        failure = e;
        throw e;
      } finally {
        this.running = undefined;
        const r: ReconcileRecord = { t, controller, key: keyText(key), handler, durationMs: this.clock.now() - t, outcome: failed ? 'error' : 'ok' };
        if (run.created.length) r.created = run.created;
        if (run.deleted.length) r.deleted = run.deleted;
        if (run.updated.size) r.updated = [...run.updated];
        if (run.statusUpdates) r.statusUpdates = run.statusUpdates;
        if (run.events) r.events = run.events;
        if (failed) r.message = failure instanceof Error ? failure.message : String(failure);
        try {
          this.emit(r);
        } catch {
          // the observer's failure is its own; the controller goes on
        }
      }
    };
  }

  /** Runs a write that is a status write (updateStatus) or a graceful deletion (deletePod), so it is counted as one. */
  as<T>(mode: 'status' | 'delete', write: () => T): T {
    this.mode = mode;
    try {
      return write();
    } finally {
      this.mode = undefined;
    }
  }

  stop(): void {
    this.unsubscribe();
  }

  private onWrite(e: StoreEvent): void {
    const run = this.running;
    if (!run) return;
    if (e.resource === 'events') {
      run.events++;
      return;
    }
    const k = objectKey(e.group, e.resource, e.object.metadata.namespace, e.object.metadata.name);
    if (e.type === 'ADDED') run.created.push(k);
    else if (e.type === 'DELETED' || this.mode === 'delete') {
      if (!run.deleted.includes(k)) run.deleted.push(k);
    } else if (this.mode === 'status') run.statusUpdates++;
    else run.updated.add(k);
  }
}
