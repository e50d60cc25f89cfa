/**
 * TimelinePanel: hosts the timeline webview and feeds it from a TimelineStore (through TimelineFeed).
 *
 * Event ids: an event's id is its sequence number since the store was last cleared, i.e.
 * `store.dropped + index` in `store.toArray()`. The ring drops oldest-first, so that number never
 * changes for an event while it is held, and an id whose event was dropped simply resolves to nothing.
 *
 * Lifetime: the webview is not kept alive while hidden (no retainContextWhenHidden: a 100,000-event
 * canvas is not worth the memory); when shown again its script re-runs, restores its own view state
 * (getState), says `ready`, and gets the history again. After a window reload, VS Code hands the
 * panel back to `registerTimelineSerializer`'s deserializer, which revives it the same way.
 */
import * as vscode from 'vscode';
import type { TimelineStore } from '../../core/timeline/store';
import type { TimelineEvent } from '../../core/timeline/events';
import { parseWebviewMessage, type HostToWebviewMessage, type ThemeKind } from '../../shared/protocol';
import { restartLogsTargetOf, type RestartLogsTarget } from '../../shared/restartMark';
import { RECORDING_PANEL_TYPE, TIMELINE_PANEL_TYPE } from '../../app/commandIds';
import type { Logger } from '../../app/logger';
import { TimelineFeed } from '../../app/timeline/feed';
import { makeNonce, timelineHtml } from '../../app/timeline/html';

export function themeKind(kind: vscode.ColorThemeKind): ThemeKind {
  switch (kind) {
    case vscode.ColorThemeKind.Light:
      return 'light';
    case vscode.ColorThemeKind.HighContrast:
      return 'highContrast';
    case vscode.ColorThemeKind.HighContrastLight:
      return 'highContrastLight';
    default:
      return 'dark';
  }
}

export interface TimelinePanelOptions {
  extensionUri: vscode.Uri;
  store: TimelineStore;
  log: Logger;
  /** Called when the user selects an event in the webview (e.g. to reveal its log lines). */
  onSelect?: (id: number, event: TimelineEvent) => void;
  /**
   * "Previous logs" on a restart mark, resolved from this panel's own store (never from names the
   * webview sends). Absent (a recording's panel): the panel says the logs are not available offline.
   */
  onPreviousLogs?: (target: RestartLogsTarget) => void;
}

/** A recording's panel: its own store of the recorded events, a title, a banner, and an end. */
export interface RecordingPanelOptions extends TimelinePanelOptions {
  title: string;
  banner: string;
  onDispose?: () => void;
}

/** The webview may run our script and read only the extension's bundle and media; nothing else on disk. */
function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

export class TimelinePanel implements vscode.Disposable {
  private static current: TimelinePanel | undefined;
  /** The open recording's panel (one at a time: opening another recording replaces it). */
  private static recording: TimelinePanel | undefined;

  /** Shows the one timeline panel, creating it on first use. */
  static show(opts: TimelinePanelOptions): TimelinePanel {
    if (TimelinePanel.current) {
      TimelinePanel.current.panel.reveal();
      return TimelinePanel.current;
    }
    const panel = vscode.window.createWebviewPanel(TIMELINE_PANEL_TYPE, 'KubeLoop Timeline', vscode.ViewColumn.Active, webviewOptions(opts.extensionUri));
    TimelinePanel.current = new TimelinePanel(panel, opts);
    return TimelinePanel.current;
  }

  /** Takes over a panel VS Code restored after a window reload (see registerTimelineSerializer). */
  static revive(panel: vscode.WebviewPanel, opts: TimelinePanelOptions): TimelinePanel {
    TimelinePanel.current?.dispose();
    panel.webview.options = webviewOptions(opts.extensionUri);
    TimelinePanel.current = new TimelinePanel(panel, opts);
    return TimelinePanel.current;
  }

  /**
   * Opens a recording's timeline: the same webview, lanes, zoom and filters as the live one, fed from
   * the recording's own store, with a banner marking it. Not revived after a window reload (the
   * recording is not reopened by itself).
   */
  static showRecording(opts: RecordingPanelOptions): TimelinePanel {
    TimelinePanel.recording?.dispose();
    const panel = vscode.window.createWebviewPanel(RECORDING_PANEL_TYPE, opts.title, vscode.ViewColumn.Active, webviewOptions(opts.extensionUri));
    TimelinePanel.recording = new TimelinePanel(panel, opts);
    return TimelinePanel.recording;
  }

  /** Closes the open panels (if any); for deactivation. */
  static disposeCurrent(): void {
    TimelinePanel.current?.dispose();
    TimelinePanel.recording?.dispose();
  }

