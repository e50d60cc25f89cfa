// The demo's log of controller reconciles (served at /_demo/reconciles) and the extension's reading
// of its records: bounded, each record once by sequence number, bad records skipped, not thrown.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { remoteReconcileEvent } from '../../src/app/timeline/remoteReconciles';
import { ReconcileLog } from '../../src/demo/controllers/reconcileLog';

const rec = (t: number) => ({ t, controller: 'job', key: `jobs.batch:ns/j${t}`, handler: 'syncJob', durationMs: 1, outcome: 'ok' as const });

describe('ReconcileLog', () => {
  it('hands out each record once after a sequence number, and keeps only the last `capacity`', () => {
    const log = new ReconcileLog(3, (t) => 1_000_000 + t);
    for (let t = 1; t <= 5; t++) log.push(rec(t));
    assert.equal(log.dropped, 2);
    const all = log.after(0);
    assert.equal(all.last, 5);
    assert.deepEqual(
      all.records.map((r) => [r.seq, r.at]),
      [
        [3, 1_000_003],
        [4, 1_000_004],
        [5, 1_000_005],
      ],
    );
    assert.deepEqual(
      log.after(4).records.map((r) => r.seq),
      [5],
    );
    assert.deepEqual(log.after(5).records, []);
    assert.deepEqual(
      log.after(0, 2).records.map((r) => r.seq),
      [3, 4],
    );
  });
});

describe('remoteReconcileEvent', () => {
  const at = (wall: number) => wall - 1000;
  it('maps a record onto the timeline clock and keeps only what it knows', () => {
    const e = remoteReconcileEvent({ ...rec(0), seq: 7, at: 5000, created: ['pods:ns/a'], deleted: [], statusUpdates: 1, extra: '<b>' }, at);
    assert.deepEqual(e, {
      kind: 'reconcile',
      t: 4000,
      controller: 'job',
      key: 'jobs.batch:ns/j0',
      handler: 'syncJob',
      durationMs: 1,
      outcome: 'ok',
      created: ['pods:ns/a'],
      statusUpdates: 1,
    });
  });
  it('skips anything that is not a record', () => {
    for (const bad of [null, 'x', 42, {}, { ...rec(0), at: 'soon' }, { ...rec(0), at: 1, outcome: 'maybe' }, { ...rec(0), at: 1, controller: 3 }]) {
      assert.equal(remoteReconcileEvent(bad, at), undefined, JSON.stringify(bad));
    }
    const odd = remoteReconcileEvent({ ...rec(0), at: 1, created: [1, 2], events: -3 }, at)!;
    assert.equal(odd.created, undefined);
    assert.equal(odd.events, undefined);
  });
});
