import type { ProbeResult, ProbeType } from '../types';

/**
 * ProbeResultsCache: the latest inferred probe result per pod UID, container and probe — the part
 * of upstream's status manager that readiness and startup results are recorded in before the sync
 * that reads them. Keyed by UID, as upstream: a pod recreated under the same name starts with no
 * results, never with its predecessor's. Results are shown by container name and belong to one
 * container instance (its ID, as upstream's results managers key them): a dead instance's cleanup
 * never drops the results of the instance that replaced it. Latest value only (level, not history):
 * memory is one entry per container of a desired pod; housekeeping drops UIDs no longer desired.
 */
export class ProbeResultsCache {
  private readonly byUid = new Map<string, Map<string, Partial<Record<ProbeType, ProbeResult>>>>();
  /** The container instance (runtime ID) each name's results belong to, when known. */
  private readonly instances = new Map<string, Map<string, string>>();

  set(uid: string, container: string, probe: ProbeType, result: ProbeResult, containerId?: string): void {
    let m = this.byUid.get(uid);
    if (!m) this.byUid.set(uid, (m = new Map()));
    let r = m.get(container) ?? {};
    if (containerId !== undefined) {
      let ids = this.instances.get(uid);
      if (!ids) this.instances.set(uid, (ids = new Map()));
      // A new instance starts with no results of the old one.
      if (ids.get(container) !== containerId) r = {};
      ids.set(container, containerId);
    }
    r[probe] = result;
    m.set(container, r);
  }

  get(uid: string): ReadonlyMap<string, Partial<Record<ProbeType, ProbeResult>>> | undefined {
    return this.byUid.get(uid);
  }

  /**
   * Drops one container instance's results (PLEG reported it dead). With `containerId`, only if the
   * name's results are that instance's (or of no known instance): a newer instance's stay.
   */
  deleteContainer(uid: string, container: string, containerId?: string): void {
    const m = this.byUid.get(uid);
    if (!m) return;
    const ids = this.instances.get(uid);
    const owner = ids?.get(container);
    if (containerId !== undefined && owner !== undefined && owner !== containerId) return;
    m.delete(container);
    ids?.delete(container);
    if (ids?.size === 0) this.instances.delete(uid);
    if (m.size === 0) this.byUid.delete(uid);
  }

  delete(uid: string): void {
    this.byUid.delete(uid);
    this.instances.delete(uid);
  }

  keys(): IterableIterator<string> {
    return this.byUid.keys();
  }

  get size(): number {
    return this.byUid.size;
  }
}