  /**
   * Tells the open panel (if any) that the store was cleared. Optional: the feed also notices a
   * clear by itself at the next appended event.
   */
  static reset(): void {
    TimelinePanel.current?.feed.reset();
  }

  /**
   * Shows the panel filtered to one object's iterations. The request waits for the webview's
   * snapshot when the webview is (re)loading, so it is applied after the events it filters.
   */
  static reveal(opts: TimelinePanelOptions, key: string): TimelinePanel {
    const p = TimelinePanel.show(opts);
    p.pendingReveal = key;
    if (p.live) p.flushReveal();
    return p;
  }

  private readonly feed: TimelineFeed;
  private readonly disposables: vscode.Disposable[] = [];
  /** The webview has its snapshot and is showing (a hidden one is torn down and says `ready` again). */
  private live = false;
  private pendingReveal: string | undefined;
  private banner: string | undefined;
  private disposed = false;

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly opts: TimelinePanelOptions | RecordingPanelOptions,
  ) {
    if ('banner' in opts) this.banner = opts.banner;
    const webview = panel.webview;
    webview.html = timelineHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(opts.extensionUri, 'dist', 'webview', 'timeline.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(opts.extensionUri, 'media', 'timeline', 'timeline.css')).toString(),
    });
    this.feed = new TimelineFeed({
      store: opts.store,
      post: (msg) => this.post(msg),
      theme: () => themeKind(vscode.window.activeColorTheme.kind),
    });
    this.disposables.push(
      this.feed,
      webview.onDidReceiveMessage((raw) => this.onMessage(raw)),
      panel.onDidChangeViewState(() => {
        if (!panel.visible) {
          this.live = false;
          this.feed.stop(); // its document goes away; it re-sends `ready` when shown
        }
      }),
      panel.onDidDispose(() => this.dispose()),
      vscode.window.onDidChangeActiveColorTheme((t) => void this.post({ type: 'theme', theme: themeKind(t.kind) })),
    );
  }

  private lookup(id: number): TimelineEvent | undefined {
    const { store } = this.opts;
    const i = id - store.dropped;
    return store.at(i); // one event, not a copy of up to 100,000 per click
  }

  private onMessage(raw: unknown): void {
    const msg = parseWebviewMessage(raw);
    if (!msg) {
      this.opts.log.warn('timeline: ignored a malformed message from the webview');
      return;
    }
    switch (msg.type) {
      case 'ready':
        this.live = false;
        void this.feed.start().then(() => {
          this.live = true;
          if (this.banner !== undefined) void this.post({ type: 'banner', text: this.banner });
          this.flushReveal();
        });
        break;
      case 'select': {
        const event = this.lookup(msg.eventId);
        if (event) this.opts.onSelect?.(msg.eventId, event);
        break;
      }
      case 'previousLogs': {
        const target = restartLogsTargetOf(this.opts.store, msg.eventId);
        if (!target) {
          this.opts.log.warn(`timeline: "Previous logs" for event ${msg.eventId}, which is not a restart mark held in the timeline`);
          break;
        }
        if (this.opts.onPreviousLogs) this.opts.onPreviousLogs(target);
        else
          void vscode.window.showInformationMessage(
            `KubeLoop: the logs of ${target.namespace}/${target.pod}${target.container ? ` [${target.container}]` : ''} are not available offline: this timeline is a recording, and a recording keeps no container logs.`,
          );
        break;
      }
    }
  }

  /** Replaces the banner (a recording's panel), now if the webview shows, else when it is shown. */
  setBanner(text: string): void {
    this.banner = text;
    if (this.live) void this.post({ type: 'banner', text });
  }

  private flushReveal(): void {
    const key = this.pendingReveal;
    this.pendingReveal = undefined;
    if (key !== undefined) void this.post({ type: 'reveal', key });
  }

  private post(msg: HostToWebviewMessage): Thenable<boolean> {
    return this.panel.webview.postMessage(msg);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (TimelinePanel.current === this) TimelinePanel.current = undefined;
    if (TimelinePanel.recording === this) TimelinePanel.recording = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
    if ('onDispose' in this.opts) this.opts.onDispose?.();
  }
}

/**
 * Lets the timeline panel survive a window reload. Call once from `activate`, before the panel is
 * first shown; package.json needs the activation event `onWebviewPanel:kubeloop.timeline` so VS Code
 * activates the extension to revive a restored panel. The webview restores its own view state from
 * getState, so the serializer needs nothing from `state`.
 */
export function registerTimelineSerializer(opts: TimelinePanelOptions): vscode.Disposable {
  return vscode.window.registerWebviewPanelSerializer(TIMELINE_PANEL_TYPE, {
    async deserializeWebviewPanel(panel: vscode.WebviewPanel) {
      TimelinePanel.revive(panel, opts);
    },
  });
}
