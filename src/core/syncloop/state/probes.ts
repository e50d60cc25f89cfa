import type { ProbeResult, ProbeType } from '../types';

/**
 * ProbeResultsCache: the latest inferred probe result per object key, container and probe — the
 * part of upstream's status manager that readiness and startup results are recorded in before the
 * sync that reads them. Latest value only (level, not history): memory is one entry per container
 * of a desired pod; housekeeping drops keys no longer desired.
 */
export class ProbeResultsCache {
  private readonly byKey = new Map<string, Map<string, Partial<Record<ProbeType, ProbeResult>>>>();

  set(key: string, container: string, probe: ProbeType, result: ProbeResult): void {
    let m = this.byKey.get(key);
    if (!m) this.byKey.set(key, (m = new Map()));
    const r = m.get(container) ?? {};
    r[probe] = result;
    m.set(container, r);
  }

  get(key: string): ReadonlyMap<string, Partial<Record<ProbeType, ProbeResult>>> | undefined {
    return this.byKey.get(key);
  }

  /** Drops one container's results (PLEG reported it dead: upstream cleans up that container). */
  deleteContainer(key: string, container: string): void {
    const m = this.byKey.get(key);
    if (!m) return;
    m.delete(container);
    if (m.size === 0) this.byKey.delete(key);
  }

  delete(key: string): void {
    this.byKey.delete(key);
  }

  keys(): IterableIterator<string> {
    return this.byKey.keys();
  }

  get size(): number {
    return this.byKey.size;
  }
}
