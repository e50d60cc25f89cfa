/**
 * What the sync loop costs the API server (issue 10): the PLEG relists the pod store the watches
 * keep, so a running loop makes no list requests of its own (the demo cluster counts every request
 * by verb), and still sees containers start. Node scope: `--node` / ClusterSync.node selects the
 * pods bound to one node (fieldSelector spec.nodeName) and names the node on every iteration.
 * PLEG health: pods watches down for longer than the threshold make the PLEG unhealthy, said in
 * the kubelet's words in the log and on the housekeeping iteration, and healthy again after.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runSync } from '../../src/cli/sync';
import { KubeClient } from '../../src/core/kube/client';
import { ClusterSync } from '../../src/core/syncloop/sources/cluster';
import { ConsistencyCheck, ConsistencyLister } from '../../src/core/syncloop/sources/consistency';
import type { Reflector } from '../../src/core/syncloop/sources/reflector';
import type { StoredObject } from '../../src/core/kube/objects/types';
import { realClock } from '../../src/core/clock';
import type { SyncIterationEvent } from '../../src/core/timeline/events';
import { TimelineStore } from '../../src/core/timeline/store';
import { startKubelet, type Kubelet } from '../../src/demo/kubelet';
import { api, startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';
import { startSync } from '../support/syncLoop';

function pod(name: string, nodeName?: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'nginx' }] },
  };
}

const iterations = (tl: TimelineStore) => tl.toArray().filter((e): e is SyncIterationEvent => e.kind === 'iteration');

describe('the sync loop does not poll the API server', () => {
  let t: TestCluster;
  let kubelet: Kubelet;
  before(async () => {
    t = await startTestCluster({ kubelet: false });
    kubelet = startKubelet(t.cluster.store, { speed: 10 });
  });
  after(async () => {
    kubelet.stop();
    await t.close();
  });

  it('no list requests while it runs (the PLEG relists the watched store), and the PLEG still sees ContainerStarted', async () => {
    const { sync, timeline, lines, stop } = await startSync(t.kubeconfig, { ready: false });
    try {
      await eventually(() => sync.allSourcesReady() && sync.allWatching(), {
        description: 'sources listed and watching',
        timeoutMs: 20_000,
      });
      const lists = () => t.cluster.stats.requestsByVerb.list ?? 0;
      const before = lists();
      const relists = sync.relister.relists;
      const errors = sync.stats().pleg.errors;
      assert.equal((await api(t.cluster, '/api/v1/namespaces/default/pods', { method: 'POST', json: pod('cost-1') })).status, 201);
      await eventually(() => iterations(timeline).some((e) => e.source === 'pleg' && e.op === 'ContainerStarted' && e.key === 'default/cost-1'), {
        description: 'PLEG ContainerStarted for cost-1',
        timeoutMs: 20_000,
      });
      // At least five relist periods (a one-second relist by LIST would have made five lists by now).
      await eventually(() => sync.relister.relists >= relists + 5, { description: 'five PLEG relists', timeoutMs: 20_000 });
      assert.equal(lists() - before, 0, 'list requests while running');
      assert.equal(sync.stats().pleg.errors, errors, 'no failed relist once the pods watch is up');
      assert.ok(sync.plegHealth().healthy);
      assert.ok(!lines.some((l) => l.startsWith('E ')), lines.filter((l) => l.startsWith('E ')).join('\n'));
    } finally {
      await stop();
    }
  });

  it("the only lists are the consistency check's, one per period (shortened here from 5 minutes)", async () => {
    const { sync, stop } = await startSync(t.kubeconfig, { consistencyPeriodMs: 700, ready: false });
    try {
      await eventually(() => sync.allSourcesReady() && sync.allWatching(), {
        description: 'sources listed and watching',
        timeoutMs: 20_000,
      });
      const lists = () => t.cluster.stats.requestsByVerb.list ?? 0;
      const before = lists();
      const checks = sync.stats().consistency.lists;
      await eventually(() => sync.stats().consistency.lists >= checks + 3, { description: 'three consistency lists', timeoutMs: 20_000 });
      // The server counts a list when it arrives, the check when its answer is read: one may be in flight.
      const extra = lists() - before - (sync.stats().consistency.lists - checks);
      assert.ok(extra === 0 || extra === 1, `lists besides the consistency check's: ${extra}`);
      assert.equal(sync.stats().consistency.relists, 0, 'nothing was missed');
      assert.ok(
        sync.stats().reflectors.every((r) => r.lists === 1),
        JSON.stringify(sync.stats().reflectors),
      );
    } finally {
      await stop();
    }
  });
});

describe('the consistency check under churn', () => {
  let t: TestCluster;
  let client: KubeClient;
  let pods: StoredObject[];
  before(async () => {
    t = await startTestCluster({ kubelet: false });
    for (let i = 0; i < 12; i++) {
      assert.equal((await api(t.cluster, '/api/v1/namespaces/default/pods', { method: 'POST', json: pod(`churn-${i}`) })).status, 201);
    }
    client = await KubeClient.fromKubeconfig({ kubeconfig: t.kubeconfig });
    pods = (await client.list({ group: '', version: 'v1', resource: 'pods' })).items as StoredObject[];
    assert.equal(pods.length, 12);
  });
  after(async () => {
    client.close();
    await t.close();
  });

  /**
   * Runs a ConsistencyLister over real lists of the demo cluster for `ms`, with a period of 600 ms
   * and confirmations 40 ms after a sighting; `held(n)` is what the source holds at the n-th
   * comparison. The reflector is a stand-in that is always watching and counts relist requests.
   */
  async function runLister(held: (n: number) => StoredObject[], ms: number) {
    let compared = 0;
    const relists: string[] = [];
    const reflector = { state: 'watching', namespace: undefined, relist: (why: string) => relists.push(why) } as unknown as Reflector;
    const lister = new ConsistencyLister({
      client,
      clock: realClock,
      gvr: { group: '', version: 'v1', resource: 'pods' },
      pageSize: 500,
      source: 'api',
      reflector,
      held: () => held(compared++),
      check: new ConsistencyCheck(),
      periodMs: 600,
      confirmMs: 40,
    });
    const stop = new AbortController();
    const started = performance.now();
    const running = lister.run(stop.signal);
    await new Promise((r) => setTimeout(r, ms));
    stop.abort();
    await running;
    return { lists: lister.lists, relists, periods: Math.floor((performance.now() - started) / 600) };
  }

  it('events in flight (a different difference at every list) cost one confirmation per period, not a list every confirmMs', async () => {
    // Each comparison misses a different pod, as a watch a few events behind a churning cluster does.
    const r = await runLister((n) => pods.filter((_, i) => i !== n % pods.length), 3_300);
    assert.ok(r.periods >= 5, `periods elapsed: ${r.periods}`);
    // A period's list and one confirmation; before, a list every 40 ms once the first period ended (~60).
    assert.ok(r.lists <= 2 * r.periods, `${r.lists} lists in ${r.periods} periods`);
    // (A period starts after its confirmation, so a slow machine makes fewer pairs, never more.)
    assert.ok(r.lists >= 2, `${r.lists} lists: at least a period's list and its confirmation`);
    assert.deepEqual(r.relists, [], 'nothing persisted, so nothing was relisted');
  });

  it('a difference that persists is still confirmed and relisted', async () => {
    const missing = pods[3]!.metadata;
    const r = await runLister(() => pods.filter((p) => p.metadata.uid !== missing.uid), 1_500);
    assert.ok(r.relists.length >= 1, `relists: ${r.relists.length} in ${r.lists} lists`);
    assert.ok(r.relists[0]!.includes(`+${missing.uid}@${missing.resourceVersion}`), r.relists[0]);
  });
});

