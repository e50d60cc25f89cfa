import { isPodResource, type ResourceRef } from '../../kube/objects/objectKey';
import type { StoredObject } from '../../kube/objects/types';
import { activeDeadlineSeconds } from '../podstatus';

/**
 * DesiredStateOfWorld: what the API server says exists (upstream: the kubelet's pod manager; the
 * name is the volume manager's, for the set the loop converges towards). Keyed by object key, with
 * the UID kept so a stale message about a previous incarnation of a name cannot touch the current one.
 *
 * Guarantees: at most one entry per key, and the UID index always points at the pod entry that holds
 * it (pods only: PLEG events, probe results and the work queue name pods by UID, nothing names
 * another kind's object so; at 1,000,000 objects an index of every UID was a Map of 850,000 entries
 * for no reader); the pod index holds exactly the entries whose resource is pods, so the loop's per-tick and
 * housekeeping passes over pods cost the pods, not every object of every watched type; the deadline
 * index holds exactly the pods with a positive spec.activeDeadlineSeconds, so the sync tick's
 * deadline handler costs those pods, not every pod.
 */
export interface DesiredObject {
  key: string;
  obj: StoredObject;
  resource?: ResourceRef;
  source: string;
}

export class DesiredStateOfWorld {
  private readonly byKey = new Map<string, DesiredObject>();
  private readonly uidToKey = new Map<string, string>();
  private readonly podsByKey = new Map<string, DesiredObject>();
  private readonly deadlinePods = new Map<string, DesiredObject>();

  /** Adds or replaces the object under key (a new UID replaces the old incarnation). */
  set(entry: DesiredObject): void {
    const old = this.byKey.get(entry.key);
    const pod = isPodResource(entry.resource);
    if (old && (old.obj.metadata.uid !== entry.obj.metadata.uid || !pod)) this.dropUid(old);
    this.byKey.set(entry.key, entry);
    if (pod) this.uidToKey.set(entry.obj.metadata.uid, entry.key);
    if (pod) this.podsByKey.set(entry.key, entry);
    else this.podsByKey.delete(entry.key);
    if (pod && activeDeadlineSeconds(entry.obj) !== undefined) this.deadlinePods.set(entry.key, entry);
    else this.deadlinePods.delete(entry.key);
  }

  /** Removes key if it still holds `uid` (or unconditionally without uid). True when removed. */
  remove(key: string, uid?: string): boolean {
    const cur = this.byKey.get(key);
    if (!cur) return false;
    if (uid !== undefined && cur.obj.metadata.uid !== uid) return false;
    this.byKey.delete(key);
    this.dropUid(cur);
    this.podsByKey.delete(key);
    this.deadlinePods.delete(key);
    return true;
  }

  /** Drops the UID index's entry of `d` if it is d's (another key may hold that UID now). */
  private dropUid(d: DesiredObject): void {
    if (this.uidToKey.get(d.obj.metadata.uid) === d.key) this.uidToKey.delete(d.obj.metadata.uid);
  }

  get(key: string): DesiredObject | undefined {
    return this.byKey.get(key);
  }

  /** The desired pod with this UID (only pods are indexed by UID). */
  getByUID(uid: string): DesiredObject | undefined {
    const key = this.uidToKey.get(uid);
    return key === undefined ? undefined : this.byKey.get(key);
  }

  /** Entries in the UID index (the pods'). */
  get uidIndexSize(): number {
    return this.uidToKey.size;
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /** Whether `uid` is a desired pod (through the UID index: nothing is copied). */
  hasPodUID(uid: string): boolean {
    return this.podByUID(uid) !== undefined;
  }

  /** The desired pod with this UID (undefined for another kind's object, or none). */
  podByUID(uid: string): DesiredObject | undefined {
    const d = this.getByUID(uid);
    return d !== undefined && this.podsByKey.get(d.key) === d ? d : undefined;
  }

  keys(): IterableIterator<string> {
    return this.byKey.keys();
  }

  values(): IterableIterator<DesiredObject> {
    return this.byKey.values();
  }

  /** The pods alone (the entries whose resource is pods). */
  pods(): IterableIterator<DesiredObject> {
    return this.podsByKey.values();
  }

  /** The pods with a positive spec.activeDeadlineSeconds (the only ones its handler can act on). */
  podsWithActiveDeadline(): IterableIterator<DesiredObject> {
    return this.deadlinePods.values();
  }

  get podCount(): number {
    return this.podsByKey.size;
  }

  get size(): number {
    return this.byKey.size;
  }
}
