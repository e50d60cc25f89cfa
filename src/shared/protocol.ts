/**
 * The one message protocol between the extension host and the timeline webview. Both sides import
 * this module (the host through src/vscode, the webview through media/timeline), so a message shape
 * is defined exactly once. Plain JSON-serialisable data only: it crosses postMessage.
 *
 * Guarantees:
 * - Every event the host sends carries an `id` that is unique until the next `reset`; the webview
 *   refers to events only by that id (`select`, `requestDetails`), never by content.
 * - Messages from the webview are untrusted input to the host: `parseWebviewMessage` accepts only the
 *   shapes below and returns undefined for anything else.
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

/** The whole history at the time the webview said `ready` (and after it is shown again). */
export interface InitMessage {
  type: 'init';
  events: TimelineItem[];
  theme: ThemeKind;
  /** Events the bounded store had already dropped before this snapshot (history is partial). */
  dropped: number;
}

/** Events appended since the last init/append, in append order. */
export interface AppendMessage {
  type: 'append';
  events: TimelineItem[];
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

/** The answer to `requestDetails`: a text rendering of one event (rendered as text, never as HTML). */
export interface DetailsMessage {
  type: 'details';
  eventId: number;
  /** undefined when the event is no longer known to the host (dropped or reset). */
  text?: string;
}

export type HostToWebviewMessage = InitMessage | AppendMessage | ResetMessage | ThemeMessage | DetailsMessage;

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

/** The webview wants the details of an event (answered with `details`). */
export interface RequestDetailsMessage {
  type: 'requestDetails';
  eventId: number;
}

export type WebviewToHostMessage = ReadyMessage | SelectMessage | RequestDetailsMessage;

/** What the webview keeps with `getState`/`setState`, so it restores itself when hidden and shown. */
export interface TimelineViewState {
  selectedEventId?: number;
  scrollTop?: number;
  filter?: string;
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
    case 'requestDetails':
      return isEventId(m.eventId) ? { type: 'requestDetails', eventId: m.eventId } : undefined;
    default:
      return undefined;
  }
}
