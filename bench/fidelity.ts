// `npm run bench -- fidelity` (issue 40): how closely KubeLoop's inferred sync loop follows real
// kubelets, and what the lab that judges it costs. On a lab of four hollow nodes (real
// kube-apiserver, etcd, controller manager, scheduler; the real pkg/kubelet over a fake runtime),
// the eleven differential scenarios (lab/scenarios.ts) run at once, each compared with its
// kubelet's -v=4 log (lab/fidelity.ts):
//   - per scenario and overall: kubelet lifecycle lines matched in order, all compared lines
//     matched, KubeLoop iterations without a counterpart (inferred, and not: the latter is a bug);
//   - lag: KubeLoop's time minus the kubelet's over every matched pair (median, p95);
//   - CPU in the same run: the four KubeLoops (in this process, with the scenario driver) against
//     the four kubelets they follow, as a ratio; the control plane beside them;
//   - the lab itself: start-up (binaries built), and each kubelet's CPU and RSS at rest.
// --runs N starts a fresh lab N times and reports every run (the worst run is what counts).
// Usage: node --import tsx bench/fidelity.ts [--runs 1] [--rest-seconds 10] [--json FILE]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { runFidelity } from '../lab/fidelity';
import { startLab } from '../lab/lab';
import { SCENARIOS } from '../lab/scenarios';
import { matchedShare, quantile } from '../src/core/kubeletlog/compare';
import { isCoreClass } from '../src/core/kubeletlog/report';
import { benchArg, printChecks, type Check } from './measure';
import { cpuBetween, cpuSnapshot, formatCpu } from './procCpu';

const RUNS = Number(benchArg('--runs', '1'));
const REST_S = Number(benchArg('--rest-seconds', '10'));
const OUT = benchArg('--json', '.bench/fidelity.json');
const NODES = ['lab-1', 'lab-2', 'lab-3', 'lab-4'];
const CORES = 2;

/** A process's role in the lab, from its command line. */
function roleOf(pid: number, cmdline: string): string {
  if (pid === process.pid) return 'kubeloop';
  for (const r of ['hollow-kubelet', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'etcd']) if (cmdline.includes(`/${r} `)) return r;
  return 'other';
}

/** Resident set, MB, of every process whose command line names the hollow kubelet. */
function kubeletRssMb(): number[] {
  const snap = cpuSnapshot(roleOf);
  const out: number[] = [];
  for (const [pid, p] of snap.byPid) {
    if (p.role !== 'hollow-kubelet') continue;
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (m) out.push(Number(m[1]) / 1024);
  }
  return out;
}

interface ScenarioFigures {
  scenario: string;
  node: string;
  error?: string;
  core: { matched: number; of: number };
  all: { matched: number; of: number };
  extraInferred: number;
  extraNotInferred: number;
  lagMedianMs?: number;
  lagP95Ms?: number;
}

interface RunFigures {
  startMs: number;
  rest: { seconds: number; kubeletCpuPctOfCore: number; kubeletRssMb: number[]; cpu: string };
  run: { wallMs: number; kubeloopCpuMs: number; kubeletsCpuMs: number; cpu: string };
  scenarios: ScenarioFigures[];
  lagMedianMs?: number;
  lagP95Ms?: number;
}

async function oneRun(i: number): Promise<RunFigures> {
  const t0 = performance.now();
  const lab = await startLab({ nodes: NODES });
  const startMs = performance.now() - t0;
  try {
    // At rest: the lab with nothing to do but its loops (kubelet sync ticks, PLEG relists, leases).
    const r0 = cpuSnapshot(roleOf);
    await new Promise((r) => setTimeout(r, REST_S * 1000));
    const r1 = cpuSnapshot(roleOf);
    const rest = cpuBetween(r0, r1);
    const kubeletRest = rest.byRole.find(([r]) => r === 'hollow-kubelet')?.[1] ?? 0;
    const rss = kubeletRssMb();

    const a = cpuSnapshot(roleOf);
    const w0 = performance.now();
    const run = await runFidelity(lab, SCENARIOS, { log: (l) => console.log(`  run ${i + 1}: ${l}`) });
    const wallMs = performance.now() - w0;
    const during = cpuBetween(a, cpuSnapshot(roleOf));
    const cpuOf = (role: string) => during.byRole.find(([r]) => r === role)?.[1] ?? 0;

    const allLags: number[] = [];
    const scenarios = run.results.map((r): ScenarioFigures => {
      const c = r.comparison;
      const core = matchedShare(c, isCoreClass);
      const all = matchedShare(c);
      allLags.push(...c.lagsMs);
      const med = quantile(c.lagsMs, 0.5);
      const p95 = quantile(c.lagsMs, 0.95);
      return {
        scenario: r.scenario,
        node: r.node,
        ...(r.error ? { error: r.error } : {}),
        core: { matched: core.matched, of: core.kubelet },
        all: { matched: all.matched, of: all.kubelet },
        extraInferred: c.extra.filter((x) => x.inferred).length,
        extraNotInferred: c.extra.filter((x) => !x.inferred).length,
        ...(med !== undefined ? { lagMedianMs: med } : {}),
        ...(p95 !== undefined ? { lagP95Ms: p95 } : {}),
      };
    });
    allLags.sort((x, y) => x - y);
    const med = quantile(allLags, 0.5);
    const p95 = quantile(allLags, 0.95);
    return {
      startMs,
      rest: { seconds: REST_S, kubeletCpuPctOfCore: (100 * kubeletRest) / (rest.wallMs * NODES.length), kubeletRssMb: rss, cpu: formatCpu(rest, CORES) },
      run: { wallMs, kubeloopCpuMs: cpuOf('kubeloop'), kubeletsCpuMs: cpuOf('hollow-kubelet'), cpu: formatCpu(during, CORES) },
      scenarios,
      ...(med !== undefined ? { lagMedianMs: med } : {}),
      ...(p95 !== undefined ? { lagP95Ms: p95 } : {}),
    };
  } finally {
    await lab.stop();
  }
}

