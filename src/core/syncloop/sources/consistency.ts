import type { Clock } from '../../clock';
import { runSteps, runStepsSliced, STEP_ITEMS, type Steps } from '../../slice';
import { asStoredObject, type GroupVersionResource, type KubeObject, type StoredObject } from '../../kube/objects/types';
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

/** What a source holds, as the check reads it: by UID, and all of it (the merge's storage, not a copy). */
export interface HeldObjects {
  get(uid: string): StoredObject | undefined;
  values(): Iterable<StoredObject>;
}

export function divergence(listed: ListedSnapshot, held: readonly StoredObject[] | HeldObjects): Set<string> {
  return runSteps(divergenceSteps(listed, held));
}

/**
 * divergence in steps of STEP_ITEMS objects: the lister runs it in the host thread's slices, since
 * comparing a type of 100,000 objects took 140 to 500 ms in one stretch.
 */
function* divergenceSteps(listed: ListedSnapshot, held: readonly StoredObject[] | HeldObjects): Steps<Set<string>> {
  const d = new PagedDivergence(heldObjects(held));
  let n = 0;
  for (const l of listed.items) {
    if (++n % STEP_ITEMS === 0) yield;
    d.item(l);
  }
  return yield* d.finish(listed.resourceVersion);
}

function heldObjects(held: readonly StoredObject[] | HeldObjects): HeldObjects {
  if (!Array.isArray(held)) return held as HeldObjects;
  const byUid = new Map<string, StoredObject>();
  for (const h of held as readonly StoredObject[]) byUid.set(h.metadata.uid, h);
  return byUid;
}

/**
 * The divergence of one list from what a source holds, taken item by item as the list's pages are
 * read, so that no list is ever held whole (the pods of the scale-limit cluster, 150,000 of them,
 * as one list were more than the host's heap could spare; an unpaged GET of them failed with
 * "Invalid string length"). Each listed item is compared with the held copy of its UID at that
 * moment; what it keeps between pages is the differences and, of the held copies the list named,
 * their own UID strings (no string of the list). A copy held newer than the list counts as no
 * difference (see above); so does a held copy added after the list (its resourceVersion is newer).
 */
export class PagedDivergence {
  readonly differences = new Set<string>();
  private readonly listedHeld = new Set<string>();

  constructor(private readonly held: HeldObjects) {}

  /** One listed item. */
  item(l: StoredObject): void {
    const uid = l.metadata.uid;
    const rv = l.metadata.resourceVersion ?? '';
    const h = this.held.get(uid);
    if (h === undefined) {
      this.differences.add(`+${uid}@${rv}`);
      return;
    }
    this.listedHeld.add(h.metadata.uid);
    const hrv = h.metadata.resourceVersion ?? '';
    if (hrv !== rv && !newer(hrv, rv)) this.differences.add(`~${uid}@${rv}`);
  }

  /** The list starts over from its first page (an expired continue token): what it said so far is void. */
  restart(): void {
    this.differences.clear();
    this.listedHeld.clear();
  }

  /** After the last page: the held copies the list did not name are missed DELETEs (unless newer than the list). */
  *finish(resourceVersion: string): Steps<Set<string>> {
    let n = 0;
    for (const h of this.held.values()) {
      if (++n % STEP_ITEMS === 0) yield;
      const rv = h.metadata.resourceVersion ?? '';
      if (!this.listedHeld.has(h.metadata.uid) && !newer(rv, resourceVersion)) this.differences.add(`-${h.metadata.uid}@${rv}`);
    }
    this.listedHeld.clear();
    return this.differences;
  }
}

function newer(a: string, b: string): boolean {
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return false;
  return BigInt(a) > BigInt(b);
}

/** Remembers each source's last divergence and says when one persisted across two lists. */
export class ConsistencyCheck {
  private readonly prev = new Map<string, { seen: Set<string>; seq: number }>();

  /** Returns the persisting differences (relist now) or undefined. */
  check(source: string, listed: ListedSnapshot, held: readonly StoredObject[] | HeldObjects): string[] | undefined {
    return this.judge(source, listed.seq, divergence(listed, held));
  }

  /** check() in the host thread's time slices, with how many differences this list showed (confirmed or not). */
  async checkSliced(
    source: string,
    listed: ListedSnapshot,
    held: readonly StoredObject[] | HeldObjects,
  ): Promise<{ missed: string[] | undefined; differences: number }> {
    const cur = await runStepsSliced(divergenceSteps(listed, held));
    return { missed: this.judge(source, listed.seq, cur), differences: cur.size };
  }

  /** The verdict on one list's differences (`seq`: the list's, see ListedSnapshot): the persisting ones, or undefined. */
  judge(source: string, seq: number, cur: Set<string>): string[] | undefined {
    const before = this.prev.get(source);
    if (cur.size === 0) {
      this.prev.delete(source);
      return undefined;
    }
    if (before && before.seq < seq) {
      const persisted = [...cur].filter((d) => before.seen.has(d));
      if (persisted.length > 0) {
        this.prev.delete(source);
        return persisted;
      }
    }
    if (!before || before.seq < seq) this.prev.set(source, { seen: cur, seq });
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
  /** What the source holds now (read as each page arrives and once after the last). */
  held: () => readonly StoredObject[] | HeldObjects;
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
    let cur: Set<string>;
    try {
      cur = await this.listAndCompare(signal);
    } catch (e) {
      if (signal.aborted) return 'stopped';
      this.errors++;
      o.freshness?.checked({ kind: 'failed', at: o.clock.now(), error: e instanceof Error ? e.message : String(e) });
      return 'done';
    }
    if (o.reflector.state !== 'watching') return 'done';
    const missed = o.check.judge(o.source, ++this.seq, cur);
    const differences = cur.size;
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

  /**
   * One metadata-only list, compared page by page as it is read (PagedDivergence): each page's items
   * are compared as the list takes them and kept by nobody, so the list is never held whole.
   */
  private async listAndCompare(signal: AbortSignal): Promise<Set<string>> {
    const o = this.opts;
    const d = new PagedDivergence(heldObjects(o.held()));
    const sink: KubeObject[] = [];
    // The list pushes each item into its sink as the item's page is parsed (listwatch/list.ts): here
    // the push compares it and keeps nothing.
    sink.push = (...items: KubeObject[]) => {
      for (const i of items) {
        const s = asStoredObject(i);
        if (s) d.item(s);
      }
      return 0;
    };
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
      { signal, sink, onFallback: () => d.restart() },
    );
    this.lists++;
    // A client that does not fill the sink (a test's) returns its items: compared the same way.
    if (l.items !== sink) for (const i of storedItems(l.items)) d.item(i);
    return runStepsSliced(d.finish(l.resourceVersion));
  }
}
