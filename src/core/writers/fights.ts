/**
 * Fights: two managers taking the same field of the same object from each other, back and forth.
 * One steal is ordinary (a user edits what a controller set; the controller puts it back once); a
 * fight is the field changing hands `transfers` times within `windowMs` between the same two
 * managers, each transfer the reverse of the one before (A->B, B->A, A->B, ...).
 *
 * Guarantees: a fight is reported once when it is found (`record` returns it), and stays listed by
 * `active` while transfers go on within the window. Memory: one small record per contested field,
 * dropped by `prune` once the field has been quiet for a window; at most `maxFields` (oldest first).
 */
export interface Fight {
  /** The object, `resource[.group]:namespace/name` (pods: namespace/name). */
  key: string;
  /** The field, as `spec.replicas` or `metadata.annotations.x`. */
  path: string;
  managers: [string, string];
  /** Transfers within the window. */
  transfers: number;
  /** When the fight was first found, and the latest transfer (clock ms). */
  since: number;
  last: number;
}

/** Transfer times kept per field (a fight's count stops there). */
const MAX_TIMES = 64;

interface Contest {
  a: string;
  b: string;
  /** The manager that holds the field now. */
  holder: string;
  times: number[];
  since?: number;
}

export class FightDetector {
  private readonly contests = new Map<string, Contest>();

  constructor(
    private readonly transfers = 4,
    private readonly windowMs = 60_000,
    private readonly maxFields = 10_000,
  ) {}

  /** Field `path` of object `key` went from manager `from` to manager `to` at `now`: a new fight if this makes one. */
  record(key: string, path: string, from: string, to: string, now: number): Fight | undefined {
    const id = `${key}\u0000${path}`;
    let c = this.contests.get(id);
    const samePair = c && ((c.a === from && c.b === to) || (c.a === to && c.b === from));
    if (!c || !samePair || c.holder !== from) {
      c = { a: from, b: to, holder: to, times: [now] };
      this.contests.delete(id);
      this.contests.set(id, c);
      if (this.contests.size > this.maxFields) this.contests.delete(this.contests.keys().next().value!);
      return undefined;
    }
    c.holder = to;
    c.times.push(now);
    while (c.times.length && c.times[0]! < now - this.windowMs) c.times.shift();
    if (c.times.length > MAX_TIMES) c.times.shift();
    if (c.since !== undefined || c.times.length < this.transfers) return undefined;
    c.since = now;
    return this.fight(id, c);
  }

  /** The fights with a transfer within the window, most transfers first. */
  active(now: number): Fight[] {
    const out: Fight[] = [];
    for (const [id, c] of this.contests) if (c.since !== undefined && c.times.at(-1)! >= now - this.windowMs) out.push(this.fight(id, c));
    return out.sort((x, y) => y.transfers - x.transfers || (x.key < y.key ? -1 : 1));
  }

  prune(now: number): void {
    for (const [id, c] of this.contests) if (c.times.at(-1)! < now - this.windowMs) this.contests.delete(id);
  }

  private fight(id: string, c: Contest): Fight {
    const cut = id.indexOf('\u0000');
    return { key: id.slice(0, cut), path: id.slice(cut + 1), managers: [c.a, c.b], transfers: c.times.length, since: c.since!, last: c.times.at(-1)! };
  }
}
