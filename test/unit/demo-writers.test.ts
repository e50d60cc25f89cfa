// The demo's planted writers on a FakeClock: the two fighters take the annotation from each other
// at every write, each under its own field manager; the hot loop writes 13 times a second; stop()
// cancels every timer and nothing is written afterwards.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { Catalog } from '../../src/demo/server/catalog';
import { ObjectStore } from '../../src/demo/store';
import { FIGHT_ANNOTATION, HOT_LOOP_MANAGER, startWriters, WRITERS_NAMESPACE } from '../../src/demo/writers';

function setup() {
  const store = new ObjectStore();
  new Catalog(store).registerBuiltins();
  return { store, clock: new FakeClock() };
}

describe('the demo writers', () => {
  it('fight-a and fight-b take the annotation from each other, each write under its own manager', async () => {
    const { store, clock } = setup();
    const w = startWriters(store, { clock });
    const holders: string[] = [];
    for (let i = 0; i < 8; i++) {
      await clock.advance(500);
      const cm = store.get('', 'configmaps', WRITERS_NAMESPACE, 'contested')!;
      const owner = cm.metadata.annotations![FIGHT_ANNOTATION]!;
      const entries = cm.metadata.managedFields as { manager: string; fieldsV1: { 'f:metadata'?: { 'f:annotations'?: Record<string, unknown> } } }[];
      const holding = entries.filter((e) => e.fieldsV1['f:metadata']?.['f:annotations']?.[`f:${FIGHT_ANNOTATION}`]).map((e) => e.manager);
      assert.deepEqual(holding, [owner], 'the field is owned by the manager that set it last, only');
      holders.push(owner);
    }
    for (let i = 1; i < holders.length; i++) assert.notEqual(holders[i], holders[i - 1], `alternates: ${holders.join(' ')}`);
    assert.ok(w.writes[HOT_LOOP_MANAGER]! >= 4 * 13 - 1, `hot loop wrote ${w.writes[HOT_LOOP_MANAGER]} times in 4 s`);
    w.stop();
    assert.equal(clock.pendingTimers(), 0);
    const rv = store.get('', 'configmaps', WRITERS_NAMESPACE, 'hot')!.metadata.resourceVersion;
    await clock.advance(5000);
    assert.equal(store.get('', 'configmaps', WRITERS_NAMESPACE, 'hot')!.metadata.resourceVersion, rv, 'nothing written after stop');
  });
});
