/**
 * The extension's settings as VS Code holds them: read and validated (invalid values fall back to
 * defaults and are reported), read again on VS Code's change event or when a command that wrote one
 * asks (reload). Glue only; the validation is ../app/settings.ts.
 *
 * Guarantee: reload() is idempotent: the change event after a command's own reload finds nothing new
 * to apply, and a problem already reported is not reported again until the settings or the problems
 * change. Listeners hear each change once.
 */
import * as vscode from 'vscode';
import { readSettings, SETTINGS_SECTION, type KubeLoopSettings } from '../app/settings';

export class HostSettings implements vscode.Disposable {
  private settings: KubeLoopSettings;
  private reported: string;
  private readonly listeners = new Set<(s: KubeLoopSettings) => void>();
  private readonly watch: vscode.Disposable;

  constructor() {
    const { settings, problems } = readConfig();
    this.settings = settings;
    this.reported = problems;
    warnAbout(problems);
    this.watch = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SETTINGS_SECTION)) this.reload();
    });
  }

  get(): KubeLoopSettings {
    return this.settings;
  }

  onDidChange(fn: (s: KubeLoopSettings) => void): void {
    this.listeners.add(fn);
  }

  reload(): void {
    const { settings: next, problems } = readConfig();
    const changed = JSON.stringify(next) !== JSON.stringify(this.settings);
    if (changed || problems !== this.reported) warnAbout(problems);
    this.reported = problems;
    if (!changed) return;
    this.settings = next;
    for (const l of [...this.listeners]) l(next);
  }

  dispose(): void {
    this.watch.dispose();
    this.listeners.clear();
  }
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
