// The timeline ring: bounded, oldest dropped first and counted, and every event read back equal to
// the one appended, whether the ring packed it into its columns (sync-loop iterations) or kept it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TimelineStore } from '../../src/core/timeline/store';
import { MESSAGE_TABLE_MAX } from '../../src/core/timeline/packedIterations';
import type { SyncIterationEvent, TimelineEvent } from '../../src/core/timeline/events';
import { podWorkerMark } from '../../src/core/syncloop/podworkerlane';

const num = fc.oneof(fc.double({ noNaN: false }), fc.integer(), fc.constant(-0));
const str = fc.oneof(fc.string(), fc.constantFrom('UPDATE', 'SyncPod', 'ns/p', ''));
const worker = fc.record(
  {
    state: fc.constantFrom('syncing', 'terminating', 'terminated', 'exploded'),
    coalesced: fc.oneof(fc.nat(), fc.constant(2 ** 32), fc.constant(-1), fc.constant(1.5)),
    nextDueT: num,
    gracePeriodSeconds: num,
    waitedMs: num,
    probes: fc.array(fc.string(), { maxLength: 2 }),
  },
  { requiredKeys: ['state', 'coalesced'] },
);
/** Iterations the ring can pack, and near-misses it must keep as given (odd sources, extra fields, explicit undefined). */
const iteration = fc.record(
  {
    kind: fc.constant('iteration' as const),
    t: num,
    durationMs: num,
    source: fc.constantFrom('config', 'pleg', 'sync', 'probe', 'housekeeping', 'informer', 'podworker', 'elsewhere'),
    op: str,
    key: str,
    handler: str,
    outcome: fc.constantFrom('ok', 'error', 'skipped', 'maybe'),
    message: fc.oneof(str, fc.constant(undefined)),
    node: str,
    uid: str,
    data: fc.oneof(str, fc.constant(undefined)),
    inferred: fc.oneof(fc.constant(true), fc.constant(false)),
    worker,
    extra: fc.integer(),
  },
  { requiredKeys: ['kind', 't', 'durationMs', 'source', 'op', 'key', 'handler', 'outcome'] },
) as fc.Arbitrary<SyncIterationEvent>;
const task = fc.record({
  kind: fc.constant('task' as const),
  loadId: fc.string(),
  taskId: fc.nat(),
  worker: fc.nat(),
  phase: fc.constantFrom('start', 'finish'),
  t: num,
  gvr: fc.record({ group: fc.string(), version: fc.string(), resource: fc.string() }),
}) as fc.Arbitrary<TimelineEvent>;

describe('TimelineStore', () => {
  it('reads back every held event deep-equal to the one appended, the oldest dropped first and counted', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(fc.oneof(iteration, iteration, task), { maxLength: 120 }), (capacity, events) => {
        const store = new TimelineStore(capacity);
        const seen: TimelineEvent[] = [];
        store.subscribe((e) => seen.push(e));
        for (const e of events) store.append(e);
        const kept = events.slice(Math.max(0, events.length - capacity));
        assert.equal(store.length, kept.length);
        assert.equal(store.dropped, events.length - kept.length);
        assert.deepStrictEqual(store.toArray(), kept);
        kept.forEach((e, i) => assert.deepStrictEqual(store.at(i), e));
        assert.equal(store.at(kept.length), undefined);
        // Subscribers get the appended objects themselves.
        assert.equal(seen.length, events.length);
        seen.forEach((e, i) => assert.equal(e, events[i]));
      }),
      { numRuns: 300 },
    );
  });

  it("packs the loop's own iterations (a fresh equal object comes back) and keeps the rest as given", () => {
    const store = new TimelineStore(10);
    const mark = podWorkerMark(
      {
        key: 'ns/p',
        uid: 'u1',
        work: 'terminating',
        state: 'terminated',
        coalesced: 2,
        startedAt: 12.5,
        durationMs: 0.25,
        updateType: 'kill',
        outcome: 'ok',
        nextDueAt: 40,
        gracePeriodSeconds: 30,
      } as never,
      2,
      undefined,
    );
    const config: SyncIterationEvent = {
      kind: 'iteration',
      t: 1,
      durationMs: 0.1,
      source: 'config',
      op: 'ADD',
      key: 'ns/p',
      handler: 'HandlePodAdditions',
      outcome: 'ok',
      node: 'n1',
      uid: 'u1',
    };
    const withProbes: SyncIterationEvent = { ...config, worker: { state: 'syncing', coalesced: 0, probes: ['c liveness: failure 1 of failureThreshold 3'] } };
    for (const e of [mark, config, withProbes]) store.append(e);
    assert.notEqual(store.at(0), mark, 'a pod-worker mark is packed');
    assert.deepStrictEqual(store.at(0), mark);
    assert.notEqual(store.at(1), config, 'a config iteration is packed');
    assert.deepStrictEqual(store.at(1), config);
    assert.equal(store.at(2), withProbes, 'an iteration with probe progress is kept as given');
  });

  it('wraps and clears: a packed slot overwritten by a kept event (and back) reads the new one', () => {
    const store = new TimelineStore(2);
    const it1: SyncIterationEvent = {
      kind: 'iteration',
      t: 1,
      durationMs: 1,
      source: 'sync',
      op: 'tick',
      key: 'a/b',
      handler: 'HandlePodSyncs',
      outcome: 'ok',
      message: 'm',
    };
    const kept: TimelineEvent = {
      kind: 'reconcile',
      t: 2,
      controller: 'deployment',
      key: 'deployments.apps:a/d',
      handler: 'syncDeployment',
      durationMs: 1,
      outcome: 'ok',
    };
    store.append(it1);
    store.append(kept);
    store.append(kept); // overwrites the packed slot 0
    assert.deepStrictEqual(store.toArray(), [kept, kept]);
    store.append(it1); // overwrites the kept slot 1 with a packed one
    assert.deepStrictEqual(store.toArray(), [kept, it1]);
    store.clear();
    assert.equal(store.length, 0);
    assert.equal(store.dropped, 0);
    store.append(it1);
    assert.deepStrictEqual(store.toArray(), [it1]);
  });

  it('shares equal messages through a bounded table: many distinct messages still read back right', () => {
    const store = new TimelineStore(MESSAGE_TABLE_MAX * 3);
    const n = MESSAGE_TABLE_MAX * 3;
    for (let i = 0; i < n; i++)
      store.append({
        kind: 'iteration',
        t: i,
        durationMs: 0,
        source: 'pleg',
        op: 'ContainerDied',
        key: `ns/p${i % 7}`,
        handler: 'HandlePodSyncs',
        outcome: 'error',
        message: `exit ${i}`,
      });
    for (let i = 0; i < n; i += 997) assert.equal((store.at(i) as SyncIterationEvent).message, `exit ${i}`);
    const a = store.at(n - 1) as SyncIterationEvent;
    store.append({
      kind: 'iteration',
      t: n,
      durationMs: 0,
      source: 'pleg',
      op: 'ContainerDied',
      key: 'ns/q',
      handler: 'HandlePodSyncs',
      outcome: 'error',
      message: `exit ${n - 1}`,
    });
    assert.equal((store.at(store.length - 1) as SyncIterationEvent).message, a.message);
  });
});
