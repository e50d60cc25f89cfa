/**
 * What each command does, as a table over the extension's parts (host.ts). Glue only: each entry
 * calls a controller; the few that chain two (a namespace change restarts a running sync loop after
 * the reload) say why.
 */
import * as vscode from 'vscode';
import type { CommandName } from '../app/commandIds';
import { YAML_SCHEME } from '../app/yaml/address';
import type { CommandHandler } from './commands';
import { selectContext, selectNamespaces } from './controllers/connection';
import { applyFilter, copyName, filter, openResourceYaml, refreshScope, revealInTimeline, showMore, targetNode } from './controllers/treeCommands';
import type { Host } from './host';
import type { RelationsView } from './relations/relationsView';
import type { WritersView } from './writers/writersView';
import { TimelinePanel, type TimelinePanelOptions } from './timeline/panel';
import { openDemoTerminal } from './walkthrough/progress';
import { showStartup } from './startup/panel';
import type { ResourceYamlProvider } from './yaml/provider';

export function commandHandlers(
  h: Host,
  yaml: ResourceYamlProvider,
  timelineOptions: TimelinePanelOptions,
  relations: RelationsView,
  writers: WritersView,
): Record<CommandName, CommandHandler> {
  const { loads, sync, recorder, viewer, demo, k8s } = h;
  const listed = h.contexts;
  const settingsDeps = { log: h.log, target: h.target, settings: () => h.config.get(), reloadSettings: () => h.config.reload() };
  const refresh = (arg: unknown) => {
    if (listed.nameOf(arg) !== undefined) return listed.load(arg); // a listed context reloads as a whole
    const scope = refreshScope(h, targetNode(h, arg));
    return loads.load(scope ? { only: scope } : {});
  };
  return {
    loadClusterResources: async () => {
      await k8s.connect(); // a load right after start-up uses the Kubernetes extension's kubeconfig, not the default
      // the current context, and the listed ones already opened (a collapsed, never opened one stays unloaded)
      const [result] = await Promise.all([loads.load(), listed.listed.loadOpened()]);
      return result;
    },
    cancelLoad: () => (listed.listed.cancel() && !loads.loading ? true : loads.cancel()),
    startSyncLoop: () => sync.start(),
    stopSyncLoop: () => sync.stop(),
    startRecording: (path) => recorder.start(path),
    stopRecording: () => recorder.stop(),
    openRecording: (path) => viewer.openFile(path),
    recordingGoToTime: () => viewer.goToTime(),
    showRecordedHistory: (node) => viewer.showHistory(node),
    openRecordedYaml: (node) => viewer.openYaml(node),
    chooseSyncNode: () => sync.chooseNode(),
    showTimeline: () => void TimelinePanel.show(timelineOptions),
    revealInTimeline: (arg) => revealInTimeline(h, arg, (key) => TimelinePanel.reveal(timelineOptions, key)),
    selectContext: async () => {
      await k8s.connect();
      if (await selectContext(settingsDeps, demo.info)) void loads.load();
    },
    selectNamespaces: async () => {
      if (!(await selectNamespaces({ ...settingsDeps, session: h.session, model: h.model }))) return;
      // The loop watches the namespaces it started with: restart it on the new ones after the reload.
      const wasSyncing = sync.running;
      if (wasSyncing) await sync.stop('the namespaces changed');
      if (h.model.context !== undefined || h.target.isDemo) await loads.load();
      if (wasSyncing) await sync.start();
    },
    refresh: (arg) => {
      const active = vscode.window.activeTextEditor?.document.uri;
      if (!arg && active?.scheme === YAML_SCHEME) return yaml.refresh(active);
      return refresh(arg);
    },
    refreshType: refresh,
    openResourceYaml: (arg) => openResourceYaml(h, arg),
    showLogs: () => h.channel.show(true),
    showContainerLogs: (arg) => h.podLogs.show(arg, false),
    showPreviousContainerLogs: (arg) => h.podLogs.show(arg, true),
    startDemoCluster: () => demo.start(),
    stopDemoCluster: () => demo.stop(),
    filter: () => filter(h),
    clearFilter: () => applyFilter(h, ''),
    copyName: (arg) => copyName(h, arg),
    showMore: (arg) => showMore(h, arg),
    addContext: (arg) => listed.add(arg),
    removeContext: (arg) => listed.remove(arg),
    loadContext: (arg) => listed.load(arg),
    showStartup: (arg) => showStartup(h, arg),
    showRelations: (arg) => {
      const recorded = viewer.recordedObject(arg); // a row of the Recording tree: read from the recording
      return recorded ? relations.showRecorded(recorded) : relations.show(targetNode(h, arg));
    },
    relationsWarningsOnly: () => relations.toggleWarnings(),
    showWriters: () => writers.reveal(),
    openDemoTerminal: () => {
      const d = demo.info;
      openDemoTerminal(d ? { name: d.name, kubeconfig: d.target().kubeconfig! } : undefined);
    },
  };
}
