import type { Clock } from '../../clock';
import { runSteps, runStepsSliced, STEP_ITEMS, type Steps } from '../../slice';
import type { GroupVersionResource } from '../../kube/objects/types';
import type { StoredObject } from '../../kube/objects/types';
import type { TypeFreshness } from './freshness';
import { storedItems, type ListWatchClient, type Reflector } from './reflector';

/**
 * Missed-watch-event detection, for every watched type (each config source). A watch that
 * silently skips an event (a dropped connection the server did not notice, a proxy, the demo's
 * drop-events fault) leaves the config source's storage behind the API, and nothing in the watch
 * says so. So every `periodMs` (5 min by default) the type is listed once more, from the API
 * server's watch cache (resourceVersion="0": no etcd read, no quorum), as metadata only
 * (PartialObjectMetadataList: uid and resourceVersion are all the comparison reads), and compared
 * with what the source holds:
 *
 *   listed, not held        "+uid@rv"  a missed ADD (or a delete the list predates)
 *   held, not listed        "-uid@rv"  a missed DELETE (unless the held copy is newer than the list)
 *   held older than listed  "~uid@rv"  a missed MODIFY (unless the held copy is newer)
 *
 * A difference can also be an event still in flight, so one sighting proves nothing; the same
 * difference seen again on a newer list, `confirmMs` later, means the watch missed it, and the
 * source is relisted (its SET then merges into exactly the missing updates). Repair therefore
 * takes at most periodMs + confirmMs (plus the lists' own time) after the change; the type's
 * TypeFreshness is stale from the confirmation until the relist's state is in.
 *
 * Cost: at most two lists per type per period, the period's own and one confirmation; the types'
 * first checks are staggered over the first period (`firstCheckMs`), so N types cost one list
 * every period/N, not N lists at once. Under churn every
 * list sees some events still in flight, each time different ones; a confirmation that finds
 * none of the first sighting's differences again ends the period's check (the sighting is
 * forgotten), instead of becoming a first sighting itself, which would list every `confirmMs`
 * for as long as the churn lasts. A missed event persists, so one confirmation is enough to see it.
 *
 * resourceVersions are compared numerically only to tell "held copy is newer" apart; when they
 * are not integers the difference simply counts (at worst a harmless extra relist).
 */
export const CONSISTENCY_PERIOD_MS = 5 * 60 * 1000;
export const CONSISTENCY_CONFIRM_MS = 2000;

export interface ListedSnapshot {
  items: readonly StoredObject[];
  resourceVersion: string;
  /** Increases with every successful list, so two checks can tell they saw different lists. */
  seq: number;
}

export function divergence(listed: ListedSnapshot, held: readonly StoredObject[]): Set<string> {
  return runSteps(divergenceSteps(listed, held));
}

/**
 * divergence in steps of STEP_ITEMS objects: the lister runs it in the host thread's slices, since
 * comparing a type of 100,000 objects took 140 to 500 ms in one stretch.
 */
function* divergenceSteps(listed: ListedSnapshot, held: readonly StoredObject[]): Steps<Set<string>> {
  const out = new Set<string>();
  const heldRv = new Map<string, string>();
  let n = 0;
  for (const h of held) {
    heldRv.set(h.metadata.uid, h.metadata.resourceVersion ?? '');
    if (++n % STEP_ITEMS === 0) yield;
  }
  const listedUids = new Set<string>();
  for (const l of listed.items) {
    if (++n % STEP_ITEMS === 0) yield;
    const uid = l.metadata.uid;
    const rv = l.metadata.resourceVersion ?? '';
    listedUids.add(uid);
    const h = heldRv.get(uid);
    if (h === undefined) out.add(`+${uid}@${rv}`);
    else if (h !== rv && !newer(h, rv)) out.add(`~${uid}@${rv}`);
  }
  for (const [uid, rv] of heldRv) {
    if (++n % STEP_ITEMS === 0) yield;
    if (!listedUids.has(uid) && !newer(rv, listed.resourceVersion)) out.add(`-${uid}@${rv}`);
  }
  return out;
}

function newer(a: string, b: string): boolean {
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return false;
  return BigInt(a) > BigInt(b);
}

/** Remembers each source's last divergence and says when one persisted across two lists. */
export class ConsistencyCheck {
  private readonly prev = new Map<string, { seen: Set<string>; seq: number }>();

  /** Returns the persisting differences (relist now) or undefined. */
  check(source: string, listed: ListedSnapshot, held: readonly StoredObject[]): string[] | undefined {
    return this.judge(source, listed, divergence(listed, held));
  }

  /** check() in the host thread's time slices, with how many differences this list showed (confirmed or not). */
  async checkSliced(source: string, listed: ListedSnapshot, held: readonly StoredObject[]): Promise<{ missed: string[] | undefined; differences: number }> {
    const cur = await runStepsSliced(divergenceSteps(listed, held));
    return { missed: this.judge(source, listed, cur), differences: cur.size };
  }

