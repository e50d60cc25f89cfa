/**
 * "Show Container Logs" / "Show Previous Container Logs" on a tree row (a Pod, Deployment or Job),
 * and the same from a timeline restart mark (arguments `{ context, namespace, pod, container,
 * previous }`): the log followed live into an output channel per target, a bounded window of its
 * last lines (app/logs/logView.ts). Showing a target again restarts its follow; disposing stops
 * every follow. Glue only.
 */
import * as vscode from 'vscode';
import { CLUSTER } from '../../app/model/resourceModel';
import type { ResourceNode } from '../../app/tree/treeNode';
import type { KubeClient } from '../../core/kube/client';
import type { Logger } from '../../app/logger';
import { logViewTitle, showLogIn, type LogViewTarget } from '../../app/logs/logView';
import type { ResourceTreeProvider } from '../tree/resourceTree';
import { targetNode } from './treeCommands';

export interface PodLogsDeps {
  readonly log: Logger;
  readonly view: vscode.TreeView<ResourceNode>;
  readonly tree: ResourceTreeProvider;
  client(context: string): Promise<KubeClient | undefined>;
}

/** A timeline mark's request: the pod's container, its previous instance by default. */
interface MarkArgs {
  context: string;
  namespace: string;
  pod: string;
  container?: string;
  previous?: boolean;
}

function isMarkArgs(v: unknown): v is MarkArgs {
  const a = v as MarkArgs;
  return typeof v === 'object' && v !== null && typeof a.context === 'string' && typeof a.namespace === 'string' && typeof a.pod === 'string';
}

export class PodLogsController implements vscode.Disposable {
  private readonly channels = new Map<string, { channel: vscode.OutputChannel; stop: AbortController }>();

  constructor(private readonly deps: PodLogsDeps) {}

  /** From a tree row (or the selection), or a timeline mark's arguments. */
  async show(arg: unknown, previous: boolean): Promise<void> {
    if (isMarkArgs(arg)) {
      return this.follow(arg.context, { kind: 'pod', namespace: arg.namespace, name: arg.pod, container: arg.container, previous: arg.previous ?? previous });
    }
    const node = targetNode(this.deps, arg);
    const model = node && this.deps.tree.modelOf(node);
    const type = node?.kind === 'object' ? model?.type(node.typeKey!) : undefined;
    const kind =
      type?.gvr.resource === 'pods' ? 'pod' : type?.gvr.resource === 'deployments' ? 'deployment' : type?.gvr.resource === 'jobs' ? 'job' : undefined;
    if (!node || !model?.context || !kind || !node.namespace || node.namespace === CLUSTER) {
      void vscode.window.showInformationMessage('KubeLoop: select a Pod, Deployment or Job in the KubeLoop resource tree first, then run Show Container Logs.');
      return;
    }
    if (kind !== 'pod') return this.follow(model.context, { kind, namespace: node.namespace, name: node.name! });
    const client = await this.deps.client(model.context);
    if (!client) return;
    const containers = await client.podContainers(node.namespace, node.name!);
    let container: string | undefined;
    if (containers.length > 1) {
      container = await vscode.window.showQuickPick(containers, { placeHolder: `Container of pod ${node.name}` });
      if (!container) return;
    }
    return this.follow(model.context, { kind: 'pod', namespace: node.namespace, name: node.name!, container, previous });
  }

  private async follow(context: string, target: LogViewTarget): Promise<void> {
    const client = await this.deps.client(context);
    if (!client) {
      void vscode.window.showInformationMessage(`KubeLoop: not connected to ${context}.`);
      return;
    }
    const title = `KubeLoop Logs: ${logViewTitle(target)}`;
    const old = this.channels.get(title);
    old?.stop.abort();
    const channel = old?.channel ?? vscode.window.createOutputChannel(title);
    const stop = new AbortController();
    this.channels.set(title, { channel, stop });
    channel.show(true);
    const end = await showLogIn(client, target, { append: (t) => channel.append(t), replace: (t) => channel.replace(t) }, stop.signal);
    if (!stop.signal.aborted) channel.appendLine(end);
    this.deps.log.debug(`logs: ${title}: ${end}`);
  }

  dispose(): void {
    for (const { channel, stop } of this.channels.values()) {
      stop.abort();
      channel.dispose();
    }
    this.channels.clear();
  }
}
