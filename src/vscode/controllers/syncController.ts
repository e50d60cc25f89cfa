/**
 * Start Sync Loop / Stop Sync Loop / Sync Loop: Choose Node: core's sync loop for the current
 * context, namespaces and node (via ../sync/syncRunner.ts), keeping the loaded types converged,
 * with its PLEG health in the status bar. Glue only.
 */
import * as vscode from 'vscode';
import { COMMANDS, CONTEXT_KEYS } from '../../app/commandIds';
import { listNodes } from '../../app/connection/connection';
import type { SyncState } from '../../app/statusText';
import { informerTypes } from '../../app/sync/informerTypes';
import { FreshnessRows } from '../../app/sync/freshnessRows';
import { freshnessSummary } from '../../app/sync/freshnessText';
import type { TreeModel } from '../../app/tree/treeModel';
import type { ResourceNode } from '../../app/tree/treeNode';
import { SyncRunner } from '../../app/sync/syncRunner';
import { pollRemoteReconciles } from '../../app/timeline/remoteReconciles';
import { realClock } from '../../core/clock';
import type { KubeClient } from '../../core/kube/client';
import { DEMO_CONTEXT } from './demoController';
import type { Lease, Session } from '../../app/connection/session';
import type { Relations } from '../../app/relations/relations';
import type { ResourceModel } from '../../app/model/resourceModel';
import { connect, reportProblem, type ProblemDeps } from './connection';
import { setContextKey, type Basics, type StatusSink, type TimelineSink } from './services';

export type SyncDeps = Basics &
  ProblemDeps &
  TimelineSink &
  StatusSink & {
    readonly session: Session;
    /** The window's model: the loop keeps its loaded types converged. */
    readonly model: ResourceModel;
    /** The owner index beside the model: told every list and watch event. */
    readonly relations?: Relations;
    /** The tree whose kind rows say how fresh their types are while the loop runs. */
    readonly tree?: { readonly tree: TreeModel; refresh(node?: ResourceNode): void };
  };

/** How long the loop may go without every source listing before the user is told. */
const SOURCES_WARN_MS = 15_000;

export class SyncController implements vscode.Disposable {
  private runner: SyncRunner | undefined;
  private readyCheck: ReturnType<typeof setInterval> | undefined;
  /** Ends the polling of an out-of-process demo cluster's reconciles (followRemoteControllers). */
  private remote: AbortController | undefined;
  state: SyncState = 'off';
  /** The node the loop is scoped to (Sync Loop: Choose Node); undefined = all nodes. Reset when the cluster changes. */
  node: string | undefined;
  /** "PLEG is not healthy: ..." while the running loop's PLEG is unhealthy. */
  plegProblem: string | undefined;
  /** The watched types' freshness in one line ("all 43 watched types current"), while the loop runs. */
  freshness: string | undefined;
  private freshRows: FreshnessRows | undefined;
  /** Told when the running loop ends (stopped, restarted on a new scope, or ended by itself): a recording of it ends too. */
  onStopped: (() => void) | undefined;

  constructor(private readonly s: SyncDeps) {}

  /**
   * Quick pick of the cluster's nodes, plus "All nodes". A running loop restarts on the new scope.
   * Resolves true when the scope changed.
   */
  async chooseNode(): Promise<boolean> {
    const lease = this.s.session.begin();
    try {
      return await this.pickNode(lease);
    } finally {
      lease.release();
    }
  }

