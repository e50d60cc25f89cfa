/**
 * RefreshGate: the last step before onDidChangeTreeData. VS Code's extension host debounces a tree's
 * change events by 200 ms with the timer restarted by every event (ExtHostTreeView: Event.debounce(
 * ..., 200, leading)): an event after 200 quiet ms goes through at once, but events that keep coming
 * less than 200 ms apart are held until the stream pauses. Under churn the tree's lanes fire every
 * 32-100 ms, so VS Code would show nothing for seconds. The gate fires at most once per `gapMs`
 * (a little over 200 ms), merging what arrived meanwhile, so each of its events is a leading one
 * that VS Code passes on at once. No 'vscode' import; time through a Clock.
 *
 * Guarantees:
 * - Every node pushed is fired by the next firing, which comes within `gapMs` of the push.
 * - Two firings are at least `gapMs` apart, except a push with `now` (a refresh a command waits on).
 * - undefined (everything) absorbs the nodes merged with it; dispose() cancels the timer.
 * - setGap() changes the spacing from the next firing on (a firing already due keeps its time);
 *   a load uses LOAD_GATE_MS, so the workbench redraws the growing tree half as often while the
 *   load and the drawing share the machine's cores.
 */
import type { Clock } from '../../core/clock';
import { Paced } from '../paced';

/** VS Code's own debounce of tree change events (src/vs/workbench/api/common/extHostTreeViews.ts). */
export const VSCODE_TREE_DEBOUNCE_MS = 200;
export const GATE_MS = 220;
/**
 * The gap while a load fills the tree. Measured in code-server on the 100k demo cluster, one load:
 * the workbench's renderer spent ~0.7 s of JavaScript on the tree's 15 redraws (rows re-rendered,
 * their inline actions computed again), on the same two cores as the extension host's load.
 */
export const LOAD_GATE_MS = 500;

export class RefreshGate<N extends { readonly id: string }> {
  private pending: Map<string, N> | 'all' | undefined;
  /** The spacing of firings (paced.ts); what it delivers is the nodes merged meanwhile. */
  private readonly paced: Paced<void>;
  private disposed = false;

  constructor(
    private readonly fire: (nodes: N[] | undefined) => void,
    clock: Clock,
    gapMs = GATE_MS,
  ) {
    this.paced = new Paced<void>(() => this.firePending(), clock, gapMs);
  }

  get gap(): number {
    return this.paced.gap;
  }

  /** The spacing of firings from now on (never below VS Code's own debounce). */
  setGap(ms: number): void {
    this.paced.setGap(Math.max(ms, VSCODE_TREE_DEBOUNCE_MS + 1));
  }

  push(nodes: readonly N[] | undefined, opts: { now?: boolean } = {}): void {
    if (this.disposed) return;
    if (nodes === undefined) this.pending = 'all';
    else if (nodes.length === 0 && this.pending === undefined)
      return; // nothing to fire, no firing spent
    else if (this.pending !== 'all') {
      this.pending ??= new Map();
      for (const n of nodes) this.pending.set(n.id, n);
    }
    this.paced.push();
    if (opts.now) this.paced.flush();
  }

  private firePending(): void {
    const p = this.pending;
    this.pending = undefined;
    if (p === undefined || (p !== 'all' && p.size === 0)) return;
    this.fire(p === 'all' ? undefined : [...p.values()]);
  }

  dispose(): void {
    this.disposed = true;
    this.paced.dispose();
  }
}
