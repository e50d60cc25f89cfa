/**
 * `kubeloop sync --freshness` (issue 44, story 4 in the CLI), in-process over a real socket to the
 * demo cluster: a watch event the demo drops on ConfigMaps (its drop-events fault) shows the type
 * stale, then current with the check reading "repaired"; with --json as `freshness` records, one per
 * change of the type's state, and the run's API cost at exit (a 429 the demo answers counted with its
 * Retry-After); in text as the loop's log lines and kubectl-style tables.
 */
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runSync } from '../../src/cli/sync';
import { api, startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';

/** The ConfigMaps check every 1.5 s, confirmed 2 s later (the loop's default), plus slack for a loaded 2-core machine. */
const STALE_BUDGET_MS = 20_000;

/** `kubeloop sync ...` in-process until stopped: its stdout and stderr lines, its exit status. */
function cliSync(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const stop = new AbortController();
  const code = runSync(args, { stdout: (l) => out.push(l), stderr: (l) => err.push(l), signal: stop.signal });
  return { out, err, stop: async () => (stop.abort(), code) };
}

async function missAConfigMap(t: TestCluster): Promise<void> {
  const created = await api(t.cluster, '/api/v1/namespaces/default/configmaps', {
    method: 'POST',
    json: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'missed', namespace: 'default' } },
  });
  assert.equal(created.status, 201);
}

describe('kubeloop sync --freshness (demo cluster, a dropped ConfigMaps watch event)', () => {
  let t: TestCluster | undefined;
  let run: ReturnType<typeof cliSync> | undefined;
  afterEach(async () => {
    await run?.stop();
    await t?.close();
  });

  it('--json: a freshness record per change, stale then current with the check repaired; the API cost at exit', async () => {
    t = await startTestCluster({ kubelet: false });
    t.cluster.faults.add({ kind: 'drop-events', verb: 'watch', resource: 'configmaps', dropCount: 1, times: 1 });
    // The pods' first consistency list is answered 429 once, Retry-After 1 s.
    t.cluster.faults.add({ kind: 'throttle', verb: 'list', resource: 'pods', times: 1, retryAfterSeconds: 1 });
    run = cliSync(['--kubeconfig', t.kubeconfig, '--json', '--freshness', '--watch', 'configmaps', '--consistency-period', '1.5']);
    const records = () => run!.out.map((l) => JSON.parse(l) as Record<string, any>);
    const cms = () => records().flatMap((r) => (r.freshness?.type === 'configmaps' ? [r.freshness] : []));
    await eventually(() => cms().some((f) => f.lastRelist?.reason === 'initial list' && !f.relisting && !f.stale), {
      description: 'ConfigMaps listed and current',
      timeoutMs: 30_000,
    });
    assert.deepEqual(cms()[0]!.namespace, null);
    await missAConfigMap(t);
    const stale = await eventually(() => cms().find((f) => f.stale), { description: 'a record of ConfigMaps stale', timeoutMs: STALE_BUDGET_MS });
    assert.equal(stale.reason, 'missed an event, relisting');
    assert.ok(!Number.isNaN(Date.parse(stale.staleSince)), stale.staleSince);
    assert.deepEqual(
      { verdict: stale.lastCheck.verdict, differences: stale.lastCheck.differences, confirmed: stale.lastCheck.confirmed },
      { verdict: 'diverged', differences: 1, confirmed: true },
    );
    const after = () => cms().slice(cms().indexOf(stale) + 1);
    const repaired = await eventually(() => after().find((f) => !f.stale && f.lastCheck?.verdict === 'repaired'), {
      description: 'a later record of ConfigMaps current, its check repaired',
      timeoutMs: 15_000,
    });
    assert.deepEqual(repaired.lastCheck.differences, 1);
    assert.equal(repaired.lastRelist.reason, 'consistency repair: 1 missed event');
    // one record per change: no two records in a row say the same
    const said = cms().map((f) => JSON.stringify({ ...f, lastEvent: null, lastBookmark: null }));
    assert.ok(
      said.every((s, i) => i === 0 || s !== said[i - 1]),
      said.join('\n'),
    );
    await eventually(() => records().some((r) => r.freshness?.type === 'pods' && r.freshness.lastCheck), {
      description: 'a pods check (after its 429)',
      timeoutMs: STALE_BUDGET_MS,
    });
    assert.equal(await run.stop(), 0, run.err.join('\n'));
    const cost = records().find((r) => r.apiCost)?.apiCost;
    assert.ok(cost, 'an apiCost record at exit');
    assert.equal(cost.throttled, 1);
    assert.equal(cost.retryAfterSeconds, 1);
    assert.ok(cost.requests >= 4 && cost.bytes > 0, JSON.stringify(cost));
    assert.equal(cost.flowControl, null, 'the demo cluster sends no APF headers');
    // iterations go on as before, freshness marks still out of the stream
    assert.ok(records().some((r) => r.source === 'housekeeping'));
    assert.ok(!records().some((r) => r.source === 'freshness'));
  });

  it('text: a log line as the type turns stale and current, and the table every period and at exit', async () => {
    t = await startTestCluster({ kubelet: false });
    t.cluster.faults.add({ kind: 'drop-events', verb: 'watch', resource: 'configmaps', dropCount: 1, times: 1 });
    run = cliSync(['--kubeconfig', t.kubeconfig, '--freshness', '--freshness-period', '1s', '--watch', 'configmaps', '--consistency-period', '1.5']);
    const header = /^TYPE {3,}NAMESPACE {3,}STATUS {3,}LAST EVENT {3,}LAST BOOKMARK {3,}LAST RELIST {3,}RELIST REASON {3,}LAST CHECK {3,}MESSAGE$/;
    await eventually(() => run!.out.some((l) => /^configmaps {3,}\* {3,}Current {3,}/.test(l)), {
      description: 'a table row of ConfigMaps current',
      timeoutMs: 30_000,
    });
    assert.ok(
      run.out.some((l) => header.test(l)),
      run.out.join('\n'),
    );
    await missAConfigMap(t);
    await eventually(() => run!.out.some((l) => l.startsWith('Freshness type="configmaps" namespace="*" status="Stale" reason="missed an event, relisting"')), {
      description: 'a line of ConfigMaps turning stale',
      timeoutMs: STALE_BUDGET_MS,
    });
    const staleAt = run.out.findIndex((l) => l.includes('status="Stale"'));
    await eventually(
      () =>
        run!.out
          .slice(staleAt)
          .some((l) => l.startsWith('Freshness type="configmaps" namespace="*" status="Current"') && l.includes('lastCheck="repaired 1 missed event"')),
      { description: 'a line of ConfigMaps current again, repaired', timeoutMs: 15_000 },
    );
    assert.equal(await run.stop(), 0, run.err.join('\n'));
    // the exit's table (a check after the repair may have found all consistent since), then the cost
    const last = run.out.map((l) => header.test(l)).lastIndexOf(true);
    const table = run.out.slice(last);
    assert.match(
      table.find((l) => l.startsWith('configmaps'))!,
      /^configmaps {3,}\* {3,}Current {3,}.* {3,}consistency repair: 1 missed event {3,}(repaired 1 missed event|consistent) \(\d+s ago\) {3,}<none>$/,
    );
    assert.ok(
      table.some((l) => l.startsWith('pods ')),
      table.join('\n'),
    );
    assert.match(table.at(-1)!, /^API cost: \d+ requests, [\d.]+ (B|KiB|MiB), no 429; priority level: none reported/);
  });
});
