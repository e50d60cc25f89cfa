/**
 * Controller lanes for a demo cluster in another process: the demo serves its controllers' reconciles
 * at GET /_demo/reconciles, and the extension's poller (src/app/timeline/remoteReconciles.ts) reads
 * them over a real socket with the real KubeClient transport and appends them to the timeline, each
 * once, on the timeline's clock. A cluster without the endpoint (no controllers) ends the polling.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pollRemoteReconciles } from '../../src/app/timeline/remoteReconciles';
import { realClock } from '../../src/core/clock';
import type { KubeClient } from '../../src/core/kube';
import type { ControllerReconcileEvent } from '../../src/core/timeline/events';
import { TimelineStore } from '../../src/core/timeline/store';
import { eventually } from '../support/eventually';
import { demo, type Fixture } from './loader-helpers';

const poller = (client: KubeClient, timeline: TimelineStore, signal: AbortSignal, origin = 0) =>
  pollRemoteReconciles({
    get: async (query, s) => (await client.transport.getJson({ path: '/_demo/reconciles', query, signal: s })).body,
    timeline,
    origin,
    clock: realClock,
    signal,
    everyMs: 50,
  });

describe('controller reconciles of a demo cluster in another process', () => {
  const fixtures: Fixture[] = [];
  after(async () => {
    for (const f of fixtures) await f.stop();
  });

  it('reaches the timeline through /_demo/reconciles, each reconcile once, on the timeline clock', async () => {
    const f = await demo(0, { controllers: true });
    fixtures.push(f);
    const client = await f.client();
    const timeline = new TimelineStore(10_000);
    const ac = new AbortController();
    const origin = realClock.now() - 5000; // the extension started 5 s ago
    const before = realClock.now() - origin;
    const done = poller(client, timeline, ac.signal, origin);
    f.cluster.store.create('apps', 'deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'far', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'far' } },
        template: { metadata: { labels: { app: 'far' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    const events = () => timeline.toArray() as ControllerReconcileEvent[];
    const rs = await eventually(() => events().find((e) => e.controller === 'replicaset' && e.created?.length === 2), {
      description: 'the replicaset reconcile that created two pods, on the timeline',
    });
    assert.equal(rs.kind, 'reconcile');
    assert.equal(rs.handler, 'syncReplicaSet');
    assert.match(rs.key, /^replicasets\.apps:default\/far-/);
    assert.ok(rs.t >= before - 50 && rs.t <= realClock.now() - origin + 50, `t ${rs.t} on the timeline clock (started at ${before})`);
    assert.ok(events().some((e) => e.controller === 'deployment' && e.created?.some((k) => k.startsWith('replicasets.apps:default/far-'))));
    // a few more polls: nothing is appended twice
    const n = timeline.length;
    await eventually(async () => (await client.transport.getJson<{ last: number }>({ path: '/_demo/reconciles', query: { after: 0 } })).body.last >= n, {
      description: 'the server has at most what was appended',
    });
    const seen = new Set(events().map((e) => JSON.stringify(e)));
    assert.equal(seen.size, events().length, 'no duplicates');
    ac.abort();
    await done;
  });

  it('a demo cluster without controllers has no /_demo/reconciles: the polling ends by itself', async () => {
    const f = await demo(0, { controllers: false });
    fixtures.push(f);
    const client = await f.client();
    const timeline = new TimelineStore(10);
    await poller(client, timeline, new AbortController().signal);
    assert.equal(timeline.length, 0);
  });

  it('answers a bad query with 400', async () => {
    const f = await demo(0, { controllers: true });
    fixtures.push(f);
    const r = await fetch(`${f.cluster.url}/_demo/reconciles?after=-1`);
    assert.equal(r.status, 400);
    assert.equal(((await r.json()) as { kind: string }).kind, 'Status');
  });
});
