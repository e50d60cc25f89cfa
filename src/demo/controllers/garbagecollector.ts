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
import type { DemoObject, ObjectStore, TypeInfo } from '../store';
import { kubeTimestamp } from '../kubelet/eventRecorder';
import type { ControllerContext, OwnerReference } from './controllerContext';
import { objectKey } from './observe';
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
  const { store } = ctx;
  /** owner uid -> keys of objects that reference it. */
  const dependents = new Map<string, Set<string>>();
  // upstream's attemptToDeleteItem, for one object the graph says may have lost an owner
  const queue = ctx.queue('garbagecollector', 'attemptToDeleteItem', process, (k) => {
    const r = parseRef(k);
    return objectKey(r.group, r.resource, r.namespace, r.name);
  });

  const link = (o: DemoObject, group: string, resource: string, add: boolean) => {
    const k = refKey({ group, resource, namespace: o.metadata.namespace, name: o.metadata.name });
    for (const r of ownersOf(o)) {
      let s = dependents.get(r.uid);
      if (add) {
        if (!s) dependents.set(r.uid, (s = new Set()));
        s.add(k);
      } else s?.delete(k);
    }
  };

  function ownerOf(dep: DemoObject, ref: OwnerReference): DemoObject | undefined {
    const t = typeOfRef(store, ref);
    if (!t) return undefined;
    const o = store.get(t.group, t.resource, t.namespaced ? dep.metadata.namespace : undefined, ref.name);
    return o && o.metadata.uid === ref.uid ? o : undefined;
  }

  /** Deletes o as the GC's DELETE with the given propagation would. */
  function remove(r: Ref, o: DemoObject, foreground: boolean): void {
    if (o.metadata.deletionTimestamp) return;
    if (r.group === '' && r.resource === 'pods') return ctx.deletePod(o);
    if (foreground && (dependents.get(o.metadata.uid!)?.size ?? 0) > 0) {
      store.update(r.group, r.resource, {
        ...o,
        metadata: { ...o.metadata, deletionTimestamp: kubeTimestamp(ctx.wallNow()), finalizers: [...finalizersOf(o), FOREGROUND] },
      });
      return;
    }
    store.delete(r.group, r.resource, r.namespace, r.name);
  }

  /** Removes one finalizer; deletes the object when it was the last and a deletion is pending. */
  function finish(r: Ref, o: DemoObject, finalizer: string): void {
    const rest = finalizersOf(o).filter((f) => f !== finalizer);
    if (rest.length === 0) {
      store.delete(r.group, r.resource, r.namespace, r.name);
      return;
    }
    store.update(r.group, r.resource, { ...o, metadata: { ...o.metadata, finalizers: rest } });
  }

  function process(key: string): void {
    const r = parseRef(key);
    if (!store.type(r.group, r.resource)) return;
    const o = store.get(r.group, r.resource, r.namespace, r.name);
    if (!o) return;
    const fins = finalizersOf(o);
    if (o.metadata.deletionTimestamp && fins.includes(ORPHAN)) return orphanDependents(r, o);
    if (o.metadata.deletionTimestamp && fins.includes(FOREGROUND)) return deleteDependentsFirst(r, o);
    attemptToDelete(r, o);
  }

  function attemptToDelete(r: Ref, o: DemoObject): void {
    const refs = ownersOf(o);
    if (!refs.length) return;
    const present = refs.filter((ref) => ownerOf(o, ref));
    if (present.length === refs.length) {
      // Every owner exists: delete only when each is waiting for its dependents (foreground).
      const waiting = present.every((ref) => {
        const owner = ownerOf(o, ref)!;
        return !!owner.metadata.deletionTimestamp && finalizersOf(owner).includes(FOREGROUND);
      });
      if (waiting) remove(r, o, true);
      return;
    }
    if (present.length === 0) return remove(r, o, false);
    const keep = new Set(present.map((p) => p.uid));
    store.update(
      r.group,
      r.resource,
      withOwners(
        o,
        refs.filter((x) => keep.has(x.uid)),
      ),
    );
  }

  function liveDependents(o: DemoObject): { r: Ref; dep: DemoObject }[] {
    const out: { r: Ref; dep: DemoObject }[] = [];
    for (const k of dependents.get(o.metadata.uid!) ?? []) {
      const r = parseRef(k);
      const dep = store.type(r.group, r.resource) && store.get(r.group, r.resource, r.namespace, r.name);
      if (dep && ownersOf(dep).some((x) => x.uid === o.metadata.uid)) out.push({ r, dep });
    }
    return out;
  }

  function deleteDependentsFirst(r: Ref, o: DemoObject): void {
    const deps = liveDependents(o);
    for (const { r: dr, dep } of deps) {
      if (!dep.metadata.deletionTimestamp) remove(dr, dep, true);
    }
    const blocking = liveDependents(o).filter(({ dep }) => ownersOf(dep).some((x) => x.uid === o.metadata.uid && x.blockOwnerDeletion));
    if (blocking.length === 0) finish(r, o, FOREGROUND);
  }

  function orphanDependents(r: Ref, o: DemoObject): void {
    for (const { r: dr, dep } of liveDependents(o)) {
      store.update(
        dr.group,
        dr.resource,
        withOwners(
          dep,
          ownersOf(dep).filter((x) => x.uid !== o.metadata.uid),
        ),
      );
    }
    finish(r, o, ORPHAN);
  }

  const unsubscribe = store.subscribe((e) => {
    const o = e.object;
    const k = refKey({ group: e.group, resource: e.resource, namespace: o.metadata.namespace, name: o.metadata.name });
    if (e.prevObject) link(e.prevObject, e.group, e.resource, false);
    if (e.type !== 'DELETED') {
      link(o, e.group, e.resource, true);
      if (o.metadata.deletionTimestamp && (finalizersOf(o).includes(FOREGROUND) || finalizersOf(o).includes(ORPHAN))) queue.add(k);
      if (ownersOf(o).length) queue.add(k);
      return;
    }
    // An owner gone: its dependents may now be garbage. A dependent gone: a foreground owner may be done.
    for (const dk of dependents.get(o.metadata.uid!) ?? []) queue.add(dk);
    for (const ref of ownersOf(o)) {
      const t = typeOfRef(store, ref);
      if (t) queue.add(refKey({ group: t.group, resource: t.resource, namespace: t.namespaced ? o.metadata.namespace : undefined, name: ref.name }));
    }
  });
  for (const t of store.types()) {
    for (const o of store.list(t.group, t.resource).items) {
      if (ownersOf(o).length) {
        link(o, t.group, t.resource, true);
        queue.add(refKey({ group: t.group, resource: t.resource, namespace: o.metadata.namespace, name: o.metadata.name }));
      }
      if (o.metadata.deletionTimestamp && finalizersOf(o).some((f) => f === FOREGROUND || f === ORPHAN)) {
        queue.add(refKey({ group: t.group, resource: t.resource, namespace: o.metadata.namespace, name: o.metadata.name }));
      }
    }
  }

  return {
    name: 'garbagecollector',
    stop() {
      unsubscribe();
      queue.stop();
    },
  };
}
