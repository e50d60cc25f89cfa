/**
 * `kubeloop sync --freshness`: is what the loop holds current, per watched type, in the CLI's words.
 * Everything is read from the sources' records (core's TypeFreshness) at the time it is printed;
 * nothing is kept here but what was last printed per type, so a record is printed once per change.
 *
 * - table(): kubectl's table (upper-case headers, columns three spaces apart, ages as kubectl's
 *   HumanDuration, `<none>` for what has not happened yet), one row per watched (type, namespace).
 * - changes(): a record per type whose state changed since the last call: stale or current (and
 *   since when), a relist begun or done (and why), the last consistency check's verdict. An event
 *   or a bookmark alone is not a change (it is the table's age), nor is a check that found the same.
 * - The run's API cost: requests, bytes, 429s and their Retry-After, and the flow schema and
 *   priority level the server's API Priority and Fairness named.
 */
import type { Clock, TimerHandle } from '../core/clock';
import type { TransportStats } from '../core/kube/transport/transport';
import { readFlowControl, type FlowControlFacts, type FlowControlReader } from '../core/loader/apf';
import type { SourceFreshness } from '../core/syncloop/sources/cluster';
import type { CheckVerdict } from '../core/syncloop/sources/freshness';
import { kv } from '../core/syncloop/log';
import type { TimelineEvent } from '../core/timeline/events';
import { bytes } from '../app/load/apiCost';
import { checkText } from '../app/sync/freshnessText';
import { humanDuration } from '../demo/server/printers-common';

export interface FreshnessReportOptions {
  entries: () => readonly SourceFreshness[];
  clock: Clock;
  /** t = 0 on `clock`, and the wall-clock ms at that time. */
  origin: number;
  wallOrigin: number;
  json: boolean;
  out: (line: string) => void;
}

/** One type's state as `--json` prints it; every time an ISO wall-clock time, null when none yet. */
export interface FreshnessJson {
  type: string;
  /** null: across all namespaces (or cluster-scoped). */
  namespace: string | null;
  stale: boolean;
  reason?: string;
  staleSince?: string;
  lastEvent: string | null;
  lastBookmark: string | null;
  lastRelist: { at: string; reason: string } | null;
  relisting: boolean;
  lastCheck: ({ at: string; verdict: CheckVerdict['kind'] } & Partial<{ differences: number; confirmed: boolean; error: string }>) | null;
}

export class FreshnessReport {
  /** Per type key: the state last printed (see signature()). */
  private readonly printed = new Map<string, string>();

  constructor(private readonly o: FreshnessReportOptions) {}

  /** Prints a record (--json) or a log line for each type whose state changed since the last call. */
  changes(now = this.o.clock.now()): void {
    for (const e of this.o.entries()) {
      const key = keyOf(e);
      const sig = signature(e, now);
      if (this.printed.get(key) === sig) continue;
      this.printed.set(key, sig);
      this.o.out(this.o.json ? JSON.stringify({ ...this.stamp(now), freshness: this.json(e, now) }) : this.line(e, now));
    }
  }

  /** The per-type table at `now`, header first; no lines before any type is watched. */
  table(now = this.o.clock.now()): string[] {
    const entries = this.o.entries();
    if (entries.length === 0) return [];
    const ago = (t: number | undefined) => (t === undefined ? '<none>' : humanDuration(now - t));
    const rows = entries.map((e) => {
      const v = e.freshness.verdict(now);
      const f = e.freshness.facts();
      return [
        typeOf(e),
        e.namespace ?? '*',
        v.stale ? 'Stale' : 'Current',
        ago(f.lastEventAt),
        ago(f.lastBookmarkAt),
        f.relisting ? 'listing' : ago(f.lastRelist?.at),
        f.lastRelist?.why ?? '<none>',
        f.lastCheck ? `${checkText(f.lastCheck)} (${ago(f.lastCheck.at)} ago)` : '<none>',
        v.reason ?? '<none>',
      ];
    });
    return columns([['TYPE', 'NAMESPACE', 'STATUS', 'LAST EVENT', 'LAST BOOKMARK', 'LAST RELIST', 'RELIST REASON', 'LAST CHECK', 'MESSAGE'], ...rows]);
  }

  /** `at` and `t`, as every record of `kubeloop sync --json` starts. */
  stamp(now = this.o.clock.now()): { at: string; t: number } {
    return { at: this.iso(now), t: Math.round((now - this.o.origin) * 1000) / 1000 };
  }

  private json(e: SourceFreshness, now: number): FreshnessJson {
    const v = e.freshness.verdict(now);
    const f = e.freshness.facts();
    const iso = (t: number | undefined) => (t === undefined ? null : this.iso(t));
    const c = f.lastCheck;
    return {
      type: typeOf(e),
      namespace: e.namespace ?? null,
      stale: v.stale,
      ...(v.reason !== undefined ? { reason: v.reason } : {}),
      ...(v.since !== undefined ? { staleSince: this.iso(v.since) } : {}),
      lastEvent: iso(f.lastEventAt),
      lastBookmark: iso(f.lastBookmarkAt),
      lastRelist: f.lastRelist ? { at: this.iso(f.lastRelist.at), reason: f.lastRelist.why } : null,
      relisting: f.relisting,
      lastCheck: c
        ? {
            at: this.iso(c.at),
            verdict: c.kind,
            ...(c.kind === 'diverged' ? { differences: c.differences, confirmed: c.confirmed } : {}),
            ...(c.kind === 'repaired' ? { differences: c.differences } : {}),
            ...(c.kind === 'failed' ? { error: c.error } : {}),
          }
        : null,
    };
  }

