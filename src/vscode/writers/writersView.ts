/**
 * The Top Writers view: who writes to the cluster, how fast, and who is fighting, while the sync loop
 * runs (app/writers: the model, its lanes on the timeline, the rows). Glue only.
 *
 * A tree view section under the KubeLoop container rather than a webview panel: rows that expand
 * (manager -> kinds, namespaces, objects), theme icons for the flags, keyboard and screen-reader
 * support and the expansion kept across refreshes all come with the tree, and a refresh is a few
 * dozen TreeItems a second, not a page. It starts collapsed: a collapsed or hidden view is not
 * visible.
 *
 * Level-driven: once a second the view compares the sync loop it feeds from with the one it should
 * feed from (the running loop while the view is visible, none while it is hidden) and starts or
 * stops the writers' watches to match (no hook into the sync controller's life). So a user who never
 * opens Top Writers pays nothing for it: no second set of watches, no JSON decoded on the host
 * thread; the timeline's writer lanes are drawn while the view is open.
 */
import * as vscode from 'vscode';
import { WRITERS_VIEW_ID } from '../../app/commandIds';
import type { Logger } from '../../app/logger';
import type { ResourceModel } from '../../app/model/resourceModel';
import type { KubeLoopSettings } from '../../app/settings';
import { informerTypes } from '../../app/sync/informerTypes';
import type { SyncRunner } from '../../app/sync/syncRunner';
import { LiveWriters } from '../../app/writers/liveWriters';
import { writerRows, type WriterRow } from '../../app/writers/rows';
import { realClock } from '../../core/clock';
import type { KubeClient } from '../../core/kube/client';
import type { TimelineEvent } from '../../core/timeline/events';

export interface WritersViewDeps {
  readonly model: ResourceModel;
  readonly log: Logger;
  readonly timeline: { append(e: TimelineEvent): void };
  readonly origin: number;
  /** The running sync loop, if any. */
  sync(): SyncRunner | undefined;
  /** The window's open client (the sync loop's). */
  client(): Promise<KubeClient | undefined>;
  settings(): KubeLoopSettings;
}

export class WritersView implements vscode.TreeDataProvider<WriterRow>, vscode.Disposable {
  private rows: WriterRow[] = writerRows('no-sync');
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<WriterRow>;
  private readonly writers: LiveWriters;
  private fed: SyncRunner | undefined;
  private following = false;
  private readonly level: ReturnType<typeof setInterval>;
  private readonly off: () => void;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly d: WritersViewDeps) {
    this.writers = new LiveWriters({
      clock: realClock,
      timeline: d.timeline,
      origin: d.origin,
      onError: (type, message, final) => d.log.warn(`writers: ${type}: ${message}${final ? ' (not watched)' : ' (retrying)'}`),
    });
    this.view = vscode.window.createTreeView(WRITERS_VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    this.off = this.writers.onTick((s) => {
      if (this.view.visible) this.show(s);
    });
    this.subs.push(
      this.view.onDidChangeVisibility((e) => {
        this.writers.detailed = e.visible;
        if (e.visible) this.show(this.writers.latest);
      }),
    );
    this.writers.detailed = this.view.visible;
    this.level = setInterval(() => void this.follow(), 1000);
  }

  /** Starts or stops the writers' watches to match the sync loop (one change at a time; a loop whose client is not open yet is tried again next second). */
  private async follow(): Promise<void> {
    const runner = this.view.visible ? this.d.sync() : undefined;
    if (this.following || runner === this.fed) return;
    this.following = true;
    try {
      if (!runner) {
        this.fed = undefined;
        await this.writers.stop();
        this.d.log.info(this.d.sync() ? 'writers: stopped (the Top Writers view is hidden)' : 'writers: stopped with the sync loop');
        this.show(undefined);
        return;
      }
      const client = await this.d.client();
      if (!client) return;
      const types = [
        { group: '', version: 'v1', resource: 'pods', namespaced: true },
        ...informerTypes(this.d.model).map((t) => ({ group: t.group, version: t.version, resource: t.resource, namespaced: t.namespaced ?? true })),
      ];
      await this.writers.start({ client, types, namespaces: this.d.settings().namespaces });
      this.fed = runner;
      this.d.log.info(`writers: watching ${types.length} type(s) with managedFields for the Top Writers view and the writer lanes`);
      this.show(undefined);
    } finally {
      this.following = false;
    }
  }

  private show(snap: Parameters<typeof writerRows>[0] | undefined): void {
    this.rows = writerRows(snap ?? (this.writers.running ? 'starting' : 'no-sync'));
    this.view.description = snap && typeof snap === 'object' ? `${snap.perSecond.toFixed(1)} writes/s` : undefined;
    this.changed.fire();
  }

  /** Show Top Writers: reveals the view (it refreshes while visible). */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${WRITERS_VIEW_ID}.focus`);
  }

  getTreeItem(r: WriterRow): vscode.TreeItem {
    const item = new vscode.TreeItem(r.label, r.children ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = r.id;
    if (r.description) item.description = r.description;
    if (r.tooltip) item.tooltip = r.tooltip;
    if (r.warning) item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
    return item;
  }

  getChildren(r?: WriterRow): WriterRow[] {
    return r ? (r.children ?? []) : this.rows;
  }

  dispose(): void {
    clearInterval(this.level);
    this.off();
    void this.writers.stop();
    for (const s of this.subs) s.dispose();
    this.view.dispose();
    this.changed.dispose();
  }
}
