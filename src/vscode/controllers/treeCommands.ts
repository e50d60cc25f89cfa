/**
 * Commands on the resource tree: Open Resource YAML, Copy Name, Filter Resources, Clear Resource
 * Filter, Show More Objects, and the target of Refresh. A command run from a row gets its node; run
 * from the palette it uses the tree's selection. Glue only.
 */
import * as vscode from 'vscode';
import { CONTEXT_KEYS } from '../../app/commandIds';
import { CLUSTER } from '../../app/model/resourceModel';
import type { ResourceNode } from '../../app/tree/treeNode';
import { addressToPath, type ObjectAddress } from '../../app/yaml/address';
import { SELECTION_SETTLE_MS, settledSelection } from '../../app/tree/selection';
import { realClock } from '../../core/clock';
import { yamlUri } from '../yaml/provider';
import type { TimelineStore } from '../../core/timeline/store';
import type { Logger } from '../../app/logger';
import type { ResourceModel } from '../../app/model/resourceModel';
import type { ResourceTreeProvider } from '../tree/resourceTree';
import { setContextKey, type StatusSink } from './services';

/** The tree's commands act on the tree view, its provider and the window's model. */
export type TreeCommandDeps = StatusSink & {
  readonly log: Logger;
  readonly view: vscode.TreeView<ResourceNode>;
  readonly tree: ResourceTreeProvider;
  readonly model: Pick<ResourceModel, 'type'>;
  readonly timeline: TimelineStore;
};
type Deps<K extends keyof TreeCommandDeps> = Pick<TreeCommandDeps, K>;

function isNode(v: unknown): v is ResourceNode {
  return typeof v === 'object' && v !== null && typeof (v as ResourceNode).id === 'string' && Array.isArray((v as ResourceNode).path);
}

/** The node a command acts on: its argument, else the tree's selection (as it is now). */
export function targetNode(s: Deps<'view'>, arg: unknown): ResourceNode | undefined {
  if (isNode(arg)) return arg;
  return s.view.selection[0];
}

/**
 * The node a row's command acts on: its argument (a context menu), else the clicked row, which is the
 * selection once VS Code knows that row again (app/tree/selection.ts says why it may not yet).
 */
async function clickedNode(s: Deps<'view' | 'tree'>, arg: unknown): Promise<ResourceNode | undefined> {
  if (isNode(arg)) return arg;
  return settledSelection(s.tree.selectionOf(s.view), realClock, SELECTION_SETTLE_MS);
}

function objectAddress(s: Deps<'tree'>, node: ResourceNode): ObjectAddress | undefined {
  const model = s.tree.modelOf(node); // the current context's, or a listed context's
  if (node.kind !== 'object' || !model.context) return undefined;
  const type = model.type(node.typeKey!);
  if (!type) return undefined;
  return {
    context: model.context,
    group: type.gvr.group,
    version: type.gvr.version,
    resource: type.gvr.resource,
    ...(node.namespace && node.namespace !== CLUSTER ? { namespace: node.namespace } : {}),
    name: node.name!,
  };
}

export async function openResourceYaml(s: Deps<'view' | 'tree' | 'log'>, arg: unknown): Promise<void> {
  const node = await clickedNode(s, arg);
  const a = node && objectAddress(s, node);
  if (!a) {
    s.log.info(`Open Resource YAML: ${node ? `${node.id} is not an object of a connected context` : 'no object selected'}`);
    void vscode.window.showInformationMessage(
      'KubeLoop: select an object in the KubeLoop resource tree first, then run Open Resource YAML (or click the object).',
    );
    return;
  }
  s.log.debug(`yaml: opening ${addressToPath(a)}`);
  const doc = await vscode.workspace.openTextDocument(yamlUri(a));
  await vscode.window.showTextDocument(doc, { preview: true });
}

/**
 * "Reveal in Timeline" on a tree object: the timeline panel, filtered to the object's sync-loop
 * iterations. Says so when there are none yet (the loop has not run on it), and opens it anyway.
 */
