import type { ProbeResult, ProbeType } from '../types';

/**
 * ProbeResultsCache: the latest inferred probe result per pod UID, container and probe — the part
 * of upstream's status manager that readiness and startup results are recorded in before the sync
 * that reads them. Keyed by UID, as upstream: a pod recreated under the same name starts with no
 * results, never with its predecessor's. Latest value only (level, not history): memory is one
 * entry per container of a desired pod; housekeeping drops UIDs no longer desired.
 */
export class ProbeResultsCache {
  private readonly byUid = new Map<string, Map<string, Partial<Record<ProbeType, ProbeResult>>>>();

  set(uid: string, container: string, probe: ProbeType, result: ProbeResult): void {
    let m = this.byUid.get(uid);
    if (!m) this.byUid.set(uid, (m = new Map()));
    const r = m.get(container) ?? {};
    r[probe] = result;
    m.set(container, r);
  }

  get(uid: string): ReadonlyMap<string, Partial<Record<ProbeType, ProbeResult>>> | undefined {
    return this.byUid.get(uid);
  }

  /** Drops one container's results (PLEG reported it dead: upstream cleans up that container). */
  deleteContainer(uid: string, container: string): void {
    const m = this.byUid.get(uid);
    if (!m) return;
    m.delete(container);
    if (m.size === 0) this.byUid.delete(uid);
  }

  delete(uid: string): void {
    this.byUid.delete(uid);
  }

  keys(): IterableIterator<string> {
    return this.byUid.keys();
  }

  get size(): number {
    return this.byUid.size;
  }
}
