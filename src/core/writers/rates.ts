/**
 * DecayingRates: writes per second per key (a manager, a kind, a namespace, an object), as an
 * exponentially decaying count: each write adds 1, and the count decays with time constant `tauMs`,
 * so a steady r writes/s settles at r * tau and `rate()` reads it back as r (a burst fades within a
 * few tau; in the first tau after the first write the count is scaled up by the decay's warm-up). Two numbers per key, whatever the number of writes.
 *
 * Guarantees:
 * - Memory is bounded by what was written lately, not by the cluster: `prune()` drops every key whose
 *   count has decayed below `floor` (no write for about tau * ln(1 / floor)), and past `maxKeys` keys
 *   the weakest go first. At 500 writes/s over 100,000 objects that is about 15,000 object keys.
 * - `top(k)` is the k keys with the highest rate now, highest first, ties by key (stable output).
 */
export interface Rate {
  key: string;
  /** Writes per second (decayed, see above). */
  perSecond: number;
}

interface Cell {
  count: number;
  at: number;
  /**
   * ln(count) + at / tau: every count decays alike, so this orders the keys as their counts now
   * do, whatever now is. top() and prune() compare it and never call exp per key (a snapshot a
   * second over 15,000 object keys).
   */
  score: number;
}

export class DecayingRates {
  private readonly cells = new Map<string, Cell>();
  /** The first write's time: until a few tau after it, rates are scaled up by what the decay has not yet filled in. */
  private origin: number | undefined;

  constructor(
    private readonly tauMs: number,
    private readonly maxKeys = 50_000,
    private readonly floor = 0.05,
  ) {}

  get size(): number {
    return this.cells.size;
  }

  /** Counts `n` writes of `key` at time `now` (ms, monotonic). */
  add(key: string, now: number, n = 1): number {
    this.origin ??= now;
    const c = this.cells.get(key);
    if (!c) {
      this.cells.set(key, { count: n, at: now, score: Math.log(n) + now / this.tauMs });
      return n;
    }
    c.count = this.decayed(c, now) + n;
    c.at = now;
    c.score = Math.log(c.count) + now / this.tauMs;
    return c.count;
  }

  /** Writes per second of `key` at `now` (0 when unknown). */
  rate(key: string, now: number): number {
    const c = this.cells.get(key);
    return c ? this.perSecond(c, now) : 0;
  }

  top(k: number, now: number): Rate[] {
    const best: { key: string; score: number; cell: Cell }[] = [];
    this.cells.forEach((cell, key) => {
      const score = cell.score;
      if (best.length === k && !before(score, key, best[k - 1]!)) return;
      let i = best.length;
      while (i > 0 && before(score, key, best[i - 1]!)) i--;
      best.splice(i, 0, { key, score, cell });
      if (best.length > k) best.pop();
    });
    return best.map((b) => ({ key: b.key, perSecond: this.perSecond(b.cell, now) }));
  }

  /**
   * The k strongest keys of each group `groupOf` names (a key `group\u0000sub` read as its group and
   * its sub-key), highest first, ties by sub-key; keys of no group left out. One pass over the keys.
   */
  topPerGroup(k: number, now: number, groupOf: (key: string) => { group: string; sub: string } | undefined): Map<string, Rate[]> {
    const best = new Map<string, { key: string; score: number; cell: Cell }[]>();
    this.cells.forEach((cell, key) => {
      const g = groupOf(key);
      if (!g) return;
      let list = best.get(g.group);
      if (!list) best.set(g.group, (list = []));
      if (list.length === k && !before(cell.score, g.sub, list[k - 1]!)) return;
      let i = list.length;
      while (i > 0 && before(cell.score, g.sub, list[i - 1]!)) i--;
      list.splice(i, 0, { key: g.sub, score: cell.score, cell });
      if (list.length > k) list.pop();
    });
    const out = new Map<string, Rate[]>();
    for (const [g, list] of best)
      out.set(
        g,
        list.map((b) => ({ key: b.key, perSecond: this.perSecond(b.cell, now) })),
      );
    return out;
  }

  /** Drops the keys decayed below the floor, then the weakest past maxKeys. */
  prune(now: number): void {
    const below = Math.log(this.floor) + now / this.tauMs;
    this.cells.forEach((c, key) => {
      if (c.score < below) this.cells.delete(key);
    });
    if (this.cells.size <= this.maxKeys) return;
    const weakest = [...this.cells].sort((a, b) => a[1].score - b[1].score);
    for (let i = 0; i < weakest.length - this.maxKeys; i++) this.cells.delete(weakest[i]![0]);
  }

  /**
   * count / tau, divided by the share of tau the watch has been running: a steady rate reads true
   * from the first seconds instead of creeping up over several tau (a fresh `kubeloop writers`).
   */
  private perSecond(c: Cell, now: number): number {
    const ran = Math.max(now - (this.origin ?? now), 1000);
    return (this.decayed(c, now) * 1000) / this.tauMs / (1 - Math.exp(-ran / this.tauMs));
  }

  private decayed(c: Cell, now: number): number {
    return now <= c.at ? c.count : c.count * Math.exp((c.at - now) / this.tauMs);
  }
}

function before(score: number, key: string, r: { key: string; score: number }): boolean {
  return score > r.score || (score === r.score && key < r.key);
}