  /** `Freshness type="configmaps" namespace="*" status="Stale" reason=...`: the loop's log style (klog key="value"). */
  private line(e: SourceFreshness, now: number): string {
    const v = e.freshness.verdict(now);
    const f = e.freshness.facts();
    return `Freshness${kv({
      type: typeOf(e),
      namespace: e.namespace ?? '*',
      status: v.stale ? 'Stale' : 'Current',
      reason: v.reason,
      relist: f.relisting ? `listing: ${f.lastRelist?.why ?? ''}` : f.lastRelist?.why,
      lastCheck: f.lastCheck ? checkText(f.lastCheck) : undefined,
    })}`;
  }

  private iso(t: number): string {
    return new Date(this.o.wallOrigin + (t - this.o.origin)).toISOString();
  }
}

/** The run's API cost (the transport's counters and the APF classification read once). */
export interface RunCost {
  requests: number;
  bytes: number;
  throttled: number;
  retryAfterSeconds: number;
  /** What APF classified the run's requests as (the last answer that said); null when no answer said. */
  flowControl: Pick<FlowControlFacts, 'flowSchema' | 'priorityLevel' | 'exempt'> | null;
}

/** "API cost: 57 requests, 1.2 MiB, 2 × 429 (Retry-After 3 s in all); priority level workload-low (flow schema service-accounts)". */
export function runCostLine(c: RunCost): string {
  const throttled = c.throttled === 0 ? 'no 429' : `${c.throttled} × 429 (Retry-After ${c.retryAfterSeconds} s in all)`;
  const f = c.flowControl;
  const level = f
    ? `priority level ${f.priorityLevel.name ?? `uid ${f.priorityLevel.uid}`} (flow schema ${f.flowSchema.name ?? `uid ${f.flowSchema.uid}`})${f.exempt ? ', exempt' : ''}`
    : 'priority level: none reported (API Priority and Fairness off, or an older server)';
  return `API cost: ${c.requests} requests, ${bytes(c.bytes)}, ${throttled}; ${level}`;
}

/** What a change is: the verdict (and since when), the relist under way or done, the check's verdict (not its time). */
function signature(e: SourceFreshness, now: number): string {
  const v = e.freshness.verdict(now);
  const f = e.freshness.facts();
  const c = f.lastCheck;
  const check = c ? `${c.kind}:${c.kind === 'diverged' ? `${c.differences}:${c.confirmed}` : c.kind === 'repaired' ? `${c.differences}:${c.at}` : ''}` : '';
  return [v.stale, v.since, f.relisting, f.lastRelist?.at, check].join('|');
}

function typeOf(e: SourceFreshness): string {
  return e.gvr.group ? `${e.gvr.resource}.${e.gvr.group}` : e.gvr.resource;
}

function keyOf(e: SourceFreshness): string {
  return `${typeOf(e)}:${e.namespace ?? '*'}`;
}

/** Rows padded into columns three spaces apart, as kubectl's tabwriter prints them. */
function columns(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]! + 3)))
      .join('')
      .trimEnd(),
  );
}

/** What reportFreshness needs of the run. */
export interface FreshnessRun extends Omit<FreshnessReportOptions, 'entries'> {
  sync: { freshness(): readonly SourceFreshness[] };
  timeline: { subscribe(l: (e: TimelineEvent) => void): () => void };
  /** The table's period; 0: only at exit. */
  periodMs: number;
  /** The client's transport: its counters, and where APF's classification is read by name. */
  transport: FlowControlReader & { stats: Pick<TransportStats, 'requests' | 'bytesReceived' | 'throttled' | 'retryAfterSeconds'> };
}

/** How long the exit waits to name the priority level (two small GETs); past it, the UIDs are printed. */
const FLOW_CONTROL_READ_MS = 3_000;

/**
 * --freshness on a running loop: a type's change is printed as the timeline shows the freshness
 * marks (at once for a fact, by housekeeping's 2 s for staleness that comes with time alone), the
 * table every `periodMs`; end() (before the client closes) prints the last table and the run's cost.
 */
export function reportFreshness(run: FreshnessRun): { end(): Promise<void> } {
  const report = new FreshnessReport({ ...run, entries: () => run.sync.freshness() });
  const unsubscribe = run.timeline.subscribe((e) => {
    if (e.kind === 'iteration' && (e.source === 'freshness' || e.source === 'housekeeping')) report.changes();
  });
  let timer: TimerHandle | undefined;
  const tick = () => {
    if (!run.json) for (const l of report.table()) run.out(l);
    timer = run.clock.setTimer(run.periodMs, tick);
  };
  if (run.periodMs > 0) timer = run.clock.setTimer(run.periodMs, tick);
  return {
    async end() {
      unsubscribe();
      timer?.cancel();
      report.changes();
      const s = run.transport.stats;
      const cost: RunCost = {
        requests: s.requests,
        bytes: s.bytesReceived,
        throttled: s.throttled,
        retryAfterSeconds: s.retryAfterSeconds,
        flowControl: await flowControlOf(run.transport),
      };
      if (run.json) run.out(JSON.stringify({ ...report.stamp(), apiCost: cost }));
      else for (const l of [...report.table(), runCostLine(cost)]) run.out(l);
    },
  };
}

/** The level and schema by name (read once per transport, apf.ts), by UID when that read is refused or too slow. */
async function flowControlOf(t: FlowControlReader): Promise<RunCost['flowControl']> {
  const seen = t.stats.flowControl;
  if (!seen) return null;
  try {
    const f = await readFlowControl(t, AbortSignal.timeout(FLOW_CONTROL_READ_MS));
    if (f) return { flowSchema: f.flowSchema, priorityLevel: f.priorityLevel, exempt: f.exempt };
  } catch {
    // too slow: the UIDs below
  }
  return { flowSchema: { uid: seen.flowSchemaUID }, priorityLevel: { uid: seen.priorityLevelUID }, exempt: false };
}
