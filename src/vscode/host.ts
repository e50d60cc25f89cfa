/**
 * The extension's parts, created once at activation: settings and logger, what the window is
 * connected to (TargetState, its Session), the model with its tree view, the timeline, and one
 * controller per area of the UI, each handed only what its `...Deps` type names. Glue only.
 */
import { PodLogsController } from './controllers/podLogs';
import * as vscode from 'vscode';
import { realClock } from '../core/clock';
import { MULTI_DEFAULT_LANES } from '../core/loader/multiCluster';
import { SharedLanes } from '../core/pool/sharedLanes';
import { TimelineStore } from '../core/timeline/store';
import { RESOURCES_VIEW_ID } from '../app/commandIds';
import { Connections } from '../app/connection/connection';
import { Session } from '../app/connection/session';
import { TargetState } from '../app/connection/target';
import type { Logger } from '../app/logger';
import { ResourceModel } from '../app/model/resourceModel';
import { Relations } from '../app/relations/relations';
import type { ResourceNode } from '../app/tree/treeNode';
import { ContextsController } from './controllers/contextsController';
import { DemoController } from './controllers/demoController';
import { LoadController } from './controllers/loadController';
import { RecordingController } from './controllers/recordingController';
import { RecordingViewer } from './controllers/recordingView';
import { SyncController } from './controllers/syncController';
import { KubernetesFollower } from './ecosystem/kubernetesExtension';
import { HostSettings } from './hostSettings';
import { createLogChannel } from './logChannel';
import { ResourceTreeProvider } from './tree/resourceTree';

export interface Host {
  readonly ext: vscode.ExtensionContext;
  readonly channel: vscode.LogOutputChannel;
  readonly log: Logger;
  readonly config: HostSettings;
  readonly k8s: KubernetesFollower;
  readonly target: TargetState;
  readonly session: Session;
  readonly timeline: TimelineStore;
  /** The timeline's t = 0 on realClock. */
  readonly origin: number;
  readonly model: ResourceModel;
  /** The owner index beside the model, fed by the loads and the sync loop. */
  readonly relations: Relations;
  readonly tree: ResourceTreeProvider;
  readonly view: vscode.TreeView<ResourceNode>;
  readonly loads: LoadController;
  readonly sync: SyncController;
  readonly demo: DemoController;
  readonly viewer: RecordingViewer;
  readonly recorder: RecordingController;
  readonly contexts: ContextsController;
  readonly podLogs: PodLogsController;
  /** Asks the status bar to redraw soon (it is created after the controllers: see statusChanged). */
  statusChanged(): void;
}

export function createHost(ext: vscode.ExtensionContext): Host & { onStatus(fn: () => void): void } {
  const config = new HostSettings();
  const settings = () => config.get();
  const { channel, log } = createLogChannel(ext, () => settings().logLevel);
  // the Kubernetes extension, when installed: its kubeconfig and context, where KubeLoop's settings are unset
  const k8s = new KubernetesFollower(
    () => ({ follow: settings().followKubernetesExtension, kubeconfig: settings().kubeconfig, context: settings().context }),
    log,
    ext.globalState,
  );
  const target = new TargetState(settings, () => k8s.followed());
  const model = new ResourceModel();
  const relations = new Relations(model);
  const connections = new Connections(() => ({ requestTimeoutMs: settings().requestTimeoutSeconds * 1000, discoveryCache: settings().discoveryCache }), log);
  const session = new Session(target, connections, model);
  const tree = new ResourceTreeProvider(model);
  const view = vscode.window.createTreeView<ResourceNode>(RESOURCES_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });
  ext.subscriptions.push(config, k8s, tree, view, { dispose: () => session.close() });

  let status = () => undefined as void;
  const basics = {
    log,
    settings,
    reloadSettings: () => config.reload(),
    timeline: new TimelineStore(),
    origin: realClock.now(),
    storagePath: ext.globalStorageUri.fsPath,
    statusChanged: () => status(),
  };
  const { timeline } = basics;
  // one budget of list requests for every context's loads, shared fairly (core's SharedLanes)
  const lanes = new SharedLanes(MULTI_DEFAULT_LANES);
  const loads = new LoadController({ ...basics, target, session, model, tree, view, lanes, relations });
  const sync = new SyncController({ ...basics, target, session, model, relations, tree });
  const demo = new DemoController({ ...basics, target });
  const viewer = new RecordingViewer(basics, () => ({ extensionUri: ext.extensionUri, log }));
  const recorder = new RecordingController({ ...basics, model }, sync, (path) => viewer.openFile(path));
  const contexts = new ContextsController({ ...basics, target, model, tree, view, lanes });
  // Logs are read with the connection the tree row came from (the YAML provider's rule).
  const podLogs = new PodLogsController({
    log,
    view,
    tree,
    client: async (name) => {
      const open = await session.peek();
      if (open?.context.name === name) return open.client;
      if (model.context !== name) return contexts.connections.client(name);
      return (await session.open())?.client;
    },
  });
  ext.subscriptions.push(loads, recorder, sync, viewer, contexts, podLogs);
  return {
    ext,
    channel,
    log,
    config,
    k8s,
    target,
    session,
    timeline,
    origin: basics.origin,
    model,
    relations,
    tree,
    view,
    loads,
    sync,
    demo,
    viewer,
    recorder,
    contexts,
    podLogs,
    statusChanged: basics.statusChanged,
    onStatus: (fn) => (status = fn),
  };
}
