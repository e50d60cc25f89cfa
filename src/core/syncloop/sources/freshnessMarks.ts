/**
 * FreshnessMarks: one watched type's freshness on the timeline, lane 'freshness', so the story
 * "is this current" can be read back after the fact, live or from a recording (the recorder keeps
 * every timeline event). What one TypeFreshness did becomes:
 * - a relist: one span from the list's start to its full state, op 'relist', `message` its why;
 * - a consistency check: one mark, op 'consistency check', `data` its verdict (consistent,
 *   diverged N, failed), outcome 'error' unless consistent;
 * - a stale spell: a mark 'stale' as the type turns stale (with the reason), and a span 'stale spell'
 *   from the verdict's `since` to the time it turned current, appended then.
 * Transitions caused by a fact are marked as the fact is recorded (onChange); staleness that comes
 * with time alone (a watch down too long, a silent server) is marked when poll() is called, so its
 * mark is as late as the caller's period (housekeeping's 2 s), its `t` still the verdict's `since`.
 */
import type { Clock } from '../../clock';
import type { SyncIterationEvent } from '../../timeline/events';
import type { CheckVerdict, TypeFreshness } from './freshness';

export interface FreshnessMarksOptions {
  /**
   * The type's key on its marks: `resource[.group]:*` across namespaces, `resource[.group]:<ns>/*` in
   * one. A function is read at each mark, so a type narrowed to one namespace after a cluster-wide
   * 403 names that namespace from its first full list on.
   */
  key: string | (() => string);
  clock: Clock;
  /** The timeline's t = 0 on `clock`. */
  origin: number;
  append: (e: SyncIterationEvent) => void;
  /** The node the loop is scoped to, if any: its marks name it as every iteration of that loop does. */
  node?: string;
}

export class FreshnessMarks {
  private relisting = false;
  private lastCheck: CheckVerdict | undefined;
  private spell: { since: number; reason: string } | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly rec: TypeFreshness,
    private readonly opts: FreshnessMarksOptions,
  ) {
    const f = rec.facts();
    this.relisting = f.relisting;
    this.lastCheck = f.lastCheck;
    this.unsubscribe = rec.onChange(() => this.changed());
  }

  /** Marks a stale spell begun or ended by time alone; call it periodically. */
  poll(now = this.opts.clock.now()): void {
    this.judge(now);
  }

  /** Stops listening to the record (an open stale spell stays unmarked: it has not ended). */
  close(): void {
    this.unsubscribe();
  }

  private changed(): void {
    const now = this.opts.clock.now();
    const f = this.rec.facts();
    if (this.relisting && !f.relisting && f.lastRelist) {
      this.mark('relist', 'relist', f.lastRelist.at, now - f.lastRelist.at, 'ok', { message: f.lastRelist.why });
    }
    this.relisting = f.relisting;
    const c = f.lastCheck;
    if (c && c.kind !== 'repaired' && (c.at !== this.lastCheck?.at || c.kind !== this.lastCheck.kind)) this.markCheck(c);
    this.lastCheck = c;
    this.judge(now);
  }

  private markCheck(c: Exclude<CheckVerdict, { kind: 'repaired' }>): void {
    const data = c.kind === 'diverged' ? `diverged ${c.differences}` : c.kind;
    const message =
      c.kind === 'diverged'
        ? c.confirmed
          ? 'a second list saw the same differences: the watch missed events, relisting'
          : 'seen on one list: checked again before any relist (events may be in flight)'
        : c.kind === 'failed'
          ? c.error
          : undefined;
    this.mark('consistency check', 'ConsistencyCheck', c.at, 0, c.kind === 'consistent' ? 'ok' : 'error', { data, ...(message ? { message } : {}) });
  }

  private judge(now: number): void {
    const v = this.rec.verdict(now);
    if (v.stale && !this.spell) {
      this.spell = { since: v.since ?? now, reason: v.reason ?? 'stale' };
      this.mark('stale', 'Freshness', this.spell.since, 0, 'error', { message: this.spell.reason });
    } else if (!v.stale && this.spell) {
      const { since, reason } = this.spell;
      this.spell = undefined;
      this.mark('stale spell', 'Freshness', since, Math.max(0, now - since), 'error', { message: `stale until current again: ${reason}` });
    }
  }

  private mark(op: string, handler: string, at: number, durationMs: number, outcome: 'ok' | 'error', extra: { data?: string; message?: string }): void {
    this.opts.append({
      kind: 'iteration',
      t: round3(at - this.opts.origin),
      source: 'freshness',
      op,
      key: typeof this.opts.key === 'function' ? this.opts.key() : this.opts.key,
      handler,
      durationMs: round3(durationMs),
      outcome,
      ...(this.opts.node ? { node: this.opts.node } : {}),
      ...extra,
    });
  }
}

/** The key of a type's freshness marks (see FreshnessMarksOptions.key); the timeline's kind filter reads the part before ':'. */
export function freshnessKey(gvr: { group: string; resource: string }, namespace: string | undefined): string {
  return `${gvr.group ? `${gvr.resource}.${gvr.group}` : gvr.resource}:${namespace ? `${namespace}/*` : '*'}`;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
