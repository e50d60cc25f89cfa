/**
 * Registers every command in COMMANDS. A command without a handler yet answers with an information
 * message naming the part it waits for, so the palette never offers a command that silently does
 * nothing. The lead replaces these placeholders by passing handlers as the core parts land.
 */
import * as vscode from 'vscode';
import { COMMANDS, paletteTitle, type CommandName } from './commandIds';
import type { Logger } from './logger';

export type CommandHandler = (...args: unknown[]) => unknown;
export type CommandHandlers = Partial<Record<CommandName, CommandHandler>>;

/** What a not-yet-wired command waits for (shown to the user). */
const WAITS_FOR: Record<CommandName, string> = {
  loadClusterResources: 'the cluster loader',
  cancelLoad: 'the cluster loader',
  startSyncLoop: 'the sync loop',
  stopSyncLoop: 'the sync loop',
  showTimeline: 'the timeline',
  selectContext: 'kubeconfig support',
  selectNamespaces: 'the cluster loader',
  refresh: 'the cluster loader',
  openResourceYaml: 'the cluster loader',
  showLogs: 'the output channel',
  startDemoCluster: 'the embedded demo cluster',
};

export function notReadyMessage(name: CommandName): string {
  return `${paletteTitle(name)} is not available yet: it needs ${WAITS_FOR[name]}, which this build does not include.`;
}

export function registerCommands(context: vscode.ExtensionContext, handlers: CommandHandlers, log: Logger): void {
  for (const name of Object.keys(COMMANDS) as CommandName[]) {
    const handler = handlers[name];
    context.subscriptions.push(
      vscode.commands.registerCommand(COMMANDS[name].id, async (...args: unknown[]) => {
        if (!handler) {
          log.info(notReadyMessage(name));
          void vscode.window.showInformationMessage(notReadyMessage(name));
          return;
        }
        try {
          return await handler(...args);
        } catch (err) {
          // A failing command is reported, never left as an unhandled rejection in the host.
          const text = err instanceof Error ? err.message : String(err);
          log.error(`${paletteTitle(name)} failed: ${text}`);
          void vscode.window.showErrorMessage(`${paletteTitle(name)} failed: ${text}`);
        }
      }),
    );
  }
}
