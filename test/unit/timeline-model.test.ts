// The timeline webview's model: loader task phases become one bar per task on its worker's lane,
// iterations become marks on their source's lane, and the bookkeeping that culling relies on holds.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TimelineModel, itemEnd, keyKinds, laneSource, sourceOf, type Bar, type Mark } from '../../src/vscode/timeline/webview/model';
import { makePredicate } from '../../src/vscode/timeline/webview/filter';
import type { KubeletLineEvent, LoaderTaskEvent, SyncIterationEvent } from '../../src/core/timeline/events';
import type { TimelineItem } from '../../src/shared/protocol';
import { syntheticTimeline } from './timeline-fixtures';

const gvr = { group: 'apps', version: 'v1', resource: 'deployments' };
function task(taskId: number, phase: LoaderTaskEvent['phase'], t: number, extra: Partial<LoaderTaskEvent> = {}): LoaderTaskEvent {
  return { kind: 'task', loadId: 'l1', taskId, worker: extra.worker ?? 0, phase, t, gvr, ...extra };
}
function iteration(t: number, extra: Partial<SyncIterationEvent> = {}): SyncIterationEvent {
  return {
    kind: 'iteration',
    t,
    source: 'pleg',
    op: 'ContainerStarted',
    key: 'default/web-0',
    handler: 'HandlePodSyncs',
    durationMs: 0.5,
    outcome: 'ok',
    ...extra,
  };
}
function items(...events: (LoaderTaskEvent | SyncIterationEvent)[]): TimelineItem[] {
  return events.map((event, id) => ({ id, event }));
}

describe('TimelineModel lanes', () => {
  it('has the five sync-source lanes before any event, in upstream order, then the informers, the pod workers and freshness', () => {
    const m = new TimelineModel();
    assert.deepEqual(
      m.lanes().map((l) => l.key),
      ['source:config', 'source:pleg', 'source:sync', 'source:probe', 'source:housekeeping', 'source:informer', 'source:podworker', 'source:freshness'],
    );
  });

  it("a real kubelet's lines get a lane per node, after the sync sources (the judge below what it judges), filtered as one source", () => {
    const m = new TimelineModel();
    const line = (node: string, t: number): KubeletLineEvent => ({
      kind: 'kubelet',
      t,
      node,
      source: 'pleg',
      op: 'ContainerStarted',
      key: 'default/web-0',
      handler: 'HandlePodSyncs',
      outcome: 'ok',
      durationMs: 0,
      raw: 'I1207 03:28:48.459832   12657 kubelet.go:2737] "SyncLoop (PLEG): event for pod"',
    });
    m.add([
      { id: 1, event: line('lab-2', 5) },
      { id: 2, event: iteration(4) },
      { id: 3, event: line('lab-1', 6) },
    ]);
    assert.deepEqual(
      m
        .lanes()
        .map((l) => l.key)
        .slice(-3),
      ['source:freshness', 'kubelet:lab-1', 'kubelet:lab-2'],
    );
    const lab1 = m.lanes().find((l) => l.key === 'kubelet:lab-1')!;
    assert.equal(lab1.label, 'kubelet lab-1');
    assert.equal(laneSource(lab1), 'kubelet');
    assert.equal(sourceOf(m.byId(3)!), 'kubelet');
    m.applyFilter(makePredicate({ hiddenSources: ['kubelet'], kind: '', name: '' }));
    assert.equal(m.visibleEvents, 1, 'hiding the kubelet source hides every node lane');
    m.applyFilter(makePredicate({ hiddenSources: [], kind: '', name: 'lab-2' }));
    assert.deepEqual(
      [1, 2, 3].filter((id) => m.byId(id)!.visible),
      [1],
      "the name filter finds a kubelet's lines by its node",
    );
  });

  it('adds one lane per worker seen, workers first and ascending', () => {
    const m = new TimelineModel();
    m.add(items(task(1, 'start', 0, { worker: 3 }), task(2, 'start', 0, { worker: 0 }), task(3, 'start', 1, { worker: 3 })));
    assert.deepEqual(
      m.lanes().map((l) => l.label),
      ['worker 0', 'worker 3', 'config', 'pleg', 'sync', 'probe', 'housekeeping', 'informer', 'podworker', 'freshness'],
    );
    assert.equal(m.lanes()[1]!.items.length, 2);
  });
});

