/**
 * Show Start-up: the start-up waterfall (app/startup) of the Deployment, Job, ReplicaSet, StatefulSet,
 * DaemonSet or pod a tree row is (or, from the palette with nothing selected, of the context's
 * namespace), in one webview panel reused from call to call. Glue only: the pods and Events are read
 * once per call with the user's rights, the page is rendered by app/startup/html.ts (no script).
 */
import * as vscode from 'vscode';
import { CLUSTER } from '../../app/model/resourceModel';
import { readStartupLive } from '../../app/startup/readStartup';
import { startupHtml } from '../../app/startup/html';
import { makeNonce } from '../../app/timeline/html';
import type { KubeClient } from '../../core/kube/client';
import type { StartupSelection } from '../../core/startup/report';
import { targetNode } from '../controllers/treeCommands';
import type { Host } from '../host';

export const STARTUP_PANEL_TYPE = 'kubeloop.startup';

/** Tree types whose pods the report can select: resource -> the report's kind. */
const KINDS: Record<string, string> = {
  deployments: 'deployment',
  jobs: 'job',
  replicasets: 'replicaset',
  statefulsets: 'statefulset',
  daemonsets: 'daemonset',
  pods: 'pod',
};

let panel: vscode.WebviewPanel | undefined;

export async function showStartup(h: Host, arg: unknown): Promise<void> {
  const node = targetNode(h, arg);
  const model = node ? h.tree.modelOf(node) : h.model;
  let sel: StartupSelection | undefined;
  if (node?.kind === 'object') {
    const kind = KINDS[model.type(node.typeKey!)?.gvr.resource ?? ''];
    if (!kind || !node.namespace || node.namespace === CLUSTER) {
      void vscode.window.showInformationMessage('KubeLoop: Show Start-up works on a Deployment, Job, ReplicaSet, StatefulSet, DaemonSet or Pod.');
      return;
    }
    sel = { namespace: node.namespace, target: { kind, name: node.name! } };
  }
  const client = await clientFor(h, model.context);
  if (!client) {
    void vscode.window.showInformationMessage('KubeLoop: not connected to a cluster. Load the cluster (or start the demo cluster) first.');
    return;
  }
  sel ??= { namespace: client.context.namespace || 'default' };
  const title = `Start-up: ${sel.target ? `${sel.target.kind}/${sel.target.name}` : `namespace ${sel.namespace}`}`;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), Math.max(10_000, h.config.get().requestTimeoutSeconds * 1000));
  try {
    const read = await readStartupLive(client, sel, ac.signal);
    panel ??= createPanel();
    panel.title = title;
    panel.webview.html = startupHtml({ nonce: makeNonce(), title, read });
    panel.reveal(undefined, false);
  } finally {
    clearTimeout(timer);
  }
}

function createPanel(): vscode.WebviewPanel {
  const p = vscode.window.createWebviewPanel(STARTUP_PANEL_TYPE, 'Start-up', vscode.ViewColumn.Active, { enableScripts: false, localResourceRoots: [] });
  p.onDidDispose(() => {
    if (panel === p) panel = undefined;
  });
  return p;
}

/** The window's client for its context, or a listed context's. */
async function clientFor(h: Host, context: string | undefined): Promise<KubeClient | undefined> {
  const open = await h.session.peek();
  if (open && (context === undefined || open.context.name === context)) return open.client;
  if (context !== undefined && h.model.context !== context) return h.contexts.connections.client(context);
  return (await h.session.open())?.client;
}
