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
import { compare, lcsPairs, loopClass, type Comparison, type LoopIteration } from '../src/core/kubeletlog/compare';
import type { KubeletRecord } from '../src/core/kubeletlog/records';
import { eventually } from '../test/support/eventually';
import { Api } from './api';
import type { HollowKubelet } from './hollowkubelet';
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

/** Where scenarios run: a cluster, its kubeconfig, the nodes to use, and (on the lab) each node's kubelet. */
export interface ScenarioTarget {
  kubeconfig: string;
  api: Api;
  nodes: readonly string[];
  kubelet?: (node: string) => HollowKubelet;
}

export interface ScenarioRun {
  scenario: string;
  node: string;
  ns: string;
  /** Wall-clock ms the scenario started and ended. */
  from: number;
  to: number;
  error?: string;
}

/** Runs `scenarios` on the lab's nodes (one node each unless they want their own) and compares. */
export async function runFidelity(lab: Lab, scenarios: readonly Scenario[], opts: { slow?: number; log?: (line: string) => void } = {}): Promise<FidelityRun> {
  const api = Api.admin(lab.cp);
  try {
    const { ran, lines } = await runScenarios(
      { kubeconfig: lab.kubeconfigPath, api, nodes: lab.kubelets.nodes.map((n) => n.name), kubelet: (n) => lab.kubelets.node(n) },
      scenarios,
      opts,
    );
    const byNode = new Map([...lines].map(([node, l]) => [node, parseLines(l)]));
    const results = ran.map((r) => {
      const { kubelet, loop } = byNode.get(r.node)!;
      const comparison = compare(
        kubelet.filter((k) => k.keys.some((key) => key.startsWith(`${r.ns}/`))),
        loop.filter((e) => inNamespace(e.key, r.ns)),
        { from: r.from - 1, to: r.to + SETTLE_MS },
      );
      return { ...r, comparison };
    });
    return { results, lines };
  } finally {
    api.close();
  }
}

/**
 * Runs the scenarios on a target, each in its own namespace, with one `kubeloop sync --node NODE
 * --json --workers` per node used; returns the runs and each node's KubeLoop output (the kubelet's
 * records among it where the context names the kubelet's log).
 */
export async function runScenarios(
  target: ScenarioTarget,
  scenarios: readonly Scenario[],
  opts: { slow?: number; log?: (line: string) => void } = {},
): Promise<{ ran: ScenarioRun[]; lines: Map<string, string[]> }> {
  const placed = place(scenarios, target.nodes);
  const followers: Follower[] = [];
  try {
    for (const node of new Set(placed.map((p) => p.node))) followers.push(follow(target.kubeconfig, node));
    await eventually(() => followers.every((f) => f.lines.some(readyLine)), {
      description: 'every KubeLoop listed its sources',
      timeoutMs: 60_000 * (opts.slow ?? 1),
      maxIntervalMs: 100,
    });
    const ran = await Promise.all(
      placed.map(async ({ scenario, node }): Promise<ScenarioRun> => {
        const ns = `fid-${scenario.name}`;
        await target.api.must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, [201, 409]);
        const from = Date.now();
        let error: string | undefined;
        try {
          await scenario.run({
            api: target.api,
            node,
            ns,
            ...(target.kubelet ? { kubelet: target.kubelet(node) } : {}),
            ...(opts.slow ? { slow: opts.slow } : {}),
          });
        } catch (e) {
          error = e instanceof Error ? e.message : String(e);
        }
        opts.log?.(`scenario ${scenario.name} on ${node}: ${error ? `failed: ${error}` : 'done'} in ${Date.now() - from} ms`);
        return { scenario: scenario.name, node, ns, from, to: Date.now(), ...(error ? { error } : {}) };
      }),
    );
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    for (const f of followers) f.stop.abort();
    await Promise.all(followers.map((f) => f.done));
    return { ran, lines: new Map(followers.map((f) => [f.node, f.lines])) };
  } finally {
    for (const f of followers) f.stop.abort();
    await Promise.allSettled(followers.map((f) => f.done));
  }
}

const inNamespace = (key: string, ns: string) => key.split(',').some((k) => k.startsWith(`${ns}/`));

/**
 * KubeLoop's trace shape of a scenario: per pod incarnation, in the order they first appeared in the
 * scenario's namespace (names a controller generates differ between runs), the classes of its
 * lifecycle iterations in order (config without RECONCILE, PLEG, probe results, termination).
 * RECONCILEs are left out: how many status writes a kubelet makes is its own business (a real one
 * and the demo's simulation batch them differently).
 */
export function traceShape(iterations: readonly LoopIteration[], ns: string): Map<string, string[][]> {
  const incs = new Map<string, { first: number; classes: string[] }>();
  for (const e of iterations) {
    if (!inNamespace(e.key, ns) || e.key.includes(',')) continue;
    const cls = loopClass(e);
    if (!cls || cls === 'config RECONCILE') continue;
    const id = `${e.key}|${e.uid ?? ''}`;
    const inc = incs.get(id) ?? incs.set(id, { first: e.at, classes: [] }).get(id)!;
    inc.classes.push(cls);
  }
  const ordered = [...incs.values()].sort((a, b) => a.first - b.first).map((i) => i.classes);
  return new Map([[ns, ordered]]);
}

/**
 * How alike two trace shapes are: the classes both have in order (LCS), over the longer side's; the
 * loop's iterations and the pod worker's syncs compared apart (their interleaving is timing).
 */
export function shapeAgreement(a: Map<string, string[][]>, b: Map<string, string[][]>): { same: number; of: number; diffs: string[] } {
  let same = 0;
  let of = 0;
  const diffs: string[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const xa = a.get(key) ?? [];
    const xb = b.get(key) ?? [];
    for (let i = 0; i < Math.max(xa.length, xb.length); i++) {
      // The loop's iterations and the pod worker's syncs apart (their interleaving is timing).
      for (const worker of [false, true]) {
        const sa = (xa[i] ?? []).filter((c) => c.startsWith('worker ') === worker);
        const sb = (xb[i] ?? []).filter((c) => c.startsWith('worker ') === worker);
        const n = lcsPairs(sa, sb).length;
        same += n;
        of += Math.max(sa.length, sb.length);
        if (n < Math.max(sa.length, sb.length)) diffs.push(`${key}#${i + 1}: ${sa.join(', ')} | ${sb.join(', ')}`);
      }
    }
  }
  return { same, of, diffs };
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