  private judge(source: string, listed: ListedSnapshot, cur: Set<string>): string[] | undefined {
    const before = this.prev.get(source);
    if (cur.size === 0) {
      this.prev.delete(source);
      return undefined;
    }
    if (before && before.seq < listed.seq) {
      const persisted = [...cur].filter((d) => before.seen.has(d));
      if (persisted.length > 0) {
        this.prev.delete(source);
        return persisted;
      }
    }
    if (!before || before.seq < listed.seq) this.prev.set(source, { seen: cur, seq: listed.seq });
    return undefined;
  }

  /** A first sighting waits for its confirmation. */
  pending(source: string): boolean {
    return this.prev.has(source);
  }

  forget(source: string): void {
    this.prev.delete(source);
  }
}

export interface ConsistencyListerOptions {
  client: ListWatchClient;
  clock: Clock;
  gvr: GroupVersionResource;
  /** Where to list when the reflector watches everywhere; a reflector's own (narrowed) namespace wins. */
  namespace?: string;
  fieldSelector?: string;
  pageSize: number;
  /** The config source the reflector feeds (the check's key). */
  source: string;
  reflector: Reflector;
  /** What the source holds now. */
  held: () => readonly StoredObject[];
  check: ConsistencyCheck;
  periodMs?: number;
  confirmMs?: number;
  /** Told every check's verdict, and the confirmed divergence before the relist it causes. */
  freshness?: TypeFreshness;
  /** Says which differences made it relist (the reflector logs the relist itself). */
  onMissed?: (missed: string[]) => void;
}

/**
 * ConsistencyLister: runs the check above for one reflector. Lists only while the reflector is
 * watching (a reflector that is listing is repairing itself already); a failed list is counted and
 * retried at the next period. Every request takes the run's signal; run() resolves when it aborts.
 */
export class ConsistencyLister {
  lists = 0;
  errors = 0;
  relists = 0;
  /** When the first check lists (unset: after a period); ClusterSync staggers the types' checks with it. */
  firstCheckMs: number | undefined;
  private seq = 0;

  constructor(readonly opts: ConsistencyListerOptions) {}

  async run(signal: AbortSignal): Promise<void> {
    const o = this.opts;
    const period = o.periodMs ?? CONSISTENCY_PERIOD_MS;
    let wait = this.firstCheckMs ?? period;
    let confirming = false;
    while (!signal.aborted) {
      try {
        await o.clock.sleep(wait, signal);
      } catch {
        return;
      }
      const confirmation = confirming;
      confirming = false;
      wait = period;
      if (o.reflector.state !== 'watching') continue;
      const verdict = await this.checkOnce(signal, confirmation);
      if (verdict === 'stopped') return;
      if (verdict === 'confirm') {
        wait = Math.min(period, o.confirmMs ?? CONSISTENCY_CONFIRM_MS);
        confirming = true;
      }
    }
  }

  /**
   * One list and its comparison. A method of its own so that run()'s frame, which sleeps a period
   * between checks, holds none of the list: every item of the type as listed was kept until the
   * next check (at 100,000 objects about 100 bytes an object of the host's heap, by the heap
   * snapshot's owners).
   */
  private async checkOnce(signal: AbortSignal, confirmation: boolean): Promise<'stopped' | 'confirm' | 'done'> {
    const o = this.opts;
    let listed: ListedSnapshot;
    try {
      const l = await o.client.list(
        o.gvr,
        // Metadata only: the comparison reads uid and resourceVersion, nothing else.
        {
          ...((o.reflector.namespace ?? o.namespace) ? { namespace: o.reflector.namespace ?? o.namespace } : {}),
          ...(o.fieldSelector ? { fieldSelector: o.fieldSelector } : {}),
          resourceVersion: '0',
          limit: o.pageSize,
          metadataOnly: true,
        },
        { signal },
      );
      this.lists++;
      listed = { items: storedItems(l.items), resourceVersion: l.resourceVersion, seq: ++this.seq };
    } catch (e) {
      if (signal.aborted) return 'stopped';
      this.errors++;
      o.freshness?.checked({ kind: 'failed', at: o.clock.now(), error: e instanceof Error ? e.message : String(e) });
      return 'done';
    }
    if (o.reflector.state !== 'watching') return 'done';
    const { missed, differences } = await o.check.checkSliced(o.source, listed, o.held());
    if (signal.aborted) return 'stopped';
    const at = o.clock.now();
    if (missed) {
      this.relists++;
      o.freshness?.checked({ kind: 'diverged', at, differences: missed.length, confirmed: true });
      o.onMissed?.(missed);
      o.reflector.relist(`watch missed events: ${missed.slice(0, 5).join(' ')}${missed.length > 5 ? ` +${missed.length - 5}` : ''}`);
    } else if (confirmation) {
      o.check.forget(o.source);
      o.freshness?.checked({ kind: 'consistent', at });
    } else if (o.check.pending(o.source)) {
      o.freshness?.checked({ kind: 'diverged', at, differences, confirmed: false });
      return 'confirm';
    } else o.freshness?.checked({ kind: 'consistent', at });
    return 'done';
  }
}
