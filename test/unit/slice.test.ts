// The thread's time slices (core/slice.ts): long work gives the event loop back, parked callers
// resume in order and a few at a time, nothing stays parked. Time is a fake `now`; macrotasks are real.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runSteps, runStepsSliced, TimeSlicer, type Steps } from '../../src/core/slice';
import { PodStorage } from '../../src/core/syncloop/config/storage';
import type { StoredObject } from '../../src/core/kube/objects/types';

const macrotask = () => new Promise<void>((r) => setImmediate(r));

function fakeTime() {
  let t = 1000;
  return { now: () => t, spend: (ms: number) => void (t += ms) };
}

describe('TimeSlicer', () => {
  it('lets work go on synchronously until the slice is spent, then resumes it after a macrotask queued before', async () => {
    const time = fakeTime();
    const s = new TimeSlicer(8, time.now);
    assert.equal(s.due(), undefined, 'the first call starts the stretch');
    time.spend(7);
    assert.equal(s.due(), undefined, '7 ms of 8: go on');
    time.spend(1);
    const order: string[] = [];
    setImmediate(() => order.push('other work'));
    const turn = s.due();
    assert.ok(turn, 'the slice is spent: wait');
    await turn.then(() => order.push('resumed'));
    assert.deepEqual(order, ['other work', 'resumed']);
    assert.equal(s.due(), undefined, 'a new slice after the wait');
  });

  it('a stretch starts when the thread was free: an isolated event never waits', async () => {
    const time = fakeTime();
    const s = new TimeSlicer(8, time.now);
    assert.equal(s.due(), undefined);
    await macrotask();
    time.spend(60_000); // idle for a minute
    assert.equal(s.due(), undefined, 'idle time is not a spent slice');
  });

  it('parked callers resume in the order they parked, at most a slice of them per turn, and none is left', async () => {
    const time = fakeTime();
    const s = new TimeSlicer(8, time.now);
    s.due();
    time.spend(8);
    const resumed: number[] = [];
    const perTurn: number[] = [];
    let thisTurn = 0;
    let turns = 0;
    // A timer-like observer: counts how many callers resumed between two macrotasks.
    let watching = true;
    const watch = () => {
      if (!watching) return;
      perTurn.push(thisTurn);
      thisTurn = 0;
      turns++;
      setImmediate(watch);
    };
    setImmediate(watch);
    const callers = Array.from({ length: 100 }, (_, i) =>
      s.due()!.then(() => {
        resumed.push(i);
        thisTurn++;
        time.spend(1); // each resumed caller works 1 ms
      }),
    );
    assert.equal(s.waiting, 100);
    await Promise.all(callers);
    watching = false;
    assert.deepEqual(resumed, [...Array(100).keys()], 'FIFO');
    assert.equal(s.waiting, 0);
    assert.ok(turns >= 100 / 9, `the crowd was spread over turns (${turns})`);
    assert.ok(Math.max(...perTurn, thisTurn) <= 9, `at most a slice of callers per turn: ${Math.max(...perTurn, thisTurn)}`);
  });

  it('a slice of 0 ms still lets one parked caller go per turn: the queue drains', async () => {
    const s = new TimeSlicer(0, () => 0);
    s.due();
    const callers = Array.from({ length: 5 }, () => s.due()!);
    await Promise.all(callers);
    assert.equal(s.waiting, 0);
  });

  it('a caller that comes while others wait joins the end of the queue', async () => {
    const time = fakeTime();
    const s = new TimeSlicer(8, time.now);
    s.due();
    time.spend(8);
    const order: string[] = [];
    const first = s.due()!.then(() => order.push('first'));
    const late = s.due();
    assert.ok(late, 'parks although it brings no spent slice of its own');
    await Promise.all([first, late.then(() => order.push('late'))]);
    assert.deepEqual(order, ['first', 'late']);
  });

  it('steps run to the same result at once or sliced; sliced, other work runs between them', async () => {
    function* count(n: number): Steps<number> {
      let sum = 0;
      for (let i = 1; i <= n; i++) {
        sum += i;
        yield;
      }
      return sum;
    }
    assert.equal(runSteps(count(100)), 5050);
    const time = fakeTime();
    const s = new TimeSlicer(8, time.now);
    function* slow(): Steps<string> {
      for (let i = 0; i < 5; i++) {
        time.spend(8); // every step spends a whole slice
        yield;
      }
      return 'done';
    }
    let otherWorkRan = false;
    s.due(); // the stretch starts here
    setImmediate(() => (otherWorkRan = true));
    const run = runStepsSliced(slow(), s);
    assert.equal(otherWorkRan, false);
    assert.equal(await run, 'done');
    assert.equal(otherWorkRan, true, 'work queued before ran while the steps waited for their turn');
    assert.equal(await runStepsSliced(count(100), s), 5050);
  });
});

describe('PodStorage merge in steps', () => {
  const pod = (i: number): StoredObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p${i}`, namespace: 'ns', uid: `u${i}`, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { containers: [{ name: 'c', image: 'x' }] },
  });

  it('a large SET yields between steps and leaves the source as it was until its last step', () => {
    const storage = new PodStorage();
    storage.merge('api', { op: 'SET', source: 'api', pods: [pod(0)] });
    const big = Array.from({ length: 2000 }, (_, i) => pod(i + 1));
    const steps = storage.mergeSteps('api', { op: 'SET', source: 'api', pods: big });
    let yields = 0;
    for (let n = steps.next(); !n.done; n = steps.next()) {
      yields++;
      assert.deepEqual(
        storage.sourcePods('api').map((p) => p.metadata.uid),
        ['u0'],
        'between steps a reader sees the source before this merge',
      );
    }
    assert.ok(yields >= 2000 / 256 - 1, `yielded ${yields} times`);
    assert.equal(storage.sourcePods('api').length, 2000);
  });

  it('the sliced merge gives the same updates as the synchronous one', async () => {
    const a = new PodStorage();
    const b = new PodStorage();
    const first = Array.from({ length: 1500 }, (_, i) => pod(i));
    const second = [...first.slice(500), ...Array.from({ length: 700 }, (_, i) => pod(5000 + i))];
    const ops = (us: { op: string; pods: StoredObject[] }[]) => us.map((u) => `${u.op}:${u.pods.length}`);
    for (const set of [first, second]) {
      const sync = a.mergeToUpdates('api', { op: 'SET', source: 'api', pods: set });
      const sliced = await runStepsSliced(b.mergeToUpdatesSteps('api', { op: 'SET', source: 'api', pods: set }));
      assert.deepEqual(ops(sliced), ops(sync));
    }
    assert.deepEqual(ops(a.mergeToUpdates('api', { op: 'SET', source: 'api', pods: first })), ['REMOVE:700', 'ADD:500']);
  });
});
