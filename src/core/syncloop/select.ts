import { Channel, waitAny } from './channel';

/**
 * Selector: Go's `select` over receive cases, with a fairness guarantee Go only gives on average.
 *
 * Go picks uniformly at random among ready cases. We rotate the starting case by one on every
 * select and take the first ready case from there, which gives a hard bound instead of an
 * expectation:
 *
 *   A case that holds a value (or is closed) is chosen within `cases.length` consecutive selects,
 *   whatever the other cases do.
 *
 * Proof sketch: values are only removed by receivers, so a ready case stays ready until received;
 * over n consecutive selects the start index visits every position once, and when it reaches the
 * case's position that case is the first one scanned.
 *
 * One Selector belongs to one loop (it carries the rotation); it keeps no per-call state, and a
 * blocked select leaves no listener on any channel once it returns or aborts.
 */
export type Selected<C extends readonly Channel<any>[]> = {
  [I in keyof C]: { index: I extends `${infer N extends number}` ? N : never; ok: boolean; value: C[I] extends Channel<infer T> ? T | undefined : never };
}[number];

export class Selector {
  private start = 0;

  /** Waits until one case is ready and receives from it. `ok: false` means that channel is closed. */
  async select<C extends readonly Channel<any>[]>(cases: C, signal?: AbortSignal): Promise<Selected<C>> {
    if (cases.length === 0) throw new RangeError('select needs at least one case');
    for (;;) {
      const picked = this.trySelect(cases);
      if (picked) return picked;
      await waitAny(cases, signal);
    }
  }

  /** Non-blocking select (Go's select with a default case): undefined when nothing is ready. */
  trySelect<C extends readonly Channel<any>[]>(cases: C): Selected<C> | undefined {
    const n = cases.length;
    const from = this.start % n;
    this.start = (from + 1) % n;
    for (let k = 0; k < n; k++) {
      const index = (from + k) % n;
      const ch = cases[index]!;
      if (!ch.ready) continue;
      const r = ch.tryRecv();
      return { index, ok: r.ok, value: r.value } as Selected<C>;
    }
    return undefined;
  }
}