describe('node scope', () => {
  let t: TestCluster;
  let kubelet: Kubelet;
  before(async () => {
    t = await startTestCluster({ kubelet: false });
    kubelet = startKubelet(t.cluster.store, { speed: 10 });
    // Two nodes: the kubelet simulation registers a node when a pod names it.
    for (const [name, node] of [
      ['on-a', 'node-a'],
      ['on-b', 'node-b'],
    ] as const) {
      assert.equal((await api(t.cluster, '/api/v1/namespaces/default/pods', { method: 'POST', json: pod(name, node) })).status, 201);
    }
  });
  after(async () => {
    kubelet.stop();
    await t.close();
  });

  it("a loop scoped to node-a sees only node-a's pods, names node-a on every iteration, and gets its PLEG events", async () => {
    const { sync, timeline, stop } = await startSync(t.kubeconfig, { node: 'node-a' });
    try {
      assert.equal((await api(t.cluster, '/api/v1/namespaces/default/pods', { method: 'POST', json: pod('later-a', 'node-a') })).status, 201);
      assert.equal((await api(t.cluster, '/api/v1/namespaces/default/pods', { method: 'POST', json: pod('later-b', 'node-b') })).status, 201);
      await eventually(() => iterations(timeline).some((e) => e.source === 'pleg' && e.op === 'ContainerStarted' && e.key === 'default/later-a'), {
        description: 'PLEG ContainerStarted for later-a',
        timeoutMs: 20_000,
      });
      const nodes = await api(t.cluster, '/api/v1/nodes');
      const names = (nodes.body.items as { metadata: { name: string } }[]).map((n) => n.metadata.name);
      assert.ok(names.includes('node-a') && names.includes('node-b'), names.join(','));
      const pods = [...sync.views()]
        .map((v) => v.key)
        .filter((k) => k.startsWith('default/'))
        .sort();
      assert.deepEqual(pods, ['default/later-a', 'default/on-a']);
      const its = iterations(timeline);
      assert.ok(its.length > 0);
      for (const e of its) assert.equal(e.node, 'node-a', JSON.stringify(e));
      assert.ok(!its.some((e) => e.key.includes('on-b') || e.key.includes('later-b')));
    } finally {
      await stop();
    }
  });

  it("all nodes (the default): both pods, each pod's iterations name its node", async () => {
    const { timeline, stop } = await startSync(t.kubeconfig, { namespaces: ['default'] });
    try {
      assert.equal((await api(t.cluster, '/api/v1/namespaces/default/pods', { method: 'POST', json: pod('third-b', 'node-b') })).status, 201);
      await eventually(() => iterations(timeline).some((e) => e.source === 'pleg' && e.key === 'default/third-b'), {
        description: 'a PLEG event for third-b',
        timeoutMs: 20_000,
      });
      const its = iterations(timeline);
      const of = (key: string) => its.filter((e) => e.key === key);
      assert.ok(of('default/third-b').length > 0);
      for (const e of of('default/third-b')) assert.equal(e.node, 'node-b', JSON.stringify(e));
      for (const e of of('default/on-a')) assert.equal(e.node, 'node-a', JSON.stringify(e));
      await eventually(() => iterations(timeline).some((e) => e.source === 'sync' && e.key === ''), {
        description: 'a sync tick that touched nothing',
        timeoutMs: 20_000,
      });
      assert.ok(
        iterations(timeline).some((e) => e.source === 'sync' && e.key === '' && e.node === undefined),
        'a tick that touched nothing names no node',
      );
    } finally {
      await stop();
    }
  });

  it('kubeloop sync --node NAME: only that node\'s pods, "node" in every --json line; a bad name is exit 1', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runSync(['--kubeconfig', t.kubeconfig, '--node', 'node-b', '--duration', '2.5', '--json'], {
      stdout: (l) => out.push(l),
      stderr: (l) => err.push(l),
    });
    assert.equal(code, 0, err.join('\n'));
    const objs = out.map((l) => JSON.parse(l));
    assert.ok(
      objs.some((o) => o.source === 'config' && o.op === 'ADD' && o.key.split(',').includes('default/on-b')),
      out.join('\n'),
    );
    assert.ok(!objs.some((o) => o.key.includes('on-a') || o.key.includes('later-a')));
    for (const o of objs) assert.equal(o.node, 'node-b');
    const bad: string[] = [];
    assert.equal(await runSync(['--kubeconfig', t.kubeconfig, '--node', 'Node A,x'], { stdout: () => undefined, stderr: (l) => bad.push(l) }), 1);
    assert.match(bad.join('\n'), /--node must be a node name/);
  });
});

