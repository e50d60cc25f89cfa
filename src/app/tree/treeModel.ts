/**
 * TreeModel: the resource tree's shape over a ResourceModel, without 'vscode'. It answers the
 * provider's three questions (children, item, parent), applies the filter and the paging of large
 * kinds, and maps each ModelChange to the few cached nodes whose rows or children it changed.
 *
 *   context > [Failed to load] > namespaces > API groups > kinds (with counts) > objects (+ "Show more")
 *           > Cluster-scoped > API groups > kinds > objects
 *
 * Guarantees:
 * - One node instance per id while it can be shown (VS Code refreshes by identity); nodes of
 *   objects that left their kind's page are dropped from the cache when the page is rebuilt.
 * - `changed(change)` returns only nodes VS Code has been given (cached), or undefined for "refresh
 *   everything"; a status change of one pod names only that pod's row, and a change that leaves
 *   an object's row as VS Code was last given it (same label, description, tooltip and tone: a
 *   label or resourceVersion write) names nothing.
 * - A pod joining or leaving an expanded kind without changing its shown page (a new name that sorts
 *   after the page, a removed one that was not on it) names nothing at once: the kind row, whose
 *   count changed, is handed out by `takeStaleCounts()` for a slower refresh, since VS Code cannot
 *   refresh a row without re-reading its children (a page of 500 rows), and its "Show more" row
 *   ("500 of N shown") is re-read with it. (Named at once, that row's count made every join and
 *   leave in a busy kind spend one of VS Code's tree events, which hold the next for 200 ms.)
 * - An object that leaves a shown page names its kind (the page) and its own row, which reads "gone"
 *   until the page is re-read.
 * - A kind shows at most `pageSize` objects per page, so a kind of 100,000 objects costs one page
 *   of rows; "Show more" grows that kind's page by another `pageSize`.
 */
import type { ModelChange, ResourceModel, TypeFailure } from '../model/resourceModel';
import { CLUSTER, type Bucket } from '../model/resourceModel';
import { objectDescription, statusTone, type StatusTone } from '../model/objectStatus';
import { typeLabel } from '../model/keys';
import type { CommandName } from '../commandIds';
import { ITEM_CONTEXT } from '../commandIds';
import { nodeId, type NodeKind, type ResourceNode } from './treeNode';
import { formatCount } from '../../core/formatCount';

export const DEFAULT_PAGE_SIZE = 500;

export interface NodeItem {
  label: string;
  description?: string;
  /** Plain text (never markdown: cluster data must not become markup). */
  tooltip?: string;
  /** Codicon id for structural nodes; object rows use `tone`. */
  icon?: string;
  tone?: StatusTone;
  contextValue: string;
  collapsible: 'none' | 'collapsed' | 'expanded';
  command?: { name: CommandName; title: string };
}

const fmt = formatCount;

/** Everything of an object row VS Code draws (label, description, tooltip, icon tone). */
const rowPrint = (it: NodeItem) => `${it.label}\n${it.description ?? ''}\n${it.tone ?? ''}\n${it.tooltip ?? ''}`;

export class TreeModel {
  private readonly nodes = new Map<string, ResourceNode>();
  private readonly limits = new Map<string, number>();
  /** The ids of each kind node's rows as last handed out (so a rebuild forgets only its own). */
  private readonly pages = new Map<string, Set<string>>();
  private filterText = '';
  private readonly filterCache = new WeakMap<Bucket, { filter: string; version: number; names: readonly string[] }>();
  /** The namespaces the context node showed last: a change to this list refreshes the context node. */
  /** The namespace list VS Code was last given under the context row; undefined: not given since the last reset. */
  private shownNamespaces: string | undefined;
  /** The model's namespacesVersion when the namespace list was last compared with the shown one. */
  private comparedNamespaces = -1;
  /**
   * What each object row looked like when VS Code was last given it (item()); dropped with the node.
   * A node VS Code was not given yet has none, so any change to its object refreshes it.
   */
  private shownRows = new WeakMap<ResourceNode, string>();
  /** Kind nodes whose count changed but whose page did not (see takeStaleCounts). */
  private staleCounts = new Map<string, ResourceNode>();
  /** While a sync loop runs: how fresh a kind row's type is (app/sync/freshnessRows.ts). */
  kindFreshness: ((namespace: string, typeKey: string) => { suffix?: string; lines: string[] } | undefined) | undefined;

  constructor(
    readonly model: ResourceModel,
    readonly pageSize = DEFAULT_PAGE_SIZE,
  ) {}

  get filter(): string {
    return this.filterText;
  }

