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
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runFidelity, type FidelityRun } from '../../lab/fidelity';
import { startLab, type Lab } from '../../lab/lab';
import { SCENARIOS } from '../../lab/scenarios';
import { matchedShare } from '../../src/core/kubeletlog/compare';
import { formatAlignments, formatComparison, isCoreClass } from '../../src/core/kubeletlog/report';

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
});
