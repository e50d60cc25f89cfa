/**
 * ResourceTreeProvider: the `kubeloop.resources` tree view over ResourceNodes. With no roots it
 * shows nothing, which makes VS Code show the view's welcome content (package.json viewsWelcome).
 * The lead's loader/sync-loop wiring calls `setRoots` and `refresh(node)` for partial refreshes.
 */
import * as vscode from 'vscode';
import { nodeId, parentPath, type NodeState, type ResourceNode } from './node';

const ICONS: Record<NodeState, vscode.ThemeIcon | undefined> = {
  ok: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  warning: new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')),
  error: new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground')),
  pending: new vscode.ThemeIcon('loading~spin'),
  none: undefined,
};

export class ResourceTreeProvider implements vscode.TreeDataProvider<ResourceNode>, vscode.Disposable {
  private roots: readonly ResourceNode[] = [];
  /** Nodes by id, as last handed to VS Code: what `getParent` answers from. */
  private byId = new Map<string, ResourceNode>();
  private readonly changed = new vscode.EventEmitter<ResourceNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  setRoots(roots: readonly ResourceNode[]): void {
    this.roots = roots;
    this.byId.clear();
    this.changed.fire(undefined);
  }

  /** Re-reads one node's children (or the whole tree without an argument). */
  refresh(node?: ResourceNode): void {
    this.changed.fire(node);
  }

  getChildren(node?: ResourceNode): ResourceNode[] {
    const children = [...(node ? (node.children?.() ?? []) : this.roots)];
    for (const c of children) this.byId.set(nodeId(c.path), c);
    return children;
  }

  getParent(node: ResourceNode): ResourceNode | undefined {
    const p = parentPath(node.path);
    return p ? this.byId.get(nodeId(p)) : undefined;
  }

  getTreeItem(node: ResourceNode): vscode.TreeItem {
    const collapsible = node.children
      ? node.expanded
        ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed
      : vscode.TreeItemCollapsibleState.None;
    // TreeItem labels, descriptions and tooltips are rendered as text by VS Code (a plain-string
    // tooltip is not markdown), so names from the cluster cannot inject markup here.
    const item = new vscode.TreeItem(node.label, collapsible);
    item.id = nodeId(node.path);
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.contextValue = node.contextValue;
    item.iconPath = ICONS[node.state ?? 'none'];
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
