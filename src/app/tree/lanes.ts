/**
 * RefreshLanes: where each changed tree node goes before VS Code re-reads it. Four coalescing
 * lanes (RefreshCoalescer), by what a refresh of the node costs VS Code. No 'vscode' import.
 * - rows: an object's row, a "Show more" row (leaves, cheap to re-read), within a frame-sized ROWS_MS;
 * - structure: kinds, namespaces, the context (VS Code re-reads their children too), within
 *   STRUCTURE_MS; a whole-tree refresh goes here;
 * - counts: an expanded kind whose count changed but whose page did not (TreeModel.takeStaleCounts),
 *   within COUNTS_MS, so churn in a 10,000-pod kind does not make VS Code re-read its 500-row page
 *   ten times a second just to show a new count; then on to the pages lane. Its "Show more" row
 *   ("500 of N shown") is re-read with it, never on its own: named at once, it made every join and
 *   leave spend one of VS Code's tree events (gate.ts), so a change elsewhere waited for the next.
 * - pages: a change that makes VS Code re-read more than PAGE_ROWS rows (an expanded kind's page, or
 *   a namespace or context above one: TreeModel.refreshCost), paced by what it costs. VS Code's
 *   extension host keeps a DisposableStore of every tree item it is ever given, for the life of the
 *   view (ExtHostTreeView._createTreeNode registers it on the view and never lets go): measured in
 *   code-server 4.100 on the 100k demo cluster, about 225 bytes an item, and a 1,000-row page
 *   re-read four times a second grew the host's heap ~12 MB a minute for as long as churn lasted.
 *   So re-read rows are spent from a bucket (PAGE_BURST_ROWS, refilled at ITEMS_PER_SECOND): a page
 *   change now and then shows within STRUCTURE_MS, while a busy 10,000-pod kind's 1,000-row page
 *   takes in joins and leaves every ~7 s. A row that leaves the page says "gone" within a frame
 *   meanwhile (rows lane), and a small kind's changes are never paced. A command's refresh (add)
 *   is never paced either.
 *
 * - first results: a reset (a new load's empty tree) is held for up to FIRST_RESULT_HOLD_MS and goes
 *   out with the first bucket that arrives, at once. VS Code passes a tree event at once only when
 *   none came in the 200 ms before it (see gate.ts): a reset fired on its own, with the first
 *   namespaces 100 ms behind it, kept those rows from the screen for another 200+ ms.
 *
 * Guarantees: every node TreeModel.changed names is fired within its lane's window (the pages
 * lane's: STRUCTURE_MS, or once the bucket has refilled to zero after what the lane last spent);
 * averaged over any minute, the pages lane spends at most PAGE_BURST_ROWS + ITEMS_PER_SECOND * 60
 * re-read rows; a counts- or pages-lane node is fired only if still cached when the lane fires (a
 * reset in between dropped it); dispose() cancels every timer and nothing fires afterwards.
 */
import type { Clock } from '../../core/clock';
import type { ModelChange } from '../model/resourceModel';
import { RefreshCoalescer } from './coalesce';
import type { ResourceNode } from './treeNode';
import type { TreeModel } from './treeModel';

export const ROWS_MS = 32;
export const STRUCTURE_MS = 100;
export const COUNTS_MS = 1000;
/** A refresh re-reading more rows than this goes to the pages lane. */
export const PAGE_ROWS = 100;
/** The pages lane's pace: re-read rows per second, on average (~2 MB a minute of VS Code's heap). */
export const ITEMS_PER_SECOND = 150;
/** How many re-read rows the pages lane may spend at once after a quiet spell (two 1,000-row pages). */
export const PAGE_BURST_ROWS = 2000;
/** How long a reset waits for the first loaded bucket to go out with it. */
export const FIRST_RESULT_HOLD_MS = 300;

const isLeaf = (n: ResourceNode) => n.kind === 'object' || n.kind === 'more';

export class RefreshLanes {
  private readonly rows: RefreshCoalescer<ResourceNode>;
  private readonly structure: RefreshCoalescer<ResourceNode>;
  private readonly counts: RefreshCoalescer<ResourceNode>;
  private readonly pages: RefreshCoalescer<ResourceNode>;
  /** A reset is held in the structure lane until the first bucket arrives (or the hold ends). */
  private awaitingFirst = false;

  constructor(
    private readonly tree: TreeModel,
    fire: (nodes: ResourceNode[] | undefined) => void,
    clock: Clock,
    ms: { rows?: number; structure?: number; counts?: number; itemsPerSecond?: number; burstRows?: number } = {},
  ) {
    this.rows = new RefreshCoalescer(fire, clock, ms.rows ?? ROWS_MS);
    this.structure = new RefreshCoalescer(fire, clock, ms.structure ?? STRUCTURE_MS);
    const rate = ms.itemsPerSecond ?? ITEMS_PER_SECOND;
    const burst = ms.burstRows ?? PAGE_BURST_ROWS;
    // The bucket of re-read rows: full at first; a firing spends its cost (it may go below zero, which
    // holds the next firing until the refill brings it back to zero).
    let tokens = burst;
    let filledAt = clock.now();
    const spend = (cost: number): number => {
      const now = clock.now();
      tokens = Math.min(burst, tokens + ((now - filledAt) * rate) / 1000) - cost;
      filledAt = now;
      return tokens >= 0 ? 0 : (-tokens * 1000) / rate;
    };
    this.pages = new RefreshCoalescer(
      (nodes) => {
        const live = nodes?.filter((n) => tree.byId(n.id) === n);
        if (!live || live.length) fire(live);
      },
      clock,
      ms.structure ?? STRUCTURE_MS,
      (fired) => spend(fired ? fired.reduce((a, n) => a + tree.refreshCost(n), 0) : PAGE_ROWS),
    );
    this.counts = new RefreshCoalescer((nodes) => this.pages.add(nodes, 0), clock, ms.counts ?? COUNTS_MS);
  }

  /** One model change: its nodes to their lanes. */
  modelChanged(c: ModelChange): void {
    const nodes = this.tree.changed(c);
    if (c.kind === 'reset') this.awaitingFirst = true;
    if (nodes === undefined) this.structure.add(undefined, c.kind === 'reset' ? FIRST_RESULT_HOLD_MS : undefined);
    else if (nodes.length) {
      const leaves = nodes.filter(isLeaf);
      if (leaves.length) this.rows.add(leaves);
      if (leaves.length < nodes.length) {
        const inner = nodes.filter((n) => !isLeaf(n));
        const big = inner.filter((n) => this.tree.refreshCost(n) > PAGE_ROWS);
        if (big.length) this.pages.add(big);
        if (big.length < inner.length) this.structure.add(inner.filter((n) => !big.includes(n)));
      }
    }
    const stale = this.tree.takeStaleCounts();
    if (stale.length) this.counts.add(stale);
    if (this.awaitingFirst && c.kind === 'bucket' && c.created) {
      this.awaitingFirst = false;
      this.structure.flush();
    }
  }

  /** A refresh asked for by a command: the node (or the whole tree, undefined) in the structure lane. */
  add(nodes: readonly ResourceNode[] | undefined): void {
    this.structure.add(nodes);
  }

  /** Fires the structure lane now (a whole-tree refresh before a reveal). */
  flushStructure(): void {
    this.structure.flush();
  }

  dispose(): void {
    this.rows.dispose();
    this.structure.dispose();
    this.counts.dispose();
    this.pages.dispose();
  }
}
