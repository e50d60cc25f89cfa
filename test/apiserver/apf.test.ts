/**
 * The loader as a citizen of API Priority and Fairness on a real kube-apiserver (APF on, its
 * default 400 + 200 seats): an ordinary user (global-default flow schema) loads a cluster through
 * the 100 ms relay (bench/netem.ts: 50 ms each way, 50 Mbit/s, as bench/remote.ts) on 16 lanes.
 * The server must answer no 429, and the seats the load held are read from the server's own
 * flow-control metrics (sampled as admin, who is exempt) and printed beside the loader's estimate.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { KubeClient, loadKubeContext } from '../../src/core/kube';
import { ClusterLoader, type LoadSummary } from '../../src/core/loader';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { startNetem, type Netem } from '../../bench/netem';
import { seed } from './objects';
import { Api, bindClusterRole, kubeconfigFor, mapLimit } from './support';
import { eventually } from '../support/eventually';

const USER = { name: 'apf-user', token: 'apf-user-token-6d1e0b27aa' };
const LEVEL = 'global-default';
const CONFIGMAPS = 3000;

type Samples = Map<string, number>;

/** The global-default series of the APF metrics in kube-apiserver's /metrics text, by metric name (summed over flow schemas). */
function levelSeries(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_flowcontrol_') || !line.includes(`priority_level="${LEVEL}"`)) continue;
    const m = /^([a-z_]+)\{([^}]*)\} ([0-9.e+-]+)$/.exec(line);
    if (!m) continue;
    const le = /le="([^"]+)"/.exec(m[2]!);
    const key = le ? `${m[1]}{le=${le[1]}}` : m[1]!;
    out.set(key, (out.get(key) ?? 0) + Number(m[3]));
  }
  return out;
}