  private async pickNode(lease: Lease): Promise<boolean> {
    const conn = await connect(this.s, lease, () => this.chooseNode());
    if (!conn) return false;
    let names: string[];
    try {
      names = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'KubeLoop: listing nodes' }, () =>
        listNodes(conn.client, AbortSignal.timeout(this.s.settings().requestTimeoutSeconds * 1000)),
      );
    } catch (e) {
      void reportProblem(this.s, e, { context: conn.context.name, server: conn.context.server }, () => this.chooseNode());
      return false;
    }
    const ALL = '$(globe) All nodes';
    const items: vscode.QuickPickItem[] = [
      { label: ALL, description: this.node === undefined ? 'selected' : 'every pod, scheduled or not' },
      ...names.map((n) => ({ label: n, ...(n === this.node ? { description: 'selected' } : {}) })),
    ];
    if (this.node !== undefined && !names.includes(this.node)) items.push({ label: this.node, description: 'selected, not in the cluster' });
    const pick = await vscode.window.showQuickPick(items, {
      title: `KubeLoop: Sync Loop: Choose Node of "${conn.context.name}"`,
      placeHolder: 'The sync loop watches the pods bound to this node (spec.nodeName), as its kubelet would',
    });
    if (!pick) return false;
    const node = pick.label === ALL ? undefined : pick.label;
    if (node === this.node) return false;
    this.node = node;
    this.s.log.info(`sync loop: node scope ${node ?? 'all nodes'}`);
    this.s.statusChanged();
    if (this.runner) {
      await this.stop('the node scope changed');
      await this.start();
    }
    return true;
  }

  get running(): boolean {
    return !!this.runner;
  }

  /** The running loop, if any (Start Recording attaches to it). */
  get current(): SyncRunner | undefined {
    return this.runner;
  }

  async start(): Promise<void> {
    if (this.runner) {
      void vscode.window.showInformationMessage('KubeLoop: the sync loop is already running.');
      return;
    }
    const lease = this.s.session.begin();
    try {
      await this.startOn(lease);
    } finally {
      lease.release();
    }
  }

  private async startOn(lease: Lease): Promise<void> {
    const conn = await connect(this.s, lease, () => this.start());
    if (!conn || this.runner) return;
    const settings = this.s.settings();
    const { model } = this.s;
    // a loop on another context than the tree shows starts from an empty tree in the loop's scope
    if (!lease.show(conn, model.context !== conn.context.name ? settings.namespaces : undefined)) return;
    const types = informerTypes(model);
    const runner = new SyncRunner({
      client: conn.client,
      contextName: conn.context.name,
      namespaces: settings.namespaces,
      ...(this.node ? { node: this.node } : {}),
      types,
      reviewer: conn.client,
      ...(conn.context.namespace ? { contextNamespace: conn.context.namespace } : {}),
      syncPeriodSeconds: settings.syncPeriodSeconds,
      housekeepingPeriodSeconds: settings.housekeepingPeriodSeconds,
      pageSize: settings.pageSize,
      model,
      timeline: this.s.timeline,
      log: this.s.log,
      origin: this.s.origin,
      ...(conn.context.kubeletLogs ? { kubeletLogs: conn.context.kubeletLogs } : {}),
      ...(this.s.relations ? { observer: this.s.relations.observer } : {}),
    });
    this.runner = runner;
    if (this.s.tree) this.freshRows = new FreshnessRows(this.s.tree.tree, () => runner.sync.freshness(), realClock);
    this.followRemoteControllers(conn);
    this.state = 'starting';
    setContextKey(CONTEXT_KEYS.syncRunning, true);
    this.s.statusChanged();
    const started = Date.now();
    let warned = false;
    let forbiddenShown = 0;
    this.readyCheck = setInterval(() => {
      if (this.runner !== runner) return;
      const h = runner.plegHealth();
      const problem = h.healthy ? undefined : `PLEG is not healthy: ${h.message}`;
      if (problem !== this.plegProblem) {
        // while unhealthy the message counts up ("last seen active 3m5s ago"): the tooltip follows
        this.plegProblem = problem;
        this.s.statusChanged();
      }
      const freshness = freshnessSummary(runner.sync.freshness(), realClock.now());
      if (freshness !== this.freshness) {
        this.freshness = freshness;
        this.s.statusChanged();
      }
      for (const node of this.freshRows?.changed() ?? []) this.s.tree?.refresh(node);
      const forbidden = runner.sync.forbidden;
      if (forbidden.length > forbiddenShown) {
        // Once per type: the user may not watch it where the loop looks (the log has the details).
        const names = forbidden
          .slice(forbiddenShown)
          .map((f) => `${f.gvr.group ? `${f.gvr.resource}.${f.gvr.group}` : f.gvr.resource}${f.namespace ? ` in "${f.namespace}"` : ''}`);
        forbiddenShown = forbidden.length;
        const pods = forbidden.some((f) => f.gvr.group === '' && f.gvr.resource === 'pods');
        void vscode.window
          .showWarningMessage(
            pods
              ? `KubeLoop: you may not list and watch pods in "${conn.context.name}" where the sync loop looks, so it has no pods to sync (403 Forbidden). Choose a namespace you may watch, or another context.`
              : `KubeLoop: the sync loop does not watch ${names.join(', ')}: 403 Forbidden for your user; those rows stay as loaded.`,
            'Show Logs',
          )
          .then((c) => {
            if (c === 'Show Logs') void vscode.commands.executeCommand(COMMANDS.showLogs.id);
          });
      }
      if (runner.sourcesReady()) {
        if (this.state !== 'running') {
          this.state = 'running';
          this.s.statusChanged();
        }
      } else if (!warned && Date.now() - started > SOURCES_WARN_MS) {
        warned = true;
        void vscode.window
          .showWarningMessage(
            `KubeLoop: the sync loop on "${conn.context.name}" has not been able to list every watched type yet (API server unreachable or forbidden?). See the logs.`,
            'Show Logs',
            'Stop Sync Loop',
          )
          .then((c) => {
            if (c === 'Show Logs') void vscode.commands.executeCommand(COMMANDS.showLogs.id);
            if (c === 'Stop Sync Loop') void this.stop();
          });
      }
    }, 500);
    void runner.finished.then(() => {
      if (this.runner === runner) this.clear(); // ended on its own (its config channel closed)
    });
  }

  async stop(reason = 'stopped by the user'): Promise<void> {
    const runner = this.runner;
    if (!runner) return;
    this.clear();
    await runner.stop(reason);
    this.s.log.info(`sync loop: ${reason}`);
  }

  /**
   * A demo cluster in another process (`npm run demo`: context kubeloop-demo, not the one this
   * extension host runs) serves its controllers' reconciles: their lanes follow while the loop runs.
   */
  private followRemoteControllers(conn: { context: { name: string }; client: KubeClient }): void {
    if (conn.context.name !== DEMO_CONTEXT || this.s.target.isDemo) return;
    const ac = new AbortController();
    this.remote = ac;
    const transport = conn.client.transport;
    void pollRemoteReconciles({
      get: async (query, signal) => (await transport.getJson({ path: '/_demo/reconciles', query, signal })).body,
      timeline: this.s.timeline,
      origin: this.s.origin,
      clock: realClock,
      signal: ac.signal,
    });
  }

  private clear(): void {
    if (this.runner) this.onStopped?.();
    this.remote?.abort();
    this.remote = undefined;
    this.runner = undefined;
    if (this.readyCheck) clearInterval(this.readyCheck);
    this.readyCheck = undefined;
    this.state = 'off';
    this.plegProblem = undefined;
    this.freshness = undefined;
    for (const node of this.freshRows?.dispose() ?? []) this.s.tree?.refresh(node);
    this.freshRows = undefined;
    setContextKey(CONTEXT_KEYS.syncRunning, false);
    this.s.statusChanged();
  }

  dispose(): void {
    void this.stop('the extension is shutting down');
  }
}