  /** Sets the filter (case-insensitive substring of name, kind or namespace); '' clears it. */
  setFilter(text: string): void {
    this.filterText = text.trim().toLowerCase();
  }

  roots(): ResourceNode[] {
    const ctx = this.model.context;
    return ctx === undefined ? [] : [this.node('context', [`c:${ctx}`], {})];
  }

  children(node?: ResourceNode): ResourceNode[] {
    if (!node) return this.roots();
    switch (node.kind) {
      case 'context':
        return this.contextChildren(node);
      case 'namespace':
      case 'cluster':
        return this.groupsOf(node);
      case 'group':
        return this.typesOf(node);
      case 'type':
        return this.objectsOf(node);
      case 'errors':
        return this.model.failures().map((f) => this.failureNode(node, f));
      default:
        return [];
    }
  }

  parent(node: ResourceNode): ResourceNode | undefined {
    return node.path.length > 1 ? this.nodes.get(nodeId(node.path.slice(0, -1))) : undefined;
  }

  byId(id: string): ResourceNode | undefined {
    return this.nodes.get(id);
  }

  /** The kind nodes VS Code has been given (cached), in no set order. */
  typeNodes(): ResourceNode[] {
    return [...this.nodes.values()].filter((n) => n.kind === 'type');
  }

  /** The kind node's page grows by one page; returns the node to refresh. */
  showMore(more: ResourceNode): ResourceNode | undefined {
    const type = this.parent(more);
    if (!type || type.kind !== 'type') return undefined;
    this.limits.set(type.id, (this.limits.get(type.id) ?? this.pageSize) + this.pageSize);
    return type;
  }

  item(node: ResourceNode): NodeItem {
    switch (node.kind) {
      case 'context':
        return {
          label: this.model.context ?? '',
          description: this.model.server || undefined,
          icon: 'server-environment',
          contextValue: ITEM_CONTEXT.context,
          collapsible: 'expanded',
        };
      case 'errors': {
        const n = this.model.failures().length;
        return {
          label: `Failed to load (${n})`,
          tooltip: 'Resource types whose list failed; their reasons are below.',
          icon: 'error',
          tone: 'error',
          contextValue: ITEM_CONTEXT.errors,
          collapsible: 'expanded',
        };
      }
      case 'failure':
        return this.failureItem(node);
      case 'namespace': {
        const v = this.model.namespaceView(node.namespace!);
        const description = v && v.status && v.status !== 'Active' ? v.status : undefined;
        return { label: node.namespace!, description, icon: 'symbol-namespace', contextValue: ITEM_CONTEXT.namespace, collapsible: 'collapsed' };
      }
      case 'cluster':
        return {
          label: 'Cluster-scoped',
          tooltip: 'Objects that belong to no namespace (nodes, namespaces, cluster roles, ...)',
          icon: 'globe',
          contextValue: ITEM_CONTEXT.clusterScoped,
          collapsible: 'collapsed',
        };
      case 'group':
        return {
          label: node.group || 'core',
          tooltip: node.group ? `API group ${node.group}` : 'The core API group (/api/v1)',
          icon: 'package',
          contextValue: ITEM_CONTEXT.group,
          collapsible: 'collapsed',
        };
      case 'type':
        return this.typeItem(node);
      case 'object':
        return this.objectItem(node);
      case 'more': {
        const type = this.parent(node);
        const bucket = this.model.bucket(node.namespace!, node.typeKey!);
        const total = bucket ? this.visibleNames(bucket).length : 0;
        const shown = type ? Math.min(total, this.limits.get(type.id) ?? this.pageSize) : 0;
        return {
          label: `Show ${fmt(Math.min(this.pageSize, total - shown))} more`,
          description: `${fmt(shown)} of ${fmt(total)} shown`,
          icon: 'ellipsis',
          contextValue: ITEM_CONTEXT.more,
          collapsible: 'none',
          command: { name: 'showMore', title: 'Show more' },
        };
      }
    }
  }

