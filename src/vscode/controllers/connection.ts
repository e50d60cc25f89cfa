/**
 * Connection commands and messages: Select Context, Select Namespaces, and the error message every
 * command shows when the kubeconfig is broken or the server cannot be reached, with the actions
 * that help ("Open kubeconfig", "Retry", "Select Context"). Glue only; the logic is in
 * ../connection/connection.ts.
 */
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { COMMANDS } from '../../app/commandIds';
import {
  describeConnectionError,
  expandHome,
  kubeconfigFiles,
  listContexts,
  namespaceChoices,
  type NamespaceChoices,
  type ConnectionTarget,
  type OpenConnection,
} from '../../app/connection/connection';
import type { Lease, Session } from '../../app/connection/session';
import type { TargetState } from '../../app/connection/target';
import type { Logger } from '../../app/logger';
import type { ResourceModel } from '../../app/model/resourceModel';
import { KNOWN_KUBECONFIGS_KEY } from '../../app/ecosystem/kubernetesApi';
import { userKubernetesSettings } from '../ecosystem/kubernetesExtension';
import type { Basics, SettingsWriter } from './services';

/** What reporting a connection problem needs: where to log, and the target (for "Open kubeconfig"). */
export interface ProblemDeps {
  readonly log: Logger;
  readonly target: TargetState;
}

/** Select Context: the target it changes, and the settings it writes. */
export type SelectContextDeps = ProblemDeps & Basics & SettingsWriter;

/** Select Namespaces: a connection (the session's) to list them, and the namespaces the model knows. */
export type SelectNamespacesDeps = SelectContextDeps & { readonly session: Session; readonly model: Pick<ResourceModel, 'context' | 'namespaces'> };

const OPEN_KUBECONFIG = 'Open kubeconfig';
const RETRY = 'Retry';
const SELECT_CONTEXT = 'Select Context';

/** Shows the problem with its actions; `retry` runs when the user picks Retry. Never throws. */
export async function reportProblem(s: ProblemDeps, e: unknown, where: { context?: string; server?: string }, retry?: () => unknown): Promise<void> {
  const p = describeConnectionError(e, where);
  s.log.error(p.message);
  const actions = [OPEN_KUBECONFIG, ...(retry ? [RETRY] : []), ...(p.kind === 'kubeconfig' || p.kind === 'unauthorized' ? [SELECT_CONTEXT] : [])];
  const choice = await vscode.window.showErrorMessage(`KubeLoop: ${p.message}`, ...actions);
  if (choice === OPEN_KUBECONFIG) await openKubeconfig(s);
  else if (choice === RETRY) await retry?.();
  else if (choice === SELECT_CONTEXT) await vscode.commands.executeCommand(COMMANDS.selectContext.id);
}

export async function openKubeconfig(s: Pick<ProblemDeps, 'target'>): Promise<void> {
  const files = kubeconfigFiles(s.target.current());
  const file = files.find((f) => existsSync(f));
  if (!file) {
    void vscode.window.showWarningMessage(
      `KubeLoop: no kubeconfig file exists at ${files.join(', ')}. Set kubeloop.kubeconfig, or KUBECONFIG, or create ~/.kube/config.`,
    );
    return;
  }
  await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
}

/**
 * The open connection to the lease's target, or undefined after telling the user why not. A lease
 * whose target was switched away while it connected gets undefined, and the user hears nothing of
 * the old target (its client was closed on purpose).
 */
export async function connect(s: ProblemDeps, lease: Lease, retry?: () => unknown): Promise<OpenConnection | undefined> {
  const target = s.target.current();
  try {
    const conn = await lease.connect();
    return lease.current && !lease.signal.aborted ? conn : undefined;
  } catch (e) {
    if (lease.current && !lease.signal.aborted) void reportProblem(s, e, { ...(target.context ? { context: target.context } : {}) }, retry);
    return undefined;
  }
}

interface ContextItem extends vscode.QuickPickItem {
  contextName: string;
  demo?: boolean;
  /** A context of another kubeconfig (one of the Kubernetes extension's known kubeconfigs). */
  kubeconfig?: string;
}

/**
 * The contexts of the Kubernetes extension's other known kubeconfigs (`vs-kubernetes.knownKubeconfigs`),
 * offered while KubeLoop follows that extension and has no kubeconfig of its own. A file that cannot
 * be read is logged and left out.
 */
