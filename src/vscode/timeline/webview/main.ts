/**
 * The timeline webview's entry point (bundled by esbuild into dist/webview/timeline.js). Runs under
 * the panel's strict CSP and talks to the host only through src/shared/protocol.ts; everything else
 * is in view.ts and the pure modules it uses.
 */
import type { TimelineViewState, WebviewToHostMessage } from '../../../shared/protocol';
import { TimelineView } from './view';

interface VsCodeApi {
  postMessage(msg: WebviewToHostMessage): void;
  getState(): TimelineViewState | undefined;
  setState(state: TimelineViewState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
new TimelineView(vscode, document.body);
