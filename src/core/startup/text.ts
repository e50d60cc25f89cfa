/**
 * The start-up report as text: per group a table of phase durations, slowest pod first, then where
 * each bound of the group's slowest pod (or of every pod, `sources: 'all'`) was read.
 * Cluster strings are printed as they are: the caller's writer makes them safe for a terminal.
 */
import type { Bound, PhaseName, PodStartup } from './podStartup';
import type { StartupGroup } from './report';
import { StartupRow } from './row';

const PHASES: PhaseName[] = ['scheduling', 'sandbox', 'init', 'imagePull', 'start', 'readiness'];
const TITLES: Record<PhaseName, string> = {
  scheduling: 'SCHEDULING',
  sandbox: 'SANDBOX',
  init: 'INIT',
  imagePull: 'IMAGE PULL',
  start: 'START',
  readiness: 'READY',
};

/** A duration the way a person reads it: 850ms, 4.2s, 1m28s. */
export function humanMs(ms: number | undefined): string {
  if (ms === undefined) return '?';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m${Math.round((ms - m * 60_000) / 1000)}s`;
}

/** A row's figures without its bounds (row.ts); any other PodStartup's from its phases. */
function hasPhase(p: PodStartup, name: PhaseName): boolean {
  return p instanceof StartupRow ? p.hasPhase(name) : p.phases.some((ph) => ph.name === name);
}

function phaseCell(p: PodStartup, name: PhaseName): string {
  if (!hasPhase(p, name)) return '-';
  let ms: number | undefined;
  let tries: number;
  if (p instanceof StartupRow) {
    ms = p.phaseMs(name);
    tries = p.phaseTries(name);
  } else {
    const ph = p.phases.find((x) => x.name === name)!;
    ms = ph.ms;
    tries = ph.retries.reduce((n, r) => n + (r.reason === 'Unhealthy' ? 0 : r.count), 0);
  }
  return `${humanMs(ms)}${tries ? ` (${tries}x)` : ''}`;
}

function sliCell(p: PodStartup): string {
  return p.sli.ms !== undefined ? humanMs(p.sli.ms) : `(${p.sli.excluded ?? '?'})`;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  '));
}

function boundLine(b: Bound): string {
  const at = b.at !== undefined ? new Date(b.at).toISOString().replace('.000Z', 'Z') : 'unknown';
  return `    ${b.name.padEnd(12)} ${at.padEnd(24)} ${b.how === 'observed' ? '' : `${b.how}: `}${b.source}`;
}

function sources(p: PodStartup): string[] {
  const bounds = [p.phases[0]!.from, ...p.phases.map((ph) => ph.to)];
  const out = [`  ${p.name}${p.node ? ` on ${p.node}` : ''}:`, ...bounds.map(boundLine)];
  for (const ph of p.phases) {
    for (const r of ph.retries) out.push(`    ${ph.name}: ${r.reason}${r.count > 1 ? ` x${r.count}` : ''}: ${r.message}  (${r.source})`);
    for (const pull of ph.pulls ?? []) {
      const what = pull.pulled
        ? `pulled in ${humanMs(pull.pullMs)}${pull.withWaitingMs !== undefined ? ` (${humanMs(pull.withWaitingMs)} with waiting)` : ''}`
        : 'already present';
      out.push(`    pull ${pull.container}: ${pull.image} ${what}  (${pull.source})`);
    }
  }
  const s = p.sli;
  out.push(
    `    kubelet SLI: ${s.ms !== undefined ? humanMs(s.ms) : `excluded (${s.excluded})`}${s.e2eMs !== undefined ? ` = ${humanMs(s.e2eMs)} end to end - ${humanMs(s.pullMs)} pulling - ${humanMs(s.initMs)} init` : ''}`,
  );
  return out;
}

export function formatStartup(groups: readonly StartupGroup[], opts: { sources?: 'slowest' | 'all' } = {}): string {
  if (!groups.length) return 'no pods\n';
  const out: string[] = [];
  for (const g of groups) {
    const phases = PHASES.filter((n) => g.pods.some((p) => hasPhase(p, n)));
    out.push(
      `${g.owner}${g.rollout ? ` (${g.rollout})` : ''} in ${g.namespace}: ${g.pods.length} pod${g.pods.length === 1 ? '' : 's'}, ${g.complete} with every phase known`,
    );
    const rows = [['  POD', 'TOTAL', ...phases.map((n) => TITLES[n]), 'KUBELET SLI']];
    for (const p of g.pods) rows.push([`  ${p.name}`, humanMs(p.totalMs), ...phases.map((n) => phaseCell(p, n)), sliCell(p)]);
    out.push(...table(rows));
    for (const p of opts.sources === 'all' ? g.pods : g.pods.slice(0, 1)) out.push(...sources(p));
    out.push('');
  }
  return out.join('\n');
}