function knownKubeconfigItems(s: Basics, current: string | undefined): ContextItem[] {
  const settings = s.settings();
  if (!settings.followKubernetesExtension || settings.kubeconfig) return [];
  const items: ContextItem[] = [];
  for (const file of userKubernetesSettings().known) {
    const path = expandHome(file);
    if (path === current) continue;
    try {
      for (const name of listContexts({ kubeconfig: path }).names)
        items.push({ label: name, description: `in ${file} (${KNOWN_KUBECONFIGS_KEY})`, contextName: name, kubeconfig: path });
    } catch (e) {
      s.log.warn(`${KNOWN_KUBECONFIGS_KEY}: ${describeConnectionError(e).message}`);
    }
  }
  return items;
}

/**
 * Quick pick of the kubeconfig's contexts (plus the demo cluster while it runs, and the contexts of the
 * Kubernetes extension's known kubeconfigs while KubeLoop follows it). A picked context is stored in
 * `kubeloop.context` (user settings; one of another kubeconfig also sets `kubeloop.kubeconfig`); the
 * demo cluster is kept in memory only.
 * Resolves true when the target changed.
 */
export async function selectContext(s: SelectContextDeps, demo: { name: string; url: string; target: () => ConnectionTarget } | undefined): Promise<boolean> {
  const fromSettings = s.target.fromSettings();
  const items: ContextItem[] = [];
  const known = knownKubeconfigItems(s, fromSettings.kubeconfig);
  let listed: { names: string[]; current: string } | undefined;
  try {
    listed = listContexts(fromSettings);
  } catch (e) {
    if (!demo && known.length === 0) {
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
    items.push({
      label: name,
      description: [current ? 'current-context' : '', selected ? 'selected' : ''].filter(Boolean).join(', ') || undefined,
      contextName: name,
    });
  }
  items.push(...known);
  if (items.length === 0) {
    void vscode.window
      .showWarningMessage('KubeLoop: the kubeconfig defines no contexts. Start the demo cluster, or set kubeloop.kubeconfig.', 'Start Demo Cluster')
      .then((c) => {
        if (c) void vscode.commands.executeCommand(COMMANDS.startDemoCluster.id);
      });
    return false;
  }
  const pick = await vscode.window.showQuickPick(items, {
    title: 'KubeLoop: Select Context',
    placeHolder: 'The cluster to load and watch',
    matchOnDescription: true,
  });
  if (!pick) return false;
  const before = s.target.current();
  if (pick.demo) {
    s.target.setDemo(demo!.target());
  } else if (pick.kubeconfig) {
    // another kubeconfig: KubeLoop's own settings name it from now on (following the extension's file stops)
    s.target.setDemo(undefined);
    const cfg = vscode.workspace.getConfiguration('kubeloop');
    await cfg.update('kubeconfig', pick.kubeconfig, vscode.ConfigurationTarget.Global);
    await cfg.update('context', pick.contextName, vscode.ConfigurationTarget.Global);
    s.reloadSettings();
    s.target.check();
  } else {
    s.target.setDemo(undefined);
    // '' (the current-context) only when nothing followed (the Kubernetes extension's context) would override it
    const followsContext = !s.settings().context && !!fromSettings.context;
    await vscode.workspace
      .getConfiguration('kubeloop')
      .update('context', pick.contextName === listed?.current && !followsContext ? '' : pick.contextName, vscode.ConfigurationTarget.Global);
    // now, not at VS Code's change event: the load that follows the pick must run on the new target
    s.reloadSettings();
    s.target.check(); // the demo cluster was left: the target changed even if the setting did not
  }
  const after = s.target.current();
  return before.context !== after.context || before.kubeconfig !== after.kubeconfig || !!before.demo !== !!after.demo;
}

/**
 * Multi-select of the cluster's namespaces, stored in `kubeloop.namespaces`. A user who may not list
 * namespaces is offered the known ones (see namespaceChoices); anyone may type a namespace name that
 * is not offered and pick it. Resolves true when changed.
 */
export async function selectNamespaces(s: SelectNamespacesDeps): Promise<boolean> {
  const lease = s.session.begin();
  try {
    return await pickNamespaces(s, lease);
  } finally {
    lease.release();
  }
}

async function pickNamespaces(s: SelectNamespacesDeps, lease: Lease): Promise<boolean> {
  const conn = await connect(s, lease, () => vscode.commands.executeCommand(COMMANDS.selectNamespaces.id));
  if (!conn) return false;
  const settings = s.settings();
  const selected = new Set(settings.namespaces);
  let choices: NamespaceChoices;
  try {
    const known = [...selected, ...(s.model.context === conn.context.name ? s.model.namespaces() : [])];
    choices = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'KubeLoop: listing namespaces' }, () =>
      namespaceChoices(conn.client, conn.context, known, AbortSignal.timeout(settings.requestTimeoutSeconds * 1000)),
    );
  } catch (e) {
    void reportProblem(s, e, { context: conn.context.name, server: conn.context.server }, () => vscode.commands.executeCommand(COMMANDS.selectNamespaces.id));
    return false;
  }
  if (choices.note) s.log.info(`namespaces: ${choices.note}`);
  const names = choices.names;
  const contextNs = conn.context.namespace || 'default';
  const describe = (n: string) =>
    [n === contextNs ? 'context namespace' : '', choices.source === 'cluster' && !names.includes(n) ? 'not in the cluster' : ''].filter(Boolean).join(', ') ||
    undefined;
  const items: vscode.QuickPickItem[] = [...new Set([...names, ...selected])].sort().map((n) => ({ label: n, description: describe(n) }));
  const picks = await pickMany(items, selected, {
    title: `KubeLoop: Select Namespaces of "${conn.context.name}"${choices.note ? ` (${choices.note})` : ''}`,
    placeholder:
      choices.source === 'known'
        ? 'Type a namespace name to add it; select none for all you may list'
        : 'Namespaces to load and watch; select none for all namespaces; type a name to add one',
  });
  if (!picks) return false;
  const value = picks.sort();
  if (value.join(',') === [...selected].sort().join(',')) return false;
  const cfg = vscode.workspace.getConfiguration('kubeloop');
  const inspect = cfg.inspect<string[]>('namespaces');
  const where =
    inspect?.workspaceFolderValue !== undefined
      ? vscode.ConfigurationTarget.WorkspaceFolder
      : inspect?.workspaceValue !== undefined
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
  await cfg.update('namespaces', value, where);
  s.reloadSettings(); // the reload that follows must use the new namespaces, not wait for the change event
  s.log.info(`namespaces: ${value.length ? value.join(', ') : 'all'}`);
  return true;
}

