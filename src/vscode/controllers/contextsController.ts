/**
 * Several contexts in the tree: Add Context..., Remove Context, Load This Context, and the rows of
 * the contexts `kubeloop.contexts` lists beside the current one. Glue only: the set, its loads and
 * retries are ../../app/contexts (ListedContexts, ContextConnections); a row is loaded when the user
 * expands it (the tree provider opens it when VS Code first asks its children) or asks for it.
 */
import * as vscode from 'vscode';
import { realClock } from '../../core/clock';
import { MULTI_REACH_TIMEOUT_MS } from '../../core/loader/multiCluster';
import type { SharedLanes } from '../../core/pool/sharedLanes';
import { listContexts } from '../../app/connection/connection';
import { ContextConnections } from '../../app/contexts/contextLoad';
import { extraContexts, withContext, withoutContext } from '../../app/contexts/contextSet';
import { ListedContexts } from '../../app/contexts/listedContexts';
import { SETTINGS_SECTION } from '../../app/settings';
import type { ResourceNode } from '../../app/tree/treeNode';
import type { TargetState } from '../../app/connection/target';
import type { ResourceModel } from '../../app/model/resourceModel';
import type { ResourceTreeProvider } from '../tree/resourceTree';
import type { Basics, SettingsWriter, StatusSink, TimelineSink } from './services';

export type ContextsDeps = Basics &
  SettingsWriter &
  TimelineSink &
  StatusSink & {
    readonly target: TargetState;
    /** The window's model: which context is the current one. */
    readonly model: Pick<ResourceModel, 'context' | 'onChange'>;
    readonly tree: Pick<ResourceTreeProvider, 'attachListed' | 'listedOf'>;
    readonly view: Pick<vscode.TreeView<ResourceNode>, 'selection'>;
    /** The lanes every context's loads share (the current one's and the listed ones'). */
    readonly lanes: SharedLanes;
  };

export class ContextsController implements vscode.Disposable {
  readonly listed: ListedContexts;
  readonly connections: ContextConnections;
  private readonly subscriptions: vscode.Disposable[] = [];
  private kubeconfig: string | undefined;

  constructor(private readonly s: ContextsDeps) {
    this.kubeconfig = s.target.fromSettings().kubeconfig;
    this.connections = new ContextConnections({
      kubeconfig: () => s.target.fromSettings().kubeconfig,
      connection: () => ({ requestTimeoutMs: s.settings().requestTimeoutSeconds * 1000, discoveryCache: s.settings().discoveryCache }),
      settings: () => s.settings(),
      timeline: s.timeline,
      log: s.log,
      origin: s.origin,
      lanes: s.lanes,
      reachTimeoutMs: MULTI_REACH_TIMEOUT_MS,
    });
    this.listed = new ListedContexts({ clock: realClock, load: this.connections.load, closed: (name) => this.connections.close(name) });
    s.tree.attachListed(this.listed);
    this.subscriptions.push(
      new vscode.Disposable(
        this.listed.onChange((name) => {
          if (name !== undefined) s.statusChanged();
        }),
      ),
      // the current context changed (a load, Select Context): a listed context it now is shows once, as the current one
      new vscode.Disposable(s.model.onChange((c) => (c.kind === 'reset' ? this.update() : undefined))),
    );
    this.update();
  }

  /** Follows the settings: the listed contexts, and a new kubeconfig (every listed context starts over on it). */
  update(): void {
    const kubeconfig = this.s.target.fromSettings().kubeconfig;
    if (kubeconfig !== this.kubeconfig) {
      this.kubeconfig = kubeconfig;
      this.listed.setNames([]);
    }
    this.listed.setNames(extraContexts(this.s.settings().contexts, this.currentName()));
  }

  /** The current context's name: the one the tree shows, else the one the target names (or its kubeconfig's current-context). */
  private currentName(): string | undefined {
    if (this.s.model.context !== undefined) return this.s.model.context;
    if (this.s.target.isDemo) return undefined;
    const t = this.s.target.current();
    if (t.context) return t.context;
    try {
      return listContexts(t).current || undefined;
    } catch {
      return undefined;
    }
  }

  /** The listed context a command was run on (its row, or the selection). */
  nameOf(arg: unknown): string | undefined {
    if (typeof arg === 'string') return this.listed.get(arg) ? arg : undefined;
    const node = isNode(arg) ? arg : this.s.view.selection[0];
    return node ? this.s.tree.listedOf(node) : undefined;
  }

  /** Add Context...: a context of the kubeconfig (or the one given), shown after the others, not loaded until opened. */
  async add(arg?: unknown): Promise<void> {
    let name = typeof arg === 'string' ? arg : undefined;
    if (name === undefined) {
      let names: string[];
      try {
        names = listContexts(this.s.target.fromSettings()).names;
      } catch (e) {
        void vscode.window.showErrorMessage(`KubeLoop: ${(e as Error).message}`);
        return;
      }
      const shown = new Set([...this.listed.names(), ...(this.currentName() !== undefined ? [this.currentName()!] : [])]);
      const offered = names.filter((n) => !shown.has(n));
      if (offered.length === 0) {
        void vscode.window.showInformationMessage('KubeLoop: every context of the kubeconfig is already in the tree.');
        return;
      }
      const pick = await vscode.window.showQuickPick(
        offered.map((n) => ({ label: n })),
        { title: 'KubeLoop: Add Context', placeHolder: 'A context to show beside the current one (loaded when you expand it)' },
      );
      if (!pick) return;
      name = pick.label;
    }
    await this.write(withContext(this.s.settings().contexts, name));
  }

  /**
   * Remove Context: the row's context leaves the tree and the setting, its load and retries stop.
   * From the palette it asks which (never the selection's, silently: removing is not undone by a click).
   */
  async remove(arg?: unknown): Promise<void> {
    let name = typeof arg === 'string' || isNode(arg) ? this.nameOf(arg) : undefined;
    if (name === undefined) {
      const names = this.listed.names();
      if (names.length === 0) {
        void vscode.window.showInformationMessage('KubeLoop: no context was added beside the current one (Add Context... adds one).');
        return;
      }
      name = (await vscode.window.showQuickPick(names, { title: 'KubeLoop: Remove Context' })) ?? undefined;
      if (name === undefined) return;
    }
    await this.write(withoutContext(this.s.settings().contexts, name));
  }

  /** Load This Context (and Refresh on one of its rows): that context now, whatever its state. */
  async load(arg?: unknown): Promise<void> {
    const name = this.nameOf(arg);
    if (name === undefined) return;
    await this.listed.load(name);
  }

  private async write(contexts: string[]): Promise<void> {
    await vscode.workspace.getConfiguration(SETTINGS_SECTION).update('contexts', contexts, vscode.ConfigurationTarget.Global);
    // the change event comes later: apply the new list now, as the command's result
    this.s.reloadSettings();
    this.update();
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    this.listed.dispose();
    this.connections.closeAll();
  }
}

function isNode(v: unknown): v is ResourceNode {
  return typeof v === 'object' && v !== null && typeof (v as ResourceNode).id === 'string' && Array.isArray((v as ResourceNode).path);
}
