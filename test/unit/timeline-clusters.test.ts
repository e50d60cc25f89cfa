// The timeline of several clusters: loader tasks of each context on lanes of their own, grouped by
// cluster; one cluster's timeline keyed and labelled as before; the cluster filter shows one
// cluster's tasks and keeps the sync loop's marks; the filter survives a save and restore.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TimelineModel } from '../../src/vscode/timeline/webview/model';
import { makePredicate, sanitizeFilter } from '../../src/vscode/timeline/webview/filter';
import { restoreState, saveableState } from '../../src/vscode/timeline/webview/state';
import type { LoaderTaskEvent, SyncIterationEvent } from '../../src/core/timeline/events';

const gvr = { group: '', version: 'v1', resource: 'pods' };
const task = (loadId: string, taskId: number, worker: number, context?: string): LoaderTaskEvent => ({
  kind: 'task',
  loadId,
  taskId,
  worker,
  phase: 'start',
  t: taskId,
  gvr,
  ...(context !== undefined ? { context } : {}),
});
const tick: SyncIterationEvent = {
  kind: 'iteration',
  t: 5,
  source: 'sync',
  op: 'tick',
  key: 'default/web-0',
  handler: 'HandlePodSyncs',
  durationMs: 1,
  outcome: 'ok',
};

function model(...events: (LoaderTaskEvent | SyncIterationEvent)[]): TimelineModel {
  const m = new TimelineModel();
  m.add(events.map((event, id) => ({ id, event })));
  return m;
}

const workerLanes = (m: TimelineModel) => m.lanes().filter((l) => l.kind === 'worker');

describe('timeline lanes of several clusters', () => {
  it('one cluster: keys and labels as before', () => {
    const m = model(task('a-1', 1, 1, 'alpha'), task('a-1', 2, 0, 'alpha'));
    assert.deepEqual(
      workerLanes(m).map((l) => [l.key, l.label]),
      [
        ['worker:0', 'worker 0'],
        ['worker:1', 'worker 1'],
      ],
    );
  });

  it("several: each cluster's workers together, in the order the clusters were first seen, labelled with the cluster", () => {
    const m = model(task('b-1', 1, 1, 'bravo'), task('a-1', 2, 0, 'alpha'), task('b-1', 3, 0, 'bravo'), task('a-1', 4, 1, 'alpha'));
    assert.deepEqual(
      workerLanes(m).map((l) => l.label),
      ['bravo worker 0', 'bravo worker 1', 'alpha worker 0', 'alpha worker 1'],
    );
    assert.deepEqual(m.contexts, ['bravo', 'alpha']);
    assert.deepEqual(new Set(workerLanes(m).map((l) => l.key)).size, 4, 'one lane per (cluster, worker)');
    // a bar is on its own cluster's lane
    assert.equal(m.byId(1)!.lane.context, 'alpha');
    assert.equal(m.byId(0)!.lane.context, 'bravo');
  });

  it("the cluster filter shows that cluster's tasks only, and keeps the sync loop's marks", () => {
    const m = model(task('a-1', 1, 0, 'alpha'), task('b-1', 2, 0, 'bravo'), tick);
    m.applyFilter(makePredicate(sanitizeFilter({ hiddenSources: [], kind: '', name: '', cluster: 'bravo' })));
    assert.deepEqual(
      [0, 1, 2].map((id) => m.byId(id)!.visible),
      [false, true, true],
    );
    m.applyFilter(makePredicate(sanitizeFilter({ hiddenSources: [], kind: '', name: '', cluster: '' })));
    assert.deepEqual(
      [0, 1, 2].map((id) => m.byId(id)!.visible),
      [true, true, true],
    );
  });

  it('the chosen cluster survives a save and restore; a bad saved value is dropped', () => {
    const r = restoreState({ cluster: 'bravo', kind: '', hiddenSources: [] });
    assert.equal(r.filter.cluster, 'bravo');
    assert.equal(saveableState(r).cluster, 'bravo');
    assert.equal(restoreState({ cluster: 42 }).filter.cluster, undefined);
  });

  it('reset forgets the clusters seen', () => {
    const m = model(task('a-1', 1, 0, 'alpha'), task('b-1', 2, 0, 'bravo'));
    m.reset();
    assert.deepEqual(m.contexts, []);
    m.add([{ id: 0, event: task('b-2', 1, 0, 'bravo') }]);
    assert.deepEqual(
      workerLanes(m).map((l) => [l.key, l.label]),
      [['worker:0', 'worker 0']],
    );
  });
});
