/**
 * The garbage collector (kube-controller-manager's "garbagecollector"): ownerReferences and
 * cascading deletion, over a graph of owner uid -> dependents kept from the store's events.
 *
 * Guarantees:
 * - Background: a dependent all of whose owners are gone (no object with the referenced uid) is
 *   deleted (pods gracefully, as a DELETE would); one with some owners left loses only the
 *   references to the absent ones.
 * - Foreground: an owner with deletionTimestamp and the `foregroundDeletion` finalizer has its
 *   dependents deleted first (each itself in the foreground when it has dependents); once no
 *   dependent that blocks owner deletion remains, the finalizer is removed and the owner deleted.
 * - Orphan: an owner with deletionTimestamp and the `orphan` finalizer has its uid removed from
 *   every dependent's ownerReferences, then the finalizer is removed and the owner deleted.
 * - Level-triggered: every item is re-read from the store when processed; a missing object is done.
 */
import type { DemoObject, ObjectStore, StoreEvent, TypeInfo } from '../store';
import { kubeTimestamp } from '../kubelet/eventRecorder';
import type { ControllerContext, OwnerReference } from './controllerContext';
import { objectKey } from './observe';
import type { WorkQueue } from './queue';
import type { Controller } from './replicaset';

export const FOREGROUND = 'foregroundDeletion';
export const ORPHAN = 'orphan';
const SEP = '\u0000';

interface Ref {
  group: string;
  resource: string;
  namespace: string | undefined;
  name: string;
}

const refKey = (r: Ref) => [r.group, r.resource, r.namespace ?? '', r.name].join(SEP);
function parseRef(k: string): Ref {
  const [group, resource, namespace, name] = k.split(SEP) as [string, string, string, string];
  return { group, resource, namespace: namespace || undefined, name };
}

const ownersOf = (o: DemoObject): OwnerReference[] => (o.metadata.ownerReferences as OwnerReference[] | undefined) ?? [];
const finalizersOf = (o: DemoObject): string[] => (o.metadata.finalizers as string[] | undefined) ?? [];

/** o with these ownerReferences; none left drops the field, as Go's omitempty serialises it. */
function withOwners(o: DemoObject, refs: OwnerReference[]): DemoObject {
  const { ownerReferences: _old, ...meta } = o.metadata;
  return { ...o, metadata: refs.length ? { ...meta, ownerReferences: refs } : meta } as DemoObject;
}

/** The stored type of an ownerReference's apiVersion and kind. */
function typeOfRef(store: ObjectStore, ref: OwnerReference): TypeInfo | undefined {
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  return store.types().find((t) => t.group === group && t.kind === ref.kind);
}

export function startGarbageCollector(ctx: ControllerContext): Controller {
  const gc = new GarbageCollector(ctx);
  const unsubscribe = ctx.store.subscribe((e) => gc.processGraphChanges(e));
  gc.seed();
  return {
    name: 'garbagecollector',
    stop() {
      unsubscribe();
      gc.queue.stop();
    },
  };
}

/** upstream's GraphBuilder, reduced to what the demo needs: owner uid -> keys of the objects that reference it. */
class DependencyGraph {
  private readonly dependents = new Map<string, Set<string>>();

  link(o: DemoObject, group: string, resource: string, add: boolean): void {
    const k = refKey({ group, resource, namespace: o.metadata.namespace, name: o.metadata.name });
    for (const r of ownersOf(o)) {
      let s = this.dependents.get(r.uid);
      if (add) {
        if (!s) this.dependents.set(r.uid, (s = new Set()));
        s.add(k);
      } else s?.delete(k);
    }
  }

  of(uid: string): Iterable<string> {
    return this.dependents.get(uid) ?? [];
  }

  count(uid: string): number {
    return this.dependents.get(uid)?.size ?? 0;
  }
}

class GarbageCollector {
  private readonly store: ObjectStore;
  private readonly graph = new DependencyGraph();
  /** upstream's attemptToDelete queue: objects the graph says may have lost an owner, or are finishing a cascading deletion. */
  readonly queue: WorkQueue;

  constructor(private readonly ctx: ControllerContext) {
    this.store = ctx.store;
    this.queue = ctx.queue(
      'garbagecollector',
      'attemptToDeleteItem',
      (k) => this.process(k),
      (k) => {
        const r = parseRef(k);
        return objectKey(r.group, r.resource, r.namespace, r.name);
      },
    );
  }

  /** The graph follows each event; what may now be garbage, or may now finish, is queued. */
  processGraphChanges(e: StoreEvent): void {
    const { store, queue } = this;
    const o = e.object;
    const k = refKey({ group: e.group, resource: e.resource, namespace: o.metadata.namespace, name: o.metadata.name });
    if (e.prevObject) this.graph.link(e.prevObject, e.group, e.resource, false);
    if (e.type !== 'DELETED') {
      this.graph.link(o, e.group, e.resource, true);
      if (o.metadata.deletionTimestamp && (finalizersOf(o).includes(FOREGROUND) || finalizersOf(o).includes(ORPHAN))) queue.add(k);
      if (ownersOf(o).length) queue.add(k);
      return;
    }
    // An owner gone: its dependents may now be garbage. A dependent gone: a foreground owner may be done.
    for (const dk of this.graph.of(o.metadata.uid!)) queue.add(dk);
    for (const ref of ownersOf(o)) {
      const t = typeOfRef(store, ref);
      if (t) queue.add(refKey({ group: t.group, resource: t.resource, namespace: t.namespaced ? o.metadata.namespace : undefined, name: ref.name }));
    }
  }

