/**
 * The extension's entry point, the composition root: create the parts (host.ts), register the
 * views and documents, follow what the window is connected to, register the commands, start. Glue
 * only; what can be tested without VS Code lives in the modules it calls.
 */
import * as vscode from 'vscode';
import { realClock } from '../core/clock';
import type { TimelineStore } from '../core/timeline/store';
import { COMMANDS } from '../app/commandIds';
import type { Logger } from '../app/logger';
import type { ResourceModel } from '../app/model/resourceModel';
import { RECORDING_SCHEME } from '../app/recording/recordedObjects';
import type { KubeLoopSettings } from '../app/settings';
import { cpuProfilesFromEnv } from '../app/stats/cpuProfiles';
import { heapProfilesFromEnv } from '../app/stats/heapProfiles';
import { hostStatsFromEnv, STATS_FILE_ENV } from '../app/stats/hostStats';
import { YAML_SCHEME } from '../app/yaml/address';
import { formatEventDetails } from '../shared/details';
import { commandHandlers } from './commandHandlers';
import { registerCommands } from './commands';
import { keepYamlLive } from './controllers/liveYaml';
import { StatusBar } from './controllers/statusBar';
import { apiCostTooltip } from '../app/load/apiCost';
import { createHost, type Host } from './host';
import { registerTimelineSerializer, TimelinePanel, type TimelinePanelOptions } from './timeline/panel';
import type { ResourceTreeProvider } from './tree/resourceTree';
import { trackWalkthrough } from './walkthrough/progress';
import { ResourceYamlProvider } from './yaml/provider';
import { RelationsView } from './relations/relationsView';
import { WritersView } from './writers/writersView';

/** What `activate` returns: the in-host tests (and other extensions) reach the live parts through it. */
export interface KubeLoopApi {
  readonly timeline: TimelineStore;
  readonly tree: ResourceTreeProvider;
  readonly model: ResourceModel;
  readonly log: Logger;
  settings(): KubeLoopSettings;
  /** The Relations view's rows, as VS Code reads them (for tests: a view's contents are not in the VS Code API). */
  readonly relations: Pick<RelationsView, 'getChildren' | 'getTreeItem'>;
  /** Whether a load or the sync loop is running (for tests that wait on them). */
  state(): { loading: boolean; sync: 'off' | 'starting' | 'running'; demoUrl?: string };
}

let shutdown: (() => Promise<void>) | undefined;

export function activate(context: vscode.ExtensionContext): KubeLoopApi {
  const h = createHost(context);
  const { log, loads, sync, demo } = h;
  registerStatusBar(h);
  const yaml = registerYaml(h);
  const timelineOptions: TimelinePanelOptions = {
    extensionUri: context.extensionUri,
    store: h.timeline,
    log,
    onSelect: (_id, e) => log.debug(`timeline: selected ${formatEventDetails(e).replace(/\n/g, '; ')}`),
    // The sync loop's marks are of the window's connection (marks name no context of their own).
    onPreviousLogs: (target) =>
      void h.session.peek().then((open) => {
        const ctx = open?.context.name ?? h.model.context;
        if (ctx === undefined) return void vscode.window.showInformationMessage('KubeLoop: not connected to a cluster, so its container logs cannot be read.');
        return vscode.commands.executeCommand(COMMANDS.showPreviousContainerLogs.id, { context: ctx, ...target, previous: true });
      }),
  };
  context.subscriptions.push(
    registerTimelineSerializer(timelineOptions),
    { dispose: () => TimelinePanel.disposeCurrent() },
    vscode.workspace.registerTextDocumentContentProvider(RECORDING_SCHEME, h.viewer),
    trackWalkthrough(h.model),
  );
  followTarget(h);
  const relations = new RelationsView({ model: h.model, relations: h.relations, client: async () => (await h.session.open())?.client });
  const writers = new WritersView({
    model: h.model,
    log,
    timeline: h.timeline,
    origin: h.origin,
    sync: () => h.sync.current,
    client: async () => (await h.session.peek())?.client,
    settings: () => h.config.get(),
  });
  context.subscriptions.push(relations, writers);
  registerCommands(context, commandHandlers(h, yaml, timelineOptions, relations, writers), log);
  startDiagnostics(h);
  void h.k8s.connect();

  shutdown = async () => {
    loads.dispose();
    await h.recorder.stop('the extension is shutting down');
    h.contexts.dispose();
    await sync.stop('the extension is shutting down');
    h.session.close();
    await demo.stop();
  };
  const version = (context.extension.packageJSON as { version?: string }).version ?? '?';
  log.info(`KubeLoop ${version} activated; ${Object.keys(COMMANDS).length} commands registered`);
  return {
    timeline: h.timeline,
    tree: h.tree,
    model: h.model,
    log,
    settings: () => h.config.get(),
    relations,
    state: () => ({ loading: loads.loading, sync: sync.state, ...(demo.info ? { demoUrl: demo.info.url } : {}) }),
  };
}

