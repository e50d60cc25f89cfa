import { runSteps, STEP_ITEMS, type Steps } from '../../slice';
import { deepEqual } from '../equal';
import type { PodOperation, PodUpdate } from '../types';
import type { StoredObject } from '../../kube/objects/types';
import { isPodResource, type ResourceRef } from '../../kube/objects/objectKey';
import type { Pod } from '../../kube/objects/pod';
import { shareUnchanged } from '../../kube/objects/share';
import { isLoopCopy, loopPod, specFingerprint, statusFingerprint } from './loopPod';

/**
 * PodStorage: upstream pkg/kubelet/config/config.go podStorage.merge — turns what a source says
 * (a full snapshot, SET, or single watch changes, ADD/UPDATE/DELETE/REMOVE) into the minimal
 * incremental updates the loop handles, by comparing with what that source said before.
 *
 * For an object the source already had (same UID):
 * - nothing but status changed                   -> RECONCILE
 * - something else changed, deletionTimestamp set -> DELETE (graceful deletion)
 * - something else changed                        -> UPDATE
 * - nothing changed (e.g. only resourceVersion)   -> nothing
 * A UID the source did not have -> ADD. A UID missing from a SET, or named by a REMOVE -> REMOVE.
 *
 * "Something else" is podsDifferSemantically: spec, labels, annotations (minus the kubelet's local
 * ones), deletionTimestamp, deletionGracePeriodSeconds — and, for kinds without a spec, every other
 * top-level field (data, rules, ...) except status.
 *
 * State is per source, keyed by UID; a source counts as seen once it has sent a SET (its first full
 * list), which is what gates housekeeping.
 *
 * Memory: a pods source holds, and its updates carry, the loop's copy of each pod (loopPod.ts: the
 * fields the loop reads, and fingerprints of what only this merge compares), never the pod as
 * listed; the loop's other holders (the desired state, the pod workers, the pod cache) take it
 * from here, so a full pod lives only while its list or event is handled. Other kinds are held as
 * they came.
 */
export interface MergeResult {
  adds: PodUpdate;
  updates: PodUpdate;
  deletes: PodUpdate;
  removes: PodUpdate;
  reconciles: PodUpdate;
  /** True when this merge was the source's first SET. */
  firstSet: boolean;
}

/** Annotations the kubelet itself puts on pods; changes to them are not changes to the pod. */
const localAnnotations = new Set(['kubernetes.io/config.source', 'kubernetes.io/config.mirror', 'kubernetes.io/config.seen']);

export class PodStorage {
  private readonly pods = new Map<string, Map<string, StoredObject>>();
  private readonly resources = new Map<string, ResourceRef | undefined>();
  private readonly sourcesSeen = new Set<string>();

  merge(source: string, change: PodUpdate): MergeResult {
    return runSteps(this.mergeSteps(source, change));
  }

  /**
   * merge() as steps (slice.ts): yields every STEP_ITEMS objects of a large SET or batch. The
   * source's new state and its "seen" mark are stored only after the last step, so a reader between
   * steps sees the source as it was before this merge (a SET's map is a new one; a watch change is
   * one object, never split).
   */
  *mergeSteps(source: string, change: PodUpdate): Steps<MergeResult> {
    const l = yield* this.mergeLists(source, change);
    return {
      adds: update('ADD', l.adds, source, l.resource),
      updates: update('UPDATE', l.updates, source, l.resource),
      deletes: update('DELETE', l.deletes, source, l.resource),
      removes: update('REMOVE', l.removes, source, l.resource),
      reconciles: update('RECONCILE', l.reconciles, source, l.resource),
      firstSet: l.firstSet,
    };
  }

