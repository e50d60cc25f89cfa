/**
 * RefreshCoalescer: turns a burst of "these nodes changed" into one refresh per `delayMs`. No
 * 'vscode' import; time goes through a Clock so tests use FakeClock.
 *
 * Guarantees:
 * - Every node added is refreshed by the next flush (itself, or an ancestor that covers it): a node
 *   whose ancestor is also pending is left out, since refreshing the ancestor re-reads it.
 * - A request to refresh everything (undefined) makes the flush one whole-tree refresh.
 * - The flush comes within the shortest delay any add asked for since the last flush (the
 *   lane's `delayMs` unless an add says otherwise).
 * - With `spacing`, a flush that fired also holds the next one back by `spacing(fired)` ms: a
 *   node added meanwhile fires at the later of its delay and that time (the lane paces itself by
 *   what its firings cost, not by how often nodes arrive).
 * - At most one timer is pending; dispose() cancels it and nothing fires afterwards.
 */
import type { Clock, TimerHandle } from '../../core/clock';
import { nodeId } from './treeNode';

export interface PathNode {
  readonly id: string;
  readonly path: readonly string[];
}

export class RefreshCoalescer<N extends PathNode> {
  private pending = new Map<string, N>();
  private all = false;
  private timer: TimerHandle | undefined;
  /** Clock time the pending timer fires at. */
  private due = Infinity;
  /** Clock time before which no flush fires (set by `spacing` after a firing). */
  private notBefore = -Infinity;
  private disposed = false;

  constructor(
    private readonly fire: (nodes: N[] | undefined) => void,
    private readonly clock: Clock,
    readonly delayMs = 100,
    private readonly spacing?: (fired: readonly N[] | undefined) => number,
  ) {}

  /** Queues nodes to refresh (undefined = the whole tree), to be fired within `delayMs`. */
  add(nodes: readonly N[] | undefined, delayMs = this.delayMs): void {
    if (this.disposed) return;
    if (nodes === undefined) this.all = true;
    else for (const n of nodes) this.pending.set(n.id, n);
    if (!this.all && this.pending.size === 0) return;
    const now = this.clock.now();
    const due = Math.max(now + delayMs, this.notBefore);
    if (this.timer && this.due <= due) return;
    this.timer?.cancel();
    this.due = due;
    this.timer = this.clock.setTimer(due - now, () => this.flush());
  }

  flush(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.due = Infinity;
    if (this.disposed) return;
    const all = this.all;
    const nodes = [...this.pending.values()];
    this.all = false;
    this.pending = new Map();
    if (!all && nodes.length === 0) return;
    const fired = all ? undefined : withoutCovered(nodes);
    if (this.spacing) this.notBefore = this.clock.now() + this.spacing(fired);
    this.fire(fired);
  }

  dispose(): void {
    this.disposed = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.due = Infinity;
  }
}

/** The nodes none of whose ancestors is in the list (refreshing an ancestor re-reads its subtree). */
export function withoutCovered<N extends PathNode>(nodes: readonly N[]): N[] {
  const ids = new Set(nodes.map((n) => n.id));
  const pathIds = (n: N) => {
    const out: string[] = [];
    for (let i = 1; i < n.path.length; i++) out.push(nodeId(n.path.slice(0, i)));
    return out;
  };
  return nodes.filter((n) => !pathIds(n).some((a) => ids.has(a)));
}
