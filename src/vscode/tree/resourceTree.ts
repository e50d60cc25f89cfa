/**
 * ResourceTreeProvider: the `kubeloop.resources` tree view over a TreeModel. With no context loaded
 * it has no roots, which makes VS Code show the view's welcome content (package.json viewsWelcome).
 *
 * Partial refresh: every ResourceModel change is mapped (TreeModel.changed) to the nodes it affects
 * and coalesced in lanes (RefreshLanes: rows within a frame, structure within 100 ms, counts of
 * expanded kinds within a second), so a burst of sync-loop updates becomes a few
 * onDidChangeTreeData events naming only the changed rows and kinds; a RefreshGate spaces those
 * events just over VS Code's own 200 ms debounce, which would otherwise hold them while they keep
 * coming (under churn, for seconds).
 */
import * as vscode from 'vscode';
import { realClock } from '../../core/clock';
import { COMMANDS } from '../../app/commandIds';
import type { ResourceModel } from '../../app/model/resourceModel';
import type { StatusTone } from '../../app/model/objectStatus';
import { accessibleLabel } from '../../app/tree/accessibility';
import { RefreshLanes } from '../../app/tree/lanes';
import { RefreshGate } from '../../app/tree/gate';
import type { ResourceNode } from '../../app/tree/node';
import { TreeModel } from '../../app/tree/treeModel';

/** Shape and colour both say the state, so it does not rest on colour alone. */
const TONE_ICONS: Record<Exclude<StatusTone, 'none'>, [string, string]> = {
  ok: ['pass-filled', 'charts.green'],
  warning: ['clock', 'charts.yellow'],
  error: ['error', 'charts.red'],
  done: ['pass', 'disabledForeground'],
};

function icon(tone: StatusTone | undefined, codicon: string | undefined): vscode.ThemeIcon | undefined {
  if (tone && tone !== 'none') {
    const [id, color] = TONE_ICONS[tone];
    return new vscode.ThemeIcon(codicon && tone === 'error' ? codicon : id, new vscode.ThemeColor(color));
  }
  return new vscode.ThemeIcon(codicon ?? 'file-code');
}

const COLLAPSIBLE = {
  none: vscode.TreeItemCollapsibleState.None,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
  expanded: vscode.TreeItemCollapsibleState.Expanded,
} as const;

export class ResourceTreeProvider implements vscode.TreeDataProvider<ResourceNode>, vscode.Disposable {
  readonly tree: TreeModel;
  private readonly changed = new vscode.EventEmitter<ResourceNode | ResourceNode[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly lanes: RefreshLanes;
  private readonly gate: RefreshGate<ResourceNode>;
  /** Set while a refresh a command waits on goes through the lanes: the gate lets it pass at once. */
  private urgent = false;
  private readonly unsubscribe: () => void;
  /** How many refresh events were fired, and how many nodes they named (for tests and logs). */
  readonly stats = { refreshes: 0, nodes: 0, full: 0 };

  constructor(readonly model: ResourceModel) {
    this.tree = new TreeModel(model);
    this.gate = new RefreshGate<ResourceNode>((nodes) => {
      this.stats.refreshes++;
      if (nodes === undefined) this.stats.full++;
      else this.stats.nodes += nodes.length;
      this.changed.fire(nodes);
    }, realClock);
    this.lanes = new RefreshLanes(this.tree, (nodes) => this.gate.push(nodes, { now: this.urgent }), realClock);
    this.unsubscribe = model.onChange((c) => this.lanes.modelChanged(c));
  }

  /** Re-reads one node's row and children, or the whole tree. */
  refresh(node?: ResourceNode): void {
    this.lanes.add(node ? [node] : undefined);
  }

  /** Refreshes the whole tree now (before a reveal that must see the new shape). */
  refreshAllNow(): void {
    this.lanes.add(undefined);
    this.urgent = true;
    try {
      this.lanes.flushStructure();
    } finally {
      this.urgent = false;
    }
  }

  getChildren(node?: ResourceNode): ResourceNode[] {
    return this.tree.children(node);
  }

  getParent(node: ResourceNode): ResourceNode | undefined {
    return this.tree.parent(node);
  }

  getTreeItem(node: ResourceNode): vscode.TreeItem {
    const it = this.tree.item(node);
    // Labels, descriptions and plain-string tooltips are rendered as text by VS Code, so names from
    // the cluster (even `<img src=x onerror=...>`) cannot become markup here. Never a MarkdownString.
    const item = new vscode.TreeItem(it.label, COLLAPSIBLE[it.collapsible]);
    item.id = node.id;
    item.description = it.description;
    item.tooltip = it.tooltip;
    item.contextValue = it.contextValue;
    item.iconPath = icon(it.tone, it.icon);
    const kind = node.kind === 'object' ? this.model.type(node.typeKey!)?.kind : undefined;
    item.accessibilityInformation = { label: accessibleLabel(node, it, kind), role: 'treeitem' };
    if (it.command) item.command = { command: COMMANDS[it.command.name].id, title: it.command.title, arguments: [node] };
    return item;
  }

  dispose(): void {
    this.unsubscribe();
    this.lanes.dispose();
    this.gate.dispose();
    this.changed.dispose();
  }
}
