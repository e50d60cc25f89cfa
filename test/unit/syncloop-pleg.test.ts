import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock } from '../../src/core/clock';
import { Channel } from '../../src/core/syncloop/channel';
import { containerStates, generateEvents, GenericPLEG, type PlegContainerState } from '../../src/core/syncloop/pleg/generic';
import { PlegRelister } from '../../src/core/syncloop/pleg/relister';
import type { ContainerStatus, Pod, PodLifecycleEvent } from '../../src/core/syncloop/types';

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
        assert.deepEqual(ev.map((e) => e.type), expected[from][to]);
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
          st('crash', { containerID: 'containerd://c1', state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, containerID: 'containerd://c1' } } }),
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
    const restarted = pod('1', { containerStatuses: [st('c', { containerID: 'docker://b', restartCount: 1, state: { running: {} }, lastState: { terminated: { exitCode: 2, containerID: 'docker://a' } } })] });
    assert.deepEqual(types([restarted]).sort(), ['ContainerDied:a', 'ContainerStarted:b']);
    assert.deepEqual(types([restarted]), []);
    assert.deepEqual(types([]).sort(), ['ContainerDied:b', 'ContainerRemoved:a', 'ContainerRemoved:b']);
    assert.equal(pleg.podCount, 0);
  });

  it('property: relisting the same pods twice yields nothing the second time, and records only the pods of the last relist', () => {
    const statusArb = fc.record({
      id: fc.constantFrom('a', 'b', 'c', 'd'),
      state: fc.constantFrom('running', 'terminated', 'waiting'),
      last: fc.option(fc.constantFrom('a', 'b', 'c', 'd'), { nil: undefined }),
    });
    const podsArb = fc.uniqueArray(fc.record({ uid: fc.constantFrom('1', '2', '3'), statuses: fc.array(statusArb, { maxLength: 3 }) }), { selector: (p) => p.uid, maxLength: 3 });
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

describe('PlegRelister', () => {
  it('relists every period, discards (and counts) events when plegCh is full, and survives a failed list', async () => {
    const clock = new FakeClock();
    let n = 0;
    let fail = false;
    const list = async () => {
      if (fail) throw new Error('boom');
      n++;
      return Array.from({ length: n }, (_, i) => pod(String(i), { containerStatuses: [st('c', { containerID: `x://${i}`, state: { running: {} } })] }));
    };
    const ch = new Channel<PodLifecycleEvent>(2, 'plegCh');
    const r = new PlegRelister(list, clock, ch, 1000);
    const ac = new AbortController();
    const run = r.run(ac.signal);
    await clock.advance(0);
    assert.equal(r.relists, 1);
    assert.equal(ch.length, 1);
    await clock.advance(1000);
    assert.equal(ch.length, 2);
    await clock.advance(1000);
    assert.equal(r.discarded, 1);
    fail = true;
    await clock.advance(1000);
    assert.equal(r.errors, 1);
    assert.equal(r.pleg.podCount, 3);
    ac.abort();
    await run;
    assert.equal(clock.pendingTimers(), 0);
  });
});
