/**
 * The extension's shared parts, handed to every command module: settings, logger, timeline, model,
 * tree, connections, and which cluster is current. Glue only.
 *
 * The current target is the demo cluster while the user points the extension at it (Start Demo
 * Cluster, or picking it in Select Context) and otherwise the `kubeloop.kubeconfig` /
 * `kubeloop.context` settings. The demo target is kept in memory, never written to settings: after a
 * restart the demo cluster is gone, and a setting pointing at it would only mislead.
 */
import * as vscode from 'vscode';
import type { TimelineStore } from '../../core/timeline/store';
import type { SharedLanes } from '../../core/pool/sharedLanes';
import { CONTEXT_KEYS } from '../../app/commandIds';
import { expandHome, sameTarget, type ConnectionTarget, type Connections } from '../../app/connection/connection';
import type { Logger } from '../../app/logger';
import type { ResourceModel } from '../../app/model/resourceModel';
import type { KubeLoopSettings } from '../../app/settings';
import type { ResourceNode } from '../../app/tree/treeNode';
import type { ResourceTreeProvider } from '../tree/resourceTree';

export interface Services {
  readonly ext: vscode.ExtensionContext;
  readonly log: Logger;
  settings(): KubeLoopSettings;
  /**
   * Reads the settings again now and applies a change of target. For a command that has just written
   * a setting: VS Code's change event comes later, and a load started meanwhile would run on the old
   * target and then be cancelled by it.
   */
  reloadSettings(): void;
  readonly timeline: TimelineStore;
  /** The timeline's time origin (realClock), shared by the loader and the sync loop. */
  readonly origin: number;
  readonly model: ResourceModel;
  readonly tree: ResourceTreeProvider;
  readonly view: vscode.TreeView<ResourceNode>;
  readonly connections: Connections;
  readonly target: TargetState;
  /** Asks the status bar to redraw soon. */
  statusChanged(): void;
  /** The lanes every context's loads share (the current one's and the listed ones'). */
  readonly lanes: SharedLanes;
}

export function settingsTarget(s: KubeLoopSettings): ConnectionTarget {
  return { ...(s.kubeconfig ? { kubeconfig: expandHome(s.kubeconfig) } : {}), ...(s.context ? { context: s.context } : {}) };
}

/**
 * The current target, with one event when it changes (the glue then stops what ran on the old one).
 * `followed`: what the Kubernetes extension says (ecosystem/kubernetesExtension.ts), already reduced
 * to the parts KubeLoop's own settings leave unset; call check() when it changes.
 */
export class TargetState implements vscode.Disposable {
  private demo: ConnectionTarget | undefined;
  private last: ConnectionTarget;
  private readonly emitter = new vscode.EventEmitter<ConnectionTarget>();
  readonly onDidChange = this.emitter.event;

  constructor(
    private readonly settings: () => KubeLoopSettings,
    private readonly followed: () => { kubeconfig?: string; context?: string } = () => ({}),
  ) {
    this.last = this.current();
  }

  current(): ConnectionTarget {
    return this.demo ?? this.fromSettings();
  }

  /** The target the settings (and what they let KubeLoop follow) name, whether or not the demo cluster is current. */
  fromSettings(): ConnectionTarget {
    const f = this.followed();
    const t = settingsTarget(this.settings());
    return { ...(f.kubeconfig ? { kubeconfig: expandHome(f.kubeconfig) } : {}), ...(f.context ? { context: f.context } : {}), ...t };
  }

  get isDemo(): boolean {
    return !!this.demo;
  }

  /** Points at the demo cluster (a target with demo: true), or back at the settings (undefined). */
  setDemo(t: ConnectionTarget | undefined): void {
    this.demo = t;
    this.check();
  }

  /** Call after the settings changed. */
  check(): void {
    const now = this.current();
    if (sameTarget(now, this.last)) return;
    this.last = now;
    this.emitter.fire(now);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

export function setContextKey(key: (typeof CONTEXT_KEYS)[keyof typeof CONTEXT_KEYS], value: boolean): void {
  void vscode.commands.executeCommand('setContext', key, value);
}
