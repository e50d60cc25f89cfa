/**
 * TimelinePanel: hosts the timeline webview and feeds it from a TimelineStore.
 *
 * Event ids: an event's id is its sequence number since the store was last cleared, i.e.
 * `store.dropped + index` in `store.toArray()`. The ring drops oldest-first, so that number never
 * changes for an event while it is held, and an id whose event was dropped simply resolves to nothing.
 *
 * Delivery: the webview is not kept alive while hidden (no retainContextWhenHidden); when shown
 * again its script re-runs, says `ready`, and gets a full `init`. Appends are sent only between a
 * `ready` and the panel being hidden, batched so a burst of events is one message.
 */
import * as vscode from 'vscode';
import type { TimelineStore } from '../../core/timeline/store';
import type { TimelineEvent } from '../../core/timeline/events';
import {
  parseWebviewMessage,
  type HostToWebviewMessage,
  type ThemeKind,
  type TimelineItem,
} from '../../shared/protocol';
import { TIMELINE_PANEL_TYPE } from '../commandIds';
import type { Logger } from '../logger';
import { formatEventDetails } from './details';
import { makeNonce, timelineHtml } from './html';

const APPEND_BATCH_MS = 50;

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
}

export class TimelinePanel implements vscode.Disposable {
  private static current: TimelinePanel | undefined;

  /** Shows the one timeline panel, creating it on first use. */
  static show(opts: TimelinePanelOptions): TimelinePanel {
    if (TimelinePanel.current) {
      TimelinePanel.current.panel.reveal();
      return TimelinePanel.current;
    }
    const panel = vscode.window.createWebviewPanel(TIMELINE_PANEL_TYPE, 'KubeLoop Timeline', vscode.ViewColumn.Active, {
      enableScripts: true,
      // The webview may read only the extension's bundle and media; nothing else on disk.
      localResourceRoots: [vscode.Uri.joinPath(opts.extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(opts.extensionUri, 'media')],
    });
    TimelinePanel.current = new TimelinePanel(panel, opts);
    return TimelinePanel.current;
  }

  /** Closes the open panel (if any); for deactivation. */
  static disposeCurrent(): void {
    TimelinePanel.current?.dispose();
  }

  /** Tells the open panel (if any) that the store was cleared. */
  static reset(): void {
    TimelinePanel.current?.post({ type: 'reset' });
  }

  private ready = false;
  private pending: TimelineItem[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly opts: TimelinePanelOptions,
  ) {
    const webview = panel.webview;
    const media = vscode.Uri.joinPath(opts.extensionUri, 'media');
    webview.html = timelineHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(opts.extensionUri, 'dist', 'webview', 'timeline.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'timeline', 'timeline.css')).toString(),
    });
    this.disposables.push(
      webview.onDidReceiveMessage((raw) => this.onMessage(raw)),
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false; // its document goes away; it re-sends `ready` when shown
      }),
      panel.onDidDispose(() => this.dispose()),
      vscode.window.onDidChangeActiveColorTheme((t) => this.post({ type: 'theme', theme: themeKind(t.kind) })),
    );
    const unsubscribe = opts.store.subscribe((e) => this.onAppended(e));
    this.disposables.push({ dispose: unsubscribe });
  }

  private items(): TimelineItem[] {
    const base = this.opts.store.dropped;
    return this.opts.store.toArray().map((event, i) => ({ id: base + i, event }));
  }

  private lookup(id: number): TimelineEvent | undefined {
    const i = id - this.opts.store.dropped;
    return i >= 0 && i < this.opts.store.length ? this.opts.store.toArray()[i] : undefined;
  }

  private onAppended(event: TimelineEvent): void {
    if (!this.ready) return; // the next `ready` sends the whole history
    // Called right after the append, so the new event is the store's last: O(1), no copy of the ring.
    const store = this.opts.store;
    this.pending.push({ id: store.dropped + store.length - 1, event });
    this.flushTimer ??= setTimeout(() => this.flush(), APPEND_BATCH_MS);
  }

  private flush(): void {
    this.flushTimer = undefined;
    if (this.pending.length === 0 || !this.ready) return;
    const events = this.pending;
    this.pending = [];
    this.post({ type: 'append', events });
  }

  private onMessage(raw: unknown): void {
    const msg = parseWebviewMessage(raw);
    if (!msg) {
      this.opts.log.warn('timeline: ignored a malformed message from the webview');
      return;
    }
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        this.pending = [];
        this.post({
          type: 'init',
          events: this.items(),
          theme: themeKind(vscode.window.activeColorTheme.kind),
          dropped: this.opts.store.dropped,
        });
        break;
      case 'select': {
        const event = this.lookup(msg.eventId);
        if (event) this.opts.onSelect?.(msg.eventId, event);
        break;
      }
      case 'requestDetails': {
        const event = this.lookup(msg.eventId);
        this.post({ type: 'details', eventId: msg.eventId, text: event ? formatEventDetails(event) : undefined });
        break;
      }
    }
  }

  private post(msg: HostToWebviewMessage): void {
    void this.panel.webview.postMessage(msg);
  }

  dispose(): void {
    if (TimelinePanel.current === this) TimelinePanel.current = undefined;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}
