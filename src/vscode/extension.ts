/**
 * The extension's entry point: wires the output channel, settings, model, resource tree, status
 * bar, timeline panel, YAML documents and commands together. Glue only; what can be tested without
 * VS Code lives in the modules it calls.
 */
import { apiCostTooltip } from '../app/load/apiCost';
import * as vscode from 'vscode';
import { realClock } from '../core/clock';
import { TimelineStore } from '../core/timeline/store';
import { DemoController } from './controllers/demoController';
import { keepYamlLive } from './controllers/liveYaml';
import { LoadController } from './controllers/loadController';
import { selectContext, selectNamespaces } from './controllers/connection';
import { TargetState, type Services } from './controllers/services';
import { StatusBar } from './controllers/statusBar';
import { SyncController } from './controllers/syncController';
import { RecordingController } from './controllers/recordingController';
import { RecordingViewer } from './controllers/recordingView';
import { RECORDING_SCHEME } from '../app/recording/recordedObjects';
import { applyFilter, copyName, filter, openResourceYaml, refreshScope, revealInTimeline, showMore, targetNode } from './controllers/treeCommands';
import { COMMANDS, OUTPUT_CHANNEL_NAME, RESOURCES_VIEW_ID, type CommandName } from '../app/commandIds';
import { registerCommands, type CommandHandler } from './commands';
import { Connections } from '../app/connection/connection';
import { createLogger, type LogSink, type Logger } from '../app/logger';
import { depthNotices } from '../core/kube/objects/depth';
import { ResourceModel } from '../app/model/resourceModel';
import { readSettings, SETTINGS_SECTION, type KubeLoopSettings } from '../app/settings';
import { formatEventDetails } from '../shared/details';
import { registerTimelineSerializer, TimelinePanel, type TimelinePanelOptions } from './timeline/panel';
import type { ResourceNode } from '../app/tree/treeNode';
import { ResourceTreeProvider } from './tree/resourceTree';
import { YAML_SCHEME } from '../app/yaml/address';
import { ResourceYamlProvider } from './yaml/provider';
import { KubernetesFollower } from './ecosystem/kubernetesExtension';
import { openDemoTerminal, trackWalkthrough } from './walkthrough/progress';
import { hostStatsFromEnv, STATS_FILE_ENV } from '../app/stats/hostStats';
import { cpuProfilesFromEnv } from '../app/stats/cpuProfiles';
import { heapProfilesFromEnv } from '../app/stats/heapProfiles';
import { SharedLanes } from '../core/pool/sharedLanes';
import { MULTI_DEFAULT_LANES } from '../core/loader/multiCluster';
import { ContextsController } from './controllers/contextsController';

/** What `activate` returns: the in-host tests (and other extensions) reach the live parts through it. */
export interface KubeLoopApi {
  readonly timeline: TimelineStore;
  readonly tree: ResourceTreeProvider;
  readonly model: ResourceModel;
  readonly log: Logger;
  settings(): KubeLoopSettings;
  /** Whether a load or the sync loop is running (for tests that wait on them). */
  state(): { loading: boolean; sync: 'off' | 'starting' | 'running'; demoUrl?: string };
}

let shutdown: (() => Promise<void>) | undefined;

