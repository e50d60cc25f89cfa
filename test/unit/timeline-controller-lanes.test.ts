// The timeline's controller lanes: each reconcile of the in-process demo cluster's controllers is a
// mark on `controller/<name>`, the lanes sit between the loader's workers and the sync loop's sources
// in the order work flows (cronjob, job, deployment, replicaset, ...), and the filters and texts treat
// a reconcile's object and the objects it wrote as what it is about.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { makePredicate, sanitizeFilter } from '../../src/vscode/timeline/webview/filter';
import { describeItem, eventLabel, itemLabel } from '../../src/vscode/timeline/webview/format';
import { TimelineModel, type Mark } from '../../src/vscode/timeline/webview/model';
import type { ControllerReconcileEvent, LoaderTaskEvent, SyncIterationEvent, TimelineEvent } from '../../src/core/timeline/events';

function reconcile(t: number, controller: string, extra: Partial<ControllerReconcileEvent> = {}): ControllerReconcileEvent {
  return { kind: 'reconcile', t, controller, key: `deployments.apps:default/web`, handler: 'syncDeployment', durationMs: 0.4, outcome: 'ok', ...extra };
}
const task: LoaderTaskEvent = { kind: 'task', loadId: 'l', taskId: 1, worker: 0, phase: 'start', t: 0, gvr: { group: '', version: 'v1', resource: 'pods' } };
const iteration: SyncIterationEvent = {
  kind: 'iteration',
  t: 30,
  source: 'config',
  op: 'ADD',
  key: 'default/web-7d4b9c-abcde',
  handler: 'HandlePodAdditions',
  durationMs: 1,
  outcome: 'ok',
};

function model(...events: TimelineEvent[]): TimelineModel {
  const m = new TimelineModel();
  m.add(events.map((event, id) => ({ id, event })));
  return m;
}

const story = [
  task,
  reconcile(10, 'deployment', { created: ['replicasets.apps:default/web-7d4b9c'], updated: ['deployments.apps:default/web'], events: 1 }),
  reconcile(12, 'replicaset', {
    key: 'replicasets.apps:default/web-7d4b9c',
    handler: 'syncReplicaSet',
    created: ['pods:default/web-7d4b9c-abcde', 'pods:default/web-7d4b9c-fghij'],
    events: 2,
    durationMs: 3,
  }),
  reconcile(20, 'garbagecollector', { key: 'replicasets.apps:default/web-old', handler: 'attemptToDeleteItem', deleted: ['replicasets.apps:default/web-old'] }),
  reconcile(25, 'cronjob', { key: 'cronjobs.batch:default/tick', handler: 'sync', created: ['jobs.batch:default/tick-29000000'] }),
  iteration,
];

describe('timeline controller lanes', () => {
  it('one lane per controller seen, between the workers and the sync sources, in the order work flows', () => {
    const m = model(...story);
    const labels = m.lanes().map((l) => l.label);
    assert.deepEqual(labels.slice(0, 5), ['worker 0', 'controller/cronjob', 'controller/deployment', 'controller/replicaset', 'controller/garbagecollector']);
    assert.equal(labels[5], 'config');
    const rs = m.lanes().find((l) => l.key === 'controller:replicaset')!;
    assert.equal(rs.kind, 'controller');
    assert.equal(rs.items.length, 1);
    const mark = rs.items[0] as Mark;
    assert.equal(mark.start, 12);
    assert.equal(mark.end, 15);
    assert.equal(rs.maxSpan, 3);
    assert.equal(m.maxT, 31);
  });

  it('no controller lane without reconciles (a cluster in another process, or a real one)', () => {
    const m = model(task, iteration);
    assert.ok(m.lanes().every((l) => l.kind !== 'controller'));
  });

  it("filters by the kinds and names of a reconcile's object and of what it wrote; 'controllers' hides them all", () => {
    const m = model(...story);
    assert.ok(m.kinds.has('deployments.apps') && m.kinds.has('replicasets.apps') && m.kinds.has('jobs.batch'));
    const shown = (f: Parameters<typeof makePredicate>[0]) => {
      m.applyFilter(makePredicate(f));
      return m
        .lanes()
        .flatMap((l) => l.items)
        .filter((i) => i.visible)
        .map((i) =>
          i.type === 'mark' ? (i.event.kind === 'reconcile' ? i.event.controller : i.event.kind === 'writes' ? 'writers' : i.event.source) : 'loader',
        );
    };
    // a pod's name finds the reconcile that created it, and the sync loop's iteration of that pod
    assert.deepEqual(shown({ hiddenSources: [], kind: '', name: 'web-7d4b9c-abcde' }).sort(), ['config', 'replicaset']);
    assert.deepEqual(shown({ hiddenSources: [], kind: 'jobs.batch', name: '' }), ['cronjob']);
    assert.deepEqual(shown({ hiddenSources: ['controllers'], kind: '', name: '' }).sort(), ['config', 'loader']);
    assert.deepEqual(sanitizeFilter({ hiddenSources: ['controllers', 'bogus' as never] }).hiddenSources, ['controllers']);
  });

  it('texts: a one-line label, and details that list what the reconcile wrote', () => {
    const m = model(...story);
    const rs = m.lanes().find((l) => l.key === 'controller:replicaset')!.items[0]!;
    assert.equal(itemLabel(rs), '0.012s  controller/replicaset  syncReplicaSet replicasets.apps:default/web-7d4b9c: ok, created 2, 2 Events, 3 ms');
    const d = describeItem(rs, 100);
    assert.equal(d.title, 'controller/replicaset · syncReplicaSet · replicasets.apps:default/web-7d4b9c · created 2, 2 Events');
    const rows = Object.fromEntries(d.rows);
    assert.equal(rows['Controller reconcile'], 'replicaset / syncReplicaSet');
    assert.equal(rows.Created, 'pods:default/web-7d4b9c-abcde, pods:default/web-7d4b9c-fghij');
    assert.equal(rows.Did, 'created 2, 2 Events');
    assert.equal(rows.Deleted, undefined);
    const many = reconcile(0, 'replicaset', {
      created: Array.from({ length: 25 }, (_, i) => `pods:default/p-${i}`),
      statusUpdates: 1,
      outcome: 'error',
      message: 'boom',
    });
    const r2 = Object.fromEntries(
      describeItem(
        model(many)
          .lanes()
          .find((l) => l.kind === 'controller')!.items[0]!,
        0,
      ).rows,
    );
    assert.match(r2.Created!, /pods:default\/p-19, \+5 more$/);
    assert.equal(r2.Did, 'created 25, status updated');
    assert.equal(r2.Outcome, 'error');
    assert.equal(r2.Message, 'boom');
    assert.equal(
      eventLabel(reconcile(1000, 'job', { key: 'jobs.batch:default/j', handler: 'syncJob', durationMs: 0 })),
      '1.000s  controller/job  syncJob jobs.batch:default/j: ok, no change, 0 ms',
    );
  });
});
