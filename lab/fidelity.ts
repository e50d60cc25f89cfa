/**
 * The differential run: scenarios (./scenarios.ts) on a lab, each real kubelet's -v=4 log against
 * `kubeloop sync --node NODE --json --workers` for its node (the CLI's own code, run in this
 * process, reading the kubelet log the lab's kubeconfig names), compared per scenario by
 * core/kubeletlog/compare.ts. The apiserver tier's differential suite and `npm run bench --
 * fidelity` both run it.
 *
 * Guarantees: one KubeLoop per node, started (its sources listed) before any scenario; scenarios
 * run at once, each in its own namespace, those that want a node to themselves alone on theirs;
 * both sides are read until SETTLE_MS after the last scenario ended, then every KubeLoop is
 * stopped (none outlives the run, whatever failed); a scenario that fails is reported with its
 * error and compared as far as it got.
 */
import { runSync } from '../src/cli/sync';
import { compare, type Comparison, type LoopIteration } from '../src/core/kubeletlog/compare';
import type { KubeletRecord } from '../src/core/kubeletlog/records';
import { eventually } from '../test/support/eventually';
import type { Lab } from './lab';
import type { Scenario } from './scenarios';

/** How long after the last scenario both sides are still read (a REMOVE, a late relist). */
const SETTLE_MS = 5000;

export interface ScenarioResult {
  scenario: string;
  node: string;
  ns: string;
  /** Wall-clock ms the scenario started and ended. */
  from: number;
  to: number;
  comparison: Comparison;
  error?: string;
}

export interface FidelityRun {
  results: ScenarioResult[];
  /** Per node: every KubeLoop JSON line and every kubelet record read (for a reader, or a bench). */
  lines: Map<string, string[]>;
}

interface Follower {
  node: string;
  lines: string[];
  stop: AbortController;
  done: Promise<number>;
}

/** Runs `scenarios` on the lab's nodes (one node each unless they want their own) and compares. */
export async function runFidelity(lab: Lab, scenarios: readonly Scenario[], opts: { slow?: number; log?: (line: string) => void } = {}): Promise<FidelityRun> {
  const { Api } = await import('./api');
  const api = Api.admin(lab.cp);
  const nodes = lab.kubelets.nodes.map((n) => n.name);
  const placed = place(scenarios, nodes);
  const followers: Follower[] = [];
  try {
    for (const node of new Set(placed.map((p) => p.node))) followers.push(follow(lab.kubeconfigPath, node));
    await eventually(() => followers.every((f) => f.lines.some(readyLine)), {
      description: 'every KubeLoop listed its sources',
      timeoutMs: 60_000 * (opts.slow ?? 1),
      maxIntervalMs: 100,
    });
    const runs = placed.map(async ({ scenario, node }) => {
      const ns = `fid-${scenario.name}`;
      await api.must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, [201, 409]);
      const from = Date.now();
      let error: string | undefined;
      try {
        await scenario.run({ api, node, ns, kubelet: lab.kubelets.node(node), ...(opts.slow ? { slow: opts.slow } : {}) });
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
      }
      opts.log?.(`scenario ${scenario.name} on ${node}: ${error ? `failed: ${error}` : 'done'} in ${Date.now() - from} ms`);
      return { scenario: scenario.name, node, ns, from, to: Date.now(), ...(error ? { error } : {}) };
    });
    const ran = await Promise.all(runs);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    for (const f of followers) f.stop.abort();
    await Promise.all(followers.map((f) => f.done));
    const byNode = new Map(followers.map((f) => [f.node, parseLines(f.lines)]));
    const results = ran.map((r) => {
      const { kubelet, loop } = byNode.get(r.node)!;
      const mine = (key: string) => key.split(',').some((k) => k.startsWith(`${r.ns}/`));
      const comparison = compare(
        kubelet.filter((k) => k.keys.some((key) => key.startsWith(`${r.ns}/`))),
        loop.filter((e) => mine(e.key)),
        { from: r.from - 1, to: r.to + SETTLE_MS },
      );
      return { ...r, comparison };
    });
    return { results, lines: new Map(followers.map((f) => [f.node, f.lines])) };
  } finally {
    for (const f of followers) f.stop.abort();
    await Promise.allSettled(followers.map((f) => f.done));
    api.close();
  }
}

/** Scenarios onto nodes: those that want their own node first, one each; the others round-robin over the rest. */
function place(scenarios: readonly Scenario[], nodes: readonly string[]): { scenario: Scenario; node: string }[] {
  const own = scenarios.filter((s) => s.ownNode);
  const shared = scenarios.filter((s) => !s.ownNode);
  if (own.length >= nodes.length && shared.length) throw new Error(`${nodes.length} nodes cannot give ${own.length} scenarios a node each and run the others`);
  const out = own.map((scenario, i) => ({ scenario, node: nodes[nodes.length - 1 - i]! }));
  const rest = nodes.slice(0, nodes.length - own.length);
  shared.forEach((scenario, i) => out.push({ scenario, node: rest[i % rest.length]! }));
  return out;
}

/** `kubeloop sync --node NODE --json --workers` in this process, until stopped; its stdout kept. */
function follow(kubeconfig: string, node: string): Follower {
  const lines: string[] = [];
  const stop = new AbortController();
  const done = runSync(['--kubeconfig', kubeconfig, '--node', node, '--json', '--workers'], {
    stdout: (l) => lines.push(l),
    stderr: (l) => lines.push(JSON.stringify({ stderr: l })),
    signal: stop.signal,
  });
  return { node, lines, stop, done };
}

/** The line that says the loop's sources have listed: its first housekeeping pass. */
function readyLine(l: string): boolean {
  return l.includes('"source":"housekeeping"') && !l.includes('"outcome":"skipped"');
}

/** The CLI's JSON lines, as the two sides of the differential. */
export function parseLines(lines: readonly string[]): { kubelet: KubeletRecord[]; loop: LoopIteration[] } {
  const kubelet: KubeletRecord[] = [];
  const loop: LoopIteration[] = [];
  for (const l of lines) {
    let o: Record<string, any>;
    try {
      o = JSON.parse(l) as Record<string, any>;
    } catch {
      continue;
    }
    if (typeof o.at !== 'string') continue;
    const at = Date.parse(o.at);
    if (o.kubelet === true) {
      const { kubelet: _k, node: _n, at: _a, line, ...rest } = o;
      kubelet.push({ ...(rest as Omit<KubeletRecord, 'at' | 'raw'>), at, raw: String(line ?? '') });
    } else if (typeof o.source === 'string') loop.push({ ...(o as Omit<LoopIteration, 'at'>), at });
  }
  return { kubelet, loop };
}
