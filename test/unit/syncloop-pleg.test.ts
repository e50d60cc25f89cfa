import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock } from '../../src/core/clock';
import { Channel } from '../../src/core/syncloop/channel';
import { containerStates, generateEvents, GenericPLEG, type PlegContainerState } from '../../src/core/syncloop/pleg/generic';
import { goDuration, PlegRelister, PodsNotSynced } from '../../src/core/syncloop/pleg/relister';
import { PodStorage } from '../../src/core/syncloop/config/storage';
import { TimeSlicer } from '../../src/core/slice';
import type { ContainerStatus, Pod } from '../../src/core/kube/objects/pod';
import type { PodLifecycleEvent } from '../../src/core/syncloop/types';

const states: PlegContainerState[] = ['running', 'exited', 'unknown', 'non-existent'];

describe('generateEvents, the PLEG table of syncloop.md', () => {
  const expected: Record<PlegContainerState, Record<PlegContainerState, string[]>> = {
    running: { running: [], exited: ['ContainerDied'], unknown: ['ContainerChanged'], 'non-existent': ['ContainerDied', 'ContainerRemoved'] },
    exited: { running: ['ContainerStarted'], exited: [], unknown: ['ContainerChanged'], 'non-existent': ['ContainerRemoved'] },
    unknown: { running: ['ContainerStarted'], exited: ['ContainerDied'], unknown: [], 'non-existent': ['ContainerDied', 'ContainerRemoved'] },
    'non-existent': { running: ['ContainerStarted'], exited: ['ContainerDied'], unknown: ['ContainerChanged'], 'non-existent': [] },
  };
  for (const from of states) {
    for (const to of states) {
      it(`${from} -> ${to}: ${expected[from][to].join(', ') || 'nothing'}`, () => {
        const ev = generateEvents('uid', 'cid', from, to);
        assert.deepEqual(
          ev.map((e) => e.type),
          expected[from][to],
        );
        for (const e of ev) assert.deepEqual([e.id, e.data], ['uid', 'cid']);
      });
    }
  }
});

function st(name: string, s: Partial<ContainerStatus>): ContainerStatus {
  return { name, ready: false, restartCount: 0, ...s };
}
function pod(uid: string, status: Pod['status']): Pod {
  return { metadata: { name: `p-${uid}`, namespace: 'default', uid }, spec: { containers: [{ name: 'c' }] }, status };
}

describe('containerStates: what the API shows, read as runtime state', () => {
  it('reads running, terminated, CrashLoopBackOff (waiting on the last exited ID), and containers not yet created', () => {
    const m = containerStates(
      pod('1', {
        initContainerStatuses: [st('init', { containerID: 'containerd://i1', state: { terminated: { exitCode: 0, reason: 'Completed' } } })],
        containerStatuses: [
          st('run', { containerID: 'containerd://r2', state: { running: {} }, lastState: { terminated: { exitCode: 137, containerID: 'containerd://r1' } } }),
          st('crash', {
            containerID: 'containerd://c1',
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 1, containerID: 'containerd://c1' } },
          }),
          st('new', { state: { waiting: { reason: 'ContainerCreating' } } }),
        ],
        ephemeralContainerStatuses: [st('debug', { containerID: 'containerd://e1', state: { running: {} } })],
      }),
    );
    assert.deepEqual(Object.fromEntries(m), { i1: 'exited', r1: 'exited', r2: 'running', c1: 'exited', e1: 'running' });
  });
});

