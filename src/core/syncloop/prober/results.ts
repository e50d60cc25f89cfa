import type { ProbeResult, ProbeType } from '../types';

/**
 * ResultsManager: upstream pkg/kubelet/prober/results/results_manager.go — one per probe type,
 * holding the latest result per container ID.
 *
 * Guarantee (upstream setInternal): set() reports a change only when the container had no result
 * or a different one, so the caller sends exactly one update per change of result, never one per
 * probe attempt. Memory: one entry per container ID until remove() (a new container replaces the
 * old one's entry, as the prober worker does).
 */
export class ResultsManager {
  private readonly cache = new Map<string, ProbeResult>();

  constructor(readonly probe: ProbeType) {}

  /** Records the result; true when it changed (an update must be sent). */
  set(containerId: string, result: ProbeResult): boolean {
    if (this.cache.get(containerId) === result) return false;
    this.cache.set(containerId, result);
    return true;
  }

  get(containerId: string): ProbeResult | undefined {
    return this.cache.get(containerId);
  }

  remove(containerId: string): void {
    this.cache.delete(containerId);
  }

  get size(): number {
    return this.cache.size;
  }
}

/**
 * The value a prober worker sets when it first sees a container (upstream newWorker): liveness
 * starts as Success, readiness as Failure (not ready until proven), startup as Unknown.
 */
export const INITIAL_RESULT: Record<ProbeType, ProbeResult> = { liveness: 'Success', readiness: 'Failure', startup: 'Unknown' };

/** Probe fields as the API defaults them (pkg/apis/core/v1 defaults). */
export interface ProbeThresholds {
  periodSeconds: number;
  failureThreshold: number;
  successThreshold: number;
}

export function thresholdsOf(probe: Record<string, unknown> | undefined, type: ProbeType): ProbeThresholds {
  const pos = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 1 ? Math.floor(v) : d);
  return {
    periodSeconds: pos(probe?.periodSeconds, 10),
    failureThreshold: pos(probe?.failureThreshold, 3),
    // API validation: successThreshold must be 1 for liveness and startup.
    successThreshold: type === 'readiness' ? pos(probe?.successThreshold, 1) : 1,
  };
}
