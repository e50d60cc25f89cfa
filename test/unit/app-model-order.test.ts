// A bucket's name order under sync-loop churn: kept in step by binary search, never re-sorted per
// event (a 10,000-pod kind re-sorted on every create or delete was O(N log N) per event).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { computeObjectView } from '../../src/core/rows/objectView';
import { ResourceModel, type ObjectEntry } from '../../src/app/model/resourceModel';
import { pod, result, task } from './vscode-fixtures';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const view = (name: string, phase = 'Running') => computeObjectView(`big/${name}`, pod('big', name, phase), { group: '', resource: 'pods' });
const byName = (a: ObjectEntry, b: ObjectEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function bigModel(n: number): ResourceModel {
  const model = new ResourceModel();
  model.retarget({ context: 'ctx' });
  const items = Array.from({ length: n }, (_, i) => pod('big', `p-${String((i * 7919) % n).padStart(5, '0')}`));
  model.applyResult(result(task(PODS, 'Pod', true), items));
  return model;
}

describe('Bucket order', () => {
  it('a create, an update and a delete in a 10,000-pod kind keep the sorted array, in order, with the new views', () => {
    const model = bigModel(10_000);
    const b = model.bucket('big', 'pods')!;
    const sorted = b.sortedObjects();
    assert.equal(sorted.length, 10_000);
    assert.ok(model.applyView('big/p-04999x', view('p-04999x')));
    assert.ok(model.applyView('big/p-00001', view('p-00001', 'Pending')));
    assert.ok(model.applyView('big/p-00002', undefined));
    const after = b.sortedObjects();
    assert.equal(after, sorted, 'the same array, kept in step (not rebuilt by a sort)');
    assert.equal(after.length, 10_000);
    const i = after.findIndex((e) => e.name === 'p-04999x');
    assert.equal(after[i - 1]!.name, 'p-04999');
    assert.equal(after[i + 1]!.name, 'p-05000');
    assert.equal(after.find((e) => e.name === 'p-00001')!.view.phase, 'Pending');
    assert.ok(!after.some((e) => e.name === 'p-00002'));
  });

  it('stays equal to a fresh sort of its members through any sequence of creates, updates and deletes (property)', () => {
    const name = fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,6}[a-z0-9])?$/);
    const op = fc.oneof(
      fc.record({ kind: fc.constant('put' as const), name, phase: fc.constantFrom('Running', 'Pending', 'Failed') }),
      fc.record({ kind: fc.constant('delete' as const), name }),
      fc.record({ kind: fc.constant('read' as const) }),
    );
    fc.assert(
      fc.property(fc.array(name, { maxLength: 30 }), fc.array(op, { maxLength: 60 }), (initial, ops) => {
        const model = new ResourceModel();
        model.retarget({ context: 'ctx' });
        model.applyResult(
          result(
            task(PODS, 'Pod', true),
            [...new Set(initial)].map((n) => pod('big', n)),
          ),
        );
        model.bucket('big', 'pods')?.sortedObjects();
        for (const o of ops) {
          if (o.kind === 'put') model.applyView(`big/${o.name}`, view(o.name, o.phase));
          else if (o.kind === 'delete') model.applyView(`big/${o.name}`, undefined);
          else model.bucket('big', 'pods')?.sortedObjects();
          const b = model.bucket('big', 'pods');
          if (!b) continue;
          const fresh = [...b.objects.values()].sort(byName);
          assert.deepEqual(b.sortedObjects(), fresh);
        }
      }),
      { numRuns: 300 },
    );
  });
});
