import type { KubeObject } from '../types';

/**
 * Missed-watch-event detection for pods. A watch that silently skips an event (a dropped
 * connection the server did not notice, a proxy, the demo's drop-events fault) leaves the config
 * source's storage behind the API, and nothing in the watch says so. The PLEG relists every pod
 * every second anyway, so housekeeping compares that list with what the source holds:
 *
 *   listed, not held        "+uid@rv"  a missed ADD (or a delete the list predates)
 *   held, not listed        "-uid@rv"  a missed DELETE (unless the held copy is newer than the list)
 *   held older than listed  "~uid@rv"  a missed MODIFY (unless the held copy is newer)
 *
 * A difference can also be an event still in flight, so one sighting proves nothing; the same
 * difference seen again by the next housekeeping pass, on a newer list, means the watch missed
 * it, and the source is relisted (its SET then merges into exactly the missing updates). Repair
 * therefore takes at most two housekeeping periods after the PLEG has listed the change.
 *
 * resourceVersions are compared numerically only to tell "held copy is newer" apart; when they
 * are not integers the difference simply counts (at worst a harmless extra relist).
 */
export interface ListedSnapshot {
  items: readonly KubeObject[];
  resourceVersion: string;
  /** Increases with every successful list, so two checks can tell they saw different lists. */
  seq: number;
}

export function divergence(listed: ListedSnapshot, held: readonly KubeObject[]): Set<string> {
  const out = new Set<string>();
  const heldRv = new Map<string, string>();
  for (const h of held) heldRv.set(h.metadata.uid, h.metadata.resourceVersion ?? '');
  const listedUids = new Set<string>();
  for (const l of listed.items) {
    const uid = l.metadata.uid;
    const rv = l.metadata.resourceVersion ?? '';
    listedUids.add(uid);
    const h = heldRv.get(uid);
    if (h === undefined) out.add(`+${uid}@${rv}`);
    else if (h !== rv && !newer(h, rv)) out.add(`~${uid}@${rv}`);
  }
  for (const [uid, rv] of heldRv) {
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
  check(source: string, listed: ListedSnapshot, held: readonly KubeObject[]): string[] | undefined {
    const cur = divergence(listed, held);
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

  forget(source: string): void {
    this.prev.delete(source);
  }
}
