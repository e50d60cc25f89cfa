/**
 * FreshnessRows: the sync loop's freshness on the tree's kind rows while the loop runs. It gives
 * the TreeModel its kindFreshness lookup, and says which kind rows VS Code was given whose text
 * moved (a type turned stale or current, or its stale age passed another minute), so the glue
 * refreshes those and no others: a kind row's refresh re-reads its page of children, so rows are
 * not refreshed for ages that only the tooltip's times of day would show.
 */
import type { Clock } from '../../core/clock';
import type { SourceFreshness } from '../../core/syncloop/sources/cluster';
import type { ResourceNode } from '../tree/treeNode';
import type { TreeModel } from '../tree/treeModel';
import { kindFreshness, sourceOf } from './freshnessText';

export class FreshnessRows {
  /** What each kind row's freshness read when last compared (its suffix and stale reason). */
  private readonly shown = new Map<string, string>();

  constructor(
    private readonly tree: TreeModel,
    private readonly entries: () => readonly SourceFreshness[],
    private readonly clock: Clock,
    private readonly wallNow: () => number = Date.now,
  ) {
    tree.kindFreshness = (namespace, typeKey) => {
      const e = sourceOf(this.entries(), namespace, typeKey);
      return e ? kindFreshness(e, this.clock.now(), this.wallNow()) : undefined;
    };
  }

  /** The kind rows whose suffix or stale reason changed since the last call (the first call names none). */
  changed(): ResourceNode[] {
    const entries = this.entries();
    const now = this.clock.now();
    const out: ResourceNode[] = [];
    const seen = new Set<string>();
    for (const node of this.tree.typeNodes()) {
      seen.add(node.id);
      const e = sourceOf(entries, node.namespace!, node.typeKey!);
      const v = e?.freshness.verdict(now);
      const text = !e ? '' : v?.stale ? `${kindFreshness(e, now, 0).suffix ?? ''}|${v.reason ?? ''}` : 'current';
      const before = this.shown.get(node.id);
      this.shown.set(node.id, text);
      if (before !== undefined && before !== text) out.push(node);
    }
    for (const id of [...this.shown.keys()]) if (!seen.has(id)) this.shown.delete(id);
    return out;
  }

  /** The loop stopped: kind rows read as before; returns the rows that showed freshness, to refresh. */
  dispose(): ResourceNode[] {
    this.tree.kindFreshness = undefined;
    const stale = this.tree.typeNodes().filter((n) => (this.shown.get(n.id) ?? '') !== '');
    this.shown.clear();
    return stale;
  }
}
