/**
 * The latency-aware default concurrency: the rule on given RTTs, and the loader sizing its pool
 * from its transport's measured RTT (a fake one here) after discovery, honouring an explicit
 * concurrency exactly. Lists block until released, so the number running at once is a state the
 * test waits for, not a timing.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock } from '../../src/core/clock';
import type { ApiResource, Discovery, KubeObject, ListHooks, ListOptions } from '../../src/core/kube';
import { distanceRttMs, noteRtt } from '../../src/core/kube/transport/rtt';
import { AUTO_BASE_LANES, AUTO_MAX_LANES, autoConcurrency, ClusterLoader, type LoaderClient } from '../../src/core/loader';
import type { GroupVersionResource } from '../../src/core/timeline/events';
import { eventually } from '../support/eventually';

function discovery(n: number): Discovery {
  const resources: ApiResource[] = Array.from({ length: n }, (_, i) => ({
    group: 'example.com',
    version: 'v1',
    resource: `things${i}`,
    kind: `Thing${i}`,
    singular: `thing${i}`,
    namespaced: false,
    verbs: ['list', 'get', 'watch'],
    shortNames: [],
    categories: [],
  }));
  return {
    mode: 'aggregated',
    groups: [{ name: 'example.com', preferredVersion: 'v1', versions: [{ version: 'v1', stale: false, resources }] }],
    failures: [],
  };
}

/** Lists that hold until released; `running` counts those in progress, `peak` the most at once. */
class GatedClient implements LoaderClient {
  running = 0;
  peak = 0;
  private gates: (() => void)[] = [];
  probes = 0;
  warmProbes = 0;
  /** The most connections a preconnect's `want` asked for. */
  warmWanted = 0;
  readonly transport: NonNullable<LoaderClient['transport']> & { stats: { requests: number; rttMs?: number; requestRttMs?: number } };
  /**
   * `probedMs`: what an idle-time probe would measure (a fake RTT); undefined: no probe offered.
   * `warm`: the transport also warms connections, and its warm probe measures `warm.probeMs`.
   */
  constructor(
    private readonly types: number,
    rttMs: number | undefined,
    probedMs?: number,
    warm?: { probeMs: number; loopback?: boolean },
  ) {
    // The samples before a probe are handshakes; a probe's answer is a request sample (rtt.ts).
    const stats: { requests: number; rttMs?: number; requestRttMs?: number } = { requests: 0, ...(rttMs === undefined ? {} : { rttMs }) };
    this.transport = { stats, loopback: warm?.loopback };
    if (warm) {
      this.transport.preconnect = (want) => {
        this.warmWanted = Math.max(this.warmWanted, want(stats.rttMs));
        return {
          stop: () => undefined,
          probed: async () => {
            this.warmProbes++;
            stats.rttMs = Math.min(stats.rttMs ?? Infinity, warm.probeMs);
            stats.requestRttMs = Math.min(stats.requestRttMs ?? Infinity, warm.probeMs);
            return true;
          },
        };
      };
    }
    if (probedMs !== undefined) {
      this.transport.probeRtt = async () => {
        this.probes++;
        stats.rttMs = Math.min(stats.rttMs ?? Infinity, probedMs);
        stats.requestRttMs = Math.min(stats.requestRttMs ?? Infinity, probedMs);
        return stats.rttMs;
      };
    }
  }
  async discover(): Promise<Discovery> {
    return discovery(this.types);
  }
  async list(gvr: GroupVersionResource, _opts: ListOptions, hooks: ListHooks) {
    this.running++;
    this.peak = Math.max(this.peak, this.running);
    await new Promise<void>((r) => this.gates.push(r));
    this.running--;
    const item = { metadata: { name: `${gvr.resource}-0` } } as KubeObject;
    hooks.sink?.push(item);
    hooks.onPage?.({ index: 0, items: 1, bytes: 10, more: false });
    return { items: hooks.sink ?? [item], resourceVersion: '1', pages: 1, retries: 0, bytes: 10, fellBackToFullList: false };
  }
  releaseAll(): void {
    for (const g of this.gates.splice(0)) g();
  }
}

/** Runs a load of `types` tasks; returns the most lists that ran at once, the summary and the plan's concurrency. */
async function loadWith(
  rttMs: number | undefined,
  types: number,
  concurrency?: number,
  probedMs?: number,
  warm?: { probeMs: number; loopback?: boolean },
  autoConcurrencyMax?: number,
) {
  const client = new GatedClient(types, rttMs, probedMs, warm);
  const loader = new ClusterLoader(client, {
    clock: new FakeClock(),
    accessReview: false,
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(autoConcurrencyMax === undefined ? {} : { autoConcurrencyMax }),
  });
  const run = loader.start({ onResult: () => {} });
  const plan = await run.plan;
  assert.ok(plan);
  const want = Math.min(plan.concurrency!, types);
  await eventually(() => client.running === want, { description: `${want} lists running` });
  // A few more turns: no further list may start while all lanes are busy.
  for (let i = 0; i < 50; i++) await new Promise<void>((r) => setImmediate(r));
  const busy = client.running;
  while (!(await Promise.race([run.done.then(() => true), new Promise<false>((r) => setImmediate(() => r(false)))]))) client.releaseAll();
  const summary = await run.done;
  return { busy, peak: client.peak, summary, plan, probes: client.probes, warmProbes: client.warmProbes, warmWanted: client.warmWanted };
}

