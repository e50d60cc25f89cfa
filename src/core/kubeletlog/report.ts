/**
 * The differential as a reader wants it: per class, the kubelet's lines and how many KubeLoop
 * matched in order; the share over the classes the target names; the lag; and every line on either
 * side without a counterpart (KubeLoop's marked inferred or not). Plain text, one fact per line.
 */
import { matchedShare, quantile, type Comparison, type Unmatched } from './compare';

/** The classes the issue's 100 % target is about (core lifecycle): config ADD/UPDATE/DELETE/REMOVE, PLEG, probe changes, termination. */
export function isCoreClass(cls: string): boolean {
  if (cls === 'config RECONCILE') return false;
  return cls.startsWith('config ') || cls.startsWith('pleg ') || cls.startsWith('probe ') || cls.startsWith('worker ');
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const time = (at: number) => new Date(at).toISOString().slice(11, 23);

function line(u: Unmatched): string {
  return `    ${time(u.at)} ${u.key} ${u.cls}${u.inferred ? ' (inferred)' : ''}${u.message ? `: ${u.message.length > 120 ? `${u.message.slice(0, 119)}…` : u.message}` : ''}`;
}

export function formatComparison(c: Comparison, title: string): string[] {
  const out = [`${title} (${c.pods} pod incarnations)`];
  const w = Math.max(24, ...Object.keys(c.classes).map((k) => k.length));
  out.push(`  ${'class'.padEnd(w)}  kubelet  matched  KubeLoop`);
  for (const [cls, f] of Object.entries(c.classes).sort(([a], [b]) => (a < b ? -1 : 1))) {
    out.push(`  ${cls.padEnd(w)}  ${String(f.kubelet).padStart(7)}  ${String(f.matched).padStart(7)}  ${String(f.loop).padStart(8)}`);
  }
  const all = matchedShare(c);
  const core = matchedShare(c, isCoreClass);
  out.push(`  overall: ${all.matched} of ${all.kubelet} kubelet lines matched in order (${pct(all.share)})`);
  out.push(`  ADD/UPDATE/DELETE/REMOVE, PLEG, probe results, termination: ${core.matched} of ${core.kubelet} (${pct(core.share)})`);
  const med = quantile(c.lagsMs, 0.5);
  const p95 = quantile(c.lagsMs, 0.95);
  if (med !== undefined) out.push(`  KubeLoop behind the kubelet: median ${Math.round(med)} ms, p95 ${Math.round(p95!)} ms (${c.lagsMs.length} pairs)`);
  const inferred = c.extra.filter((x) => x.inferred).length;
  out.push(`  KubeLoop iterations without a counterpart: ${c.extra.length} (${inferred} marked inferred, ${c.extra.length - inferred} not)`);
  for (const x of c.extra) out.push(line(x));
  out.push(`  kubelet lines KubeLoop did not match: ${c.missed.length}`);
  for (const x of c.missed) out.push(line(x));
  out.push(`  kubelet lines no status write reported (not observable from the API, left out): ${c.unobservable.length}`);
  for (const x of c.unobservable) out.push(line(x));
  return out;
}

/** Every pod's two sequences side by side (kubelet | KubeLoop), for a reader checking the verdict. */
export function formatAlignments(c: Comparison, onlyDisagreeing = false): string[] {
  const out: string[] = [];
  for (const p of c.alignments) {
    if (onlyDisagreeing && p.rows.every((r) => r.kubelet && r.loop)) continue;
    out.push(`  ${p.key}${p.uid ? ` (${p.uid.slice(0, 8)})` : ''}`);
    for (const r of p.rows) {
      const k = r.kubelet ? `${time(r.kubelet.at)} ${r.kubelet.cls}` : '';
      const l = r.loop ? `${time(r.loop.at)} ${r.loop.cls}${r.loop.inferred ? ' (inferred)' : ''}` : '';
      out.push(`    ${k.padEnd(44)} ${r.kubelet && r.loop ? '=' : ' '} ${l}`);
    }
  }
  return out;
}