describe('PLEG health', () => {
  let t: TestCluster;
  before(async () => {
    t = await startTestCluster({ kubelet: false });
  });
  after(async () => {
    await t.close();
  });

  it('pods watches down past the threshold: the loop skips its iterations ("Skipping pod synchronization" err="PLEG is not healthy: ..."), on the timeline too; healthy again once they are back', async () => {
    const { sync, timeline, lines, stop } = await startSync(t.kubeconfig, { plegThresholdMs: 1500, ready: false });
    try {
      await eventually(() => sync.allSourcesReady() && sync.relister.relists > 0, { description: 'sources listed, the PLEG relisted', timeoutMs: 20_000 });
      const pods = sync.running.find((r) => r.source === 'api')!.reflector;
      const faults = [
        t.cluster.faults.add({ kind: 'error', status: 503, verb: 'list', resource: 'pods', times: 100_000 }),
        t.cluster.faults.add({ kind: 'error', status: 503, verb: 'watch', resource: 'pods', times: 100_000 }),
      ];
      pods.relist('test: the pods API goes down');
      // As the kubelet: an unhealthy PLEG is a runtime error, and the loop skips its iterations.
      await eventually(
        () =>
          lines.some((l) => /^E Skipping pod synchronization err="PLEG is not healthy: pleg was last seen active \d+(\.\d+)?s ago; threshold is 1\.5s/.test(l)),
        { description: 'the unhealthy line', timeoutMs: 20_000 },
      );
      assert.equal(sync.plegHealth().healthy, false);
      assert.match(sync.plegHealth().message ?? '', /^pleg was last seen active/);
      await eventually(
        () =>
          iterations(timeline).some(
            (e) => e.source === 'sync' && e.op === 'skipped' && e.outcome === 'error' && (e.message ?? '').includes('PLEG is not healthy'),
          ),
        { description: 'a skipped iteration carrying it', timeoutMs: 20_000 },
      );
      const housekeepingBefore = iterations(timeline).filter((e) => e.source === 'housekeeping').length;
      await eventually(() => iterations(timeline).filter((e) => e.op === 'skipped').length >= 3, { description: 'more skipped iterations', timeoutMs: 20_000 });
      assert.equal(iterations(timeline).filter((e) => e.source === 'housekeeping').length, housekeepingBefore, 'no housekeeping while skipping');
      for (const id of faults) t.cluster.faults.remove(id);
      pods.relist('test: the pods API is back'); // cuts the reflector's backoff short
      await eventually(() => lines.some((l) => l.startsWith('PLEG is healthy again')), { description: 'recovery', timeoutMs: 40_000 });
      assert.ok(sync.plegHealth().healthy);
    } finally {
      await stop();
    }
  });
});

describe('streaming watch-list (sendInitialEvents) instead of LIST, with the fallback', () => {
  let t: TestCluster;
  before(async () => {
    t = await startTestCluster({ kubelet: false });
    for (const name of ['w1', 'w2', 'w3'])
      assert.equal((await api(t.cluster, '/api/v1/namespaces/default/pods', { method: 'POST', json: pod(name) })).status, 201);
  });
  after(async () => {
    await t.close();
  });

  const run = async (check: (sync: ClusterSync) => Promise<void>) => {
    const { sync, stop } = await startSync(t.kubeconfig, { namespaces: ['default'], ready: false });
    try {
      await eventually(() => sync.allSourcesReady() && sync.allWatching(), {
        description: 'sources synced and watching',
        timeoutMs: 20_000,
      });
      await check(sync);
    } finally {
      await stop();
    }
  };

  it('syncs every source by watch-list: no LIST request at all, the initial events are the state, later events follow on the same stream', async () => {
    const lists = t.cluster.stats.requestsByVerb.list ?? 0;
    await run(async (sync) => {
      assert.deepEqual([...sync.views()].map((v) => v.key).sort(), ['default/w1', 'default/w2', 'default/w3']);
      for (const r of sync.running)
        assert.deepEqual([r.reflector.stats.watchLists, r.reflector.stats.listRequests, r.reflector.stats.watches], [1, 0, 1], r.reflector.opts.name);
      assert.equal((await api(t.cluster, '/api/v1/namespaces/default/pods', { method: 'POST', json: pod('w4') })).status, 201);
      await eventually(() => sync.view('default/w4') !== undefined, { description: 'w4 from the watch', timeoutMs: 20_000 });
      assert.equal(sync.running.find((r) => r.source === 'api/default')!.reflector.stats.watches, 1, 'on the same stream');
    });
    assert.equal((t.cluster.stats.requestsByVerb.list ?? 0) - lists, 0);
  });

  it('a server that rejects the watch-list (422) is listed instead, from then on', async () => {
    const id = t.cluster.faults.add({ kind: 'error', status: 422, verb: 'watch', resource: 'pods', times: 1 });
    await run(async (sync) => {
      const pods = sync.running.find((r) => r.source === 'api/default')!.reflector;
      assert.equal(t.cluster.faults.list().find((r) => r.id === id)?.applied, 1);
      assert.deepEqual([pods.stats.watchListFallbacks, pods.stats.listRequests, pods.stats.watchLists], [1, 1, 0]);
      assert.deepEqual([...sync.views()].map((v) => v.key).sort(), ['default/w1', 'default/w2', 'default/w3', 'default/w4']);
      pods.relist('test: relist');
      await eventually(() => pods.stats.listRequests === 2 && pods.state === 'watching', { description: 'relisted by LIST', timeoutMs: 20_000 });
      assert.equal(pods.stats.watchLists, 0);
    });
  });
});

describe('a watch gone silent', () => {
  let t: TestCluster;
  before(async () => {
    // No periodic bookmarks: a quiet type's watch says nothing at all, like a quiet resource's on kube-apiserver.
    t = await startTestCluster({ kubelet: false, bookmarkIntervalMs: 0 });
  });
  after(async () => {
    await t.close();
  });

  it('is reopened from its last resourceVersion (a watch request), not relisted', async () => {
    const { sync, lines, stop } = await startSync(t.kubeconfig, { namespaces: ['default'], stallAfterMs: 600, housekeepingPeriodMs: 200, ready: false });
    try {
      await eventually(() => sync.allSourcesReady() && sync.allWatching(), {
        description: 'sources synced and watching',
        timeoutMs: 20_000,
      });
      const lists = t.cluster.stats.requestsByVerb.list ?? 0;
      const events = sync.running.find((r) => r.reflector.opts.name === 'events/default')!.reflector;
      const watches = events.stats.watches;
      await eventually(() => events.stats.rewatchRequests >= 2 && events.state === 'watching', {
        description: 'two rewatches of the silent events watch',
        timeoutMs: 20_000,
      });
      assert.ok(events.stats.watches >= watches + 2, 'a new watch each time');
      assert.deepEqual([events.stats.lists, events.stats.relistRequests], [1, 0], 'no relist');
      assert.equal((t.cluster.stats.requestsByVerb.list ?? 0) - lists, 0);
      assert.ok(
        lines.some((l) => l.startsWith('Reflector rewatch requested reflector="events/default" reason="watch silent"')),
        lines.join('\n'),
      );
      // The reopened pods watch still delivers.
      assert.equal((await api(t.cluster, '/api/v1/namespaces/default/pods', { method: 'POST', json: pod('after-silence') })).status, 201);
      await eventually(() => sync.view('default/after-silence') !== undefined, {
        description: 'a pod created after the rewatches',
        timeoutMs: 20_000,
      });
    } finally {
      await stop();
    }
  });
});
