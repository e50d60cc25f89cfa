/**
 * RefreshLanes: where each changed tree node goes before VS Code re-reads it. Three coalescing
 * lanes (RefreshCoalescer), by what a refresh of the node costs VS Code. No 'vscode' import.
 * - rows: an object's row, a "Show more" row (leaves, cheap to re-read), within a frame-sized ROWS_MS;
 * - structure: kinds, namespaces, the context (VS Code re-reads their children too), within
 *   STRUCTURE_MS; a whole-tree refresh goes here;
 * - counts: an expanded kind whose count changed but whose page did not (TreeModel.takeStaleCounts),
 *   within COUNTS_MS, so churn in a 10,000-pod kind does not make VS Code re-read its 500-row page
 *   ten times a second just to show a new count.
 *
 * - first results: a reset (a new load's empty tree) is held for up to FIRST_RESULT_HOLD_MS and goes
 *   out with the first bucket that arrives, at once. VS Code passes a tree event at once only when
 *   none came in the 200 ms before it (see gate.ts): a reset fired on its own, with the first
 *   namespaces 100 ms behind it, kept those rows from the screen for another 200+ ms.
 *
 * Guarantees: every node TreeModel.changed names is fired within its lane's window; a counts-lane
 * node is fired only if still cached when the lane fires (a reset in between dropped it); dispose()
 * cancels every timer and nothing fires afterwards.
 */
import type { Clock } from '../../core/clock';
import type { ModelChange } from '../model/resourceModel';
import { RefreshCoalescer } from './coalesce';
import type { ResourceNode } from './node';
import type { TreeModel } from './treeModel';

export const ROWS_MS = 32;
export const STRUCTURE_MS = 100;
export const COUNTS_MS = 1000;
/** How long a reset waits for the first loaded bucket to go out with it. */
export const FIRST_RESULT_HOLD_MS = 300;

const isLeaf = (n: ResourceNode) => n.kind === 'object' || n.kind === 'more';

export class RefreshLanes {
  private readonly rows: RefreshCoalescer<ResourceNode>;
  private readonly structure: RefreshCoalescer<ResourceNode>;
  private readonly counts: RefreshCoalescer<ResourceNode>;
  /** A reset is held in the structure lane until the first bucket arrives (or the hold ends). */
  private awaitingFirst = false;

  constructor(
    private readonly tree: TreeModel,
    fire: (nodes: ResourceNode[] | undefined) => void,
    clock: Clock,
    ms: { rows?: number; structure?: number; counts?: number } = {},
  ) {
    this.rows = new RefreshCoalescer(fire, clock, ms.rows ?? ROWS_MS);
    this.structure = new RefreshCoalescer(fire, clock, ms.structure ?? STRUCTURE_MS);
    this.counts = new RefreshCoalescer(
      (nodes) => {
        const live = nodes?.filter((n) => tree.byId(n.id) === n);
        if (!live || live.length) fire(live);
      },
      clock,
      ms.counts ?? COUNTS_MS,
    );
  }

  /** One model change: its nodes to their lanes. */
  modelChanged(c: ModelChange): void {
    const nodes = this.tree.changed(c);
    if (c.kind === 'reset') this.awaitingFirst = true;
    if (nodes === undefined) this.structure.add(undefined, c.kind === 'reset' ? FIRST_RESULT_HOLD_MS : undefined);
    else if (nodes.length) {
      const leaves = nodes.filter(isLeaf);
      if (leaves.length) this.rows.add(leaves);
      if (leaves.length < nodes.length) this.structure.add(nodes.filter((n) => !isLeaf(n)));
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
  }
}
