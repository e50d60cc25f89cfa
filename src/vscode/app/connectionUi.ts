/**
 * Connection commands and messages: Select Context, Select Namespaces, and the error message every
 * command shows when the kubeconfig is broken or the server cannot be reached, with the actions
 * that help ("Open kubeconfig", "Retry", "Select Context"). Glue only; the logic is in
 * ../connection/connection.ts.
 */
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { COMMANDS } from '../commandIds';
import { describeConnectionError, kubeconfigFiles, listContexts, listNamespaces, type OpenConnection } from '../connection/connection';
import { settingsTarget, type Services } from './services';

const OPEN_KUBECONFIG = 'Open kubeconfig';
const RETRY = 'Retry';
const SELECT_CONTEXT = 'Select Context';

/** Shows the problem with its actions; `retry` runs when the user picks Retry. Never throws. */
export async function reportProblem(s: Services, e: unknown, where: { context?: string; server?: string }, retry?: () => unknown): Promise<void> {
  const p = describeConnectionError(e, where);
  s.log.error(p.message);
  const actions = [OPEN_KUBECONFIG, ...(retry ? [RETRY] : []), ...(p.kind === 'kubeconfig' || p.kind === 'unauthorized' ? [SELECT_CONTEXT] : [])];
  const choice = await vscode.window.showErrorMessage(`KubeLoop: ${p.message}`, ...actions);
  if (choice === OPEN_KUBECONFIG) await openKubeconfig(s);
  else if (choice === RETRY) await retry?.();
  else if (choice === SELECT_CONTEXT) await vscode.commands.executeCommand(COMMANDS.selectContext.id);
}

export async function openKubeconfig(s: Services): Promise<void> {
  const files = kubeconfigFiles(s.target.current());
  const file = files.find((f) => existsSync(f));
  if (!file) {
    void vscode.window.showWarningMessage(`KubeLoop: no kubeconfig file exists at ${files.join(', ')}. Set kubeloop.kubeconfig, or KUBECONFIG, or create ~/.kube/config.`);
    return;
  }
  await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
}

/** The open connection to the current target, or undefined after telling the user why not. */
export async function connect(s: Services, retry?: () => unknown): Promise<OpenConnection | undefined> {
  const target = s.target.current();
  try {
    return await s.connections.get(target);
  } catch (e) {
    void reportProblem(s, e, { ...(target.context ? { context: target.context } : {}) }, retry);
    return undefined;
  }
}

interface ContextItem extends vscode.QuickPickItem {
  contextName: string;
  demo?: boolean;
}

/**
 * Quick pick of the kubeconfig's contexts (plus the demo cluster while it runs). A picked context is
 * stored in `kubeloop.context` (user settings); the demo cluster is kept in memory only.
 * Resolves true when the target changed.
 */
export async function selectContext(s: Services, demo: { name: string; url: string; target: () => import('../connection/connection').ConnectionTarget } | undefined): Promise<boolean> {
  const fromSettings = settingsTarget(s.settings());
  const items: ContextItem[] = [];
  let listed: { names: string[]; current: string } | undefined;
  try {
    listed = listContexts(fromSettings);
  } catch (e) {
    if (!demo) {
      void reportProblem(s, e, {});
      return false;
    }
    s.log.warn(describeConnectionError(e).message);
  }
  const chosen = s.target.current();
  if (demo) items.push({ label: demo.name, description: `embedded demo cluster, ${demo.url}`, contextName: demo.name, demo: true, picked: s.target.isDemo });
  for (const name of listed?.names ?? []) {
    const current = name === listed!.current;
    const selected = !s.target.isDemo && (chosen.context ? chosen.context === name : current);
    items.push({ label: name, description: [current ? 'current-context' : '', selected ? 'selected' : ''].filter(Boolean).join(', ') || undefined, contextName: name });
  }
  if (items.length === 0) {
    void vscode.window.showWarningMessage('KubeLoop: the kubeconfig defines no contexts. Start the demo cluster, or set kubeloop.kubeconfig.', 'Start Demo Cluster').then((c) => {
      if (c) void vscode.commands.executeCommand(COMMANDS.startDemoCluster.id);
    });
    return false;
  }
  const pick = await vscode.window.showQuickPick(items, { title: 'KubeLoop: Select Context', placeHolder: 'The cluster to load and watch', matchOnDescription: true });
  if (!pick) return false;
  const before = s.target.current();
  if (pick.demo) {
    s.target.setDemo(demo!.target());
  } else {
    s.target.setDemo(undefined);
    await vscode.workspace.getConfiguration('kubeloop').update('context', pick.contextName === listed?.current ? '' : pick.contextName, vscode.ConfigurationTarget.Global);
    // now, not at VS Code's change event: the load that follows the pick must run on the new target
    s.reloadSettings();
    s.target.check(); // the demo cluster was left: the target changed even if the setting did not
  }
  const after = s.target.current();
  return before.context !== after.context || before.kubeconfig !== after.kubeconfig || !!before.demo !== !!after.demo;
}

/** Multi-select of the cluster's namespaces, stored in `kubeloop.namespaces`. Resolves true when changed. */
export async function selectNamespaces(s: Services): Promise<boolean> {
  const conn = await connect(s, () => vscode.commands.executeCommand(COMMANDS.selectNamespaces.id));
  if (!conn) return false;
  const settings = s.settings();
  let names: string[];
  try {
    names = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'KubeLoop: listing namespaces' }, () =>
      listNamespaces(conn.client, AbortSignal.timeout(settings.requestTimeoutSeconds * 1000)),
    );
  } catch (e) {
    void reportProblem(s, e, { context: conn.context.name, server: conn.context.server }, () => vscode.commands.executeCommand(COMMANDS.selectNamespaces.id));
    return false;
  }
  const selected = new Set(settings.namespaces);
  const items: vscode.QuickPickItem[] = [...new Set([...names, ...selected])].sort().map((n) => ({
    label: n,
    picked: selected.has(n),
    ...(names.includes(n) ? {} : { description: 'not in the cluster' }),
  }));
  const picks = await vscode.window.showQuickPick(items, {
    title: `KubeLoop: Select Namespaces of "${conn.context.name}"`,
    placeHolder: 'Namespaces to load and watch; select none for all namespaces',
    canPickMany: true,
  });
  if (!picks) return false;
  const value = picks.map((p) => p.label).sort();
  if (value.join(',') === [...selected].sort().join(',')) return false;
  const cfg = vscode.workspace.getConfiguration('kubeloop');
  const inspect = cfg.inspect<string[]>('namespaces');
  const where = inspect?.workspaceFolderValue !== undefined ? vscode.ConfigurationTarget.WorkspaceFolder : inspect?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await cfg.update('namespaces', value, where);
  s.reloadSettings(); // the reload that follows must use the new namespaces, not wait for the change event
  s.log.info(`namespaces: ${value.length ? value.join(', ') : 'all'}`);
  return true;
}
