/**
 * `kubeloop sync --freshness`'s report on a FakeClock: a record per change of a type's state (not per
 * event, not per check that found the same), staleness that comes with time alone printed once the
 * report is asked, kubectl's table (HumanDuration ages, `<none>`), and the table on its period.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import type { SourceFreshness } from '../../src/core/syncloop/sources/cluster';
import { TypeFreshness, WATCH_DOWN_STALE_MS } from '../../src/core/syncloop/sources/freshness';
import type { TimelineEvent } from '../../src/core/timeline/events';
import { FreshnessReport, reportFreshness, runCostLine } from '../../src/cli/freshness';

const WALL = Date.parse('2026-01-02T03:04:05.000Z');

function configMaps(clock: FakeClock, namespace?: string): SourceFreshness {
  return { source: 'api:configmaps', gvr: { group: '', version: 'v1', resource: 'configmaps' }, namespace, freshness: new TypeFreshness(clock) };
}

describe('kubeloop sync --freshness', () => {
  it('--json: one record per change of state, with wall-clock times; events and same verdicts are no change', async () => {
    const clock = new FakeClock();
    const e = configMaps(clock);
    const out: string[] = [];
    const r = new FreshnessReport({ entries: () => [e], clock, origin: 0, wallOrigin: WALL, json: true, out: (l) => out.push(l) });
    const f = e.freshness;
    f.listStarted();
    r.changes();
    await clock.advance(500);
    f.listed();
    f.watching();
    r.changes();
    await clock.advance(1000);
    f.event();
    f.checked({ kind: 'consistent', at: clock.now() });
    r.changes();
    await clock.advance(1000);
    f.event();
    f.checked({ kind: 'consistent', at: clock.now() });
    r.changes();
    r.changes();
    const records = out.map((l) => JSON.parse(l));
    assert.equal(records.length, 3, out.join('\n'));
    assert.deepEqual(records[0], {
      at: '2026-01-02T03:04:05.000Z',
      t: 0,
      freshness: {
        type: 'configmaps',
        namespace: null,
        stale: false,
        lastEvent: null,
        lastBookmark: null,
        lastRelist: { at: '2026-01-02T03:04:05.000Z', reason: 'initial list' },
        relisting: true,
        lastCheck: null,
      },
    });
    assert.equal(records[1].freshness.relisting, false);
    assert.deepEqual(records[2].freshness.lastCheck, { at: '2026-01-02T03:04:06.500Z', verdict: 'consistent' });
    assert.equal(records[2].freshness.lastEvent, '2026-01-02T03:04:06.500Z');

    // a watch down past the bound turns stale with time alone: printed at the next ask, once
    f.watchEnded('watch error: connection refused', false);
    f.listStarted();
    r.changes();
    await clock.advance(WATCH_DOWN_STALE_MS + 1);
    r.changes();
    r.changes();
    const stale = out.slice(3).map((l) => JSON.parse(l).freshness);
    assert.deepEqual(
      stale.map((s) => [s.stale, s.relisting, s.lastRelist.reason]),
      [
        [false, true, 'watch error: connection refused'],
        [true, true, 'watch error: connection refused'],
      ],
    );
    assert.equal(stale[1].reason, 'watch down for 1m: watch error: connection refused');
    assert.equal(stale[1].staleSince, new Date(WALL + 2500 + WATCH_DOWN_STALE_MS).toISOString());
  });

  it('text: a log line per change; the table as kubectl prints one, every period', async () => {
    const clock = new FakeClock();
    const cms = configMaps(clock, 'team-a');
    const pods: SourceFreshness = {
      source: 'api',
      gvr: { group: '', version: 'v1', resource: 'pods' },
      namespace: undefined,
      freshness: new TypeFreshness(clock),
    };
    const deploys: SourceFreshness = {
      source: 'api:deployments.apps',
      gvr: { group: 'apps', version: 'v1', resource: 'deployments' },
      namespace: undefined,
      freshness: new TypeFreshness(clock),
    };
    const out: string[] = [];
    const listeners = new Set<(e: TimelineEvent) => void>();
    const run = reportFreshness({
      sync: { freshness: () => [pods, cms, deploys] },
      timeline: { subscribe: (l) => (listeners.add(l), () => listeners.delete(l)) },
      clock,
      origin: 0,
      wallOrigin: WALL,
      json: false,
      periodMs: 60_000,
      out: (l) => out.push(l),
      transport: {
        stats: { requests: 12, bytesReceived: 3 * 1024 * 1024, throttled: 2, retryAfterSeconds: 3 },
        getJson: () => Promise.reject(new Error('not asked')),
      },
    });
    for (const e of [pods, cms, deploys]) {
      e.freshness.listStarted();
      e.freshness.listed();
      e.freshness.watching();
    }
    const housekeeping = () => {
      for (const l of listeners)
        l({ kind: 'iteration', t: clock.now(), source: 'housekeeping', op: 'cleanup', key: '', handler: 'HandlePodCleanups', durationMs: 0, outcome: 'ok' });
    };
    housekeeping();
    assert.deepEqual(out, [
      'Freshness type="pods" namespace="*" status="Current" relist="initial list"',
      'Freshness type="configmaps" namespace="team-a" status="Current" relist="initial list"',
      'Freshness type="deployments.apps" namespace="*" status="Current" relist="initial list"',
    ]);
    out.length = 0;
    await clock.advance(5_000);
    pods.freshness.event();
    pods.freshness.checked({ kind: 'diverged', at: clock.now(), differences: 2, confirmed: true });
    await clock.advance(55_000); // the period: the table
    assert.deepEqual(out, [
      'TYPE               NAMESPACE   STATUS    LAST EVENT   LAST BOOKMARK   LAST RELIST   RELIST REASON   LAST CHECK                                     MESSAGE',
      'pods               *           Stale     55s          <none>          60s           initial list    diverged: 2 differences, relisting (55s ago)   missed 2 events, relisting',
      'configmaps         team-a      Current   <none>       <none>          60s           initial list    <none>                                         <none>',
      'deployments.apps   *           Current   <none>       <none>          60s           initial list    <none>                                         <none>',
    ]);
    out.length = 0;
    await clock.advance(240_000); // HumanDuration: minutes and seconds under 10 minutes
    assert.equal(out.filter((l) => l.startsWith('TYPE')).length, 4);
    assert.match(out.at(-3)!, /^pods {15}\* {11}Stale {5}4m55s {8}<none> {10}5m /);
    out.length = 0;
    await run.end();
    assert.equal(
      out[0],
      'Freshness type="pods" namespace="*" status="Stale" reason="missed 2 events, relisting" relist="initial list" lastCheck="diverged: 2 differences, relisting"',
    );
    assert.ok(out[1]!.startsWith('TYPE '));
    assert.equal(
      out.at(-1),
      'API cost: 12 requests, 3.0 MiB, 2 × 429 (Retry-After 3 s in all); priority level: none reported (API Priority and Fairness off, or an older server)',
    );
    assert.equal(clock.pendingTimers(), 0, 'the period timer is cancelled at the end');
    assert.equal(listeners.size, 0, 'the timeline unsubscribed');
  });

  it('names the priority level and flow schema the server reported', () => {
    const flowControl = { flowSchema: { uid: 'f', name: 'service-accounts' }, priorityLevel: { uid: 'p', name: 'workload-low' }, exempt: false };
    assert.equal(
      runCostLine({ requests: 3, bytes: 512, throttled: 0, retryAfterSeconds: 0, flowControl }),
      'API cost: 3 requests, 512 B, no 429; priority level workload-low (flow schema service-accounts)',
    );
    assert.equal(
      runCostLine({
        requests: 3,
        bytes: 2048,
        throttled: 0,
        retryAfterSeconds: 0,
        flowControl: { flowSchema: { uid: 'f' }, priorityLevel: { uid: 'p' }, exempt: false },
      }),
      'API cost: 3 requests, 2.0 KiB, no 429; priority level uid p (flow schema uid f)',
    );
  });
});
