/**
 * The writers as the extension runs them (src/app/writers/liveWriters.ts: the model's own watches,
 * the tick that appends writer-lane events and takes the Top Writers snapshot) on the demo cluster
 * with its planted writers (src/demo/writers.ts): the fight is flagged in the view's rows and on both
 * fighters' lanes within 10 s of starting to watch; stop() ends every watch.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { realClock } from '../../src/core/clock';
import { KubeClient } from '../../src/core/kube/client';
import { TimelineStore } from '../../src/core/timeline/store';
import type { WritesEvent } from '../../src/core/timeline/events';
import { LiveWriters } from '../../src/app/writers/liveWriters';
import { writerRows } from '../../src/app/writers/rows';
import { FIGHTERS, FIGHT_ANNOTATION, HOT_LOOP_MANAGER } from '../../src/demo/writers';
import { eventually } from '../support/eventually';
import { startTestCluster, type TestCluster } from './demo-support';

describe('live writers on the demo cluster', () => {
  let tc: TestCluster;
  before(async () => {
    tc = await startTestCluster({ writers: true, objects: 300, churnPerSecond: 30 });
  });
  after(async () => {
    await tc?.close();
  });

  it('flags the planted fight in the Top Writers rows and on both lanes within 10 s, the hot loop too', async () => {
    const client = await KubeClient.fromKubeconfig({ kubeconfig: tc.kubeconfig });
    const timeline = new TimelineStore();
    const origin = realClock.now();
    const errors: string[] = [];
    const live = new LiveWriters({ clock: realClock, timeline, origin, onError: (t, m) => errors.push(`${t}: ${m}`) });
    live.detailed = true;
    const types = [
      { group: '', version: 'v1', resource: 'pods', namespaced: true },
      { group: '', version: 'v1', resource: 'configmaps', namespaced: true },
      { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true },
    ];
    const startedAt = realClock.now();
    await live.start({ client, types, namespaces: [] });
    try {
      const flagged = await eventually(
        () => {
          const snap = live.latest;
          const rows = snap ? writerRows(snap) : [];
          const fighters = rows.filter((r) => (FIGHTERS as readonly string[]).includes(r.label) && r.warning);
          return fighters.length === 2 ? { snap: snap!, fighters } : undefined;
        },
        { description: 'both fighters flagged in the Top Writers rows', timeoutMs: 60_000 },
      );
      const tookMs = flagged.snap.t - startedAt;
      console.log(`# Top Writers flagged the fight ${Math.round(tookMs)} ms after the watches started`);
      assert.ok(tookMs <= 10_000, `flagged ${Math.round(tookMs)} ms after watching began`);
      for (const r of flagged.fighters) assert.equal(r.children![0]!.label, `Fight over metadata.annotations.${FIGHT_ANNOTATION}`);
      const lanes = () => timeline.toArray().filter((e): e is WritesEvent => e.kind === 'writes');
      await eventually(() => FIGHTERS.every((m) => lanes().some((e) => e.manager === m && e.fight)), {
        description: 'a flagged mark on both fighters lanes',
        timeoutMs: 30_000,
      });
      const hot = await eventually(() => lanes().find((e) => e.manager === HOT_LOOP_MANAGER && e.hotLoop), {
        description: 'the hot loop on its lane',
        timeoutMs: 30_000,
      });
      assert.ok(hot.writes >= 5, `about 13 writes a window, got ${hot.writes}`);
      const looping = writerRows(live.latest!).find((r) => r.label === HOT_LOOP_MANAGER)!;
      assert.deepEqual(
        looping.children!.find((c) => c.label === 'Kinds')!.children!.map((c) => c.label),
        ['ConfigMap'],
      );
      assert.deepEqual(errors, []);
    } finally {
      await live.stop();
      client.close();
    }
    assert.equal(live.running, false);
    assert.equal(live.latest, undefined);
  });
});
