/**
 * The start-up waterfall as a webview document (the Show Start-up panel). No 'vscode' import.
 *
 * Guarantees (checked by a unit test):
 * - No script at all: the page is static HTML the host renders again to refresh. The
 *   Content-Security-Policy is `default-src 'none'` plus this document's own <style> by its nonce:
 *   nothing loads, nothing runs, and an inline style attribute would not apply (widths are classes).
 * - Every cluster string (names, Event messages, sources) is HTML-escaped; none is ever markup.
 * - Each pod is a row of bars, one per phase, as wide as the phase against the group's slowest pod
 *   (1 % steps); a bar's tooltip and the row's details name each bound's time and source.
 */
import type { PodStartup } from '../../core/startup/podStartup';
import { humanMs } from '../../core/startup/text';
import type { StartupRead } from './readStartup';

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const PHASE_TITLES: Record<string, string> = {
  scheduling: 'scheduling',
  sandbox: 'sandbox',
  init: 'init containers',
  imagePull: 'image pull',
  start: 'start',
  readiness: 'readiness',
};

/** Bar widths as classes (CSP forbids style attributes): w0 .. w100, percent of the row. */
const WIDTHS = Array.from({ length: 101 }, (_, i) => `.w${i}{width:${i}%}`).join('');

const CSS = `body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);font-size:var(--vscode-font-size)}
h2{font-size:1.1em;margin:1.2em 0 .4em}
.row{display:grid;grid-template-columns:16em 5em 1fr 6em;gap:.5em;align-items:center;margin:2px 0}
.bar{display:flex;height:1em;background:var(--vscode-editorWidget-background)}
.bar span{display:block;height:100%}
.scheduling{background:#8f8f8f}.sandbox{background:#b180d7}.init{background:#d7ba7d}.imagePull{background:#3794ff}.start{background:#4ec9b0}.readiness{background:#89d185}
.unknown{background:repeating-linear-gradient(45deg,transparent 0 3px,#8884 3px 6px)}
details{margin:0 0 .3em 16.5em;font-size:.9em}
.warn{color:var(--vscode-editorWarning-foreground)}
.legend span{display:inline-block;padding:0 .5em;margin-right:.3em;color:#000}
${WIDTHS}`;

function bar(p: PodStartup, scale: number): string {
  return p.phases
    .map((ph) => {
      const w = ph.ms === undefined ? 0 : Math.round((ph.ms / scale) * 100);
      const tip = `${PHASE_TITLES[ph.name]}: ${humanMs(ph.ms)} (to ${ph.to.how === 'unknown' ? 'unknown' : ph.to.source})`;
      return `<span class="${ph.name} w${Math.min(100, w)}" title="${escapeHtml(tip)}"></span>`;
    })
    .join('');
}

function details(p: PodStartup): string {
  const bounds = [p.phases[0]!.from, ...p.phases.map((ph) => ph.to)];
  const items = bounds.map(
    (b) =>
      `<li>${escapeHtml(b.name)}: ${b.at !== undefined ? escapeHtml(new Date(b.at).toISOString()) : 'unknown'} (${escapeHtml(b.how === 'observed' ? b.source : `${b.how}: ${b.source}`)})</li>`,
  );
  for (const ph of p.phases)
    for (const r of ph.retries) items.push(`<li class="warn">${escapeHtml(`${ph.name}: ${r.reason}${r.count > 1 ? ` x${r.count}` : ''}: ${r.message}`)}</li>`);
  const s = p.sli;
  items.push(`<li>kubelet SLI: ${s.ms !== undefined ? escapeHtml(humanMs(s.ms)) : escapeHtml(`excluded (${s.excluded})`)}</li>`);
  return `<details><summary>where each bound was read</summary><ul>${items.join('')}</ul></details>`;
}

export function startupHtml(input: { nonce: string; title: string; read: StartupRead | { error: string } }): string {
  if (!/^[A-Za-z0-9+/=]+$/.test(input.nonce)) throw new Error('nonce must be base64');
  const csp = `default-src 'none'; style-src 'nonce-${input.nonce}'`;
  const body: string[] = [`<h1>${escapeHtml(input.title)}</h1>`];
  const read = input.read;
  if ('error' in read) body.push(`<p class="warn">${escapeHtml(read.error)}</p>`);
  else {
    body.push(`<p>From ${escapeHtml(read.from)}. Slowest pods first; hover a bar for its phase.</p>`);
    body.push(
      `<p class="legend">${Object.entries(PHASE_TITLES)
        .map(([k, t]) => `<span class="${k}">${t}</span>`)
        .join('')}</p>`,
    );
    for (const w of read.warnings) body.push(`<p class="warn">${escapeHtml(w)}</p>`);
    if (!read.groups.length) body.push('<p>No pods.</p>');
    for (const g of read.groups) {
      const scale = Math.max(1, ...g.pods.map((p) => p.phases.reduce((n, ph) => n + (ph.ms ?? 0), 0)));
      body.push(
        `<h2>${escapeHtml(`${g.owner}${g.rollout ? ` (${g.rollout})` : ''} in ${g.namespace}: ${g.pods.length} pods, ${g.complete} with every phase known`)}</h2>`,
      );
      for (const p of g.pods) {
        const sli = p.sli.ms !== undefined ? `SLI ${humanMs(p.sli.ms)}` : `SLI (${p.sli.excluded})`;
        body.push(
          `<div class="row" data-pod="${escapeHtml(p.name)}"><span>${escapeHtml(p.name)}</span><span>${escapeHtml(humanMs(p.totalMs))}</span><span class="bar${p.complete ? '' : ' unknown'}">${bar(p, scale)}</span><span>${escapeHtml(sli)}</span></div>`,
          details(p),
        );
      }
    }
  }
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
  <style nonce="${input.nonce}">${CSS}</style>
  <title>${escapeHtml(input.title)}</title>
</head>
<body>
${body.join('\n')}
</body>
</html>
`;
}