describe('GenericPLEG.relist', () => {
  it('a container restart is one ContainerDied and one ContainerStarted; a pod gone kills and removes what ran', () => {
    const pleg = new GenericPLEG();
    const types = (ps: Pod[]) => pleg.relist(ps).events.map((e) => `${e.type}:${e.data}`);
    assert.deepEqual(types([pod('1', { containerStatuses: [st('c', { state: { waiting: { reason: 'ContainerCreating' } } })] })]), []);
    assert.deepEqual(types([pod('1', { containerStatuses: [st('c', { containerID: 'docker://a', state: { running: {} } })] })]), ['ContainerStarted:a']);
    const restarted = pod('1', {
      containerStatuses: [
        st('c', { containerID: 'docker://b', restartCount: 1, state: { running: {} }, lastState: { terminated: { exitCode: 2, containerID: 'docker://a' } } }),
      ],
    });
    assert.deepEqual(types([restarted]).sort(), ['ContainerDied:a', 'ContainerStarted:b']);
    assert.deepEqual(types([restarted]), []);
    assert.deepEqual(types([]).sort(), ['ContainerDied:b', 'ContainerRemoved:a', 'ContainerRemoved:b']);
    assert.equal(pleg.podCount, 0);
  });

  it('bounded work: past maxDiffs changed pods the rest wait for the next relist, late but not lost, and never reported removed', () => {
    const pleg = new GenericPLEG(2);
    const pods = Array.from({ length: 5 }, (_, i) => pod(String(i), { containerStatuses: [st('c', { containerID: `x://${i}`, state: { running: {} } })] }));
    const r1 = pleg.relist(pods);
    assert.deepEqual([r1.events.length, r1.deferred], [2, 3]);
    const r2 = pleg.relist(pods);
    assert.deepEqual([r2.events.length, r2.deferred], [2, 1]);
    const r3 = pleg.relist(pods);
    assert.deepEqual([r3.events.length, r3.deferred], [1, 0]);
    const all = [...r1.events, ...r2.events, ...r3.events];
    assert.deepEqual(
      all.map((e) => e.type),
      Array(5).fill('ContainerStarted'),
    );
    assert.deepEqual(new Set(all.map((e) => e.id)), new Set(['0', '1', '2', '3', '4']));
    assert.deepEqual(pleg.relist(pods).events, []);
    assert.equal(pleg.podCount, 5);
  });

  it('property: relisting the same pods twice yields nothing the second time, and records only the pods of the last relist', () => {
    const statusArb = fc.record({
      id: fc.constantFrom('a', 'b', 'c', 'd'),
      state: fc.constantFrom('running', 'terminated', 'waiting'),
      last: fc.option(fc.constantFrom('a', 'b', 'c', 'd'), { nil: undefined }),
    });
    const podsArb = fc.uniqueArray(fc.record({ uid: fc.constantFrom('1', '2', '3'), statuses: fc.array(statusArb, { maxLength: 3 }) }), {
      selector: (p) => p.uid,
      maxLength: 3,
    });
    fc.assert(
      fc.property(fc.array(podsArb, { minLength: 1, maxLength: 10 }), (relists) => {
        const pleg = new GenericPLEG();
        for (const r of relists) {
          const pods = r.map((p) =>
            pod(p.uid, {
              containerStatuses: p.statuses.map((s, i) =>
                st(`c${i}`, {
                  containerID: `x://${p.uid}${s.id}`,
                  state: s.state === 'running' ? { running: {} } : s.state === 'terminated' ? { terminated: { exitCode: 1 } } : { waiting: { reason: 'W' } },
                  ...(s.last ? { lastState: { terminated: { exitCode: 1, containerID: `x://${p.uid}${s.last}` } } } : {}),
                }),
              ),
            }),
          );
          const first = pleg.relist(pods).events;
          for (const e of first) assert.notEqual(e.type, 'ContainerChanged');
          assert.deepEqual(pleg.relist(pods).events, []);
          assert.equal(pleg.podCount, pods.length);
        }
      }),
    );
  });
});