  /**
   * The cached nodes whose row or children a model change affects; undefined = refresh everything.
   * [] when nothing shown is affected.
   */
  changed(c: ModelChange): ResourceNode[] | undefined {
    if (c.kind === 'reset') {
      this.staleCounts.clear();
      this.nodes.clear();
      this.shownRows = new WeakMap();
      this.limits.clear();
      this.pages.clear();
      this.shownNamespaces = undefined;
      this.comparedNamespaces = -1;
      return undefined;
    }
    const ctx = this.roots()[0];
    if (!ctx) return [];
    if (c.kind === 'failures') return [ctx];
    const out: ResourceNode[] = [];
    const nsSeg = c.namespace === CLUSTER ? 'cluster' : `n:${c.namespace}`;
    const typeNode = this.nodes.get(nodeId([ctx.path[0]!, nsSeg, `g:${this.model.type(c.typeKey)?.gvr.group ?? ''}`, `t:${c.typeKey}`]));
    if (c.kind === 'object') {
      const obj = typeNode && this.nodes.get(nodeId([...typeNode.path, `o:${c.name}`]));
      // A write that leaves the row as drawn (a label, an annotation, a new resourceVersion) is
      // not a refresh: under churn those were most row refreshes, each spending a VS Code tree event.
      if (obj && this.shownRows.get(obj) !== rowPrint(this.objectItemOf(obj))) out.push(obj);
      if (c.typeKey === 'namespaces' && c.namespace === CLUSTER) {
        const ns = this.nodes.get(nodeId([ctx.path[0]!, `n:${c.name}`]));
        if (ns) out.push(ns);
      }
      return out;
    }
    // Membership of a (namespace, type) changed.
    if (this.filterText) return [ctx]; // what matches may now show or hide anywhere above
    if (typeNode && c.member && !c.created && !c.emptied && this.pageUnchanged(typeNode, c.member)) {
      // Its "Show more" row's "500 of N shown" is that count too: VS Code re-reads it with the kind.
      this.staleCounts.set(typeNode.id, typeNode);
      return [];
    }
    if (typeNode) {
      out.push(typeNode);
      this.staleCounts.delete(typeNode.id);
      // A row that left: it says "gone" at once, while its kind's page may wait to be re-read (lanes.ts).
      const row = c.member && !c.member.joined ? this.nodes.get(nodeId([...typeNode.path, `o:${c.member.name}`])) : undefined;
      if (row) out.push(row);
    }
    if (c.created || c.emptied) {
      const nsNode = this.nodes.get(nodeId([ctx.path[0]!, nsSeg]));
      if (nsNode) out.push(nsNode);
      if (this.namespacesChanged()) out.push(ctx);
    }
    if (c.typeKey === 'namespaces' && c.namespace === CLUSTER && this.namespacesChanged()) out.push(ctx);
    return out;
  }

  /**
   * How many rows VS Code makes again when it refreshes `node`: the row itself and, for a node with
   * children, the rows of every kind page handed out beneath it (VS Code drops a refreshed node's
   * subtree and re-reads what is expanded). An upper bound: a page collapsed since counts still.
   */
  refreshCost(node: ResourceNode): number {
    if (node.kind === 'object' || node.kind === 'more') return 1;
    let n = 1;
    const prefix = `${node.id}/`;
    for (const [id, rows] of this.pages) if (id === node.id || id.startsWith(prefix)) n += rows.size;
    return n;
  }

  /**
   * Kind nodes whose count changed since last asked while their page stayed the same (cleared on
   * asking). Only nodes still cached; a kind refreshed meanwhile for another reason is not repeated.
   */
  takeStaleCounts(): ResourceNode[] {
    if (this.staleCounts.size === 0) return [];
    const out = [...this.staleCounts.values()].filter((n) => this.nodes.get(n.id) === n);
    this.staleCounts.clear();
    return out;
  }

  /**
   * Whether one object joining or leaving leaves the kind's shown page (its first `limit` rows and
   * the "Show more" row) as it was. Only for a kind whose page was handed out (expanded); the page is
   * the unfiltered one (a filter refreshes from the context row instead).
   */
  private pageUnchanged(type: ResourceNode, m: { name: string; joined: boolean }): boolean {
    const page = this.pages.get(type.id);
    const bucket = this.model.bucket(type.namespace!, type.typeKey!);
    if (!page || !bucket) return false;
    const limit = this.limits.get(type.id) ?? this.pageSize;
    const sorted = bucket.sortedNames();
    const moreShown = page.has(nodeId([...type.path, 'more']));
    if (!m.joined) return moreShown && sorted.length > limit && !page.has(nodeId([...type.path, `o:${m.name}`]));
    // Joined: the page was full before (more than `limit` rows, so "Show more" stays) and the new name sorts after its last row.
    return moreShown && sorted.length > limit + 1 && m.name > sorted[limit - 1]!;
  }

  // ---- children ----

