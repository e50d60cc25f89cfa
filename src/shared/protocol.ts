/**
 * The one message protocol between the extension host and the timeline webview. Both sides import
 * this module (the host through src/vscode, the webview through src/vscode/timeline/webview), so a message shape
 * is defined exactly once. Plain JSON-serialisable data only: it crosses postMessage.
 *
 * Guarantees:
 * - Every event the host sends carries an `id` that is unique until the next `reset`; the webview
 *   refers to events only by that id (`select`), never by content.
 * - Messages from the webview are untrusted input to the host: `parseWebviewMessage` accepts only the
 *   shapes below and returns undefined for anything else.
 * - The history at `ready` arrives as one `init` followed, when it is large, by `chunk` messages in
 *   order, the last with `done: true`; only then do `append` messages follow. So the webview sees every
 *   event exactly once and in store order, however many there are.
 *
 * Compatibility: fields added after the first version are optional, so either side can be older.
 */
import type { TimelineEvent } from '../core/timeline/events';

/** A timeline event as the webview sees it: the store's event plus a host-assigned id. */
export interface TimelineItem {
  id: number;
  event: TimelineEvent;
}

/** The VS Code colour theme kind, named like `vscode.ColorThemeKind`. */
export type ThemeKind = 'light' | 'dark' | 'highContrast' | 'highContrastLight';

// ---- host -> webview ---------------------------------------------------------------------------

/**
 * The history at the time the webview said `ready` (and after it is shown again): all of it, or its
 * first chunk when `total` is larger than `events.length`.
 */
export interface InitMessage {
  type: 'init';
  events: TimelineItem[];
  theme: ThemeKind;
  /** Events the bounded store had already dropped before this snapshot (history is partial). */
  dropped: number;
  /** How many events the whole snapshot holds; absent means `events` is all of it. */
  total?: number;
}

/** The next part of the snapshot an `init` began; `done` on the last one. */
export interface ChunkMessage {
  type: 'chunk';
  events: TimelineItem[];
  done: boolean;
}

/** Events appended since the snapshot or the last append, in append order. */
export interface AppendMessage {
  type: 'append';
  events: TimelineItem[];
  /**
   * The store's dropped count now: every event with a smaller id is gone from the host, and the
   * webview may forget it too (it stays as bounded as the store).
   */
  dropped?: number;
}

/** The store was cleared (for example, a new load started): forget every event and id. */
export interface ResetMessage {
  type: 'reset';
}

/** The colour theme changed. */
export interface ThemeMessage {
  type: 'theme';
  theme: ThemeKind;
}

/**
 * Show one object's iterations ("Reveal in Timeline" on a tree object): the name filter becomes its
 * sync-loop key, every source is shown, and the view fits what matches. Sent after the snapshot.
 */
export interface RevealMessage {
  type: 'reveal';
  /** The object's key as the sync loop names it: `namespace/name` for pods, `type:namespace/name` else. */
  key: string;
}

/**
 * The panel shows a recording, not the live loop: a banner above the toolbar says which, its span,
 * and that it is read-only (rendered as text). Sent after the snapshot, again when it changes.
 */
export interface BannerMessage {
  type: 'banner';
  text: string;
}

export type HostToWebviewMessage = InitMessage | ChunkMessage | AppendMessage | ResetMessage | ThemeMessage | RevealMessage | BannerMessage;

// ---- webview -> host ---------------------------------------------------------------------------

/** The webview script has run and wants its initial state. */
export interface ReadyMessage {
  type: 'ready';
}

/** The user selected an event (the host may reveal it elsewhere, e.g. its log lines). */
export interface SelectMessage {
  type: 'select';
  eventId: number;
}

/**
 * "Previous logs" on a restart mark (shared/restartMark.ts): the host resolves the id in its own
 * store and reads that container's previous instance; the webview names no pod or container.
 */
export interface PreviousLogsMessage {
  type: 'previousLogs';
  eventId: number;
}

export type WebviewToHostMessage = ReadyMessage | SelectMessage | PreviousLogsMessage;

/**
 * What the webview keeps with `getState`/`setState`, so it restores itself when hidden and shown and
 * (through the panel serializer) after a window reload. Every field is optional and checked on
 * restore: state saved by an older version must not break a newer one.
 */
export interface TimelineViewState {
  /** The selected bar or mark, by the id of its first event. */
  selectedEventId?: number;
  /** Vertical scroll of the lanes. */
  scrollTop?: number;
  /** The name filter (substring of a pod key or a task's resource/namespace). */
  filter?: string;
  /** The visible time range; absent while the view fits everything automatically. */
  view?: { start: number; end: number };
  /** Whether the view follows new events. */
  follow?: boolean;
  /** Sources not shown: 'loader' and/or sync sources. */
  hiddenSources?: string[];
  /** The kind filter ('' or absent: every kind). */
  kind?: string;
  /** The cluster filter, a kubeconfig context ('' or absent: every cluster). */
  cluster?: string;
  /** Whether the event list is shown next to the canvas. */
  listOpen?: boolean;
}

function isEventId(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** Validates a message from the webview; anything not exactly one of our shapes is undefined. */
export function parseWebviewMessage(raw: unknown): WebviewToHostMessage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const m = raw as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
      return { type: 'ready' };
    case 'select':
      return isEventId(m.eventId) ? { type: 'select', eventId: m.eventId } : undefined;
    case 'previousLogs':
      return isEventId(m.eventId) ? { type: 'previousLogs', eventId: m.eventId } : undefined;
    default:
      return undefined;
  }
}
