/**
 * SharedLanes: one budget of lanes (seats, in the API server's Priority and Fairness vocabulary)
 * shared by several WorkerPools, one pool per cluster, so that a load of several clusters runs at
 * most `total` lists at once, and shares them fairly.
 *
 * Each pool joins as a LaneMember and takes a seat before a task starts on one of its own workers
 * (the pool's own concurrency still bounds it too). Guarantees:
 * 1. At most `total` seats are held at any instant, across all members.
 * 2. No member takes the last seat another member needs for its first task: while a joined member
 *    holds no seat, one seat stays free for it (a cluster still in discovery finds a lane ready
 *    when its first list comes, so a huge cluster cannot delay a small one's first results).
 * 3. Max-min fair: a member may not take a seat while another member that wants one holds fewer.
 *    A freed seat goes to the waiting member holding the fewest (ties: the one waiting longest).
 * 4. Nothing is lost: a member that could not take a seat is woken (its `wake` callback, on a
 *    microtask) whenever a seat frees or a member leaves, until it no longer wants one. A member
 *    that leaves gives back what it holds.
 * 5. A provisional member (joined with `provisional`: a cluster that has not answered yet) takes at
 *    most one seat, outside the budget: it counts in no other member's reservation or fairness and
 *    takes nothing from them, so a cluster that never answers (its one list waiting on a silent
 *    socket, which costs this process nothing) leaves the whole budget to the clusters that do.
 *    confirm() (its server answered) makes it an ordinary member; the seat it holds then counts
 *    (the budget may be over by that one seat until a seat is given back; guarantee 1 holds for
 *    confirmed members: they take no seat while at or over it).
 * Work-conserving: with one member (or one busy member) every seat but the reserved ones is usable.
 */
export class SharedLanes {
  private readonly memberSet = new Set<LaneMember>();
  private held = 0;
  private pumping = false;

  constructor(readonly total: number) {
    if (!Number.isInteger(total) || total < 1) throw new RangeError(`shared lanes must be an integer >= 1, got ${String(total)}`);
  }

  /**
   * A member for one pool; `wake` is called (never synchronously) when it may be able to take a
   * seat. A loader joins before its discovery (so guarantee 2 keeps a seat for its first list) and
   * hands the member to its pool, which sets its own `wake`.
   */
  join(name: string, wake: () => void = () => undefined, opts: { provisional?: boolean } = {}): LaneMember {
    const m = new LaneMember(this, name, wake, !opts.provisional);
    this.memberSet.add(m);
    return m;
  }

  /** Members joined now (pools and loaders in discovery). */
  get members(): number {
    return this.memberSet.size;
  }

  /** Seats held now, in all (for tests and progress displays). */
  get inUse(): number {
    return this.held;
  }

  /** @internal */
  take(m: LaneMember): boolean {
    if (!this.memberSet.has(m)) return false;
    if (!m.confirmed) {
      // guarantee 5: one seat, outside the budget
      if (m.held > 0) return false;
      m.held++;
      return true;
    }
    if (this.held >= this.total) return false;
    let reserved = 0;
    for (const o of this.memberSet) {
      if (o === m || !o.confirmed) continue;
      if (o.held === 0) reserved++; // guarantee 2
      if (o.wanting && o.held < m.held) return false; // guarantee 3
    }
    // A member with no seat may always use the one kept for it.
    if (m.held > 0 && this.total - this.held <= reserved) return false;
    m.held++;
    this.held++;
    return true;
  }

  /** @internal */
  give(m: LaneMember): void {
    if (m.held <= 0) return;
    m.held--;
    if (m.confirmed) this.held--;
    this.pump();
  }

  /** @internal */
  confirm(m: LaneMember): void {
    if (m.confirmed) return;
    m.confirmed = true;
    if (!this.memberSet.has(m)) return;
    this.held += m.held;
    this.pump(); // it may want more seats now, and the others' reservations changed
  }

  /** @internal */
  leave(m: LaneMember): void {
    if (!this.memberSet.delete(m)) return;
    if (m.confirmed) this.held -= m.held;
    m.held = 0;
    m.wanting = false;
    this.pump();
  }

  /** Wakes the waiting members, fewest seats first, once per burst of frees (guarantee 4). */
  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    queueMicrotask(() => {
      this.pumping = false;
      const waiting = [...this.memberSet].filter((m) => m.wanting).sort((a, b) => a.held - b.held || a.since - b.since);
      for (const m of waiting) {
        if (this.held >= this.total) break;
        m.wake();
      }
    });
  }
}

let order = 0;

export class LaneMember {
  /** @internal seats held */
  held = 0;
  /** @internal wants a seat it could not take */
  wanting = false;
  /** @internal when it began waiting (ties of guarantee 3) */
  since = 0;

  constructor(
    private readonly lanes: SharedLanes,
    readonly name: string,
    /** @internal Set again by the pool that adopts a member joined ahead of it (WorkerPoolOptions.lanes). */
    public wake: () => void,
    /** @internal false while provisional (guarantee 5) */
    public confirmed = true,
  ) {}

  /** A provisional member's cluster answered: from now on it shares the budget like any member. Idempotent. */
  confirm(): void {
    this.lanes.confirm(this);
  }

  /** Takes a seat if the rules allow it now; when not, the member is marked waiting and woken later. */
  tryTake(): boolean {
    if (this.lanes.take(this)) {
      this.wanting = false;
      return true;
    }
    if (!this.wanting) {
      this.wanting = true;
      this.since = ++order;
    }
    return false;
  }

  /** The member has no more work waiting for a seat (its queue is empty). */
  unwant(): void {
    this.wanting = false;
  }

  /** Gives back one seat taken with tryTake. */
  give(): void {
    this.lanes.give(this);
  }

  /** Leaves the budget, giving back every seat it holds. Idempotent. */
  leave(): void {
    this.lanes.leave(this);
  }

  get seats(): number {
    return this.held;
  }
}
