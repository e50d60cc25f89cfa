/**
 * The timeline webview's HTML document. No 'vscode' import: the host passes in the webview's
 * `cspSource` and the `asWebviewUri` forms of the script and stylesheet.
 *
 * Guarantees (checked by a unit test):
 * - The Content-Security-Policy starts from `default-src 'none'`; scripts run only with this
 *   document's nonce, styles/images/fonts load only from the extension's own files (`cspSource`).
 *   Nothing remote can load and no inline script can run.
 * - The document contains no cluster data at all: events arrive later by postMessage and the
 *   script renders them with textContent.
 */
import { randomBytes } from 'node:crypto';

export interface TimelineHtmlInput {
  /** `webview.cspSource` */
  cspSource: string;
  /** `webview.asWebviewUri(dist/webview/timeline.js)` as a string */
  scriptUri: string;
  /** `webview.asWebviewUri(media/timeline/timeline.css)` as a string */
  styleUri: string;
  nonce: string;
}

/** A fresh nonce per document: 128 random bits, base64 (allowed characters of a CSP nonce). */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return ["default-src 'none'", `img-src ${cspSource} data:`, `style-src ${cspSource}`, `font-src ${cspSource}`, `script-src 'nonce-${nonce}'`].join('; ');
}

export function timelineHtml(input: TimelineHtmlInput): string {
  if (!/^[A-Za-z0-9+/=]+$/.test(input.nonce)) throw new Error('nonce must be base64');
  const csp = escapeAttr(contentSecurityPolicy(input.cspSource, input.nonce));
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${csp}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <link rel="stylesheet" href="${escapeAttr(input.styleUri)}">
  <title>KubeLoop Timeline</title>
</head>
<body>
  <noscript>The KubeLoop timeline needs scripts enabled.</noscript>
  <script nonce="${input.nonce}" src="${escapeAttr(input.scriptUri)}"></script>
</body>
</html>
`;
}
