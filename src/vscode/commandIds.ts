/**
 * Every command the extension contributes, in one table. package.json's `contributes.commands` must
 * list exactly these ids with these titles (a unit test holds the two together), and the e2e tests run
 * them from the command palette by "KubeLoop: <title>". No 'vscode' import: testable anywhere.
 */
export const CATEGORY = 'KubeLoop';

export const COMMANDS = {
  loadClusterResources: { id: 'kubeloop.loadClusterResources', title: 'Load Cluster Resources', icon: '$(cloud-download)' },
  cancelLoad: { id: 'kubeloop.cancelLoad', title: 'Cancel Load', icon: '$(debug-stop)' },
  startSyncLoop: { id: 'kubeloop.startSyncLoop', title: 'Start Sync Loop', icon: '$(play)' },
  stopSyncLoop: { id: 'kubeloop.stopSyncLoop', title: 'Stop Sync Loop', icon: '$(debug-pause)' },
  showTimeline: { id: 'kubeloop.showTimeline', title: 'Show Timeline', icon: '$(graph-line)' },
  selectContext: { id: 'kubeloop.selectContext', title: 'Select Context', icon: undefined },
  selectNamespaces: { id: 'kubeloop.selectNamespaces', title: 'Select Namespaces', icon: '$(filter)' },
  refresh: { id: 'kubeloop.refresh', title: 'Refresh', icon: '$(refresh)' },
  openResourceYaml: { id: 'kubeloop.openResourceYaml', title: 'Open Resource YAML', icon: '$(go-to-file)' },
  showLogs: { id: 'kubeloop.showLogs', title: 'Show Logs', icon: '$(output)' },
  startDemoCluster: { id: 'kubeloop.startDemoCluster', title: 'Start Demo Cluster', icon: '$(beaker)' },
} as const;

export type CommandName = keyof typeof COMMANDS;
export type CommandId = (typeof COMMANDS)[CommandName]['id'];

/** What the palette shows, e.g. "KubeLoop: Show Logs". */
export function paletteTitle(name: CommandName): string {
  return `${CATEGORY}: ${COMMANDS[name].title}`;
}

/** Ids of the view and container, shared by package.json, the glue and the tests. */
export const VIEW_CONTAINER_ID = 'kubeloop';
export const RESOURCES_VIEW_ID = 'kubeloop.resources';
export const OUTPUT_CHANNEL_NAME = 'KubeLoop';
export const TIMELINE_PANEL_TYPE = 'kubeloop.timeline';