describe('PlegRelister: relists the pod store the watches keep', () => {
  it('diffs successive store states every period, discards (and counts) events when plegCh is full, and survives a failed read', async () => {
    const clock = new FakeClock();
    const storage = new PodStorage();
    let synced = true;
    const read = () => {
      if (!synced) throw new PodsNotSynced('pods watch down');
      return storage.sourceValues('api') as Iterable<Pod>;
    };
    const running = (i: number, rv: string) => ({
      ...pod(String(i), { containerStatuses: [st('c', { containerID: `x://${i}`, state: { running: {} } })] }),
      metadata: { name: `p-${i}`, namespace: 'default', uid: String(i), resourceVersion: rv },
    });
    const ch = new Channel<PodLifecycleEvent>(2, 'plegCh');
    const take = () => {
      const got = ch.tryRecv();
      return got.ok ? got.value : undefined;
    };
    const r = new PlegRelister(read, clock, ch, 1000);
    const ac = new AbortController();
    storage.merge('api', { op: 'SET', source: 'api', pods: [running(0, '1')] });
    const run = r.run(ac.signal);
    await clock.advance(0);
    assert.equal(r.relists, 1);
    assert.deepEqual(take(), { id: '0', type: 'ContainerStarted', data: '0' });
    // A watch event (ADD) changes the store; the next relist sees the new pod only.
    storage.merge('api', { op: 'ADD', source: 'api', pods: [running(1, '2')] });
    await clock.advance(1000);
    assert.equal(ch.length, 1);
    storage.merge('api', { op: 'ADD', source: 'api', pods: [running(2, '3'), running(3, '4'), running(4, '5')] });
    await clock.advance(1000);
    assert.equal(ch.length, 2);
    assert.equal(r.discarded, 2);
    // A REMOVE: the pod's container dies and goes.
    storage.merge('api', { op: 'REMOVE', source: 'api', pods: [running(0, '6')] });
    while (ch.length) take();
    await clock.advance(1000);
    assert.deepEqual([take()?.type, take()?.type], ['ContainerDied', 'ContainerRemoved']);
    synced = false;
    await clock.advance(1000);
    assert.equal(r.errors, 1);
    assert.equal(r.pleg.podCount, 4, 'a failed read keeps the records');
    ac.abort();
    await run;
    assert.equal(clock.pendingTimers(), 0);
  });

  it('a quiet store costs no diffing: unchanged objects are not re-read', () => {
    const clock = new FakeClock();
    const storage = new PodStorage();
    let reads = 0;
    const pods = Array.from({ length: 100 }, (_, i) => pod(String(i), { containerStatuses: [st('c', { containerID: `x://${i}`, state: { running: {} } })] }));
    // Count reads of each pod's status (what containerStates reads).
    for (const p of pods) {
      const status = p.status;
      Object.defineProperty(p, 'status', { get: () => (reads++, status), enumerable: true });
    }
    storage.merge('api', { op: 'SET', source: 'api', pods });
    const r = new PlegRelister(() => storage.sourceValues('api') as Iterable<Pod>, clock);
    r.relistOnce();
    const first = reads;
    assert.ok(first >= 100);
    r.relistOnce();
    assert.equal(reads, first, 'the second relist of the same objects read no status');
  });

  it('a relist in slices gives the thread back every few hundred pods and sends what one relist in one go sends; a store changed between slices is caught up by the next', async () => {
    const clock = new FakeClock();
    const running = (i: number, id: string) => pod(String(i), { containerStatuses: [st('c', { containerID: `x://${id}`, state: { running: {} } })] });
    const first = Array.from({ length: 3000 }, (_, i) => running(i, `a${i}`));
    const next = first.map((p, i) => (i % 7 === 0 ? running(i, `b${i}`) : p)).filter((_, i) => i % 11 !== 5);
    const eventsOf = async (sliced: boolean) => {
      const storage = new PodStorage();
      storage.merge('api', { op: 'SET', source: 'api', pods: first });
      const ch = new Channel<PodLifecycleEvent>(100_000, 'plegCh');
      // A slicer whose every stretch is spent: each step waits for a later macrotask.
      const r = new PlegRelister(() => storage.sourceValues('api') as Iterable<Pod>, clock, ch, 1000, 180_000, new TimeSlicer(0));
      const turns = { n: 0 };
      const tick = setInterval(() => turns.n++, 0);
      try {
        assert.ok(sliced ? await r.relistOnceSliced() : r.relistOnce());
        storage.merge('api', { op: 'SET', source: 'api', pods: next });
        assert.ok(sliced ? await r.relistOnceSliced() : r.relistOnce());
      } finally {
        clearInterval(tick);
      }
      const out: string[] = [];
      for (let r = ch.tryRecv(); r.ok; r = ch.tryRecv()) out.push(`${r.value.id} ${r.value.type} ${String(r.value.data)}`);
      return { out: out.sort(), turns: turns.n };
    };
    const whole = await eventsOf(false);
    const sliced = await eventsOf(true);
    assert.deepEqual(sliced.out, whole.out);
    assert.ok(whole.out.length > 3000, `events ${whole.out.length}`);
    assert.equal(whole.turns, 0, 'in one go: no timer ran');
    assert.ok(sliced.turns >= 5, `timers ran between slices: ${sliced.turns}`);

    // The store replaced while a relist is paused between slices: the next relist converges on it.
    const storage = new PodStorage();
    storage.merge('api', { op: 'SET', source: 'api', pods: first });
    const ch = new Channel<PodLifecycleEvent>(100_000, 'plegCh');
    const r = new PlegRelister(() => storage.sourceValues('api') as Iterable<Pod>, clock, ch, 1000, 180_000, new TimeSlicer(0));
    const pending = r.relistOnceSliced();
    await new Promise<void>((done) => setImmediate(done));
    storage.merge('api', { op: 'SET', source: 'api', pods: next });
    assert.ok(await pending);
    assert.ok(await r.relistOnceSliced());
    const before = r.pleg.podCount;
    assert.equal(before, next.length);
    while (ch.tryRecv().ok);
    assert.ok(r.relistOnce());
    assert.equal(ch.tryRecv().ok, false, 'converged: a relist of the same store sends nothing');
  });

  it("health: unhealthy once relists have failed for longer than the threshold, in the kubelet's words; healthy again after one relist", async () => {
    const clock = new FakeClock();
    let synced = true;
    const r = new PlegRelister(
      () => {
        if (!synced) throw new PodsNotSynced('down');
        return [];
      },
      clock,
      undefined,
      1000,
      180_000,
    );
    assert.deepEqual(r.health(), { healthy: true, sinceLastRelistMs: 0 });
    assert.ok(r.relistOnce());
    synced = false;
    await clock.advance(180_000);
    assert.equal(r.relistOnce(), false);
    assert.equal(r.healthy(), true, 'exactly at the threshold: still healthy');
    await clock.advance(5_250);
    assert.deepEqual(r.health(), { healthy: false, sinceLastRelistMs: 185_250, message: 'pleg was last seen active 3m5.25s ago; threshold is 3m0s' });
    synced = true;
    assert.ok(r.relistOnce());
    assert.equal(r.healthy(), true);
  });

  it('health before the first relist counts from start: "pleg has yet to be successful"', async () => {
    const clock = new FakeClock();
    const r = new PlegRelister(
      () => {
        throw new PodsNotSynced('never listed');
      },
      clock,
      undefined,
      1000,
      60_000,
    );
    r.relistOnce();
    assert.ok(r.healthy());
    await clock.advance(60_001);
    assert.equal(r.health().message, 'pleg has yet to be successful; threshold is 1m0s');
  });
});

describe("goDuration: Go's time.Duration.String", () => {
  it('prints like Go', () => {
    const cases: [number, string][] = [
      [0, '0s'],
      [450, '450ms'],
      [1500, '1.5s'],
      [180_000, '3m0s'],
      [185_250, '3m5.25s'],
      [3_723_000, '1h2m3s'],
      [3_600_000, '1h0m0s'],
      [0.5, '0.5ms'],
    ];
    for (const [ms, want] of cases) assert.equal(goDuration(ms), want, String(ms));
  });
});
