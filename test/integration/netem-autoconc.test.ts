/**
 * The latency-aware default concurrency end to end: a real `kubeloop load` (dist/cli.js) against
 * the demo cluster over HTTPS, through the netem relay (bench/netem.ts) adding 40 ms each way, and
 * straight on loopback. Only lower bounds on measured times: the relay guarantees every round trip
 * takes at least 2 x 40 ms, nothing guarantees how fast.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cliLoadJson, farDemo, type FarDemo } from './netem-support';
import type { Fixture } from './loader-helpers';
import { AUTO_LOOPBACK_FAR_MS, autoConcurrency } from '../../src/core/loader/autoConcurrency';

const LATENCY_MS = 40;

interface LoadJson {
  concurrency: number;
  concurrencyAuto: { rttMs: number | null; lanes: number } | null;
  objects: number;
  failed: unknown[];
  transport: { rttMs: number | null };
  types: { group: string; resource: string; count: number; worker: number }[];
}

const load = (kubeconfig: string, extra: string[] = []) => cliLoadJson<LoadJson>(kubeconfig, extra);

describe('kubeloop load: the default concurrency follows the measured RTT', () => {
  let fx: Fixture;
  let far: string;
  let remote: FarDemo;
  before(async () => {
    remote = await farDemo(3000, 'autoconc-test-token', LATENCY_MS);
    ({ fx, far } = remote);
  });
  after(async () => {
    await remote?.close();
  });

  const exactCounts = (j: LoadJson) => {
    assert.equal(j.failed.length, 0);
    for (const t of j.types) assert.equal(t.count, fx.cluster.store.count(t.group, t.resource), `${t.resource}.${t.group}`);
    assert.equal(
      j.objects,
      j.types.reduce((n, t) => n + fx.cluster.store.count(t.group, t.resource), 0),
    );
    assert.ok(j.objects >= 2500, `${j.objects} objects`);
  };
  const lanesUsed = (j: LoadJson) => new Set(j.types.map((t) => t.worker)).size;

  it('through a 40 ms-each-way relay: measures an RTT of at least 80 ms and widens the pool, with exact counts', async (t) => {
    const j = await load(far);
    t.diagnostic(`relay: rttMs ${j.transport.rttMs}, concurrency ${j.concurrency}, ${lanesUsed(j)} lanes used`);
    assert.ok(j.transport.rttMs !== null && j.transport.rttMs >= 2 * LATENCY_MS, `rttMs ${j.transport.rttMs}`);
    assert.ok(j.concurrencyAuto && j.concurrencyAuto.rttMs !== null && j.concurrencyAuto.rttMs >= 2 * LATENCY_MS, JSON.stringify(j.concurrencyAuto));
    assert.ok(j.concurrency > 4, `concurrency ${j.concurrency}`);
    assert.equal(j.concurrency, j.concurrencyAuto.lanes);
    // The lanes really ran: each list takes at least a round trip, and there are more tasks than lanes.
    assert.ok(j.types.length > j.concurrency, `${j.types.length} tasks`);
    assert.ok(lanesUsed(j) > 4, `${lanesUsed(j)} lanes used`);
    assert.ok(Math.max(...j.types.map((t) => t.worker)) < j.concurrency);
    exactCounts(j);
  });

  it('through the relay with --concurrency 4: exactly 4 lanes, no automatic choice', async () => {
    const j = await load(far, ['--concurrency', '4']);
    assert.equal(j.concurrency, 4);
    assert.equal(j.concurrencyAuto, null);
    assert.equal(lanesUsed(j), 4);
    assert.ok(j.transport.rttMs !== null && j.transport.rttMs >= 2 * LATENCY_MS, `rttMs ${j.transport.rttMs}`);
    exactCounts(j);
  });

  it('on plain loopback the default stays 4 lanes (unless the machine is too busy for loopback to look near)', async (t) => {
    const j = await load(fx.kubeconfig);
    t.diagnostic(`loopback: rttMs ${j.transport.rttMs}, concurrency ${j.concurrency}`);
    assert.ok(j.concurrencyAuto, 'the default was chosen automatically');
    const rtt = j.concurrencyAuto.rttMs;
    if (rtt === null || rtt < AUTO_LOOPBACK_FAR_MS) {
      assert.equal(j.concurrency, 4, `rttMs ${rtt}`);
      assert.equal(j.concurrencyAuto.lanes, 4);
      assert.equal(lanesUsed(j), 4);
    } else {
      // A loaded machine (seen at a load average of 13: 26.7 ms) can answer on loopback as slowly
      // as a tunnel does; the rule then widens as it would for a tunnel, which is all it can know.
      t.diagnostic(`loopback measured as far (${rtt} ms): the machine is busy`);
      assert.equal(j.concurrency, autoConcurrency(rtt, { loopback: true }).lanes, `rttMs ${rtt}`);
    }
    exactCounts(j);
  });
});
