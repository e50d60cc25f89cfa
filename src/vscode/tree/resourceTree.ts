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
 *
 * Several contexts: the current context is the first root (this.tree over the model); the contexts
 * of `kubeloop.contexts` follow (ListedContexts), each its own TreeModel and refresh lanes, and a
 * node is answered by the tree its path's first segment (`c:<context>`) belongs to. A listed
 * context's row says its state (contextRow) and starts collapsed: expanding it is what loads it.
 */
import * as vscode from 'vscode';
import { realClock } from '../../core/clock';
import { COMMANDS } from '../../app/commandIds';
import type { ResourceModel } from '../../app/model/resourceModel';
import type { StatusTone } from '../../app/model/objectStatus';
import { accessibleLabel } from '../../app/tree/accessibility';
import { RefreshLanes } from '../../app/tree/lanes';
import { GATE_MS, LOAD_GATE_MS, RefreshGate } from '../../app/tree/gate';
import type { ResourceNode } from '../../app/tree/treeNode';
import { TreeModel, type NodeItem } from '../../app/tree/treeModel';
import type { ListedContext, ListedContexts } from '../../app/contexts/listedContexts';
import { contextRow } from '../../app/contexts/contextSet';
import type { SelectionSource } from '../../app/tree/selection';
import { ITEM_CONTEXT } from '../../app/commandIds';

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