  /** The merge itself (see mergeSteps): the objects of each kind of update, lists made only for kinds that got one. */
  private *mergeLists(source: string, change: PodUpdate): Steps<MergeLists> {
    const resource = change.resource ?? this.resources.get(source);
    this.resources.set(source, resource);
    const seenBefore = this.sourcesSeen.has(source);
    // A watch event fills one of the five lists: the others stay the shared empty one. (Five lists,
    // five updates and a result per merge, hundreds of merges a second under churn, were garbage
    // made for nothing, some of it kept while its update waited in configCh.)
    const l: MergeLists = { adds: NONE, updates: NONE, deletes: NONE, removes: NONE, reconciles: NONE, resource, firstSet: false };
    let pods = this.pods.get(source) ?? new Map<string, StoredObject>();

    switch (change.op) {
      case 'ADD':
      case 'UPDATE':
      case 'DELETE':
      case 'RECONCILE':
        yield* classify(l, change.pods, pods, pods, isPodResource(resource));
        break;
      case 'REMOVE':
        for (const p of change.pods) {
          const existing = pods.get(p.metadata.uid);
          if (!existing) continue; // removing what we never had is a no-op
          pods.delete(p.metadata.uid);
          l.removes = add(l.removes, existing);
        }
        break;
      case 'SET': {
        const oldPods = pods;
        pods = new Map();
        yield* classify(l, change.pods, oldPods, pods, isPodResource(resource));
        let n = 0;
        for (const [uid, existing] of oldPods) {
          if (++n % STEP_ITEMS === 0) yield;
          if (!pods.has(uid)) l.removes = add(l.removes, existing);
        }
        this.sourcesSeen.add(source);
        break;
      }
    }
    this.pods.set(source, pods);
    l.firstSet = !seenBefore && this.sourcesSeen.has(source);
    return l;
  }

  /**
   * The updates to deliver for one change, in upstream's incremental order: REMOVE, ADD, UPDATE,
   * DELETE, then RECONCILE. A source's first SET that changes nothing still yields one empty ADD,
   * so the loop learns the source is ready.
   */
  mergeToUpdates(source: string, change: PodUpdate): PodUpdate[] {
    return runSteps(this.mergeToUpdatesSteps(source, change));
  }

  /** mergeToUpdates() as steps (see mergeSteps). */
  *mergeToUpdatesSteps(source: string, change: PodUpdate): Steps<PodUpdate[]> {
    const l = yield* this.mergeLists(source, change);
    const out: PodUpdate[] = [];
    if (l.removes.length > 0) out.push(update('REMOVE', l.removes, source, l.resource));
    if (l.adds.length > 0) out.push(update('ADD', l.adds, source, l.resource));
    if (l.updates.length > 0) out.push(update('UPDATE', l.updates, source, l.resource));
    if (l.deletes.length > 0) out.push(update('DELETE', l.deletes, source, l.resource));
    if (l.firstSet && l.adds.length === 0 && l.updates.length === 0 && l.deletes.length === 0) out.push(update('ADD', [], source, l.resource));
    if (l.reconciles.length > 0) out.push(update('RECONCILE', l.reconciles, source, l.resource));
    return out;
  }

  /** True when every named source has sent at least one SET. */
  seenSources(...sources: string[]): boolean {
    return sources.every((s) => this.sourcesSeen.has(s));
  }

  /** The object a source holds under `uid` (the version its next watch change replaces), if any. */
  held(source: string, uid: string): StoredObject | undefined {
    return this.pods.get(source)?.get(uid);
  }

  /** Objects held for a source, without copying (the PLEG reads these every second). Do not merge while iterating. */
  sourceValues(source: string): IterableIterator<StoredObject> {
    return (this.pods.get(source) ?? new Map<string, StoredObject>()).values();
  }

  /** Objects held for a source (for tests and the wiring's relist). */
  sourcePods(source: string): StoredObject[] {
    return [...(this.pods.get(source)?.values() ?? [])];
  }

  get objectCount(): number {
    let n = 0;
    for (const m of this.pods.values()) n += m.size;
    return n;
  }
}

interface MergeLists {
  adds: StoredObject[];
  updates: StoredObject[];
  deletes: StoredObject[];
  removes: StoredObject[];
  reconciles: StoredObject[];
  resource: ResourceRef | undefined;
  firstSet: boolean;
}

