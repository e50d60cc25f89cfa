/**
 * The small interfaces the controllers are built from. Each controller names the ones it needs
 * (its `...Deps` type), so its constructor says what it depends on; extension.ts, the composition
 * root, hands each the parts that satisfy them. What the window is connected to is the Session's
 * (../../app/connection/session.ts). Glue only.
 */
import * as vscode from 'vscode';
import type { TimelineStore } from '../../core/timeline/store';
import { CONTEXT_KEYS } from '../../app/commandIds';
import type { Logger } from '../../app/logger';
import type { KubeLoopSettings } from '../../app/settings';

/** The logger and the settings as they are now. */
export interface Basics {
  readonly log: Logger;
  settings(): KubeLoopSettings;
}

/**
 * For a command that has just written a setting: reads the settings again now and applies a change
 * of target. VS Code's change event comes later, and a load started meanwhile would run on the old
 * target and then be cancelled by it.
 */
export interface SettingsWriter {
  reloadSettings(): void;
}

/** Where the loader's and the sync loop's events go, on one time axis (realClock). */
export interface TimelineSink {
  readonly timeline: TimelineStore;
  readonly origin: number;
}

/** Asks the status bar to redraw soon. */
export interface StatusSink {
  statusChanged(): void;
}

/** The extension's private folder (globalStorageUri's path): the demo kubeconfig, recordings. */
export interface Storage {
  readonly storagePath: string;
}

export function setContextKey(key: (typeof CONTEXT_KEYS)[keyof typeof CONTEXT_KEYS], value: boolean): void {
  void vscode.commands.executeCommand('setContext', key, value);
}