/** A listed context's state icon: its own codicon, coloured by tone. */
function listedIcon(it: NodeItem): vscode.ThemeIcon {
  const color = it.tone === 'error' ? 'charts.red' : it.tone === 'warning' ? 'charts.yellow' : undefined;
  return new vscode.ThemeIcon(it.icon ?? 'server-environment', color ? new vscode.ThemeColor(color) : undefined);
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
  /** Loads filling the tree now (paceForLoad). */
  private loading = 0;
  private readonly unsubscribe: () => void;
  /** How many refresh events were fired, how many nodes they named, and how many tree items VS Code read (for tests, logs and the bench). */
  readonly stats = { refreshes: 0, nodes: 0, full: 0, items: 0 };
  private listed: ListedContexts | undefined;
  /** Refresh lanes of each listed context's tree. */
  private readonly listedLanes = new Map<string, { lanes: RefreshLanes; unsubscribe: () => void }>();
  private unsubscribeListed: (() => void) | undefined;
  /** A refresh was fired that VS Code has read no children for since (see selectionOf). */
  private unread = false;
  private readonly childrenRead = new Set<() => void>();

  constructor(readonly model: ResourceModel) {
    this.tree = new TreeModel(model);
    this.gate = new RefreshGate<ResourceNode>((nodes) => {
      this.stats.refreshes++;
      if (nodes === undefined) this.stats.full++;
      else this.stats.nodes += nodes.length;
      this.unread = true;
      this.changed.fire(nodes);
    }, realClock);
    this.lanes = new RefreshLanes(this.tree, (nodes) => this.gate.push(nodes, { now: this.urgent }), realClock);
    this.unsubscribe = model.onChange((c) => this.lanes.modelChanged(c));
  }

  /** Shows the listed contexts after the current one, each row following its context's state. */
  attachListed(listed: ListedContexts): void {
    this.listed = listed;
    const sync = () => {
      for (const [name, l] of [...this.listedLanes]) {
        if (listed.get(name)) continue;
        l.unsubscribe();
        l.lanes.dispose();
        this.listedLanes.delete(name);
      }
      for (const name of listed.names()) {
        if (this.listedLanes.has(name)) continue;
        const c = listed.get(name)!;
        c.tree.setFilter(this.tree.filter); // a context added while a filter is on is filtered too
        const lanes = new RefreshLanes(c.tree, (nodes) => this.gate.push(nodes, { now: this.urgent }), realClock);
        this.listedLanes.set(name, { lanes, unsubscribe: c.model.onChange((ch) => lanes.modelChanged(ch)) });
      }
    };
    sync();
    this.unsubscribeListed = listed.onChange((name) => {
      if (name === undefined) {
        sync();
        this.refresh();
        return;
      }
      const root = listed.get(name)?.tree.roots()[0];
      if (root) this.listedLanes.get(name)?.lanes.add([root]);
    });
  }

  /**
   * The listed context (not the current one) a node belongs to. Asked for every row VS Code draws:
   * one map lookup by the path's first segment, no node built.
   */
  private ownerOf(node: ResourceNode): ListedContext | undefined {
    const seg = node.path[0];
    const c = seg === undefined ? undefined : this.listed?.byRootSegment(seg);
    return c && c.name !== this.model.context ? c : undefined;
  }

  /** The name of the listed context (not the current one) a node belongs to. */
  listedOf(node: ResourceNode): string | undefined {
    return this.ownerOf(node)?.name;
  }

  /** The model that holds a node's objects: the current context's, or its listed context's. */
  modelOf(node: ResourceNode): ResourceModel {
    return this.ownerOf(node)?.model ?? this.model;
  }

  /** The tree a node belongs to: the current context's, or its listed context's. */
  treeOf(node: ResourceNode): TreeModel {
    return this.ownerOf(node)?.tree ?? this.tree;
  }

  /** The filter of every context's tree (name, kind or namespace; '' clears it). */
  setFilter(text: string): void {
    this.tree.setFilter(text);
    for (const name of this.listed?.names() ?? []) this.listed!.get(name)!.tree.setFilter(text);
  }

  /** Re-reads one node's row and children, or the whole tree. */
  refresh(node?: ResourceNode): void {
    this.lanes.add(node ? [node] : undefined);
  }

  /**
   * A load fills the tree: its redraws are spaced LOAD_GATE_MS apart until the returned function is
   * called (once; loads may overlap, the pace returns when the last one ends).
   */
  paceForLoad(): () => void {
    if (this.loading++ === 0) this.gate.setGap(LOAD_GATE_MS);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.loading === 0) this.gate.setGap(GATE_MS);
    };
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

  /** The view's selection as app/tree/selection.ts reads it: again after each time VS Code reads children back. */
  selectionOf(view: vscode.TreeView<ResourceNode>): SelectionSource<ResourceNode> {
    return {
      selection: () => view.selection,
      rereadPending: () => this.unread,
      onChildrenRead: (cb) => {
        this.childrenRead.add(cb);
        return () => void this.childrenRead.delete(cb);
      },
    };
  }

  getChildren(node?: ResourceNode): ResourceNode[] {
    this.unread = false;
    // VS Code learns the children's handles only once it has also read their items (microtasks after this returns).
    if (this.childrenRead.size) setImmediate(() => [...this.childrenRead].forEach((cb) => cb()));
    if (node?.kind === 'context') {
      // VS Code asks a collapsed row's children only once it is expanded: the lazy connect's trigger.
      // (onDidExpandElement was not enough: under load an expanded row's event was lost once, likely
      // when a refresh renewed the row's handle between drawing and the click.)
      const name = this.listedOf(node);
      if (name !== undefined) this.listed!.open(name);
    }
    if (node) return this.treeOf(node).children(node);
    const roots = this.tree.roots();
    const current = roots[0]?.path[0];
    for (const name of this.listed?.names() ?? []) {
      const root = this.listed!.get(name)!.tree.roots()[0];
      if (root && root.path[0] !== current) roots.push(root);
    }
    return roots;
  }

  getParent(node: ResourceNode): ResourceNode | undefined {
    return this.treeOf(node).parent(node);
  }

  getTreeItem(node: ResourceNode): vscode.TreeItem {
    this.stats.items++;
    const owner = this.ownerOf(node);
    const listed = node.kind === 'context' ? owner?.name : undefined;
    const it = listed !== undefined ? this.listedRow(listed, node) : (owner?.tree ?? this.tree).item(node);
    // Labels, descriptions and plain-string tooltips are rendered as text by VS Code, so names from
    // the cluster (even `<img src=x onerror=...>`) cannot become markup here. Never a MarkdownString.
    const item = new vscode.TreeItem(it.label, COLLAPSIBLE[it.collapsible]);
    item.id = node.id;
    item.description = it.description;
    item.tooltip = it.tooltip;
    item.contextValue = it.contextValue;
    item.iconPath = listed !== undefined ? listedIcon(it) : icon(it.tone, it.icon);
    const kind = node.kind === 'object' ? (owner?.model ?? this.model).type(node.typeKey!)?.kind : undefined;
    item.accessibilityInformation = { label: accessibleLabel(node, it, kind), role: 'treeitem' };
    // No arguments: VS Code hands a row command's arguments over under an id it drops when the row or
    // its parent is refreshed, and a click that lands in between is lost with no word to the extension
    // (only "Actual command not found" in the workbench's console). The command reads the selection.
    if (it.command) item.command = { command: COMMANDS[it.command.name].id, title: it.command.title };
    return item;
  }

  /** A listed context's row: its name, and its state where the current context shows its server. */
  private listedRow(name: string, node: ResourceNode): NodeItem {
    const c = this.listed!.get(name)!;
    const row = contextRow(name, c.server, c.state, realClock.now());
    return {
      ...c.tree.item(node),
      description: row.description,
      tooltip: row.tooltip,
      icon: row.icon,
      tone: row.tone === 'none' ? undefined : row.tone,
      contextValue: ITEM_CONTEXT.listedContext,
      // collapsed until the user opens it (VS Code keeps a row's expansion by its id afterwards)
      collapsible: 'collapsed',
    };
  }

  dispose(): void {
    this.unsubscribeListed?.();
    for (const l of this.listedLanes.values()) {
      l.unsubscribe();
      l.lanes.dispose();
    }
    this.unsubscribe();
    this.lanes.dispose();
    this.gate.dispose();
    this.changed.dispose();
  }
}