/** Stops the sync loop, the loads and the demo cluster (VS Code waits for the promise). */
export async function deactivate(): Promise<void> {
  const stop = shutdown;
  shutdown = undefined;
  await stop?.();
}

function registerStatusBar(h: ReturnType<typeof createHost>): void {
  const { model, loads, sync, tree } = h;
  const statusBar = new StatusBar(() => ({
    ...(model.context ? { context: model.context } : {}),
    ...(model.server ? { server: model.server } : {}),
    demo: h.target.isDemo,
    objects: model.objectCount,
    ...(loads.progress ? { loading: loads.progress } : {}),
    sync: sync.state,
    ...(sync.node ? { syncNode: sync.node } : {}),
    ...(sync.plegProblem ? { plegProblem: sync.plegProblem } : {}),
    ...(sync.freshness ? { freshness: sync.freshness } : {}),
    ...(tree.tree.filter ? { filter: tree.tree.filter } : {}),
    ...(loads.lastCost ? { apiCost: apiCostTooltip(loads.lastCost) } : {}),
  }));
  h.onStatus(() => statusBar.update());
  h.ext.subscriptions.push(statusBar, new vscode.Disposable(model.onChange(() => statusBar.update())));
}

/** Resource YAML documents: read through the window's client, or a listed context's; they follow their objects. */
function registerYaml(h: Host): ResourceYamlProvider {
  const { model, session, log } = h;
  const yaml = new ResourceYamlProvider({
    client: async (name) => {
      const open = await session.peek();
      if (open?.context.name === name) return open.client;
      if (model.context !== name) return h.contexts.connections.client(name);
      return (await session.open())?.client;
    },
    timeoutMs: () => h.config.get().requestTimeoutSeconds * 1000,
    log,
  });
  // open YAML documents follow their objects while the loader or the sync loop changes them
  h.ext.subscriptions.push(yaml, vscode.workspace.registerTextDocumentContentProvider(YAML_SCHEME, yaml), keepYamlLive(model, yaml, log));
  return yaml;
}

/**
 * What the window is connected to changes: by the settings, Select Context, the demo cluster, or
 * the Kubernetes extension. The Session has already stopped the old target's loads, closed its
 * client and emptied the tree (so it never shows one cluster's objects under another's name); what
 * is left here is the sync loop and the listed contexts.
 */
function followTarget(h: Host): void {
  const { log, sync, session, target, model, loads, k8s } = h;
  h.config.onDidChange((s) => {
    log.info(`settings changed: ${JSON.stringify(s)}`);
    k8s.settingsChanged();
    target.check();
    h.contexts.update();
  });
  const offSwitch = session.onDidSwitch((t) => {
    log.info(`target: ${t.demo ? 'the embedded demo cluster' : `context ${t.context ?? '(current-context)'} of ${t.kubeconfig ?? 'the default kubeconfig'}`}`);
    void sync.stop('the cluster changed');
    sync.node = undefined; // a node of the old cluster means nothing on the new one
  });
  // The Kubernetes extension switched context, kubeconfig or namespace: a tree that showed a cluster
  // (not the demo cluster, which it does not know) reloads on the new one. A new namespace keeps the
  // target: the running sync loop restarts on a fresh connection after the reload (as Select
  // Namespaces does), since the context's namespace is read when connecting.
  const followChange = async (namespace: boolean) => {
    const shown = model.context !== undefined && !target.isDemo;
    const wasSyncing = namespace && shown && sync.running;
    if (wasSyncing) await sync.stop('the Kubernetes extension switched namespace');
    if (namespace && shown) session.close();
    target.check();
    if (shown) await loads.load();
    if (wasSyncing) await sync.start();
  };
  h.ext.subscriptions.push(
    { dispose: offSwitch },
    k8s.onDidChange(() => void followChange(false)),
    k8s.onDidChangeNamespace(() => void followChange(true)),
  );
}

/** Off by default: the host's event-loop delay, RSS and object count, one JSON line a second (the extension bench), and profiles. */
function startDiagnostics(h: Host): void {
  const stats = hostStatsFromEnv(process.env, {
    clock: realClock,
    objects: () => h.model.objectCount,
    treeItems: () => h.tree.stats.items,
    treeEvents: () => h.tree.stats.refreshes,
  });
  if (stats) {
    h.log.info(`host stats: writing event-loop delay and memory to ${process.env[STATS_FILE_ENV]} every second`);
    h.ext.subscriptions.push({ dispose: () => stats.stop() });
  }
  const profiles = cpuProfilesFromEnv(process.env);
  if (profiles) h.ext.subscriptions.push({ dispose: () => profiles.stop() });
  const heapProfiles = heapProfilesFromEnv(process.env);
  if (heapProfiles) h.ext.subscriptions.push({ dispose: () => heapProfiles.stop() });
}
