/**
 * Missed events are repaired (issue 4): the demo cluster drops watch events, breaks a watch, and
 * answers a watch with 410; each time the model converges with the API again, within one
 * consistency period (the watch-cache list that catches missed events; shortened here from its
 * 5 minutes) plus its confirmation, and the timeline shows how (the relist, the config updates it
 * produced).
 * The kubelet simulation is off, so pods never change after a write: nothing but the repair
 * machinery can bring a missed event back.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/core/kube/client';
import { ClusterSync } from '../../src/core/syncloop/sources/cluster';
import type { Reflector } from '../../src/core/syncloop/sources/reflector';
import { TimelineStore } from '../../src/core/timeline/store';
import type { SyncIterationEvent } from '../../src/core/timeline/events';
import type { FaultRule } from '../../src/demo';
import { api, startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';

/** The consistency check's period and confirmation, shortened for the test. */
const CONSISTENCY_PERIOD_MS = 1500;
const CONSISTENCY_CONFIRM_MS = 1000;
/** One period plus the confirmation after the change, plus scheduling slack on a busy machine. */
const REPAIR_BUDGET_MS = CONSISTENCY_PERIOD_MS + CONSISTENCY_CONFIRM_MS + 2500;

function pod(name: string) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
}

describe('the sync loop repairs missed watch events (demo cluster faults)', () => {
  let t: TestCluster;
  let client: KubeClient;
  let sync: ClusterSync;
  let timeline: TimelineStore;
  const lines: string[] = [];
  const stop = new AbortController();
  let running: Promise<void>;
  let pods: Reflector;

  const create = async (name: string) =>
    assert.equal((await api(t.cluster, '/api/v1/namespaces/default/pods', { method: 'POST', json: pod(name) })).status, 201);
  const remove = async (name: string) =>
    assert.equal((await api(t.cluster, `/api/v1/namespaces/default/pods/${name}?gracePeriodSeconds=0`, { method: 'DELETE' })).status, 200);
  const modelHas = (name: string) => sync.view(`default/${name}`) !== undefined;
  /**
   * Arms a fault for the next pods watch request and makes the pods reflector open one (faults
   * apply to new requests), waiting first until the reflector is settled in a watch, so no watch
   * already on its way takes the fault instead, and then until the fault was applied.
   */
  const faultNextWatch = async (rule: FaultRule) => {
    let seen = -1;
    await eventually(
      () => {
        const settled = pods.state === 'watching' && pods.stats.watches === seen;
        seen = pods.stats.watches;
        return settled;
      },
      { description: 'the pods reflector settled in a watch', timeoutMs: 10_000 },
    );
    const id = t.cluster.faults.add({ times: 1, ...rule, verb: 'watch', resource: 'pods' });
    pods.relist('test: open a new watch');
    await eventually(() => (t.cluster.faults.list().find((r) => r.id === id)?.applied ?? 0) >= 1, {
      description: `fault ${rule.kind} applied`,
      timeoutMs: 10_000,
    });
  };

  before(async () => {
    t = await startTestCluster({ kubelet: false });
    // The first pods watch silently loses its first two events.
    t.cluster.faults.add({ kind: 'drop-events', verb: 'watch', resource: 'pods', dropCount: 2, times: 1 });
    client = await KubeClient.fromKubeconfig({ kubeconfig: t.kubeconfig });
    timeline = new TimelineStore(50_000);
    sync = new ClusterSync({
      client,
      timeline,
      consistencyPeriodMs: CONSISTENCY_PERIOD_MS,
      consistencyConfirmMs: CONSISTENCY_CONFIRM_MS,
      logger: { info: (l) => lines.push(l), error: (l) => lines.push(`E ${l}`) },
    });
    running = sync.run(stop.signal);
    // The sources start once the loop has asked what the user may watch (an access review).
    await eventually(() => sync.running.some((r) => r.source === 'api'), { description: 'the pods source started', timeoutMs: 10_000 });
    pods = sync.running.find((r) => r.source === 'api')!.reflector;
    await eventually(() => sync.allSourcesReady() && pods.state === 'watching', { description: 'sources listed and watching', timeoutMs: 10_000 });
  });
  after(async () => {
    stop.abort();
    await running;
    client.close();
    await t.close();
  });

  it('dropped ADDED events: the consistency list exposes them, the source relists, the objects appear', async () => {
    const relists = pods.stats.relistRequests;
    await create('a');
    await create('b');
    await create('c');
    // Within the repair budget: eventually fails the test at REPAIR_BUDGET_MS.
    await eventually(() => ['a', 'b', 'c'].every(modelHas), { description: 'a, b and c in the model', timeoutMs: REPAIR_BUDGET_MS });
    assert.ok(pods.stats.relistRequests > relists, 'the pods source was relisted');
    assert.ok(
      lines.some((l) => l.startsWith('Reflector relist requested') && l.includes('watch missed events')),
      lines.join('\n'),
    );
    // The timeline shows how: the ADD the relist's SET produced, after c's own ADD from the watch.
    const it = timeline.toArray() as SyncIterationEvent[];
    const addA = it.findIndex((e) => e.source === 'config' && e.op === 'ADD' && e.key.split(',').includes('default/a'));
    const addC = it.findIndex((e) => e.source === 'config' && e.op === 'ADD' && e.key.split(',').includes('default/c'));
    assert.ok(addC >= 0 && addA > addC, 'a came back after the watch delivered c');
    assert.ok(sync.stats().consistency.relists >= 1, 'found by the consistency check');
  });

  it('a dropped DELETED event: the object leaves the model all the same', async () => {
    // A delete may be a MODIFIED (deletionTimestamp) and a DELETED: drop both, and anything after them.
    await faultNextWatch({ kind: 'drop-events', dropCount: 5 });
    const relists = pods.stats.relistRequests;
    await remove('c');
    await eventually(() => !modelHas('c'), { description: 'c gone from the model', timeoutMs: REPAIR_BUDGET_MS });
    assert.ok(pods.stats.relistRequests > relists, 'repaired by a relist, not by the watch');
    assert.ok(timeline.toArray().some((e) => e.kind === 'iteration' && e.source === 'config' && e.op === 'REMOVE' && e.key.split(',').includes('default/c')));
  });

  it('a broken watch (connection reset): the reflector backs off, relists, and the model converges', async () => {
    const errors = pods.stats.errors;
    // One reset is not enough: a watch request reset on a reused keep-alive socket before any answer
    // is resent on another connection (as Go's transport does), so reset pods watches until the
    // reflector has seen one fail for good.
    await faultNextWatch({ kind: 'reset', times: 1000 });
    await eventually(() => pods.stats.errors > errors, { description: 'the reflector to see the watch fail', timeoutMs: 10_000 });
    for (const r of t.cluster.faults.list()) if (r.kind === 'reset') t.cluster.faults.remove(r.id);
    await create('d');
    await eventually(() => modelHas('d'), { description: 'd in the model', timeoutMs: REPAIR_BUDGET_MS + 2000 });
    assert.ok(pods.stats.errors > errors, 'the reset was seen as a watch failure');
    assert.ok(lines.some((l) => l.startsWith('E Reflector failed, retrying reflector="api"')));
  });

  it('a watch answered with 410 Gone: the reflector relists and the model converges', async () => {
    const expired = pods.stats.expired;
    await faultNextWatch({ kind: 'error', status: 410 });
    await create('e');
    await remove('a');
    await eventually(() => modelHas('e') && !modelHas('a'), { description: 'e in and a out of the model', timeoutMs: REPAIR_BUDGET_MS });
    assert.ok(pods.stats.expired > expired, 'the 410 made the reflector relist');
    assert.ok(lines.some((l) => l.startsWith('Reflector watch expired, relisting reflector="api"')));
  });

  it('afterwards the model equals the API', async () => {
    const listed = await api(t.cluster, '/api/v1/namespaces/default/pods');
    const names = (listed.body.items as { metadata: { name: string } }[]).map((p) => `default/${p.metadata.name}`).sort();
    await eventually(
      () =>
        JSON.stringify(
          [...sync.views()]
            .map((v) => v.key)
            .filter((k) => k.startsWith('default/'))
            .sort(),
        ) === JSON.stringify(names),
      {
        description: 'model = API',
        timeoutMs: REPAIR_BUDGET_MS,
      },
    );
    assert.deepEqual(names, ['default/b', 'default/d', 'default/e']);
  });
});