const pct = (m: number, of: number) => (of ? `${((100 * m) / of).toFixed(1)} %` : 'n/a');

(async () => {
  const runs: RunFigures[] = [];
  for (let i = 0; i < RUNS; i++) {
    const f = await oneRun(i);
    runs.push(f);
    console.log(`\nrun ${i + 1} of ${RUNS}: lab of ${NODES.length} nodes up in ${(f.startMs / 1000).toFixed(1)} s`);
    console.table(
      f.scenarios.map((s) => ({
        scenario: s.scenario,
        'lifecycle matched': `${s.core.matched}/${s.core.of}`,
        'all matched': `${s.all.matched}/${s.all.of} (${pct(s.all.matched, s.all.of)})`,
        'extra inferred': s.extraInferred,
        'extra NOT inferred': s.extraNotInferred,
        'lag median ms': s.lagMedianMs?.toFixed(0) ?? '-',
        'lag p95 ms': s.lagP95Ms?.toFixed(0) ?? '-',
        error: s.error ?? '',
      })),
    );
    console.log(`KubeLoop behind the kubelet, every matched pair: median ${f.lagMedianMs ?? '-'} ms, p95 ${f.lagP95Ms ?? '-'} ms`);
    console.log(`at rest (${REST_S} s): ${f.rest.cpu}`);
    console.log(`  each kubelet: ${f.rest.kubeletCpuPctOfCore.toFixed(2)} % of a core, RSS ${f.rest.kubeletRssMb.map((m) => m.toFixed(0)).join(', ')} MB`);
    console.log(`during the run (${(f.run.wallMs / 1000).toFixed(1)} s): ${f.run.cpu}`);
    console.log(
      `  CPU, ${NODES.length} KubeLoops (+ the scenario driver) vs the ${NODES.length} kubelets they follow: ${f.run.kubeloopCpuMs.toFixed(0)} / ${f.run.kubeletsCpuMs.toFixed(0)} ms = ${(f.run.kubeloopCpuMs / f.run.kubeletsCpuMs).toFixed(2)}x`,
    );
  }
  const sum = (pick: (s: ScenarioFigures) => number) => runs.flatMap((r) => r.scenarios).reduce((n, s) => n + pick(s), 0);
  const worstAll = Math.min(...runs.flatMap((r) => r.scenarios.map((s) => (s.all.of ? s.all.matched / s.all.of : 1))));
  const checks: Check[] = [
    ['every scenario ran to its end', runs.every((r) => r.scenarios.every((s) => !s.error)), `${sum((s) => (s.error ? 1 : 0))} failed`],
    [
      'every kubelet lifecycle line matched, in order',
      sum((s) => s.core.matched) === sum((s) => s.core.of),
      `${sum((s) => s.core.matched)} of ${sum((s) => s.core.of)}`,
    ],
    [
      'all compared lines: at least 95 % matched in every scenario',
      worstAll >= 0.95,
      `worst scenario ${(100 * worstAll).toFixed(1)} %, overall ${pct(
        sum((s) => s.all.matched),
        sum((s) => s.all.of),
      )}`,
    ],
    [
      'no KubeLoop iteration without a counterpart unless marked inferred',
      sum((s) => s.extraNotInferred) === 0,
      `${sum((s) => s.extraNotInferred)} not inferred, ${sum((s) => s.extraInferred)} inferred`,
    ],
  ];
  console.log('');
  printChecks(checks, RUNS > 1 ? ` (over ${RUNS} runs)` : '');
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, JSON.stringify({ nodes: NODES.length, runs }, null, 2));
  console.log(`figures: ${OUT}`);
  if (checks.some(([, ok]) => !ok)) process.exitCode = 1;
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
