/**
 * The resource tree's nodes, without 'vscode'. A node is a stable handle (kind + path); what it
 * shows is read from the model each time VS Code asks (TreeModel.item), so a handle never goes stale.
 *
 * Ids are built from the path (context / namespace / group / type / object), so a node keeps its id
 * across refreshes and VS Code keeps its expansion and selection (the GitLens habit). VS Code's
 * extension host finds the node to refresh by object identity, so TreeModel hands out one instance
 * per id for as long as the node can be shown.
 */
export type NodeKind = 'context' | 'namespace' | 'cluster' | 'group' | 'type' | 'object' | 'more' | 'errors' | 'failure';

export interface ResourceNode {
  readonly id: string;
  readonly kind: NodeKind;
  /** Path segments from the root, e.g. ['c:demo', 'n:default', 'g:', 't:pods', 'o:web-0']. */
  readonly path: readonly string[];
  /** Namespace of a namespace/group/type/object node; '' under "Cluster-scoped". */
  readonly namespace?: string;
  /** API group of a group/type/object node ('' = core). */
  readonly group?: string;
  /** ResourceType.key of a type/object/more node. */
  readonly typeKey?: string;
  /** Object name (object nodes). */
  readonly name?: string;
  /** The failure's key (failure nodes). */
  readonly failure?: { typeKey: string; namespace?: string };
}

/** A stable id for a path: segments are escaped so that no two different paths share an id. */
export function nodeId(path: readonly string[]): string {
  return path.map((s) => encodeURIComponent(s)).join('/');
}