describe('autoConcurrency: the rule', () => {
  it('keeps 4 lanes near the server and widens in proportion to the waiting, up to 16', () => {
    assert.deepEqual(autoConcurrency(undefined), { rttMs: null, lanes: 4 });
    assert.equal(autoConcurrency(0).lanes, 4);
    assert.equal(autoConcurrency(0.3).lanes, 4); // loopback
    assert.equal(autoConcurrency(3).lanes, 4); // a LAN, or a cloud region
    assert.equal(autoConcurrency(6.2).lanes, 4); // less than a lane's worth of waiting (25 / 4 ms)
    assert.equal(autoConcurrency(6.25).lanes, 5);
    assert.equal(autoConcurrency(25).lanes, 8); // a lane waits as long as the server works: twice the lanes
    assert.equal(autoConcurrency(50).lanes, 12);
    assert.equal(autoConcurrency(80).lanes, 16);
    assert.equal(autoConcurrency(100).lanes, 16); // 50 ms each way: capped
    assert.equal(autoConcurrency(5000).lanes, 16);
    assert.equal(autoConcurrency(Number.NaN).lanes, 4);
    assert.equal(autoConcurrency(-1).lanes, 4);
  });

  it('a loopback server is near until a round trip of 20 ms or more says it is a tunnel', () => {
    assert.equal(autoConcurrency(9, { loopback: true }).lanes, 4); // a busy machine, not distance
    assert.equal(autoConcurrency(19.9, { loopback: true }).lanes, 4);
    assert.equal(autoConcurrency(9).lanes, 5);
    assert.equal(autoConcurrency(20, { loopback: true }).lanes, autoConcurrency(20).lanes);
    assert.equal(autoConcurrency(104, { loopback: true }).lanes, 16); // the remote bench's relay
    assert.deepEqual(autoConcurrency(9.04, { loopback: true }), { rttMs: 9, lanes: 4 });
  });

  it('is monotone in the RTT and always within 4..16', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e5, noNaN: true }), fc.double({ min: 0, max: 1e5, noNaN: true }), (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const l = autoConcurrency(lo).lanes;
        const h = autoConcurrency(hi).lanes;
        return l <= h && l >= AUTO_BASE_LANES && h <= AUTO_MAX_LANES && Number.isInteger(l);
      }),
    );
  });

  it('noteRtt keeps the minimum and ignores samples that are not times', () => {
    const s: { rttMs?: number } = {};
    noteRtt(s, Number.NaN);
    noteRtt(s, -3);
    assert.equal(s.rttMs, undefined);
    noteRtt(s, 120);
    noteRtt(s, 95);
    noteRtt(s, 300);
    assert.equal(s.rttMs, 95);
  });

  it('request samples are also kept apart: a loopback address is judged by them alone', () => {
    const s: { rttMs?: number; requestRttMs?: number } = {};
    noteRtt(s, 22); // a busy machine's TLS handshake on loopback
    assert.deepEqual([distanceRttMs(s, false), distanceRttMs(s, true)], [22, undefined]);
    noteRtt(s, 1.2, 'request');
    noteRtt(s, 4, 'request');
    assert.deepEqual([s.rttMs, s.requestRttMs, distanceRttMs(s, true)], [1.2, 1.2, 1.2]);
  });
});

