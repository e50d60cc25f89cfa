/**
 * The resource tree's node model, without 'vscode': the provider turns these into TreeItems.
 * Ids are built from the node's path (context / namespace / kind / object), so a node keeps its id
 * across refreshes and VS Code keeps its expansion and selection (the GitLens habit).
 */
export type NodeState = 'ok' | 'warning' | 'error' | 'pending' | 'none';

export interface ResourceNode {
  /** Path segments from the root, e.g. ['ctx', 'ns:default', 'kind:pods', 'obj:web-0']. */
  path: readonly string[];
  label: string;
  description?: string;
  tooltip?: string;
  state?: NodeState;
  /** The TreeItem.contextValue, which menus in package.json match on (e.g. 'kubeloop.object'). */
  contextValue?: string;
  /** Children, computed when VS Code expands the node; absent for a leaf. */
  children?: () => readonly ResourceNode[];
  /** Whether the node starts expanded (only meaningful with children). */
  expanded?: boolean;
}

/** A stable id for a path: segments are escaped so that no two different paths share an id. */
export function nodeId(path: readonly string[]): string {
  return path.map((s) => encodeURIComponent(s)).join('/');
}

/** The parent's path, or undefined for a root node (what `getParent` needs for `reveal`). */
export function parentPath(path: readonly string[]): readonly string[] | undefined {
  return path.length > 1 ? path.slice(0, -1) : undefined;
}
