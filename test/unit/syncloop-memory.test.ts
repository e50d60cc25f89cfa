import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock } from '../../src/core/clock';
import { TimeSlicer } from '../../src/core/slice';
import { TimelineStore } from '../../src/core/timeline/store';
import { SyncLoop } from '../../src/core/syncloop/syncloop';
import { syncLoop } from '../../src/core/syncloop/loop';
import type { Pod } from '../../src/core/kube/objects/pod';
import { eventually } from '../support/eventually';

/** A tiny deterministic PRNG, so the long run is reproducible. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pod(i: number, gen: number, rv: number, restarts: number, deleting: boolean): Pod {
  return {
    metadata: { name: `p${i}`, namespace: 'churn', uid: `u${i}-${gen}`, resourceVersion: String(rv), ...(deleting ? { deletionTimestamp: 'x' } : {}) },
    spec: { containers: [{ name: 'c', livenessProbe: {} }] },
    status: {
      phase: 'Running',
      containerStatuses: [{ name: 'c', ready: restarts % 2 === 0, restartCount: restarts, containerID: `x://${i}-${gen}-${restarts}`, state: { running: {} } }],
    },
  };
}

/**
 * Drives a running loop with an endless (well, long) random stream: adds, status changes, spec
 * changes, graceful deletions, removals and re-creations of K names, PLEG events and probe results,
 * with time advancing. After every step the bounds are checked.
 */
async function churn(K: number, steps: number, seed: number, timelineCap: number) {
  const rnd = mulberry32(seed);
  const clock = new FakeClock();
  const timeline = new TimelineStore(timelineCap);
  const kl = new SyncLoop({ clock, timeline, sources: ['api'], random: rnd, slicer: new TimeSlicer(Infinity) });
  const ac = new AbortController();
  const done = syncLoop(kl, ac.signal);
  await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: [] });
  const live = new Map<number, { gen: number; restarts: number; deleting: boolean }>();
  let rv = 0;
  let gen = 0;
  let maxWorkers = 0;
  for (let s = 0; s < steps; s++) {
    const i = Math.floor(rnd() * K);
    const cur = live.get(i);
    const r = rnd();
    if (!cur) {
      const st = { gen: ++gen, restarts: 0, deleting: false };
      live.set(i, st);
      await kl.podConfig.merge('api', { op: 'ADD', source: 'api', pods: [pod(i, st.gen, ++rv, 0, false)] });
    } else if (r < 0.6) {
      cur.restarts++;
      await kl.podConfig.merge('api', { op: 'UPDATE', source: 'api', pods: [pod(i, cur.gen, ++rv, cur.restarts, cur.deleting)] });
    } else if (r < 0.75 && !cur.deleting) {
      cur.deleting = true;
      await kl.podConfig.merge('api', { op: 'UPDATE', source: 'api', pods: [pod(i, cur.gen, ++rv, cur.restarts, true)] });
    } else if (r < 0.9) {
      live.delete(i);
      await kl.podConfig.merge('api', { op: 'REMOVE', source: 'api', pods: [pod(i, cur.gen, ++rv, cur.restarts, cur.deleting)] });
    } else {
      kl.channels.pleg.trySend({ id: `u${i}-${cur.gen}`, type: rnd() < 0.5 ? 'ContainerStarted' : 'ContainerDied', data: `x://${i}` });
      kl.channels.liveness.trySend({ probe: 'liveness', result: 'Failure', podUID: `u${i}-${cur.gen}`, containerId: 'c' });
      kl.channels.readiness.trySend({ probe: 'readiness', result: rnd() < 0.5 ? 'Success' : 'Failure', podUID: `u${i}-${cur.gen}`, containerId: 'c' });
    }
    if (rnd() < 0.3) await clock.advance(Math.floor(rnd() * 1500));
    else await new Promise<void>((r) => setImmediate(r)); // every microtask chain (the loop, the workers) runs first

    maxWorkers = Math.max(maxWorkers, kl.podWorkers.size);
    // Workers are per UID: a removed incarnation's worker stays (terminated, finished) until the next
    // housekeeping forgets it, so the bound is the live names plus the incarnations removed since.
    const desiredUids = new Set([...kl.desired.values()].map((d) => d.obj.metadata.uid));
    const workers = kl.podWorkers.snapshots();
    assert.ok(workers.filter((w) => desiredUids.has(w.uid)).length <= K, 'one worker per live pod');
    assert.ok(
      workers.filter((w) => !desiredUids.has(w.uid)).every((w) => w.state !== 'syncing' || w.deleted),
      'the others are being torn down',
    );
    assert.ok(kl.podWorkers.pendingCount <= kl.podWorkers.size, 'one pending slot per worker at most');
    assert.ok(kl.workQueue.size <= kl.podWorkers.size, 'one work-queue entry per worker at most');
    assert.ok(kl.desired.size <= K && kl.actual.size <= K && kl.probeResults.size <= K);
    assert.ok(kl.podConfig.storage.objectCount <= K);
    assert.ok(timeline.length <= timelineCap);
    assert.ok(kl.channels.config.length <= 50 && kl.channels.pleg.length <= 1000 && kl.channels.liveness.length <= 20);
    assert.ok(clock.pendingTimers() <= 2, 'only the two tickers hold timers');
  }
  // Quiescence: two housekeeping periods after the stream stops, the model equals the API.
  await clock.advance(4000);
  // The iterations those periods queued run in slices of the thread (slice.ts), as many as a loaded
  // machine makes: waited for, not counted in turns.
  // A worker whose termination ends just after a housekeeping pass is forgotten by the next one:
  // each look that finds the model not converged yet lets one more period (2 s) pass.
  await eventually(
    async () => {
      if (kl.podWorkers.size === live.size && kl.desired.size === live.size && kl.actual.size === live.size) return true;
      await clock.advance(2000);
      return false;
    },
    { description: 'the model converged after the stream stopped', timeoutMs: 20_000 },
  );
  const desiredKeys = [...live.keys()].map((i) => `churn/p${i}`).sort();
  assert.deepEqual([...kl.desired.keys()].sort(), desiredKeys);
  assert.deepEqual([...kl.actual.keys()].sort(), desiredKeys);
  assert.equal(kl.podWorkers.size, live.size, 'housekeeping forgot every removed incarnation');
  for (const [i, st] of live) {
    const v = kl.actual.get(`churn/p${i}`)!;
    assert.equal(v.uid, `u${i}-${st.gen}`);
    assert.equal(v.restarts, st.restarts);
    assert.equal(v.status, st.deleting ? 'Terminating' : 'Running');
  }
  ac.abort();
  await done;
  return { timeline, kl, maxWorkers };
}

describe('memory stays bounded under an endless stream, and the model converges when it stops', () => {
  it('property: random streams over a few names', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 2 ** 31 }), async (K, seed) => {
        await churn(K, 150, seed, 100);
      }),
      { numRuns: 25 },
    );
  });

  it('a long run: 10,000 changes over 50 names; the timeline drops the oldest and says how many', async () => {
    const { timeline, kl } = await churn(50, 10_000, 42, 5_000);
    assert.equal(timeline.length, 5_000);
    assert.ok(timeline.dropped > 0);
    assert.ok(kl.podWorkers.stats.syncs > 1000);
  });
});
