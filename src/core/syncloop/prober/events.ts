/**
 * Reading the kubelet's probe Events as the API serves them: `Unhealthy` ("Liveness probe failed:
 * ...", one per failed attempt, a repeat bumping `count`) and `Killing` ("Container x failed
 * liveness probe, will be restarted"), in their plain form or as client-go's event correlator
 * aggregates them ("(combined from similar events): ..."). Pure functions.
 */
import type { KubeEvent } from '../../kube/objects/pod';
import type { ProbeType } from '../types';

/** client-go's EventCorrelator prefix on an Event that aggregates similar ones (EventAggregatorByReasonMessageFunc). */
export const COMBINED_PREFIX = '(combined from similar events): ';

const UNHEALTHY = /^(Liveness|Readiness|Startup) probe (failed|errored)/;
const KILLING = /failed (liveness|startup) probe/;

export function isProbeEvent(ev: KubeEvent): boolean {
  return ev.reason === 'Unhealthy' || ev.reason === 'Killing';
}

export function countOf(ev: KubeEvent): number {
  return ev.series?.count ?? ev.count ?? 1;
}

export function stripCombined(msg: string): string {
  return msg.startsWith(COMBINED_PREFIX) ? msg.slice(COMBINED_PREFIX.length) : msg;
}

/** The probe an Unhealthy or Killing Event names, in its plain or aggregated form. */
export function probeOfEvent(ev: KubeEvent): ProbeType | undefined {
  const msg = stripCombined(ev.message ?? '');
  if (ev.reason === 'Unhealthy') {
    const m = UNHEALTHY.exec(msg);
    return m ? (m[1]!.toLowerCase() as ProbeType) : undefined;
  }
  if (ev.reason === 'Killing') {
    const m = KILLING.exec(msg);
    return m ? (m[1] as ProbeType) : undefined;
  }
  return undefined;
}

/** "spec.containers{probe-me}" -> "probe-me". */
export function containerNameOf(fieldPath: string | undefined): string | undefined {
  const m = /\{([^}]+)\}/.exec(fieldPath ?? '');
  return m?.[1];
}

export function parseTime(t: string | undefined | null): number | undefined {
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}