const NAMESPACE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * A multi-select quick pick whose typed text, when it is a namespace name not offered, becomes an
 * item of its own ("add"), so a namespace nobody could list can still be chosen.
 */
function pickMany(items: vscode.QuickPickItem[], selected: ReadonlySet<string>, o: { title: string; placeholder: string }): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem>();
    qp.title = o.title;
    qp.placeholder = o.placeholder;
    qp.canSelectMany = true;
    qp.matchOnDescription = true;
    let base = items;
    const typedItems = new Set<vscode.QuickPickItem>();
    qp.items = base;
    qp.selectedItems = base.filter((i) => selected.has(i.label));
    let done = false;
    const finish = (v: string[] | undefined) => {
      if (done) return;
      done = true;
      resolve(v);
      qp.dispose();
    };
    qp.onDidChangeValue((text) => {
      const name = text.trim();
      const keep = qp.selectedItems;
      const typed = NAMESPACE_NAME.test(name) && name.length <= 63 && !base.some((i) => i.label === name);
      // Typed items the user checked stay; an unchecked typed item goes when the text changes.
      base = base.filter((i) => !typedItems.has(i) || keep.includes(i));
      let add: vscode.QuickPickItem | undefined;
      if (typed) typedItems.add((add = { label: name, description: 'add this namespace', alwaysShow: true }));
      qp.items = add ? [add, ...base] : base;
      qp.selectedItems = qp.items.filter((i) => keep.some((k) => k.label === i.label));
    });
    qp.onDidChangeSelection((sel) => {
      // A checked typed item joins the offered ones, so it survives the next keystroke.
      for (const i of sel) if (typedItems.has(i) && !base.includes(i)) base = [i, ...base];
    });
    qp.onDidAccept(() => finish(qp.selectedItems.map((i) => i.label)));
    qp.onDidHide(() => finish(undefined));
    qp.show();
  });
}