  private contextChildren(ctx: ResourceNode): ResourceNode[] {
    const out: ResourceNode[] = [];
    if (this.model.failures().length > 0) out.push(this.node('errors', [...ctx.path, 'errors'], {}));
    const namespaces = this.model.namespaces();
    this.shownNamespaces = namespaces.join('\n');
    this.comparedNamespaces = this.model.namespacesVersion;
    for (const ns of namespaces) {
      if (this.filterText && !this.namespaceVisible(ns)) continue;
      out.push(this.node('namespace', [...ctx.path, `n:${ns}`], { namespace: ns }));
    }
    if (this.model.hasClusterScoped() && (!this.filterText || this.model.bucketsIn(CLUSTER).some((b) => this.visibleNames(b).length > 0))) {
      out.push(this.node('cluster', [...ctx.path, 'cluster'], { namespace: CLUSTER }));
    }
    return out;
  }

  /**
   * Whether the namespace list differs from the one last shown. Built and compared only when the
   * model's namespacesVersion moved since the last comparison: a load's thousands of bucket changes
   * rebuilt and sorted the whole list each (about 0.6 s of a 100k-object load on the host's thread).
   * Never while VS Code has not been given the context's children since the reset: it reads them
   * as they are when it asks. Refreshing the context row then only made VS Code drop the read it
   * had in flight and start again, each structure window of a load (the first namespace rows of a
   * 100k-object palette load waited for the reads to outrun the refreshes: about a second).
   */
  private namespacesChanged(): boolean {
    if (this.shownNamespaces === undefined) return false;
    const v = this.model.namespacesVersion;
    if (v === this.comparedNamespaces) return false;
    this.comparedNamespaces = v;
    return this.model.namespaces().join('\n') !== this.shownNamespaces;
  }

  private namespaceVisible(ns: string): boolean {
    if (ns.toLowerCase().includes(this.filterText)) return true;
    return this.model.bucketsIn(ns).some((b) => this.visibleNames(b).length > 0);
  }

