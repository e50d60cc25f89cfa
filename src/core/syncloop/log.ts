import type { PodLifecycleEvent } from './types';

/**
 * The loop's log lines, formatted the way the kubelet's structured logging (klog InfoS) prints them
 * at -v=4, so a reader who knows `journalctl -u kubelet` recognises them:
 *
 *   SyncLoop ADD source="api" pods=["default/probe-me"]
 *   SyncLoop (PLEG): event for pod pod="default/probe-me" event={"ID":"...","Type":"ContainerStarted","Data":"..."}
 *   SyncLoop (probe) probe="liveness" status="unhealthy" pod="default/probe-me"
 *   SyncLoop (housekeeping)
 *
 * Each handler line ends with handler="..." naming the handler that ran (ours, not klog's).
 * Lines name objects and containers only; they never carry object contents (no Secret data).
 */
/**
 * A line's verbosity, as klog's V levels (`klog.V(v).InfoS`), chosen where the line is made, never
 * read back from its text. 0: what an operator always wants (the loop started, a narrowed watch);
 * 1-2: the steady-state lines a user follows a pod by (config ADD/UPDATE/REMOVE, PLEG events, probe
 * results, relists, housekeeping that repaired something); 4: the periodic ticks that fire whether or
 * not anything happened (SyncLoop (SYNC), housekeeping).
 */
export type Verbosity = 0 | 1 | 2 | 3 | 4 | 5 | 6;

export interface SyncLogger {
  /** An info line at klog verbosity `v`. */
  info(line: string, v: Verbosity): void;
  /** Warnings (a forbidden type); a logger without it gets them at error level. */
  warn?(line: string): void;
  error(line: string): void;
}

export const silentLogger: SyncLogger = { info: () => undefined, error: () => undefined };

/** klog's quoting of a string value. */
export function q(s: string): string {
  return JSON.stringify(s);
}

/** klog.KObjSlice: ["ns/name","ns/name2"]. */
export function kobjs(keys: readonly string[]): string {
  return `[${keys.map(q).join(',')}]`;
}

/** The PLEG event as klog prints the struct: {"ID":...,"Type":...,"Data":...}. */
export function plegEventJSON(e: PodLifecycleEvent): string {
  return JSON.stringify({ ID: e.id, Type: e.type, Data: e.data });
}

/** Appends key="value" pairs in klog style. */
export function kv(pairs: Record<string, string | number | undefined>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(pairs)) {
    if (v === undefined) continue;
    parts.push(`${k}=${typeof v === 'number' ? v : q(v)}`);
  }
  return parts.length ? ` ${parts.join(' ')}` : '';
}

/** Shortens a long key list for one-line outputs: the first `max` keys, then "+N more". */
export function joinKeys(keys: readonly string[], max = 20): string {
  if (keys.length <= max) return keys.join(',');
  return `${keys.slice(0, max).join(',')},+${keys.length - max} more`;
}