describe('TimelineModel bars from task phases', () => {
  it('groups start/page/retry/finish of one task (loadId+taskId) into one bar with every field', () => {
    const m = new TimelineModel();
    m.add(
      items(
        task(7, 'start', 10),
        task(7, 'page', 20, { count: 500 }),
        task(7, 'retry', 25, { status: 429, message: 'slow down' }),
        task(7, 'page', 40, { count: 12 }),
        task(7, 'finish', 41, { count: 512, pages: 2, retries: 1, durationMs: 31, outcome: 'ok' }),
      ),
    );
    assert.equal(m.size, 1);
    const bar = m.lanes()[0]!.items[0] as Bar;
    assert.equal(bar.type, 'bar');
    assert.deepEqual([bar.id, bar.ids], [0, [0, 1, 2, 3, 4]]);
    assert.deepEqual([bar.start, bar.end, bar.outcome, bar.count, bar.durationMs], [10, 41, 'ok', 512, 31]);
    assert.deepEqual(bar.pages, [
      { t: 20, count: 500 },
      { t: 40, count: 12 },
    ]);
    assert.deepEqual(bar.retries, [{ t: 25, message: 'slow down' }]);
    for (let id = 0; id < 5; id++) assert.equal(m.byId(id), bar, `event ${id} resolves to its bar`);
    assert.equal(m.lanes()[0]!.open.size, 0);
    assert.equal(m.lanes()[0]!.maxSpan, 31);
  });

  it('keeps tasks of different loads apart even with the same taskId', () => {
    const m = new TimelineModel();
    m.add(items(task(1, 'start', 0), task(1, 'finish', 5), { ...task(1, 'start', 10), loadId: 'l2' }, { ...task(1, 'finish', 12), loadId: 'l2' }));
    assert.equal(m.size, 2);
  });

  it('a running bar is open, reaches the latest time seen, and closes on finish with its outcome', () => {
    const m = new TimelineModel();
    m.add(items(task(1, 'start', 0), iteration(50)));
    const bar = m.lanes()[0]!.items[0] as Bar;
    assert.equal(bar.outcome, 'running');
    assert.ok(bar.lane.open.has(bar), 'bar.lane.open.has(bar)');
    assert.equal(itemEnd(bar, m.maxT!), 50.5);
    m.add([{ id: 2, event: task(1, 'finish', 60, { outcome: 'error', status: 403, message: 'forbidden' }) }]);
    assert.deepEqual([bar.end, bar.outcome, bar.status, bar.message, bar.lane.open.size], [60, 'error', 403, 'forbidden', 0]);
  });

  it('a finish whose start was dropped still spans its duration', () => {
    const m = new TimelineModel();
    m.add(items(task(1, 'finish', 100, { durationMs: 40, outcome: 'cancelled' })));
    const bar = m.lanes()[0]!.items[0] as Bar;
    assert.deepEqual([bar.start, bar.end, bar.outcome], [60, 100, 'cancelled']);
    assert.equal(m.minT, 60);
  });

  it('marks know the kinds of the objects in their key, as the sync loop writes keys', () => {
    assert.deepEqual(keyKinds(''), []);
    assert.deepEqual(keyKinds('default/web-0'), ['pods']);
    assert.deepEqual(keyKinds('configmaps:team-a/cm,default/web-0,deployments.apps:team-a/api,configmaps:b/c,+17 more'), [
      'configmaps',
      'pods',
      'deployments.apps',
    ]);
    const m = new TimelineModel();
    m.add(items(iteration(1, { source: 'config', key: 'configmaps:a/b,secrets:a/c' }), iteration(2)));
    assert.deepEqual([...m.kinds].sort(), ['configmaps', 'pods', 'secrets']);
  });

  it('marks carry their event and span its duration', () => {
    const m = new TimelineModel();
    m.add(items(iteration(5, { durationMs: 2 })));
    const mark = m.lanes().find((l) => l.key === 'source:pleg')!.items[0] as Mark;
    assert.deepEqual([mark.type, mark.start, mark.end, mark.event.kind === 'writes' ? '' : mark.event.key], ['mark', 5, 7, 'default/web-0']);
    assert.deepEqual([m.minT, m.maxT], [5, 7]);
  });
});

describe('TimelineModel invariants (property)', () => {
  it('after any arrival order: lanes sorted, every finished span <= maxSpan, every running bar in open', () => {
    const all = syntheticTimeline(600, { seed: 3 });
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 599 }), { minLength: 0, maxLength: 40 }), fc.integer({ min: 1, max: 200 }), (swaps, batch) => {
        const shuffled = [...all];
        for (let i = 0; i + 1 < swaps.length; i += 2) [shuffled[swaps[i]!], shuffled[swaps[i + 1]!]] = [shuffled[swaps[i + 1]!]!, shuffled[swaps[i]!]!];
        const m = new TimelineModel();
        for (let i = 0; i < shuffled.length; i += batch) m.add(shuffled.slice(i, i + batch));
        m.ensureSorted();
        let events = 0;
        for (const lane of m.lanes()) {
          for (let i = 1; i < lane.items.length; i++)
            assert.ok(lane.items[i - 1]!.start <= lane.items[i]!.start, 'lane.items[i - 1]!.start <= lane.items[i]!.start');
          for (const it of lane.items) {
            events += it.type === 'bar' ? it.ids.length : 1;
            if (it.type === 'bar' && it.end === undefined) assert.ok(lane.open.has(it), 'lane.open.has(it)');
            else assert.ok(itemEnd(it, 0) - it.start <= lane.maxSpan + 1e-9, 'itemEnd(it, 0) - it.start <= lane.maxSpan + 1e-9');
          }
        }
        assert.equal(events, all.length, 'every event is in exactly one item');
        assert.equal(m.eventCount, all.length);
        for (const it of all) assert.ok(m.byId(it.id), `id ${it.id} resolves`);
      }),
      { numRuns: 50 },
    );
  });
});

describe('TimelineModel.prune', () => {
  it('forgets items whose events the host dropped, and nothing else', () => {
    const all = syntheticTimeline(20_000, { seed: 5 });
    const m = new TimelineModel();
    m.add(all);
    const before = m.eventCount;
    assert.equal(m.prune(3000), false, 'below the batch size it waits');
    assert.equal(m.prune(8000), true);
    for (const lane of m.lanes()) {
      for (const it of lane.items) {
        const last = it.type === 'bar' ? it.ids[it.ids.length - 1]! : it.id;
        assert.ok(last >= 8000, `item with last id ${last} survived`);
      }
    }
    for (const it of all.slice(8000)) assert.ok(m.byId(it.id), `kept id ${it.id}`);
    assert.ok(m.eventCount < before && m.eventCount >= 12_000, 'm.eventCount < before && m.eventCount >= 12_000');
    assert.ok(m.byId(0) === undefined, 'm.byId(0) === undefined');
  });
});
