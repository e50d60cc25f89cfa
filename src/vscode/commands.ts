/**
 * Registers every command in COMMANDS with its handler. The handler table is complete by type, so a
 * contributed command without code cannot compile.
 *
 * Guarantee: a failing command is reported (error message and log line, URLs without user info),
 * never left as an unhandled rejection in the extension host.
 */
import * as vscode from 'vscode';
import { COMMANDS, commandFailedText, type CommandName } from '../app/commandIds';
import type { Logger } from '../app/logger';

export type CommandHandler = (...args: unknown[]) => unknown;
export type CommandHandlers = Record<CommandName, CommandHandler>;

export function registerCommands(context: vscode.ExtensionContext, handlers: CommandHandlers, log: Logger): void {
  for (const name of Object.keys(COMMANDS) as CommandName[]) {
    const handler = handlers[name];
    context.subscriptions.push(
      vscode.commands.registerCommand(COMMANDS[name].id, async (...args: unknown[]) => {
        try {
          return await handler(...args);
        } catch (err) {
          const text = commandFailedText(name, err);
          log.error(text);
          void vscode.window.showErrorMessage(text);
        }
      }),
    );
  }
}