export function activate(context: vscode.ExtensionContext): KubeLoopApi {
  const channel = vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME, { log: true });
  context.subscriptions.push(channel);

  const initial = readConfig();
  let settings = initial.settings;
  let reported = initial.problems;
  warnAbout(reported);
  const log = createLogger(channelSink(channel), () => settings.logLevel);
  // An object nested too deep to walk is kept cut (core/kube/objects/depth.ts): said once per object.
  context.subscriptions.push({ dispose: depthNotices.subscribe((m) => log.warn(m)) });
  // the Kubernetes extension, when installed: its kubeconfig and context, where KubeLoop's settings are unset
  const k8s = new KubernetesFollower(
    () => ({ follow: settings.followKubernetesExtension, kubeconfig: settings.kubeconfig, context: settings.context }),
    log,
    context.globalState,
  );
  const target = new TargetState(
    () => settings,
    () => k8s.followed(),
  );
  context.subscriptions.push(k8s, target);

  const timeline = new TimelineStore();
  const origin = realClock.now();
  const model = new ResourceModel();
  const tree = new ResourceTreeProvider(model);
  const view = vscode.window.createTreeView<ResourceNode>(RESOURCES_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });
  const connections = new Connections(() => ({ requestTimeoutMs: settings.requestTimeoutSeconds * 1000, discoveryCache: settings.discoveryCache }), log);
  context.subscriptions.push(tree, view, { dispose: () => connections.close() });

  let statusBar: StatusBar | undefined;
  let contexts: ContextsController | undefined;
  /**
   * Idempotent: the change event after a command's own reload finds nothing new to apply, and a
   * problem already reported is not reported again until the settings or the problems change.
   */
  const reloadSettings = () => {
    const { settings: next, problems } = readConfig();
    const changed = JSON.stringify(next) !== JSON.stringify(settings);
    if (changed || problems !== reported) warnAbout(problems);
    reported = problems;
    if (!changed) return;
    settings = next;
    log.info(`settings changed: ${JSON.stringify(settings)}`);
    k8s.settingsChanged();
    target.check();
    contexts?.update();
  };
  const s: Services = {
    ext: context,
    log,
    settings: () => settings,
    reloadSettings,
    timeline,
    origin,
    model,
    tree,
    view,
    connections,
    target,
    statusChanged: () => statusBar?.update(),
    // one budget of list requests for every context's loads, shared fairly (core's SharedLanes)
    lanes: new SharedLanes(MULTI_DEFAULT_LANES),
  };
  const loads = new LoadController(s);
  const sync = new SyncController(s);
  const demo = new DemoController(s);
  const viewer = new RecordingViewer(s, () => ({ extensionUri: context.extensionUri, log }));
  const recorder = new RecordingController(s, sync, (path) => viewer.openFile(path));
  contexts = new ContextsController(s, s.lanes);
  const listed = contexts;
  context.subscriptions.push(loads, recorder, sync, viewer, contexts, vscode.workspace.registerTextDocumentContentProvider(RECORDING_SCHEME, viewer));
  statusBar = new StatusBar(() => ({
    ...(model.context ? { context: model.context } : {}),
    ...(model.server ? { server: model.server } : {}),
    demo: target.isDemo,
    objects: model.objectCount,
    ...(loads.progress ? { loading: loads.progress } : {}),
    sync: sync.state,
    ...(sync.node ? { syncNode: sync.node } : {}),
    ...(sync.plegProblem ? { plegProblem: sync.plegProblem } : {}),
    ...(tree.tree.filter ? { filter: tree.tree.filter } : {}),
    ...(loads.lastCost ? { apiCost: apiCostTooltip(loads.lastCost) } : {}),
  }));
  context.subscriptions.push(statusBar, new vscode.Disposable(model.onChange(() => statusBar?.update())));
  // Off by default: the host's event-loop delay, RSS and object count, one JSON line a second (the extension bench).
  const stats = hostStatsFromEnv(process.env, {
    clock: realClock,
    objects: () => model.objectCount,
    treeItems: () => tree.stats.items,
    treeEvents: () => tree.stats.refreshes,
  });
  if (stats) {
    log.info(`host stats: writing event-loop delay and memory to ${process.env[STATS_FILE_ENV]} every second`);
    context.subscriptions.push({ dispose: () => stats.stop() });
  }
  const profiles = cpuProfilesFromEnv(process.env);
  if (profiles) context.subscriptions.push({ dispose: () => profiles.stop() });
  const heapProfiles = heapProfilesFromEnv(process.env);
  if (heapProfiles) context.subscriptions.push({ dispose: () => heapProfiles.stop() });

  // A new target (settings, Select Context, the demo cluster): what ran on the old one stops, and the
  // tree empties, so it never shows one cluster's objects under another's name. Synchronous on
  // purpose: the command that changed the target may start a load on the new one right after.
  context.subscriptions.push(
    target.onDidChange((t) => {
      log.info(
        `target: ${t.demo ? 'the embedded demo cluster' : `context ${t.context ?? '(current-context)'} of ${t.kubeconfig ?? 'the default kubeconfig'}`}`,
      );
      loads.dispose();
      void sync.stop('the cluster changed');
      sync.node = undefined; // a node of the old cluster means nothing on the new one
      connections.close();
      model.retarget({ context: undefined });
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SETTINGS_SECTION)) reloadSettings();
    }),
  );

  // The Kubernetes extension switched context, kubeconfig or namespace: a tree that showed a cluster
  // (not the demo cluster, which it does not know) reloads on the new one.
  // A new namespace keeps the target: the running sync loop restarts on a fresh connection after the
  // reload (as Select Namespaces does), since the context's namespace is read when connecting.
  const followChange = async (namespace: boolean) => {
    const shown = model.context !== undefined && !target.isDemo;
    const wasSyncing = namespace && shown && sync.running;
    if (wasSyncing) await sync.stop('the Kubernetes extension switched namespace');
    if (namespace && shown) connections.close();
    target.check();
    if (shown) await loads.load();
    if (wasSyncing) await sync.start();
  };
  context.subscriptions.push(
    k8s.onDidChange(() => void followChange(false)),
    k8s.onDidChangeNamespace(() => void followChange(true)),
    trackWalkthrough(model),
  );
  void k8s.connect();

  const yaml = new ResourceYamlProvider({
    client: async (name) => {
      const open = await connections.peek(target.current());
      if (open?.context.name === name) return open.client;
      if (model.context !== name) return listed.connections.client(name);
      return (await connections.get(target.current()).catch(() => undefined))?.client;
    },
    timeoutMs: () => settings.requestTimeoutSeconds * 1000,
    log,
  });
  context.subscriptions.push(yaml, vscode.workspace.registerTextDocumentContentProvider(YAML_SCHEME, yaml));
  // open YAML documents follow their objects while the loader or the sync loop changes them
  context.subscriptions.push(keepYamlLive(model, yaml, log));

  const timelineOptions: TimelinePanelOptions = {
    extensionUri: context.extensionUri,
    store: timeline,
    log,
    onSelect: (_id, e) => log.debug(`timeline: selected ${formatEventDetails(e).replace(/\n/g, '; ')}`),
  };
  context.subscriptions.push(registerTimelineSerializer(timelineOptions), { dispose: () => TimelinePanel.disposeCurrent() });

  const handlers: Record<CommandName, CommandHandler> = {
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
    revealInTimeline: (arg) => revealInTimeline(s, arg, (key) => TimelinePanel.reveal(timelineOptions, key)),
    selectContext: async () => {
      await k8s.connect();
      if (await selectContext(s, demo.info)) void loads.load();
    },
    selectNamespaces: async () => {
      if (!(await selectNamespaces(s))) return;
      // The loop watches the namespaces it started with: restart it on the new ones after the reload.
      const wasSyncing = sync.running;
      if (wasSyncing) await sync.stop('the namespaces changed');
      if (model.context !== undefined || target.isDemo) await loads.load();
      if (wasSyncing) await sync.start();
    },
    refresh: (arg) => {
      const active = vscode.window.activeTextEditor?.document.uri;
      if (!arg && active?.scheme === YAML_SCHEME) return yaml.refresh(active);
      if (listed.nameOf(arg) !== undefined) return listed.load(arg); // a listed context reloads as a whole
      const scope = refreshScope(s, targetNode(s, arg));
      return loads.load(scope ? { only: scope } : {});
    },
    refreshType: (arg) => {
      if (listed.nameOf(arg) !== undefined) return listed.load(arg);
      const scope = refreshScope(s, targetNode(s, arg));
      return scope ? loads.load({ only: scope }) : loads.load();
    },
    openResourceYaml: (arg) => openResourceYaml(s, arg),
    showLogs: () => channel.show(true),
    startDemoCluster: () => demo.start(),
    stopDemoCluster: () => demo.stop(),
    filter: () => filter(s),
    clearFilter: () => applyFilter(s, ''),
    copyName: (arg) => copyName(s, arg),
    showMore: (arg) => showMore(s, arg),
    addContext: (arg) => listed.add(arg),
    removeContext: (arg) => listed.remove(arg),
    loadContext: (arg) => listed.load(arg),
    openDemoTerminal: () => {
      const d = demo.info;
      openDemoTerminal(d ? { name: d.name, kubeconfig: d.target().kubeconfig! } : undefined);
    },
  };
  registerCommands(context, handlers, log);

  shutdown = async () => {
    loads.dispose();
    await recorder.stop('the extension is shutting down');
    listed.dispose();
    await sync.stop('the extension is shutting down');
    connections.close();
    await demo.stop();
  };

  const version = (context.extension.packageJSON as { version?: string }).version ?? '?';
  log.info(`KubeLoop ${version} activated; ${Object.keys(COMMANDS).length} commands registered`);
  return {
    timeline,
    tree,
    model,
    log,
    settings: () => settings,
    state: () => ({ loading: loads.loading, sync: sync.state, ...(demo.info ? { demoUrl: demo.info.url } : {}) }),
  };
}

