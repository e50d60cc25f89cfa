/**
 * Housekeeping on a big cluster: it walks every view and every object, so it must let the event
 * loop run between batches (the extension host is shared), and, since informer handlers may change
 * the state while it yields, it must judge each item by the state at that moment.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { handlePodCleanups, HOUSEKEEPING_BATCH, HOUSEKEEPING_SWEEP } from '../../src/core/syncloop/housekeeping';
import { SyncLoop } from '../../src/core/syncloop/syncloop';
import type { StoredObject } from '../../src/core/kube/objects/types';

const resource = { group: '', resource: 'configmaps' };
const cm = (i: number, rv = '1'): StoredObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `cm-${i}`, namespace: 'default', uid: `uid-${i}`, resourceVersion: rv },
});

async function bigLoop(n: number): Promise<SyncLoop> {
  const kl = new SyncLoop({ clock: new FakeClock(), sources: ['api:configmaps'] });
  await kl.podConfig.merge('api:configmaps', { op: 'SET', source: 'api:configmaps', resource, pods: Array.from({ length: n }, (_, i) => cm(i)) });
  return kl;
}

describe('housekeeping in batches', () => {
  it('lets the event loop run between batches of a big state (a timer set before it fires before it ends)', async () => {
    const n = 5 * HOUSEKEEPING_BATCH;
    const kl = await bigLoop(n);
    assert.equal(kl.actual.size, n);
    let turns = 0;
    let running = true;
    const tick = () => {
      turns++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const report = await handlePodCleanups(kl, new AbortController().signal);
    running = false;
    assert.ok(turns >= 5, `the event loop ran ${turns} times during housekeeping`);
    assert.deepEqual(report.removed, []);
    assert.deepEqual(report.resynced, []);
  });

  it('judges each item by the state when it gets to it: an object added while it yields stays, one removed is not brought back', async () => {
    const n = 4 * HOUSEKEEPING_BATCH;
    const kl = await bigLoop(n);
    // A view no object accounts for (a REMOVE that never arrived) is still removed.
    kl.actual.set({ key: 'configmaps:default/ghost', uid: 'ghost', kind: 'ConfigMap', name: 'ghost', status: 'Active', deleting: false });
    // A view made stale: housekeeping recomputes it.
    kl.actual.set({ ...kl.actual.get('configmaps:default/cm-7')!, resourceVersion: '0' });
    let changed = false;
    const meanwhile = () => {
      if (changed) return;
      changed = true;
      // What informer handlers do between two batches.
      kl.handleInformerUpdate({ op: 'ADD', source: 'api:configmaps', resource, pods: [cm(n + 1)] });
      kl.handleInformerUpdate({ op: 'REMOVE', source: 'api:configmaps', resource, pods: [cm(n - 1)] });
    };
    setImmediate(meanwhile);
    const report = await handlePodCleanups(kl, new AbortController().signal);
    assert.ok(changed, 'the informer ran while housekeeping yielded');
    assert.deepEqual(report.removed, ['configmaps:default/ghost']);
    assert.deepEqual(report.resynced, ['configmaps:default/cm-7']);
    assert.equal(kl.actual.get(`configmaps:default/cm-${n + 1}`)?.uid, `uid-${n + 1}`, 'added meanwhile: kept');
    assert.equal(kl.actual.get(`configmaps:default/cm-${n - 1}`), undefined, 'removed meanwhile: not brought back');
    assert.equal(kl.actual.size, n, 'n - 1 + 1');
  });

  it('stops at the next batch when its signal aborts', async () => {
    const kl = await bigLoop(3 * HOUSEKEEPING_BATCH);
    const ac = new AbortController();
    setImmediate(() => ac.abort(new Error('loop stopped')));
    await assert.rejects(handlePodCleanups(kl, ac.signal), /loop stopped/);
  });

  it('sweeps at most HOUSEKEEPING_SWEEP views and objects a pass, going on where the last pass stopped', async () => {
    const n = HOUSEKEEPING_SWEEP + 1_000;
    const kl = await bigLoop(n);
    // Both gaps sit past the first sweep: the stale view of the last object, and a ghost view (set last).
    const last = `configmaps:default/cm-${n - 1}`;
    kl.actual.set({ ...kl.actual.get(last)!, resourceVersion: '0' });
    kl.actual.set({ key: 'configmaps:default/ghost', uid: 'ghost', kind: 'ConfigMap', name: 'ghost', status: 'Active', deleting: false });
    const first = await handlePodCleanups(kl, new AbortController().signal);
    assert.deepEqual(first.resynced, [], 'the first pass did not get that far');
    assert.deepEqual(first.removed, []);
    const second = await handlePodCleanups(kl, new AbortController().signal);
    assert.deepEqual(second.resynced, [last]);
    assert.deepEqual(second.removed, ['configmaps:default/ghost']);
    // A new lap: the gap repaired stays repaired, and a gap at the start is found by the third pass.
    kl.actual.set({ ...kl.actual.get('configmaps:default/cm-0')!, resourceVersion: '0' });
    const third = await handlePodCleanups(kl, new AbortController().signal);
    assert.deepEqual(third.resynced, ['configmaps:default/cm-0']);
    assert.deepEqual(third.removed, []);
  });
});
