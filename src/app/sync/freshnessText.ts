/**
 * How fresh the sync loop's watched types are, in words: a kind row's description suffix and
 * tooltip lines, and the status bar tooltip's one-line summary. No 'vscode' import; every text is
 * computed from the records (core's TypeFreshness) at a given clock time, so it reads the same
 * live and on a FakeClock.
 */
import type { SourceFreshness } from '../../core/syncloop/sources/cluster';
import { formatAge, type CheckVerdict } from '../../core/syncloop/sources/freshness';
import { typeKeyOf } from '../model/keys';

/** What a kind row adds: a description suffix while stale ("stale 2m"), and a tooltip line per fact. */
export interface KindFreshness {
  suffix?: string;
  lines: string[];
}

/**
 * The record that holds a kind row's objects: the type's source watching all namespaces (or the
 * cluster scope), else the one watching exactly this row's namespace ('' is "Cluster-scoped").
 */
export function sourceOf(entries: readonly SourceFreshness[], namespace: string, typeKey: string): SourceFreshness | undefined {
  let exact: SourceFreshness | undefined;
  for (const e of entries) {
    if (typeKeyOf(e.gvr) !== typeKey) continue;
    if (e.namespace === undefined) return e;
    if (e.namespace === namespace) exact = e;
  }
  return exact;
}

/**
 * A kind row's freshness at clock time `now`. The tooltip names each fact's time of day (`wallNow`:
 * the wall clock at `now`), not its age: VS Code keeps a row's tooltip until the row is read
 * again, and an age would go on claiming "5s ago". The suffix's age moves by the minute, and the
 * rows are re-read when it does (FreshnessRows).
 */
export function kindFreshness(e: SourceFreshness, now: number, wallNow: number): KindFreshness {
  const v = e.freshness.verdict(now);
  const f = e.freshness.facts();
  const at = (t: number | undefined) => (t === undefined ? 'none yet' : timeOfDay(wallNow - (now - t)));
  const lines = [
    v.stale ? `Stale: ${v.reason}` : 'Current',
    `Last event: ${at(f.lastEventAt)}; last bookmark: ${at(f.lastBookmarkAt)}`,
    f.lastRelist ? `Last relist: ${at(f.lastRelist.at)} (${f.lastRelist.why})${f.relisting ? ', listing now' : ''}` : 'Not listed yet',
    `Last consistency check: ${f.lastCheck ? `${at(f.lastCheck.at)}, ${checkText(f.lastCheck)}` : 'none yet'}`,
  ];
  // by the minute: "stale", then "stale 1m" (seconds would re-read the row every second)
  const age = now - (v.since ?? now);
  return { ...(v.stale ? { suffix: age < 60_000 ? 'stale' : `stale ${formatAge(age)}` } : {}), lines };
}

/** "all 43 watched types current" / "2 stale: pods (missed an event, relisting), leases (...)". */
export function freshnessSummary(entries: readonly SourceFreshness[], now: number, maxNamed = 3): string | undefined {
  if (entries.length === 0) return undefined;
  const stale: string[] = [];
  for (const e of entries) {
    const v = e.freshness.verdict(now);
    if (v.stale) stale.push(`${typeKeyOf(e.gvr)}${e.namespace !== undefined ? ` in ${e.namespace}` : ''} (${v.reason})`);
  }
  if (stale.length === 0) {
    const types = new Set(entries.map((e) => typeKeyOf(e.gvr))).size;
    return `Freshness: all ${types} watched type${types === 1 ? '' : 's'} current`;
  }
  const named = stale.slice(0, maxNamed).join(', ');
  return `Freshness: ${stale.length} stale: ${named}${stale.length > maxNamed ? `, +${stale.length - maxNamed} more` : ''}`;
}

export function checkText(c: CheckVerdict): string {
  switch (c.kind) {
    case 'consistent':
      return 'consistent';
    case 'diverged':
      return `diverged: ${c.differences} difference${c.differences === 1 ? '' : 's'}${c.confirmed ? ', relisting' : ' (confirming)'}`;
    case 'repaired':
      return `repaired ${c.differences} missed event${c.differences === 1 ? '' : 's'}`;
    case 'failed':
      return `failed: ${c.error}`;
  }
}

/** "16:42:05", local time. */
export function timeOfDay(wall: number): string {
  const d = new Date(wall);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
