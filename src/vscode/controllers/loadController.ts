/**
 * Load Cluster Resources, Cancel Load, Refresh and Refresh This Type: a load with a cancellable
 * progress notification ("12/64 types, 3,456 objects") whose Cancel and the Cancel Load command both
 * abort the load's signal. One load at a time: a new one cancels the one running. Glue only; the
 * load itself is ../load/loadRunner.ts.
 */
import * as vscode from 'vscode';
import { CONTEXT_KEYS } from '../../app/commandIds';
import { progressMessage, type LoadProgress, type LoadResult } from '../../app/load/loadRunner';
import type { ApiCost } from '../../core/loader/loadCost';
import { WindowLoads, type WindowLoadsDeps } from '../../app/load/windowLoads';
import type { OpenConnection } from '../../app/connection/connection';
import type { ResourceNode } from '../../app/tree/treeNode';
import { Paced } from '../../app/paced';
import { realClock } from '../../core/clock';
import { reportProblem } from './connection';
import { setContextKey, type StatusSink } from './services';
import type { ResourceTreeProvider } from '../tree/resourceTree';
import { tellLoadResult, type LoadMessageDeps } from './loadMessages';

/** How long a load runs before its progress notification shows (see load()). */
export const NOTIFY_AFTER_MS = 500;

export interface LoadOptions {
  only?: { typeKey: string; namespace?: string };
}

export type LoadDeps = WindowLoadsDeps &
  LoadMessageDeps &
  StatusSink & {
    readonly tree: Pick<ResourceTreeProvider, 'paceForLoad' | 'refresh' | 'refreshAllNow' | 'getChildren'>;
    readonly view: Pick<vscode.TreeView<ResourceNode>, 'visible' | 'reveal'>;
  };

export class LoadController implements vscode.Disposable {
  private readonly loads: WindowLoads;
  private seq = 0;
  /** The running load's progress (for the status bar). */
  progress: LoadProgress | undefined;
  /** The last load's API cost (for the status bar's tooltip). */
  lastCost: ApiCost | undefined;

  constructor(private readonly s: LoadDeps) {
    this.loads = new WindowLoads(s);
  }

  get loading(): boolean {
    return this.loads.loading;
  }

  async load(opts: LoadOptions = {}): Promise<LoadResult | undefined> {
    const mine = ++this.seq;
    // The notification's reporter, once it is shown (NOTIFY_AFTER_MS below), and the latest progress
    // this load delivered, which it shows first.
    let report: ((p: LoadProgress) => void) | undefined;
    let latest: LoadProgress | undefined;
    const paced = new Paced<LoadProgress>((p) => {
      this.progress = latest = p;
      report?.(p);
      this.s.statusChanged();
    }, realClock);
    let endPace = () => undefined as void;
    let notifyTimer: { cancel(): void } | undefined;
    setContextKey(CONTEXT_KEYS.loading, true);
    this.s.statusChanged();
    const loading = this.loads.load({
      ...opts,
      onProgress: (p) => paced.push(p),
      onStart: (conn, signal) => {
        if (!opts.only) void this.revealView();
        // The tree's redraws and the progress' are spaced while the load runs (the workbench draws on
        // the cores the load uses); both return to their pace, and show the end, when it is over.
        if (!opts.only) endPace = this.s.tree.paceForLoad();
        notifyTimer = this.notifyLater(
          conn,
          opts,
          signal,
          loading,
          (r) => (report = r),
          () => latest,
        );
      },
    });
    let outcome: Awaited<typeof loading>;
    try {
      outcome = await loading;
    } finally {
      notifyTimer?.cancel();
      report = undefined;
      paced.dispose();
      endPace();
      if (this.seq === mine) {
        this.progress = undefined;
        setContextKey(CONTEXT_KEYS.loading, false);
      }
      this.s.statusChanged();
      // A level-triggered backstop: the partial refreshes fired during the load name nodes VS Code
      // may not have taken (a view hidden at the time, a reset in between); one whole-tree refresh
      // at the end leaves the tree showing the model, whatever became of them. Ids are stable, so
      // expanded rows stay expanded.
      this.s.tree.refresh();
    }
    if (outcome.kind === 'dropped') return undefined;
    if (outcome.kind === 'unconnected') {
      const t = outcome.target;
      void reportProblem(this.s, outcome.error, { ...(t.context ? { context: t.context } : {}) }, () => this.load(opts));
      return undefined;
    }
    this.lastCost = outcome.result.summary.apiCost;
    this.s.statusChanged();
    await tellLoadResult(this.s, outcome.result, outcome.conn, () => this.load(opts));
    return outcome.result;
  }

  /**
   * The cancellable progress notification comes NOTIFY_AFTER_MS after the start, if the load still
   * runs: it and its animation are drawn by the workbench's renderer, which at that moment also has
   * the tree's first rows to fetch and draw (each a round trip to this busy host); a load that ends
   * before it never shows one. The status bar says "loading" from the start, and Cancel Load works
   * from the start.
   */
  private notifyLater(
    conn: OpenConnection,
    opts: LoadOptions,
    signal: AbortSignal,
    loading: Promise<unknown>,
    setReport: (r: (p: LoadProgress) => void) => void,
    latest: () => LoadProgress | undefined,
  ): { cancel(): void } {
    const title = opts.only
      ? `KubeLoop: refreshing ${opts.only.typeKey}${opts.only.namespace ? ` in ${opts.only.namespace}` : ''}`
      : `KubeLoop: loading "${conn.context.name}"`;
    return realClock.setTimer(NOTIFY_AFTER_MS, () => {
      if (signal.aborted) return;
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
        token.onCancellationRequested(() => this.loads.cancel());
        let shown = 0;
        const report = (p: LoadProgress) => {
          const pct = p.tasksTotal ? (100 * p.tasksDone) / p.tasksTotal : 0;
          progress.report({ message: progressMessage(p), increment: pct - shown });
          shown = pct;
        };
        setReport(report);
        const l = latest();
        if (l) report(l);
        else progress.report({ message: 'discovering resource types…' });
        await loading.catch(() => undefined);
      });
    });
  }

  /**
   * Shows the KubeLoop view when a load starts while it is hidden (a palette load from the
   * Explorer): its context row, expanded, so the first types appear as they load. Never takes
   * focus or selects: a user typing in an editor keeps typing there.
   */
  private async revealView(): Promise<void> {
    if (this.s.view.visible) return;
    this.s.tree.refreshAllNow();
    const root = this.s.tree.getChildren()[0];
    if (!root) return;
    try {
      await this.s.view.reveal(root, { select: false, focus: false, expand: true });
    } catch (e) {
      this.s.log.debug(`load: could not reveal the KubeLoop view: ${(e as Error).message}`);
    }
  }

  /** Cancels the running load (the same as the notification's Cancel). */
  cancel(): boolean {
    if (this.loads.cancel()) return true;
    void vscode.window.showInformationMessage('KubeLoop: no load is running.');
    return false;
  }

  dispose(): void {
    this.loads.dispose();
  }
}
