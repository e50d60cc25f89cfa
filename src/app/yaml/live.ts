/**
 * LiveDocuments: keeps open YAML documents in step with the model. When the loader or the sync loop
 * changes an object whose YAML is open, the document is fetched again; when the object goes away,
 * the document is fetched again too, and then says the object is gone. No 'vscode' import: the glue
 * tracks and untracks documents and turns `refresh(id)` into the provider's change event.
 *
 * Guarantees:
 * - Level-triggered: a document is refreshed when the model's resourceVersion of its object (or the
 *   object's presence) differs from the one it was last refreshed for, whatever change announced it;
 *   a change that leaves the object as it was (another object of the bucket) refreshes nothing.
 * - Throttled per document: at most one refresh per `minIntervalMs`; changes inside that window
 *   coalesce into one refresh at its end, so the last state is always the one fetched.
 * - Only documents of the model's current context are refreshed; a model reset refreshes nothing
 *   (the documents keep what they showed until the user refreshes them or the model fills again).
 * - untrack() and dispose() cancel pending refreshes: no timer outlives its document.
 */
import type { Clock, TimerHandle } from '../../core/clock';
import { CLUSTER, type ModelChange, type ResourceModel } from '../model/resourceModel';
import { typeKeyOf } from '../model/keys';
import type { ObjectAddress } from './address';

/** What the model says about one object now: its resourceVersion, or undefined when it has none. */
export interface ModelLookup {
  context: string | undefined;
  /** The object's resourceVersion ('' when it has none), or undefined when the model does not hold it. */
  versionOf(namespace: string, typeKey: string, name: string): string | undefined;
}

/** What the tree's model says of its objects, as LiveDocuments reads it. */
export function lookupIn(model: ResourceModel): ModelLookup {
  return {
    get context() {
      return model.context;
    },
    versionOf: (ns, typeKey, name) => {
      const e = model.object(ns, typeKey, name);
      return e ? (e.view.resourceVersion ?? '') : undefined;
    },
  };
}

interface Tracked {
  address: ObjectAddress;
  typeKey: string;
  namespace: string;
  /** The model's version when the document was last refreshed (or opened); undefined = absent. */
  seen: string | undefined;
  lastRefresh: number;
  timer?: TimerHandle;
}

export class LiveDocuments {
  private readonly docs = new Map<string, Tracked>();

  constructor(
    private readonly model: ModelLookup,
    private readonly refresh: (id: string) => void,
    private readonly clock: Clock,
    private readonly minIntervalMs = 1000,
  ) {}

  get size(): number {
    return this.docs.size;
  }

  /** A document was opened: it shows the object as the model has it now. */
  track(id: string, address: ObjectAddress): void {
    this.untrack(id);
    const typeKey = typeKeyOf(address);
    const namespace = address.namespace ?? CLUSTER;
    this.docs.set(id, { address, typeKey, namespace, seen: this.current(address, namespace, typeKey), lastRefresh: this.clock.now() });
  }

  untrack(id: string): void {
    this.docs.get(id)?.timer?.cancel();
    this.docs.delete(id);
  }

  /** One model change: refreshes (now or at the end of the window) every document it altered. */
  onChange(change: ModelChange): void {
    if (change.kind === 'reset' || change.kind === 'failures') return;
    for (const [id, d] of this.docs) {
      if (d.typeKey !== change.typeKey || d.namespace !== change.namespace) continue;
      if (change.kind === 'object' && change.name !== d.address.name) continue;
      this.check(id, d);
    }
  }

  dispose(): void {
    for (const d of this.docs.values()) d.timer?.cancel();
    this.docs.clear();
  }

  private current(a: ObjectAddress, namespace: string, typeKey: string): string | undefined {
    return this.model.context === a.context ? this.model.versionOf(namespace, typeKey, a.name) : undefined;
  }

  private check(id: string, d: Tracked): void {
    if (this.model.context !== d.address.context || d.timer) return;
    if (this.current(d.address, d.namespace, d.typeKey) === d.seen) return;
    const wait = d.lastRefresh + this.minIntervalMs - this.clock.now();
    if (wait <= 0) return this.fire(id, d);
    d.timer = this.clock.setTimer(wait, () => {
      d.timer = undefined;
      if (this.docs.get(id) !== d) return;
      // level-triggered: the window may have brought the object back to what the document shows
      if (this.current(d.address, d.namespace, d.typeKey) !== d.seen) this.fire(id, d);
    });
  }

  private fire(id: string, d: Tracked): void {
    d.seen = this.current(d.address, d.namespace, d.typeKey);
    d.lastRefresh = this.clock.now();
    this.refresh(id);
  }
}