  private groupsOf(parent: ResourceNode): ResourceNode[] {
    const ns = parent.namespace!;
    const groups = new Set<string>();
    for (const b of this.model.bucketsIn(ns)) if (this.bucketVisible(b)) groups.add(b.type.gvr.group);
    return [...groups]
      .sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)))
      .map((g) => this.node('group', [...parent.path, `g:${g}`], { namespace: ns, group: g }));
  }

  private typesOf(group: ResourceNode): ResourceNode[] {
    return this.model
      .bucketsIn(group.namespace!)
      .filter((b) => b.type.gvr.group === group.group && this.bucketVisible(b))
      .sort((a, b) => a.type.kind.localeCompare(b.type.kind) || a.type.key.localeCompare(b.type.key))
      .map((b) => this.node('type', [...group.path, `t:${b.type.key}`], { namespace: group.namespace!, group: group.group!, typeKey: b.type.key }));
  }

  private objectsOf(type: ResourceNode): ResourceNode[] {
    const bucket = this.model.bucket(type.namespace!, type.typeKey!);
    const names = bucket ? this.visibleNames(bucket) : [];
    const limit = this.limits.get(type.id) ?? this.pageSize;
    const page = names.length > limit ? names.slice(0, limit) : names;
    const out = page.map((name) =>
      this.node('object', [...type.path, `o:${name}`], { namespace: type.namespace!, group: type.group!, typeKey: type.typeKey!, name }),
    );
    if (names.length > page.length) out.push(this.node('more', [...type.path, 'more'], { namespace: type.namespace!, typeKey: type.typeKey! }));
    // Rows no longer on this page are gone from VS Code too: forget their nodes.
    const keep = new Set(out.map((n) => n.id));
    for (const id of this.pages.get(type.id) ?? []) if (!keep.has(id)) this.nodes.delete(id);
    this.pages.set(type.id, keep);
    return out;
  }

  private failureNode(parent: ResourceNode, f: TypeFailure): ResourceNode {
    return this.node('failure', [...parent.path, `f:${f.type.key}@${f.namespace ?? ''}`], {
      failure: { typeKey: f.type.key, ...(f.namespace !== undefined ? { namespace: f.namespace } : {}) },
    });
  }

  // ---- items ----

  private typeItem(node: ResourceNode): NodeItem {
    const bucket = this.model.bucket(node.namespace!, node.typeKey!);
    const type = this.model.type(node.typeKey!);
    const total = bucket?.size ?? 0;
    const shown = bucket ? this.visibleNames(bucket).length : 0;
    let description = this.filterText && shown !== total ? `${fmt(shown)} of ${fmt(total)}` : fmt(total);
    if (bucket?.partial) description += ' (partial)';
    const fresh = this.kindFreshness?.(node.namespace!, node.typeKey!);
    if (fresh?.suffix) description += ` · ${fresh.suffix}`;
    const tooltip = type
      ? `${typeLabel(type.gvr)}: ${fmt(total)} object${total === 1 ? '' : 's'}${bucket?.partial ? ', list incomplete (see Failed to load)' : ''}`
      : undefined;
    return {
      label: type?.kind ?? node.typeKey!,
      description,
      tooltip: fresh && tooltip ? [tooltip, ...fresh.lines].join('\n') : tooltip,
      icon: 'symbol-class',
      contextValue: ITEM_CONTEXT.type,
      collapsible: 'collapsed',
    };
  }

  private objectItem(node: ResourceNode): NodeItem {
    const it = this.objectItemOf(node);
    this.shownRows.set(node, rowPrint(it));
    return it;
  }

  private objectItemOf(node: ResourceNode): NodeItem {
    const e = this.model.object(node.namespace!, node.typeKey!, node.name!);
    if (!e) return { label: node.name!, description: 'gone', contextValue: ITEM_CONTEXT.object, collapsible: 'none' };
    const v = e.view;
    const description = objectDescription(v);
    const where = v.namespace ? `${v.namespace}/${v.name}` : v.name;
    return {
      label: e.name,
      description: description || undefined,
      tooltip: [`${v.kind} ${where}`, description].filter(Boolean).join('\n'),
      tone: statusTone(v),
      contextValue: ITEM_CONTEXT.object,
      collapsible: 'none',
      command: { name: 'openResourceYaml', title: 'Open Resource YAML' },
    };
  }

  private failureItem(node: ResourceNode): NodeItem {
    const f = this.model.failures().find((x) => x.type.key === node.failure!.typeKey && x.namespace === node.failure!.namespace);
    const where = node.failure!.namespace ? ` in ${node.failure!.namespace}` : '';
    if (!f) return { label: `${node.failure!.typeKey}${where}`, contextValue: ITEM_CONTEXT.typeError, collapsible: 'none' };
    const why = f.status ? `${f.status} ${f.reason}` : f.reason;
    return {
      label: `${f.type.kind} (${f.type.key})${where}`,
      description: why,
      tooltip: `${typeLabel(f.type.gvr)}${where}: ${why}\n${f.message}${f.received ? `\n${fmt(f.received)} objects arrived before the failure and are shown.` : ''}`,
      icon: 'error',
      tone: 'error',
      contextValue: ITEM_CONTEXT.typeError,
      collapsible: 'none',
    };
  }

  // ---- filter ----

  /**
   * Kind nodes that hold objects whose *names* match the filter (not kinds shown whole because their
   * namespace or kind matched), at most `limit`: the glue reveals them expanded, so a filter shows
   * its matches instead of a collapsed tree.
   */
  matchedTypeNodes(limit = 10): ResourceNode[] {
    const out: ResourceNode[] = [];
    const ctx = this.roots()[0];
    if (!ctx || !this.filterText) return out;
    for (const ns of this.children(ctx)) {
      if (ns.kind !== 'namespace' && ns.kind !== 'cluster') continue;
      for (const g of this.children(ns)) {
        for (const t of this.children(g)) {
          const b = this.model.bucket(t.namespace!, t.typeKey!);
          if (!b || this.matchesWhole(b)) continue;
          out.push(t);
          if (out.length >= limit) return out;
        }
      }
    }
    return out;
  }

  private matchesWhole(b: Bucket): boolean {
    const f = this.filterText;
    return b.namespace.toLowerCase().includes(f) || b.type.kind.toLowerCase().includes(f) || b.type.key.toLowerCase().includes(f);
  }

  private bucketVisible(b: Bucket): boolean {
    return b.size > 0 && (!this.filterText || this.visibleNames(b).length > 0);
  }

  /**
   * The names of the bucket's objects the filter lets through, sorted (cached per bucket membership
   * and filter). Names only: a row's view is made when VS Code asks for that row (item()).
   */
  private visibleNames(b: Bucket): readonly string[] {
    const all = b.sortedNames();
    const f = this.filterText;
    if (!f || this.matchesWhole(b)) return all;
    const hit = this.filterCache.get(b);
    if (hit && hit.filter === f && hit.version === b.version) return hit.names;
    const names = all.filter((name) => name.toLowerCase().includes(f));
    this.filterCache.set(b, { filter: f, version: b.version, names });
    return names;
  }

  private node(kind: NodeKind, path: string[], fields: Partial<Omit<ResourceNode, 'id' | 'kind' | 'path'>>): ResourceNode {
    const id = nodeId(path);
    let n = this.nodes.get(id);
    if (!n) {
      n = { id, kind, path, ...fields };
      this.nodes.set(id, n);
    }
    return n;
  }
}
