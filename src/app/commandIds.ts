/**
 * Every command the extension contributes, in one table. package.json's `contributes.commands` must
 * list exactly these ids with these titles (a unit test holds the two together), and the e2e tests run
 * them from the command palette by "KubeLoop: <title>". No 'vscode' import: testable anywhere.
 */
import { redactUrlsIn } from '../core/kube/redactUrl';
export const CATEGORY = 'KubeLoop';

export interface CommandSpec {
  id: string;
  title: string;
  icon: string | undefined;
  /**
   * false: the command acts on a tree node it is given (a context-menu or inline action, or a row's
   * click), so the palette does not offer it (package.json menus.commandPalette hides it).
   */
  palette?: false;
}

export const COMMANDS = {
  loadClusterResources: { id: 'kubeloop.loadClusterResources', title: 'Load Cluster Resources', icon: '$(cloud-download)' },
  cancelLoad: { id: 'kubeloop.cancelLoad', title: 'Cancel Load', icon: '$(debug-stop)' },
  startSyncLoop: { id: 'kubeloop.startSyncLoop', title: 'Start Sync Loop', icon: '$(play)' },
  stopSyncLoop: { id: 'kubeloop.stopSyncLoop', title: 'Stop Sync Loop', icon: '$(debug-pause)' },
  chooseSyncNode: { id: 'kubeloop.chooseSyncNode', title: 'Sync Loop: Choose Node', icon: '$(server)' },
  showTimeline: { id: 'kubeloop.showTimeline', title: 'Show Timeline', icon: '$(graph-line)' },
  selectContext: { id: 'kubeloop.selectContext', title: 'Select Context', icon: undefined },
  selectNamespaces: { id: 'kubeloop.selectNamespaces', title: 'Select Namespaces', icon: '$(symbol-namespace)' },
  refresh: { id: 'kubeloop.refresh', title: 'Refresh', icon: '$(refresh)' },
  openResourceYaml: { id: 'kubeloop.openResourceYaml', title: 'Open Resource YAML', icon: '$(go-to-file)' },
  revealInTimeline: { id: 'kubeloop.revealInTimeline', title: 'Reveal in Timeline', icon: '$(graph-line)' },
  showLogs: { id: 'kubeloop.showLogs', title: 'Show Logs', icon: '$(output)' },
  showContainerLogs: { id: 'kubeloop.showContainerLogs', title: 'Show Container Logs', icon: '$(output)', palette: false },
  showPreviousContainerLogs: { id: 'kubeloop.showPreviousContainerLogs', title: 'Show Previous Container Logs', icon: '$(history)', palette: false },
  startDemoCluster: { id: 'kubeloop.startDemoCluster', title: 'Start Demo Cluster', icon: '$(beaker)' },
  filter: { id: 'kubeloop.filter', title: 'Filter Resources', icon: '$(filter)' },
  clearFilter: { id: 'kubeloop.clearFilter', title: 'Clear Resource Filter', icon: '$(clear-all)' },
  stopDemoCluster: { id: 'kubeloop.stopDemoCluster', title: 'Stop Demo Cluster', icon: undefined },
  copyName: { id: 'kubeloop.copyName', title: 'Copy Name', icon: '$(copy)', palette: false },
  refreshType: { id: 'kubeloop.refreshType', title: 'Refresh This Type', icon: '$(refresh)', palette: false },
  showMore: { id: 'kubeloop.showMore', title: 'Show More Objects', icon: undefined, palette: false },
  openDemoTerminal: { id: 'kubeloop.openDemoTerminal', title: 'Open Terminal on Demo Cluster', icon: '$(terminal)' },
  startRecording: { id: 'kubeloop.startRecording', title: 'Start Recording', icon: '$(record)' },
  stopRecording: { id: 'kubeloop.stopRecording', title: 'Stop Recording', icon: '$(debug-stop)' },
  openRecording: { id: 'kubeloop.openRecording', title: 'Open Recording...', icon: '$(folder-opened)' },
  recordingGoToTime: { id: 'kubeloop.recordingGoToTime', title: 'Recording: Go to Time...', icon: '$(clock)' },
  showRecordedHistory: { id: 'kubeloop.showRecordedHistory', title: 'Show Recorded History', icon: '$(history)' },
  openRecordedYaml: { id: 'kubeloop.openRecordedYaml', title: 'Open Recorded YAML', icon: '$(go-to-file)', palette: false },
  addContext: { id: 'kubeloop.addContext', title: 'Add Context...', icon: '$(add)' },
  removeContext: { id: 'kubeloop.removeContext', title: 'Remove Context', icon: '$(close)' },
  loadContext: { id: 'kubeloop.loadContext', title: 'Load This Context', icon: '$(cloud-download)', palette: false },
  showStartup: { id: 'kubeloop.showStartup', title: 'Show Start-up', icon: '$(rocket)' },
  showRelations: { id: 'kubeloop.showRelations', title: 'Show Relations', icon: '$(type-hierarchy)' },
  relationsWarningsOnly: { id: 'kubeloop.relationsWarningsOnly', title: 'Relations: Toggle Warnings Only', icon: '$(warning)', palette: false },
  showWriters: { id: 'kubeloop.showWriters', title: 'Show Top Writers', icon: '$(pulse)' },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

/** What the palette shows, e.g. "KubeLoop: Show Logs". */
export function paletteTitle(name: CommandName): string {
  return `${CATEGORY}: ${COMMANDS[name].title}`;
}

/**
 * The notification and log line for a command that failed with `err`: whatever the error quotes, no
 * URL keeps its user info (a notification bypasses the logger's own redaction).
 */
export function commandFailedText(name: CommandName, err: unknown): string {
  return redactUrlsIn(`${paletteTitle(name)} failed: ${err instanceof Error ? err.message : String(err)}`);
}

/** Ids of the view and container, shared by package.json, the glue and the tests. */
export const VIEW_CONTAINER_ID = 'kubeloop';
export const RESOURCES_VIEW_ID = 'kubeloop.resources';
export const OUTPUT_CHANNEL_NAME = 'KubeLoop';
export const TIMELINE_PANEL_TYPE = 'kubeloop.timeline';
/** A recording's timeline panel (Open Recording...): its own type, so a reload never revives it as the live one. */
export const RECORDING_PANEL_TYPE = 'kubeloop.recordingTimeline';
/** The Recording tree: the cluster as an open recording holds it at the chosen instant. */
export const RECORDING_VIEW_ID = 'kubeloop.recording';
/** The Relations view: one object's owners, owned objects and Events. */
export const RELATIONS_VIEW_ID = 'kubeloop.relations';
/** The Top Writers view: field managers by writes/s while the sync loop runs, fights and hot loops flagged. */
export const WRITERS_VIEW_ID = 'kubeloop.writers';

/** Context keys the glue sets (`setContext`) and package.json's `when` clauses read. */
export const CONTEXT_KEYS = {
  loading: 'kubeloop.loading',
  syncRunning: 'kubeloop.syncRunning',
  filtered: 'kubeloop.filtered',
  demoRunning: 'kubeloop.demoRunning',
  recording: 'kubeloop.recording',
  recordingOpen: 'kubeloop.recordingOpen',
  /** The Relations view has an object to show (Show Relations ran). */
  relationsShown: 'kubeloop.relationsShown',
} as const;

/** TreeItem.contextValue of each node kind: what the view/item/context menus match on. */
export const ITEM_CONTEXT = {
  context: 'kubeloop.context',
  /** A context of `kubeloop.contexts`, shown beside the current one. */
  listedContext: 'kubeloop.listedContext',
  namespace: 'kubeloop.namespace',
  clusterScoped: 'kubeloop.clusterScoped',
  group: 'kubeloop.group',
  type: 'kubeloop.type',
  object: 'kubeloop.object',
  more: 'kubeloop.more',
  errors: 'kubeloop.errors',
  typeError: 'kubeloop.typeError',
  recordedType: 'kubeloop.recordedType',
  recordedObject: 'kubeloop.recordedObject',
} as const;
