/**
 * The differential suite: the real kubelet is the judge of the sync loop. Eleven scenarios
 * (lab/scenarios.ts) run at once on a lab of four hollow nodes (real kubelets at -v=4 over fake
 * runtimes, a real control plane); for each node, `kubeloop sync --node NODE --json --workers`
 * runs in this process, and each scenario's pods are compared line by line with the kubelet's own
 * log (core/kubeletlog/compare.ts), in the order a workstation can observe.
 *
 * The targets, per scenario: every kubelet line of the lifecycle classes (ADD, UPDATE, DELETE,
 * REMOVE, PLEG ContainerStarted/ContainerDied, probe results, termination) matched in order; at
 * least 95 % of all compared lines (RECONCILE included); no KubeLoop iteration without a kubelet
 * counterpart unless it is marked inferred. A failure prints both sequences side by side.
 *
 * Then the demo cluster's kubelet simulation is held to the same judge: the scenarios a simulation
 * can play (not those that stop a kubelet or fill a node) run on the demo cluster, and KubeLoop's
 * trace shape there (per pod incarnation, its lifecycle classes in order) must agree with the
 * shape it had on the lab: at least 85 % per scenario, 95 % overall.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Api } from '../../lab/api';
import { parseLines, runFidelity, runScenarios, shapeAgreement, traceShape, type FidelityRun, type ScenarioRun } from '../../lab/fidelity';
import { startLab, type Lab } from '../../lab/lab';
import { SCENARIOS } from '../../lab/scenarios';
import { matchedShare } from '../../src/core/kubeletlog/compare';
import { formatAlignments, formatComparison, isCoreClass } from '../../src/core/kubeletlog/report';
import { startDemoCluster } from '../../src/demo';

describe('the differential: real kubelets judge the sync loop', () => {
  let lab: Lab;
  let run: FidelityRun;

  before(async () => {
    lab = await startLab({ nodes: ['lab-1', 'lab-2', 'lab-3', 'lab-4'] });
    run = await runFidelity(lab, SCENARIOS, { slow: 2 });
  });
  after(async () => {
    await lab?.stop();
  });

  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: ${scenario.about}`, (t) => {
      const r = run.results.find((x) => x.scenario === scenario.name);
      assert.ok(r, 'the scenario ran');
      const c = r.comparison;
      const report = [...formatComparison(c, `${r.scenario} on ${r.node}`), ...formatAlignments(c)].join('\n');
      t.diagnostic(formatComparison(c, `${r.scenario} on ${r.node}`).join('\n'));
      assert.equal(r.error, undefined, `the scenario's own waits: ${r.error}\n${report}`);
      const core = matchedShare(c, isCoreClass);
      const all = matchedShare(c);
      assert.ok(core.kubelet > 0, `the kubelet logged lifecycle lines for the scenario's pods\n${report}`);
      assert.equal(core.matched, core.kubelet, `every lifecycle line of the kubelet matched in order\n${report}`);
      assert.ok(all.share >= 0.95, `at least 95 % of all compared lines matched (${all.matched} of ${all.kubelet})\n${report}`);
      assert.deepEqual(
        c.extra.filter((x) => !x.inferred).map((x) => `${x.key} ${x.cls}`),
        [],
        `every KubeLoop iteration without a counterpart is marked inferred\n${report}`,
      );
    });
  }

  describe('the demo cluster plays the same scenarios as the real kubelet', () => {
    const scenarios = SCENARIOS.filter((s) => !s.labOnly);
    let demoRuns: ScenarioRun[];
    let demoLines: Map<string, string[]>;

    before(async () => {
      const demo = await startDemoCluster({ objects: 0, controllers: true });
      const dir = mkdtempSync(join(tmpdir(), 'kubeloop-parity-'));
      const api = new Api(demo.url, undefined, undefined);
      try {
        const kubeconfig = join(dir, 'kubeconfig');
        await demo.writeKubeconfig(kubeconfig);
        ({ ran: demoRuns, lines: demoLines } = await runScenarios({ kubeconfig, api, nodes: ['lab-1', 'lab-2', 'lab-3'] }, scenarios));
      } finally {
        api.close();
        await demo.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('every scenario agrees in shape with the lab (85 % each, 95 % overall)', (t) => {
      let same = 0;
      let of = 0;
      const report: string[] = [];
      const low: string[] = [];
      for (const d of demoRuns) {
        const l = run.results.find((x) => x.scenario === d.scenario);
        assert.ok(l, `${d.scenario} ran on the lab`);
        assert.equal(d.error, undefined, `${d.scenario} on the demo cluster: ${d.error}`);
        const a = shapeAgreement(traceShape(parseLines(run.lines.get(l.node)!).loop, d.ns), traceShape(parseLines(demoLines.get(d.node)!).loop, d.ns));
        same += a.same;
        of += a.of;
        report.push(`${d.scenario}: ${a.same}/${a.of}`, ...a.diffs.map((x) => `    (lab | demo) ${x}`));
        assert.ok(a.of > 0, `${d.scenario}: KubeLoop saw lifecycle iterations`);
        if (a.same < 0.85 * a.of) low.push(d.scenario);
      }
      t.diagnostic(report.join('\n'));
      assert.equal(demoRuns.length, scenarios.length);
      assert.deepEqual(low, [], report.join('\n'));
      assert.ok(same >= 0.95 * of, `overall ${same}/${of}\n${report.join('\n')}`);
    });
  });
});