describe('ClusterLoader: the pool size', () => {
  it('without a concurrency, sizes the pool from the transport RTT after discovery (16 lanes at 100 ms)', async () => {
    const r = await loadWith(100, 40);
    assert.equal(r.plan.concurrency, 16);
    assert.deepEqual(r.plan.concurrencyAuto, { rttMs: 100, lanes: 16 });
    assert.equal(r.summary.concurrency, 16);
    assert.deepEqual(r.summary.concurrencyAuto, { rttMs: 100, lanes: 16 });
    assert.equal(r.busy, 16);
    assert.equal(r.peak, 16);
    assert.equal(r.summary.outcome, 'ok');
    assert.equal(r.summary.results, 40); // exactly one result per task
    assert.equal(r.summary.objects, 40);
  });

  it("capped at a multi-cluster load's fair share: no wider than the cap, and no probe or spare connections for a width it cannot take", async () => {
    const capped = await loadWith(100, 40, undefined, 100, { probeMs: 100 }, 4);
    assert.equal(capped.summary.concurrency, 4);
    assert.equal(capped.peak, 4);
    assert.equal(capped.probes + capped.warmProbes, 0, 'nothing to confirm');
    assert.ok(capped.warmWanted <= 8, `two spare connections per lane at most (${capped.warmWanted})`);
    const eight = await loadWith(100, 40, undefined, 100, undefined, 8);
    assert.equal(eight.summary.concurrency, 8);
    assert.equal(eight.peak, 8);
    assert.equal(capped.summary.results, 40);
  });

  it('without a concurrency near the server (or with no RTT measured), keeps 4 lanes', async () => {
    for (const rtt of [0.4, undefined]) {
      const r = await loadWith(rtt, 20);
      assert.equal(r.summary.concurrency, 4);
      assert.deepEqual(r.summary.concurrencyAuto, { rttMs: rtt ?? null, lanes: 4 });
      assert.equal(r.peak, 4);
      assert.equal(r.summary.results, 20);
    }
  });

  it('honours an explicit concurrency exactly, whatever the RTT', async () => {
    for (const c of [4, 1, 32]) {
      const r = await loadWith(100, 40, c);
      assert.equal(r.summary.concurrency, c);
      assert.equal(r.summary.concurrencyAuto, undefined);
      assert.equal(r.plan.concurrencyAuto, undefined);
      assert.equal(r.peak, c);
      assert.equal(r.summary.results, 40);
    }
  });

  it('before widening, asks the transport for an idle-time probe; a probe that finds the server near keeps 4 lanes', async () => {
    const near = await loadWith(9, 40, undefined, 0.8); // start-up samples said 9 ms, the idle probe 0.8 ms
    assert.equal(near.probes, 1);
    assert.deepEqual(near.summary.concurrencyAuto, { rttMs: 0.8, lanes: 4 });
    assert.equal(near.peak, 4);
    const far = await loadWith(104, 40, undefined, 101);
    assert.equal(far.probes, 1);
    assert.deepEqual(far.summary.concurrencyAuto, { rttMs: 101, lanes: 16 });
    assert.equal(far.peak, 16);
  });

  it('warms two connections per lane far away (one near); far away the warm probe decides, near (under 20 ms) the idle-time probe still checks it', async () => {
    const far = await loadWith(104, 40, undefined, 101, { probeMs: 102 });
    assert.deepEqual([far.warmProbes, far.probes], [1, 0]);
    assert.deepEqual(far.summary.concurrencyAuto, { rttMs: 102, lanes: 16 });
    assert.equal(far.warmWanted, 32);
    const busyNear = await loadWith(21, 40, undefined, 0.9, { probeMs: 7 }); // a handshake and the warm probe met a busy server
    assert.deepEqual([busyNear.warmProbes, busyNear.probes], [1, 1]);
    assert.deepEqual(busyNear.summary.concurrencyAuto, { rttMs: 0.9, lanes: 4 });
    const loopback = await loadWith(21, 40, undefined, 7, { probeMs: 7, loopback: true }); // even the idle probe says 7 ms: this machine is busy
    assert.deepEqual(loopback.summary.concurrencyAuto, { rttMs: 7, lanes: 4 });
    assert.equal(loopback.peak, 4);
    // A loopback address whose handshakes took 104 ms is a tunnel only once a request agrees.
    const tunnel = await loadWith(104, 40, undefined, 101, { probeMs: 102, loopback: true });
    assert.deepEqual([tunnel.warmProbes, tunnel.probes], [1, 0]);
    assert.deepEqual(tunnel.summary.concurrencyAuto, { rttMs: 102, lanes: 16 });
    assert.equal(tunnel.warmWanted, 32, 'dialled as far as the handshakes said while that was in question');
    // Near by its handshakes (3 ms), a loopback address is not probed at all.
    const quiet = await loadWith(3, 40, undefined, 1, { probeMs: 1, loopback: true });
    assert.deepEqual([quiet.warmProbes, quiet.probes], [0, 0]);
    assert.deepEqual(quiet.summary.concurrencyAuto, { rttMs: 3, lanes: 4 });
    assert.equal(quiet.warmWanted, 4, 'near: one connection per lane ahead; a second when a list has a next page');
    const fixed = await loadWith(104, 40, 6, 101, { probeMs: 102 });
    assert.deepEqual([fixed.warmProbes, fixed.probes, fixed.warmWanted], [0, 0, 12]);
  });

  it('sends no probe when the samples already keep 4 lanes, for a load of 4 lists or fewer, or with a concurrency given', async () => {
    assert.equal((await loadWith(0.5, 40, undefined, 0.4)).probes, 0);
    const small = await loadWith(104, 3, undefined, 101);
    assert.equal(small.probes, 0);
    assert.equal(small.summary.concurrency, 16); // the rule still names the size; only 3 lists run
    assert.equal(small.peak, 3);
    assert.equal((await loadWith(104, 40, 4, 101)).probes, 0);
  });
});
