/**
 * The extension's entry point: wires the output channel, settings, resource tree, timeline panel
 * and commands together. Glue only; what can be tested without VS Code lives in the modules it calls.
 */
import * as vscode from 'vscode';
import { TimelineStore } from '../core/timeline/store';
import { COMMANDS, OUTPUT_CHANNEL_NAME, RESOURCES_VIEW_ID } from './commandIds';
import { registerCommands } from './commands';
import { createLogger, type Logger } from './logger';
import { readSettings, SETTINGS_SECTION, type KubeLoopSettings } from './settings';
import { TimelinePanel } from './timeline/panel';
import { ResourceTreeProvider } from './tree/resourceTree';

/** What `activate` returns: the in-host tests (and other extensions) reach the live parts through it. */
export interface KubeLoopApi {
  readonly timeline: TimelineStore;
  readonly tree: ResourceTreeProvider;
  readonly log: Logger;
  settings(): KubeLoopSettings;
}

export function activate(context: vscode.ExtensionContext): KubeLoopApi {
  const channel = vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME, { log: true });
  context.subscriptions.push(channel);

  let settings = loadSettings();
  const log = createLogger(channel, () => settings.logLevel);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SETTINGS_SECTION)) return;
      settings = loadSettings();
      log.info(`settings changed: ${JSON.stringify(settings)}`);
    }),
  );

  const timeline = new TimelineStore();
  const tree = new ResourceTreeProvider();
  const view = vscode.window.createTreeView(RESOURCES_VIEW_ID, { treeDataProvider: tree, showCollapseAll: true });
  context.subscriptions.push(tree, view);

  registerCommands(
    context,
    {
      showLogs: () => channel.show(true),
      showTimeline: () => {
        TimelinePanel.show({ extensionUri: context.extensionUri, store: timeline, log });
      },
    },
    log,
  );
  context.subscriptions.push({ dispose: () => TimelinePanel.disposeCurrent() });

  const version = (context.extension.packageJSON as { version?: string }).version ?? '?';
  log.info(`KubeLoop ${version} activated; ${Object.keys(COMMANDS).length} commands registered`);
  return { timeline, tree, log, settings: () => settings };
}

export function deactivate(): void {
  // Everything is in context.subscriptions, disposed by VS Code.
}

/** Reads and validates the settings; invalid values fall back to defaults and are reported once. */
function loadSettings(): KubeLoopSettings {
  const cfg = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const { settings, problems } = readSettings((key) => cfg.get(key));
  if (problems.length > 0) void vscode.window.showWarningMessage(`KubeLoop settings: ${problems.join(' ')}`);
  return settings;
}