  /** The initial list: every object with owners, or with a cascading deletion pending. */
  seed(): void {
    for (const t of this.store.types()) {
      for (const o of this.store.list(t.group, t.resource).items) {
        const k = refKey({ group: t.group, resource: t.resource, namespace: o.metadata.namespace, name: o.metadata.name });
        if (ownersOf(o).length) {
          this.graph.link(o, t.group, t.resource, true);
          this.queue.add(k);
        }
        if (o.metadata.deletionTimestamp && finalizersOf(o).some((f) => f === FOREGROUND || f === ORPHAN)) this.queue.add(k);
      }
    }
  }

  private process(key: string): void {
    const r = parseRef(key);
    if (!this.store.type(r.group, r.resource)) return;
    const o = this.store.get(r.group, r.resource, r.namespace, r.name);
    if (!o) return;
    const fins = finalizersOf(o);
    if (o.metadata.deletionTimestamp && fins.includes(ORPHAN)) return this.orphanDependents(r, o);
    if (o.metadata.deletionTimestamp && fins.includes(FOREGROUND)) return this.processDeletingDependents(r, o);
    this.attemptToDeleteItem(r, o);
  }

  private attemptToDeleteItem(r: Ref, o: DemoObject): void {
    const refs = ownersOf(o);
    if (!refs.length) return;
    const present = refs.filter((ref) => this.ownerOf(o, ref));
    if (present.length === refs.length) {
      // Every owner exists: delete only when each is waiting for its dependents (foreground).
      const waiting = present.every((ref) => {
        const owner = this.ownerOf(o, ref)!;
        return !!owner.metadata.deletionTimestamp && finalizersOf(owner).includes(FOREGROUND);
      });
      if (waiting) this.remove(r, o, true);
      return;
    }
    if (present.length === 0) return this.remove(r, o, false);
    const keep = new Set(present.map((p) => p.uid));
    this.store.update(
      r.group,
      r.resource,
      withOwners(
        o,
        refs.filter((x) => keep.has(x.uid)),
      ),
    );
  }

  /** Foreground: the dependents go first; the owner's finalizer goes once none blocks it. */
  private processDeletingDependents(r: Ref, o: DemoObject): void {
    for (const { r: dr, dep } of this.liveDependents(o)) {
      if (!dep.metadata.deletionTimestamp) this.remove(dr, dep, true);
    }
    const blocking = this.liveDependents(o).filter(({ dep }) => ownersOf(dep).some((x) => x.uid === o.metadata.uid && x.blockOwnerDeletion));
    if (blocking.length === 0) this.finish(r, o, FOREGROUND);
  }

  private orphanDependents(r: Ref, o: DemoObject): void {
    for (const { r: dr, dep } of this.liveDependents(o)) {
      this.store.update(
        dr.group,
        dr.resource,
        withOwners(
          dep,
          ownersOf(dep).filter((x) => x.uid !== o.metadata.uid),
        ),
      );
    }
    this.finish(r, o, ORPHAN);
  }

  private ownerOf(dep: DemoObject, ref: OwnerReference): DemoObject | undefined {
    const t = typeOfRef(this.store, ref);
    if (!t) return undefined;
    const o = this.store.get(t.group, t.resource, t.namespaced ? dep.metadata.namespace : undefined, ref.name);
    return o && o.metadata.uid === ref.uid ? o : undefined;
  }

  private liveDependents(o: DemoObject): { r: Ref; dep: DemoObject }[] {
    const out: { r: Ref; dep: DemoObject }[] = [];
    for (const k of this.graph.of(o.metadata.uid!)) {
      const r = parseRef(k);
      const dep = this.store.type(r.group, r.resource) && this.store.get(r.group, r.resource, r.namespace, r.name);
      if (dep && ownersOf(dep).some((x) => x.uid === o.metadata.uid)) out.push({ r, dep });
    }
    return out;
  }

  /** Deletes o as the GC's DELETE with the given propagation would. */
  private remove(r: Ref, o: DemoObject, foreground: boolean): void {
    if (o.metadata.deletionTimestamp) return;
    if (r.group === '' && r.resource === 'pods') return this.ctx.deletePod(o);
    if (foreground && this.graph.count(o.metadata.uid!) > 0) {
      this.store.update(r.group, r.resource, {
        ...o,
        metadata: { ...o.metadata, deletionTimestamp: kubeTimestamp(this.ctx.wallNow()), finalizers: [...finalizersOf(o), FOREGROUND] },
      });
      return;
    }
    this.store.delete(r.group, r.resource, r.namespace, r.name);
  }

  /** Removes one finalizer; deletes the object when it was the last and a deletion is pending. */
  private finish(r: Ref, o: DemoObject, finalizer: string): void {
    const rest = finalizersOf(o).filter((f) => f !== finalizer);
    if (rest.length === 0) {
      this.store.delete(r.group, r.resource, r.namespace, r.name);
      return;
    }
    this.store.update(r.group, r.resource, { ...o, metadata: { ...o.metadata, finalizers: rest } });
  }
}
