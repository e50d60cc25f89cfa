// The sync loop's view changes into the model per frame-sized window (FakeClock, real model).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { computeObjectView } from '../../src/core/rows/objectView';
import { ResourceModel, type ModelChange } from '../../src/app/model/resourceModel';
import { ViewBatch, VIEW_BATCH_MS } from '../../src/app/sync/viewBatch';
import { pod } from './vscode-fixtures';

const view = (name: string, phase: string) => computeObjectView(`ns/${name}`, pod('ns', name, phase), { group: '', resource: 'pods' });

function setup() {
  const model = new ResourceModel();
  model.retarget({ context: 'ctx' });
  const changes: ModelChange[] = [];
  model.onChange((c) => changes.push(c));
  const clock = new FakeClock();
  const batch = new ViewBatch((k, v) => model.applyView(k, v), clock);
  return { model, changes, clock, batch };
}

describe('ViewBatch', () => {
  it('applies a burst once per window, the last view of each key winning', async () => {
    const t = setup();
    t.batch.push('ns/a', view('a', 'Pending'));
    t.batch.push('ns/a', view('a', 'Running'));
    t.batch.push('ns/b', view('b', 'Pending'));
    t.batch.push('ns/c', view('c', 'Pending'));
    t.batch.push('ns/c', undefined); // created and gone within the window: never shown
    assert.equal(t.changes.length, 0, 'nothing before the window ends');
    await t.clock.advance(VIEW_BATCH_MS - 1);
    assert.equal(t.changes.length, 0);
    await t.clock.advance(1);
    assert.equal(t.model.object('ns', 'pods', 'a')?.view.phase, 'Running');
    assert.equal(t.model.object('ns', 'pods', 'b')?.view.phase, 'Pending');
    assert.equal(t.model.object('ns', 'pods', 'c'), undefined);
    assert.equal(t.changes.length, 2, 'one change per object shown, not one per push');
    assert.equal(t.clock.pendingTimers(), 0);
  });

  it('flush applies at once; dispose drops what is pending and stops the timer', async () => {
    const t = setup();
    t.batch.push('ns/a', view('a', 'Running'));
    t.batch.flush();
    assert.ok(t.model.object('ns', 'pods', 'a'));
    assert.equal(t.clock.pendingTimers(), 0);
    t.batch.push('ns/b', view('b', 'Running'));
    t.batch.dispose();
    await t.clock.advance(10 * VIEW_BATCH_MS);
    assert.equal(t.model.object('ns', 'pods', 'b'), undefined);
    t.batch.push('ns/c', view('c', 'Running'));
    assert.equal(t.clock.pendingTimers(), 0);
  });

  it('an apply that throws loses only its own key', async () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    const batch = new ViewBatch((k) => {
      if (k === 'bad') throw new Error('boom');
      seen.push(k);
    }, clock);
    batch.push('x', undefined);
    batch.push('bad', undefined);
    batch.push('y', undefined);
    await clock.advance(VIEW_BATCH_MS);
    assert.deepEqual(seen, ['x', 'y']);
  });

  it('a window too big for one slice of the thread is applied in slices, one timer turn apart, in order; flush() applies all', async () => {
    let t = 0;
    const applied: string[] = [];
    const clock = new FakeClock();
    const turns: number[] = []; // how many were applied when each timer was set
    const counting = Object.assign(Object.create(clock) as FakeClock, {
      setTimer: (ms: number, fn: () => void) => (turns.push(applied.length), clock.setTimer(ms, fn)),
    });
    // every apply costs 1 ms of the fake thread: a slice of 8 ms is spent at the first check (every 64)
    const batch = new ViewBatch(
      (k) => (applied.push(k), (t += 1)),
      counting,
      VIEW_BATCH_MS,
      8,
      () => t,
    );
    for (let i = 0; i < 150; i++) batch.push(`ns/p${i}`, view(`p${i}`, 'Running'));
    await clock.advance(VIEW_BATCH_MS);
    assert.deepEqual(turns, [0, 64, 128], 'the window, then two more turns: 64 + 64 + 22');
    assert.deepEqual(
      applied,
      Array.from({ length: 150 }, (_, i) => `ns/p${i}`),
      'in the order pushed',
    );
    assert.equal(batch.size, 0);
    assert.equal(clock.pendingTimers(), 0);
    for (let i = 0; i < 150; i++) batch.push(`ns/q${i}`, view(`q${i}`, 'Running'));
    batch.flush();
    assert.equal(batch.size, 0, 'flush() applies a big batch whole');
    assert.equal(applied.length, 300);
    assert.equal(clock.pendingTimers(), 0);
  });
});