/** Each new object's kind of update, against what the source held (`oldPods`); `into` takes it (a pod as the loop's copy). */
function* classify(l: MergeLists, newPods: StoredObject[], oldPods: Map<string, StoredObject>, into: Map<string, StoredObject>, pods: boolean): Steps<void> {
  let n = 0;
  for (const obj of newPods) {
    if (++n % STEP_ITEMS === 0) yield;
    const ref = pods ? loopPod(obj as Pod) : obj;
    const uid = ref.metadata.uid;
    const existing = oldPods.get(uid);
    into.set(uid, ref);
    if (!existing) {
      l.adds = add(l.adds, ref);
      continue;
    }
    // The new copy takes the held copy's unchanged parts (share.ts), as the sinks make a watched
    // object take its held version's: what a change did not touch is not kept twice.
    if (pods && existing !== ref) shareUnchanged(existing, ref);
    const { needUpdate, needReconcile, needGracefulDelete } = checkAndUpdatePod(existing, ref);
    if (needUpdate) l.updates = add(l.updates, ref);
    else if (needReconcile) l.reconciles = add(l.reconciles, ref);
    else if (needGracefulDelete) l.deletes = add(l.deletes, ref);
  }
}

function update(op: PodOperation, pods: StoredObject[], source: string, resource: ResourceRef | undefined): PodUpdate {
  return resource ? { op, pods, source, resource } : { op, pods, source };
}

/** The shared empty list of a kind of update that got no object (never pushed to: `add` copies it first). */
const NONE: StoredObject[] = [];
Object.freeze(NONE);

function add(list: StoredObject[], o: StoredObject): StoredObject[] {
  if (list === NONE) return [o];
  list.push(o);
  return list;
}

export interface CheckResult {
  needUpdate: boolean;
  needReconcile: boolean;
  needGracefulDelete: boolean;
}

/** At most one of the three is true (upstream checkAndUpdatePod, without mutating `existing`). */
export function checkAndUpdatePod(existing: StoredObject, ref: StoredObject): CheckResult {
  if (!podsDifferSemantically(existing, ref)) {
    // Only status may have changed: the object's spec is the same, its observed state is not.
    const changed = fingerprinted(existing, ref) ? statusFingerprint(existing) !== statusFingerprint(ref) : !deepEqual(existing.status, ref.status);
    return { needUpdate: false, needReconcile: changed, needGracefulDelete: false };
  }
  const graceful = ref.metadata.deletionTimestamp != null;
  return { needUpdate: !graceful, needReconcile: false, needGracefulDelete: graceful };
}

export function podsDifferSemantically(existing: StoredObject, ref: StoredObject): boolean {
  const a = existing.metadata;
  const b = ref.metadata;
  if (!deepEqual(a.labels ?? {}, b.labels ?? {})) return true;
  if (!isAnnotationMapEqual(a.annotations, b.annotations)) return true;
  if ((a.deletionTimestamp ?? null) !== (b.deletionTimestamp ?? null)) return true;
  if ((a.deletionGracePeriodSeconds ?? null) !== (b.deletionGracePeriodSeconds ?? null)) return true;
  if (fingerprinted(existing, ref)) return specFingerprint(existing) !== specFingerprint(ref);
  const keys = new Set([...Object.keys(existing), ...Object.keys(ref)]);
  for (const k of keys) {
    if (k === 'metadata' || k === 'status') continue;
    if (!deepEqual(existing[k], ref[k])) return true;
  }
  return false;
}

/** Both are the loop's copies of pods: what they dropped is compared by fingerprint. */
function fingerprinted(a: StoredObject, b: StoredObject): boolean {
  return isLoopCopy(a) && isLoopCopy(b);
}

function isAnnotationMapEqual(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const x = a ?? {};
  const y = b ?? {};
  for (const k of Object.keys(y)) if (!localAnnotations.has(k) && x[k] !== y[k]) return false;
  for (const k of Object.keys(x)) if (!localAnnotations.has(k) && !(k in y)) return false;
  return true;
}