export function revealInTimeline(s: Deps<'view' | 'tree' | 'timeline'>, arg: unknown, show: (key: string) => void): void {
  const node = targetNode(s, arg);
  const key = node?.kind === 'object' ? s.tree.modelOf(node).object(node.namespace ?? CLUSTER, node.typeKey!, node.name!)?.view.key : undefined;
  if (!key) {
    void vscode.window.showInformationMessage('KubeLoop: select an object in the KubeLoop resource tree first, then run Reveal in Timeline.');
    return;
  }
  show(key);
  if (!s.timeline.some((e) => e.kind === 'iteration' && e.key === key)) {
    void vscode.window.showInformationMessage(`KubeLoop: no sync-loop iterations of ${key} yet. Start the sync loop to see them arrive.`);
  }
}

export async function copyName(s: Deps<'view' | 'tree'>, arg: unknown): Promise<void> {
  const node = targetNode(s, arg);
  const name =
    node?.kind === 'object' ? node.name : node?.kind === 'namespace' ? node.namespace : node?.kind === 'context' ? s.tree.modelOf(node).context : undefined;
  if (!name) return;
  await vscode.env.clipboard.writeText(name);
  vscode.window.setStatusBarMessage(`Copied "${name}"`, 2000);
}

export async function applyFilter(s: Deps<'view' | 'tree' | 'log' | 'statusChanged'>, text: string): Promise<void> {
  s.tree.setFilter(text);
  const f = s.tree.tree.filter;
  s.view.description = f ? `filter: ${f}` : undefined;
  // The description is hidden while the view is its container's only view: the message always shows.
  s.view.message = f ? `Filter: "${f}" (name, kind or namespace). Run "KubeLoop: Clear Resource Filter" to show everything.` : undefined;
  setContextKey(CONTEXT_KEYS.filtered, !!f);
  s.tree.refreshAllNow();
  s.statusChanged();
  // Show the matches: reveal (expanded) the kinds whose objects matched by name. getParent makes this work.
  for (const node of s.tree.tree.matchedTypeNodes(10)) {
    try {
      await s.view.reveal(node, { expand: true, select: false, focus: false });
    } catch (e) {
      s.log.debug(`filter: could not reveal ${node.id}: ${(e as Error).message}`);
    }
  }
}

export async function filter(s: Deps<'view' | 'tree' | 'log' | 'statusChanged'>): Promise<void> {
  const text = await vscode.window.showInputBox({
    title: 'KubeLoop: Filter Resources',
    prompt: 'Show objects whose name, kind or namespace contains this text (empty: show everything)',
    value: s.tree.tree.filter,
    placeHolder: 'e.g. web, Deployment, kube-system',
    // A live webview (the timeline) can take focus while the user types; do not lose the typing.
    ignoreFocusOut: true,
  });
  if (text === undefined) return;
  await applyFilter(s, text);
}

export async function showMore(s: Deps<'view' | 'tree'>, arg: unknown): Promise<void> {
  const node = await clickedNode(s, arg);
  if (node?.kind !== 'more') return;
  const type = s.tree.treeOf(node).showMore(node); // the current context's tree, or a listed context's
  if (type) s.tree.refresh(type);
}

/** What Refresh Type refreshes for a node: its type, in its namespace (if it has one). */
export function refreshScope(s: Deps<'model'>, node: ResourceNode | undefined): { typeKey: string; namespace?: string } | undefined {
  if (!node) return undefined;
  if (node.kind === 'failure') return { typeKey: node.failure!.typeKey, ...(node.failure!.namespace ? { namespace: node.failure!.namespace } : {}) };
  if (node.kind !== 'type' && node.kind !== 'object' && node.kind !== 'more') return undefined;
  const type = s.model.type(node.typeKey!);
  if (!type) return undefined;
  return { typeKey: type.key, ...(type.namespaced && node.namespace ? { namespace: node.namespace } : {}) };
}
