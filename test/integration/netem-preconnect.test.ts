/**
 * Connections dialled ahead of the lists (KubeTransport.preconnect, the I/O thread's spares):
 * against the demo cluster over HTTPS behind the netem relay (40 ms each way), the server sees the
 * connections arrive before any request and no request it would not have seen; the lists then find
 * their connections up (no new dial); the handshakes measure the RTT, and the one probe that
 * confirms a widening goes on a warmed connection.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient, loadKubeContext } from '../../src/core/kube';
import { runLoad } from '../../src/app/load/loadRunner';
import { ResourceModel } from '../../src/app/model/resourceModel';
import { defaultSettings } from '../../src/app/settings';
import { silentLog } from '../../src/app/logger';
import { TimelineStore } from '../../src/core/timeline/store';
import { cliLoadJson, farDemo, type FarDemo } from './netem-support';
import { eventually } from '../support/eventually';

const LATENCY_MS = 40;
const TYPES = [
  { group: '', version: 'v1', resource: 'configmaps' },
  { group: '', version: 'v1', resource: 'secrets' },
  { group: '', version: 'v1', resource: 'pods' },
  { group: 'apps', version: 'v1', resource: 'deployments' },
];

interface LoadJson {
  concurrency: number;
  concurrencyAuto: { rttMs: number | null; lanes: number } | null;
  objects: number;
  failed: unknown[];
}

const load = (kubeconfig: string, extra: string[] = []) => cliLoadJson<LoadJson>(kubeconfig, extra);

describe('preconnect: the lanes find their connections up', () => {
  let remote: FarDemo;
  before(async () => {
    remote = await farDemo(2000, 'preconnect-test-token', LATENCY_MS);
  });
  after(async () => {
    await remote?.close();
  });

  it('dials the connections asked for, and more as the RTT comes in, with no request; the lists then dial nothing', async () => {
    const stats = remote.fx.cluster.stats;
    const client = await KubeClient.connect(loadKubeContext({ kubeconfig: remote.far }), {});
    try {
      const t = client.transport;
      const requests0 = stats.requests;
      const conns0 = stats.totalConnections;
      // One connection while no RTT is known; two per list (a page and the next, pipelined) once a
      // handshake has measured the RTT as far.
      const WARM = 2 * TYPES.length;
      const warming = t.preconnect((rtt) => (rtt === undefined ? 1 : rtt >= 2 * LATENCY_MS ? WARM : 2));
      await eventually(() => (t.stats.warmSamples ?? 0) >= WARM, { description: 'a sample from every warmed handshake', timeoutMs: 15_000 });
      await eventually(() => stats.totalConnections - conns0 >= WARM, { description: 'the warmed connections at the server', timeoutMs: 15_000 });
      assert.equal(stats.requests, requests0, 'warming sends no request');
      assert.equal(t.stats.requests, 0);
      assert.equal(t.stats.warmProbe, undefined, 'no probe until one is asked for');
      assert.ok((t.stats.rttMs ?? 0) >= 2 * LATENCY_MS, `rttMs ${t.stats.rttMs}: a handshake through the relay takes its round trips`);
      // Asking again for what is already open dials nothing more; its probe goes on a warmed
      // connection (no dial) and is the one request of the warming.
      const again = t.preconnect(() => WARM);
      assert.equal(await again.probed(15_000), true, 'the warm probe was answered on a connection that was up');
      assert.equal(stats.requests, requests0 + 1, 'one request: the probe');
      assert.equal(t.stats.requests, 1);
      assert.ok((t.stats.rttMs ?? 0) >= 2 * LATENCY_MS, `rttMs ${t.stats.rttMs}: a round trip through the relay`);
      again.stop();
      warming.stop();

      const results = await Promise.all(TYPES.map((gvr) => client.list(gvr, { limit: 200 }, {})));
      for (const [i, r] of results.entries())
        assert.equal(r.items.length, remote.fx.cluster.store.count(TYPES[i]!.group, TYPES[i]!.resource), TYPES[i]!.resource);
      assert.equal(t.stats.streamedPages > 0, true, 'the lists went through the I/O thread');
      assert.equal(stats.totalConnections - conns0, WARM, 'every request found a warmed connection: none was dialled for it');
      assert.ok(stats.requests > requests0 + 1);
    } finally {
      client.close();
    }
  });

  it('a far load with the default lanes dials while the reviews are out and widens on one probe, sent on a warmed connection', async () => {
    const stats = remote.fx.cluster.stats;
    const probes = () => stats.requestsByVerb.version ?? 0;
    // The fixed pool never probes: its GET /version requests are the baseline.
    let before = probes();
    const fixed = await load(remote.far, ['--concurrency', '4']);
    const baseline = probes() - before;
    assert.equal(fixed.failed.length, 0);

    before = probes();
    const conns0 = stats.totalConnections;
    const auto = await load(remote.far);
    assert.equal(auto.failed.length, 0);
    assert.equal(auto.objects, fixed.objects);
    assert.ok(auto.concurrencyAuto && auto.concurrency > 4, JSON.stringify(auto.concurrencyAuto));
    // One idle-time probe confirmed the widening: the I/O thread's, on a warmed connection (the
    // loader's own would be a second one).
    assert.equal(probes() - before, baseline + 1, 'exactly one /version probe');
    // At most the warmed connections (two per lane) plus the calling thread's (discovery, reviews).
    const conns = stats.totalConnections - conns0;
    assert.ok(conns <= 2 * auto.concurrency + 3, `${conns} connections for ${auto.concurrency} lanes`);
  });

  it("the tree's load (per-type transfer: Table rows, metadata, full objects) dials its lanes' connections ahead too", async () => {
    const stats = remote.fx.cluster.stats;
    const client = await KubeClient.connect(loadKubeContext({ kubeconfig: remote.far }), {});
    try {
      const settings = defaultSettings();
      assert.equal(settings.treeTransfer, 'auto', "the tree's default: a transfer chosen per type");
      const conns0 = stats.totalConnections;
      const r = await runLoad({
        client,
        contextName: 'far',
        settings,
        model: new ResourceModel(),
        timeline: new TimelineStore(),
        log: silentLog,
        origin: 0,
        loadId: 'tree-load',
        signal: new AbortController().signal,
      });
      assert.equal(r.summary.outcome, 'ok');
      const t = client.transport.stats;
      assert.ok((t.warmSamples ?? 0) >= 1, `warmed handshakes: ${t.warmSamples ?? 0}`);
      assert.ok(t.streamedPages > 0, 'the Table and full lists went through the I/O thread');
      assert.ok(stats.totalConnections - conns0 >= (t.warmSamples ?? 0), 'the server saw the warmed connections');
    } finally {
      client.close();
    }
  });
});