/** Stops the sync loop, the loads and the demo cluster (VS Code waits for the promise). */
export async function deactivate(): Promise<void> {
  const stop = shutdown;
  shutdown = undefined;
  await stop?.();
}

/** Reads and validates the settings; invalid values fall back to defaults, and `problems` says which ('' for none). */
function readConfig(): { settings: KubeLoopSettings; problems: string } {
  const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const { settings, problems } = readSettings(
    (key) => cfg.get(key),
    (key) => isUserSet(cfg.inspect(key)),
  );
  return { settings, problems: problems.join(' ') };
}

/** A value set in any scope (user, workspace, folder, or for a language), not the default. */
function isUserSet(i: ReturnType<vscode.WorkspaceConfiguration['inspect']>): boolean {
  if (!i) return false;
  return [i.globalValue, i.workspaceValue, i.workspaceFolderValue, i.globalLanguageValue, i.workspaceLanguageValue, i.workspaceFolderLanguageValue].some(
    (v) => v !== undefined,
  );
}

function warnAbout(problems: string): void {
  if (problems) void vscode.window.showWarningMessage(`KubeLoop settings: ${problems}`);
}

/**
 * The LogOutputChannel drops messages below its own level (Info unless the user changed it), which
 * would hide the debug and trace lines a user asked for with `kubeloop.logLevel`; those are written
 * at info with their level in front instead. The setting decides what is written (createLogger).
 */
function channelSink(channel: vscode.LogOutputChannel): LogSink {
  const shows = (level: vscode.LogLevel) => channel.logLevel !== vscode.LogLevel.Off && channel.logLevel <= level;
  return {
    trace: (m) => (shows(vscode.LogLevel.Trace) ? channel.trace(m) : channel.info(`[trace] ${m}`)),
    debug: (m) => (shows(vscode.LogLevel.Debug) ? channel.debug(m) : channel.info(`[debug] ${m}`)),
    info: (m) => channel.info(m),
    warn: (m) => channel.warn(m),
    error: (m) => channel.error(m),
  };
}
