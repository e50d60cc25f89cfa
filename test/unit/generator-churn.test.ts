// Churn: writes at the asked rate, the same writes for the same seed, never a user's pod, and
// nothing after stop().
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { ObjectStore } from '../../src/demo/store';
import { Catalog } from '../../src/demo/server/catalog';
import { generateObjects, DEFAULT_NOW } from '../../src/demo/generator';
import { startChurn } from '../../src/demo/churn';

async function run(seed: number) {
  const store = new ObjectStore({ now: () => new Date(DEFAULT_NOW) });
  new Catalog(store).registerBuiltins();
  generateObjects(store, { objects: 3000, seed: 11 });
  const clock = new FakeClock();
  const writes: string[] = [];
  store.subscribe((e) => writes.push(`${e.type} ${e.group}/${e.resource} ${e.object.metadata.namespace ?? ''}/${e.object.metadata.name}`));
  const pods = store.count('', 'pods');
  const churn = startChurn(store, { perSecond: 50, seed, clock, wallStart: DEFAULT_NOW });
  await clock.advance(1000);
  const mine = store.create('', 'pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'probe-me', namespace: store.list('', 'namespaces').items[0]!.metadata.name },
    spec: { containers: [] },
  });
  await clock.advance(19_000);
  const stats = churn.stats();
  churn.stop();
  return { store, clock, writes, stats, pods, mine };
}

it('churn writes at the asked rate, deterministically, leaves a user pod alone, and stops cleanly', async () => {
  const a = await run(1);
  const b = await run(1);
  const c = await run(2);
  const total = a.stats.configmapUpdate + a.stats.labelChange + a.stats.podCreate + a.stats.podDelete + a.stats.eventCreate;
  assert.ok(total >= 950 && total <= 1000, `${total} writes in 20 s at 50/s`);
  assert.equal(a.stats.failed, 0);
  for (const k of ['configmapUpdate', 'labelChange', 'podCreate', 'podDelete', 'eventCreate'] as const) assert.ok(a.stats[k] > 50, `${k}: ${a.stats[k]}`);
  assert.deepEqual(a.writes, b.writes, 'same seed, same writes');
  assert.notDeepEqual(a.writes, c.writes);
  assert.ok(Math.abs(a.store.count('', 'pods') - a.pods) < 100, 'pod creates and deletes balance');
  assert.ok(!a.writes.some((w) => w.endsWith('/probe-me') && !w.startsWith('ADDED')), 'the user pod is never touched');
  const rv = a.store.currentRV;
  await a.clock.advance(60_000);
  assert.equal(a.store.currentRV, rv);
  assert.equal(a.clock.pendingTimers(), 0);
});
