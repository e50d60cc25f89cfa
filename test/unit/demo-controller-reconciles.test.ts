// The demo cluster's controllers report each reconcile (the timeline's controller lanes): key,
// upstream's handler, time on the controllers' clock (a FakeClock here), and what it wrote. Work
// queues drain in real macrotasks, so the test waits for states (eventually), never for time.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/core/clock';
import { startControllers, type ReconcileRecord } from '../../src/demo/controllers';
import { ReconcileObserver } from '../../src/demo/controllers/observe';
import { Catalog } from '../../src/demo/server/catalog';
import { ObjectStore, type DemoObject } from '../../src/demo/store';
import { eventually } from '../support/eventually';
import { appendReconciles } from '../../src/app/timeline/controllers';
import { TimelineStore } from '../../src/core/timeline/store';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const ns = 'lanes';

function setup() {
  const store = new ObjectStore({ now: () => new Date(NOW) });
  new Catalog(store).registerBuiltins();
  const clock = new FakeClock();
  const records: ReconcileRecord[] = [];
  const cm = startControllers(store, { clock, wallNow: () => NOW, onReconcile: (r) => records.push(r) });
  return { store, clock, records, cm };
}

const deployment = (name: string, replicas: number): DemoObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: ns },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
  },
});

describe('controller reconciles, as the timeline sees them', () => {
  const stops: (() => void)[] = [];
  after(() => stops.forEach((s) => s()));

  it("a Deployment's change flows down: deployment creates the ReplicaSet, replicaset creates the pods", async () => {
    const { store, clock, records, cm } = setup();
    stops.push(() => cm.stop());
    await clock.advance(1234);
    store.create('apps', 'deployments', deployment('web', 2));
    const byRs = await eventually(() => records.find((r) => r.controller === 'replicaset' && (r.created?.length ?? 0) >= 2), {
      description: 'a replicaset reconcile that created two pods',
    });
    const byDeploy = records.find((r) => r.controller === 'deployment' && r.created?.some((k) => k.startsWith('replicasets.apps:lanes/web-')));
    assert.ok(byDeploy, JSON.stringify(records, null, 1));
    assert.equal(byDeploy.key, 'deployments.apps:lanes/web');
    assert.equal(byDeploy.handler, 'syncDeployment');
    assert.equal(byDeploy.outcome, 'ok');
    assert.equal(byDeploy.t, 1234, "the controllers' clock");
    assert.equal(byDeploy.durationMs, 0, 'the fake clock did not move during the reconcile');
    assert.ok((byDeploy.events ?? 0) >= 1, 'ScalingReplicaSet was recorded');

    const rsKey = byDeploy.created!.find((k) => k.startsWith('replicasets.apps:'))!;
    assert.equal(byRs.key, rsKey);
    assert.equal(byRs.handler, 'syncReplicaSet');
    assert.equal(byRs.created!.length, 2);
    for (const k of byRs.created!) assert.match(k, /^pods:lanes\/web-[a-z0-9]+-[a-z0-9]{5}$/);
    assert.ok((byRs.events ?? 0) >= 2, 'SuccessfulCreate for each pod');
    assert.ok(
      byDeploy.created!.every((k) => !k.startsWith('pods:')),
      'the deployment controller creates no pods itself',
    );
    // status writes are counted as such, not as updates of the object; the revision annotation is an update
    await eventually(() => records.some((r) => r.controller === 'deployment' && (r.statusUpdates ?? 0) > 0), { description: 'a deployment status write' });
    assert.ok(
      records.some((r) => r.controller === 'deployment' && r.updated?.includes('deployments.apps:lanes/web')),
      'the revision annotation',
    );
    await eventually(() => records.some((r) => r.key === rsKey && (r.statusUpdates ?? 0) > 0), { description: "the ReplicaSet's status write" });
    assert.ok(
      records.filter((r) => r.key === rsKey).every((r) => !r.updated?.includes(rsKey)),
      "the replicaset controller's status writes are not updates",
    );
  });

  it('a scale-down is reported as deletions; the garbage collector reports the dependents it deletes', async () => {
    const { store, records, cm } = setup();
    stops.push(() => cm.stop());
    store.create('apps', 'deployments', deployment('api', 3));
    await eventually(() => store.list('', 'pods', ns).items.length === 3, { description: 'three pods' });
    const d = store.get('apps', 'deployments', ns, 'api')!;
    store.update('apps', 'deployments', { ...d, spec: { ...(d.spec as object), replicas: 1 } });
    const down = await eventually(() => records.find((r) => r.controller === 'replicaset' && (r.deleted?.length ?? 0) === 2), {
      description: 'a replicaset reconcile that deleted two pods',
    });
    for (const k of down.deleted!) assert.match(k, /^pods:lanes\/api-/);
    store.delete('apps', 'deployments', ns, 'api');
    const gc = await eventually(
      () => records.find((r) => r.controller === 'garbagecollector' && r.deleted?.some((k) => k.startsWith('replicasets.apps:lanes/api-'))),
      {
        description: 'the garbage collector deleting the orphaned ReplicaSet',
      },
    );
    assert.equal(gc.handler, 'attemptToDeleteItem');
    assert.match(gc.key, /^replicasets\.apps:lanes\/api-/);
  });

  it('a reconcile that throws is reported as an error with its message, and the queue still sees the throw', () => {
    const store = new ObjectStore();
    const clock = new FakeClock();
    const got: ReconcileRecord[] = [];
    const obs = new ReconcileObserver(store, clock, (r) => got.push(r));
    const fn = obs.wrap(
      'job',
      'syncJob',
      (k) => `jobs.batch:${k}`,
      () => {
        throw new Error('conflict: the object has been modified');
      },
    );
    assert.throws(() => fn('ns/j'), /conflict/);
    assert.deepEqual(got, [
      {
        t: 0,
        controller: 'job',
        key: 'jobs.batch:ns/j',
        handler: 'syncJob',
        durationMs: 0,
        outcome: 'error',
        message: 'conflict: the object has been modified',
      },
    ]);
    obs.stop();
  });

  it('the extension appends them to the timeline on the shared time origin', () => {
    const timeline = new TimelineStore(10);
    appendReconciles(timeline, 1000)({ t: 1500, controller: 'job', key: 'jobs.batch:ns/j', handler: 'syncJob', durationMs: 2, outcome: 'ok' });
    assert.deepEqual(timeline.toArray(), [
      { kind: 'reconcile', t: 500, controller: 'job', key: 'jobs.batch:ns/j', handler: 'syncJob', durationMs: 2, outcome: 'ok' },
    ]);
  });
});