describe('APF: an ordinary user loads through the 100 ms relay', () => {
  let cp: ControlPlane;
  let api: Api;
  let relay: Netem;
  let kubeconfig: string;

  before(async () => {
    // The LIST work estimator charges by the object counts the storage reports, polled every minute
    // by default: polled every 2 s here, so the loads below are charged as in a cluster that ran a while.
    cp = await startControlPlane({ extraUsers: [USER], extraApiserverArgs: ['--etcd-count-metric-poll-period=2s'] });
    api = Api.admin(cp, 24);
    await seed(api, { namespaces: ['apf-a', 'apf-b', 'apf-c'], perNamespace: 3, cluster: 3, concurrency: 16 });
    // one large type: pages of 500 configmaps of ~1 kB, which the server charges several seats each
    const data = { blob: 'x'.repeat(1000) };
    await mapLimit(
      Array.from({ length: CONFIGMAPS }, (_, i) => i),
      16,
      (i) => api.must('POST', `/api/v1/namespaces/apf-${'abc'[i % 3]}/configmaps`, { metadata: { name: `bulk-${i}` }, data }, [201]),
    );
    await eventually(
      async () => {
        const m = /^apiserver_resource_objects\{group="",resource="configmaps"\} (\d+)/m.exec((await api.request('GET', '/metrics')).text);
        return Number(m?.[1] ?? 0) >= CONFIGMAPS;
      },
      { description: "the storage's configmap count to reach the work estimator", timeoutMs: 60_000 },
    );
    await bindClusterRole(api, 'apf-reader', USER.name, [{ apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] }]);
    const url = new URL(cp.server);
    relay = await startNetem({ target: { host: url.hostname, port: Number(url.port) }, latencyMs: 50, rateBitsPerSec: 50e6 });
    kubeconfig = kubeconfigFor(cp, USER.name);
    fs.writeFileSync(kubeconfig, fs.readFileSync(kubeconfig, 'utf8').replace(cp.server, `https://${url.hostname}:${relay.port}`));
  });
  after(async () => {
    await relay?.close();
    api?.close();
    await cp?.stop();
  });

  /** Loads once with `concurrency` (undefined: auto) while sampling the level's executing seats; the server's figures with it. */
  async function loadSampled(concurrency: number | undefined) {
    const metrics = async () => levelSeries((await api.request('GET', '/metrics')).text);
    const before = await metrics();
    const client = await KubeClient.connect(loadKubeContext({ kubeconfig }));
    let summary: LoadSummary | undefined;
    let peakExecuting = 0;
    let samples = 0;
    try {
      const done = new ClusterLoader(client, concurrency === undefined ? {} : { concurrency }).load().then((r) => (summary = r.summary));
      // A sampler, not a wait for state: /metrics as the load runs (admin's requests are exempt: they take no seat of the level).
      while (!summary) {
        const s = await metrics();
        samples++;
        peakExecuting = Math.max(peakExecuting, s.get('apiserver_flowcontrol_current_executing_seats') ?? 0);
        await Promise.race([done, new Promise((r) => setTimeout(r, 50))]);
      }
    } finally {
      client.close();
    }
    const after = await metrics();
    const delta = (k: string) => (after.get(k) ?? 0) - (before.get(k) ?? 0);
    return {
      summary: summary!,
      peakExecuting,
      samples,
      nominal: after.get('apiserver_flowcontrol_nominal_limit_seats') ?? NaN,
      rejected: delta('apiserver_flowcontrol_rejected_requests_total'),
      dispatched: delta('apiserver_flowcontrol_dispatched_requests_total'),
      meanSeats: delta('apiserver_flowcontrol_work_estimated_seats_sum') / delta('apiserver_flowcontrol_work_estimated_seats_count'),
      maxSeatsBucket: [1, 2, 4, 8, 16, 32, 64, 100].find(
        (b) => delta(`apiserver_flowcontrol_work_estimated_seats_bucket{le=${b}}`) === delta('apiserver_flowcontrol_work_estimated_seats_count'),
      ),
      executionSeconds: delta('apiserver_flowcontrol_request_execution_seconds_sum'),
      highWatermark: after.get('apiserver_flowcontrol_demand_seats_high_watermark') ?? NaN,
    };
  }

  it('16 lanes: no 429, every object; the seats held, read from the server, beside the estimate', async (t) => {
    const r = await loadSampled(16);
    const s = r.summary;
    const cost = s.apiCost!;
    t.diagnostic(
      `server (read): nominal seats of ${LEVEL} ${r.nominal}; peak executing seats sampled ${r.peakExecuting} (${r.samples} samples); ` +
        `demand high watermark ${r.highWatermark}; ${r.dispatched} requests dispatched, ${r.rejected} rejected; ` +
        `estimated seats per request mean ${r.meanSeats.toFixed(2)} (all <= ${r.maxSeatsBucket}); execution ${r.executionSeconds.toFixed(2)} s in all`,
    );
    t.diagnostic(
      `loader (estimated): peak ${cost.seatsPeak} seats, ${cost.seatSeconds} seat-seconds, up to ${cost.listSeats} per list; ` +
        `level ${cost.flowControl?.priorityLevel.name} ${cost.flowControl?.levelSeats} seats (${cost.flowControl?.source}); ` +
        `${cost.requests} requests, ${cost.bytes} bytes, ${cost.throttled} x 429; ${s.objects} objects in ${(s.durationMs / 1000).toFixed(2)} s`,
    );
    assert.equal(s.outcome, 'ok');
    assert.equal(s.concurrency, 16);
    assert.ok(s.objects >= CONFIGMAPS, `${s.objects} objects`);
    assert.equal(cost.throttled, 0, 'no 429 seen by the loader');
    assert.equal(r.rejected, 0, 'no request of the level rejected by the server');
    assert.equal(cost.flowControl?.priorityLevel.name, LEVEL);
    assert.equal(cost.flowControl?.flowSchema.name, 'global-default');
    assert.equal(cost.flowControl?.source, 'read');
    assert.equal(cost.flowControl?.levelSeats, r.nominal, "the estimate of the level's seats is the server's nominal limit");
    assert.ok(r.dispatched >= s.requests! - 1, `the server dispatched the load's requests in ${LEVEL} (${r.dispatched} of ${s.requests})`);
    assert.ok(r.peakExecuting <= r.nominal, `the load held ${r.peakExecuting} of ${r.nominal} seats at most`);
  });

  it('auto: the pool keeps 3 LISTs of the level at the server, scaled by the RTT', async (t) => {
    const r = await loadSampled(undefined);
    const s = r.summary;
    t.diagnostic(
      `auto: ${s.concurrency} lanes (RTT ${s.concurrencyAuto?.rttMs} ms, APF base ${s.concurrencyAuto?.apfBase}); server peak executing seats ${r.peakExecuting}, ` +
        `${r.rejected} rejected; loader estimate peak ${s.apiCost?.seatsPeak}, ${s.apiCost?.seatSeconds} seat-seconds; ${(s.durationMs / 1000).toFixed(2)} s`,
    );
    assert.equal(s.outcome, 'ok');
    assert.equal(s.concurrencyAuto?.apfBase, 3);
    assert.equal(r.rejected, 0);
    assert.equal(s.apiCost?.throttled, 0);
  });
});
