/**
 * Load Cluster Resources, Cancel Load, Refresh and Refresh This Type: a load with a cancellable
 * progress notification ("12/64 types, 3,456 objects") whose Cancel and the Cancel Load command both
 * abort the load's signal. One load at a time: a new one cancels the one running. Glue only; the
 * load itself is ../load/loadRunner.ts.
 */
import type { ApiCost } from '../../core/loader/loadCost';
import * as vscode from 'vscode';
import { COMMANDS, CONTEXT_KEYS } from '../../app/commandIds';
import { noRightsText, nothingPermitted } from '../../core/loader/scope';
import { progressMessage, runLoad, type LoadProgress, type LoadResult } from '../../app/load/loadRunner';
import { Paced } from '../../app/paced';
import { realClock } from '../../core/clock';
import { connect, reportProblem } from './connection';
import { setContextKey, type Services } from './services';
import { formatCount } from '../../core/formatCount';

/** How long a load runs before its progress notification shows (see load()). */
export const NOTIFY_AFTER_MS = 500;

export interface LoadOptions {
  only?: { typeKey: string; namespace?: string };
}

export class LoadController implements vscode.Disposable {
  private current: { ac: AbortController; done: Promise<unknown> } | undefined;
  private seq = 0;
  /** The running load's progress (for the status bar). */
  progress: LoadProgress | undefined;
  /** The last load's API cost (for the status bar's tooltip). */
  lastCost: ApiCost | undefined;

  constructor(private readonly s: Services) {}

  get loading(): boolean {
    return !!this.current;
  }

  async load(opts: LoadOptions = {}): Promise<LoadResult | undefined> {
    if (this.current) {
      this.current.ac.abort(new Error('superseded by a new load'));
      await this.current.done.catch(() => undefined);
    }
    const conn = await connect(this.s, () => this.load(opts));
    if (!conn) return undefined;
    const settings = this.s.settings();
    const ac = new AbortController();
    const loadId = `load-${++this.seq}`;
    const ctx = conn.context;
    this.s.model.retarget({ context: ctx.name, server: ctx.server, ...(opts.only ? {} : { namespaces: settings.namespaces }) });
    if (!opts.only) void this.revealView();
    // The tree's redraws and the progress' are spaced while the load runs (the workbench draws on
    // the cores the load uses); both return to their pace, and show the end, when it is over.
    const endPace = opts.only ? () => undefined : this.s.tree.paceForLoad();
    const title = opts.only
      ? `KubeLoop: refreshing ${opts.only.typeKey}${opts.only.namespace ? ` in ${opts.only.namespace}` : ''}`
      : `KubeLoop: loading "${ctx.name}"`;
    // The notification's reporter, once it is shown (NOTIFY_AFTER_MS below), and the latest progress
    // this load delivered, which it shows first.
    let report: ((p: LoadProgress) => void) | undefined;
    let latest: LoadProgress | undefined;
    const paced = new Paced<LoadProgress>((p) => {
      this.progress = latest = p;
      report?.(p);
      this.s.statusChanged();
    }, realClock);
    const loading = runLoad({
      client: conn.client,
      contextName: ctx.name,
      settings,
      ...(opts.only ? { only: opts.only } : {}),
      model: this.s.model,
      timeline: this.s.timeline,
      log: this.s.log,
      origin: this.s.origin,
      loadId,
      signal: ac.signal,
      lanes: this.s.lanes,
      onProgress: (p) => paced.push(p),
    });
    // The cancellable progress notification comes NOTIFY_AFTER_MS after the start, if the load still
    // runs: it and its animation are drawn by the workbench's renderer, which at that moment also
    // has the tree's first rows to fetch and draw (each a round trip to this busy host); a load that
    // ends before it never shows one. The status bar says "loading" from the start, and Cancel Load
    // works from the start.
    const notifyTimer = realClock.setTimer(NOTIFY_AFTER_MS, () => {
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
        token.onCancellationRequested(() => ac.abort(new Error('cancelled by the user')));
        let shown = 0;
        report = (p) => {
          const pct = p.tasksTotal ? (100 * p.tasksDone) / p.tasksTotal : 0;
          progress.report({ message: progressMessage(p), increment: pct - shown });
          shown = pct;
        };
        if (latest) report(latest);
        else progress.report({ message: 'discovering resource types…' });
        await loading.catch(() => undefined);
      });
    });
    const work = loading.finally(() => notifyTimer.cancel());
    const entry = { ac, done: work };
    this.current = entry;
    setContextKey(CONTEXT_KEYS.loading, true);
    this.s.statusChanged();
    let result: LoadResult;
    try {
      result = await work;
      this.lastCost = result.summary.apiCost;
    } finally {
      report = undefined;
      paced.dispose();
      endPace();
      if (this.current === entry) {
        this.current = undefined;
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
    if (nothingPermitted(result.summary)) {
      // Nothing at all may be listed: one message that says who and where, not a list of 403s.
      const user =
        (await conn.client.whoAmI({ signal: AbortSignal.timeout(settings.requestTimeoutSeconds * 1000) }).catch(() => undefined)) ??
        ctx.user?.name ??
        'anonymous';
      const where = result.plan?.fallbackNamespaces.length ? result.plan.fallbackNamespaces : settings.namespaces;
      const text = noRightsText({ user, context: ctx.name, server: ctx.server }, where);
      this.s.log.error(`loader: ${text}`);
      void vscode.window.showErrorMessage(`KubeLoop: ${text}`, 'Select Context', 'Select Namespaces').then((c) => {
        if (c === 'Select Context') void vscode.commands.executeCommand(COMMANDS.selectContext.id);
        else if (c === 'Select Namespaces') void vscode.commands.executeCommand(COMMANDS.selectNamespaces.id);
      });
      return result;
    }
    this.tell(result, ctx.name, ctx.server, opts);
    return result;
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
    if (!this.current) {
      void vscode.window.showInformationMessage('KubeLoop: no load is running.');
      return false;
    }
    this.current.ac.abort(new Error('cancelled by the user'));
    return true;
  }

  private tell(r: LoadResult, context: string, server: string, opts: LoadOptions): void {
    const s = r.summary;
    const fmt = formatCount;
    switch (s.outcome) {
      case 'failed':
        void reportProblem(this.s, s.error, { context, server }, () => this.load(opts));
        return;
      case 'cancelled':
        void vscode.window.showInformationMessage(
          s.ok === 0
            ? 'KubeLoop: load cancelled before any type finished loading.'
            : `KubeLoop: load cancelled. The tree keeps the ${s.ok} type list(s) that finished (${fmt(s.objects)} objects).`,
        );
        return;
      case 'partial': {
        const failed = this.s.model.failures();
        const names = failed.slice(0, 3).map((f) => `${f.type.key}${f.namespace ? ` in ${f.namespace}` : ''} (${f.status ? `${f.status} ` : ''}${f.reason})`);
        const more = failed.length > 3 ? ` and ${failed.length - 3} more` : '';
        void vscode.window
          .showWarningMessage(`KubeLoop: loaded ${fmt(s.objects)} objects; ${s.failed} type(s) failed: ${names.join(', ')}${more}.`, 'Show Logs')
          .then((c) => {
            if (c) void vscode.commands.executeCommand(COMMANDS.showLogs.id);
          });
        return;
      }
      default:
        return;
    }
  }

  dispose(): void {
    this.current?.ac.abort(new Error('the extension is shutting down'));
  }
}
