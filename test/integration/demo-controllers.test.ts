/**
 * The demo cluster's controllers at library level, with the kubelet simulation running pods:
 * exact states reached by waiting on store events (never on time).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startControllers } from '../../src/demo/controllers';
import { startDemoCluster, type DemoCluster } from '../../src/demo';
import type { DemoObject, ObjectStore } from '../../src/demo/store';
import { api } from './demo-support';

type Obj = Record<string, any>;

/** Resolves with the predicate's value once it is truthy, re-checked after every store write. */
function waitFor<T>(store: ObjectStore, what: string, check: () => T | undefined | false, timeoutMs = 90_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const tryNow = () => {
      let v: T | undefined | false;
      try {
        v = check();
      } catch (e) {
        done();
        reject(e);
        return;
      }
      if (v) {
        done();
        resolve(v);
      }
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    const unsub = store.subscribe(() => queueMicrotask(tryNow));
    const done = () => {
      clearTimeout(timer);
      unsub();
    };
    tryNow();
  });
}

const ns = 'ctl';
const labels = (app: string) => ({ app });
const podTemplate = (app: string, image = 'nginx:1.27') => ({ metadata: { labels: labels(app) }, spec: { containers: [{ name: 'c', image }] } });
const cond = (o: DemoObject | undefined, type: string) => ((o?.status as Obj | undefined)?.conditions as Obj[] | undefined)?.find((c) => c.type === type);
const ownedBy = (store: ObjectStore, group: string, resource: string, owner: DemoObject) =>
  store
    .list(group, resource, ns)
    .items.filter((o) => (o.metadata.ownerReferences as Obj[] | undefined)?.some((r) => r.uid === owner.metadata.uid && r.controller));
const activePods = (store: ObjectStore, app: string) =>
  store.list('', 'pods', ns).items.filter((p) => p.metadata.labels?.app === app && !p.metadata.deletionTimestamp);
const isReady = (p: DemoObject) => cond(p, 'Ready')?.status === 'True';

function deployment(name: string, replicas: number, spec: Obj = {}): DemoObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: { replicas, selector: { matchLabels: labels(name) }, template: podTemplate(name), ...spec },
  };
}

function deploymentAvailable(store: ObjectStore, name: string, replicas: number, revision?: string): () => DemoObject | undefined {
  return () => {
    const d = store.get('apps', 'deployments', ns, name);
    const st = (d?.status ?? {}) as Obj;
    const ok =
      d &&
      st.observedGeneration === d.metadata.generation &&
      st.updatedReplicas === replicas &&
      st.replicas === replicas &&
      st.availableReplicas === replicas &&
      cond(d, 'Available')?.status === 'True' &&
      cond(d, 'Progressing')?.reason === 'NewReplicaSetAvailable';
    if (!ok) return undefined;
    if (revision && d.metadata.annotations?.['deployment.kubernetes.io/revision'] !== revision) {
      // The Deployment carries no revision annotation here; look at its new ReplicaSet instead.
      const rs = ownedBy(store, 'apps', 'replicasets', d).find((r) => (r.spec as Obj).replicas === replicas);
      if (rs?.metadata.annotations?.['deployment.kubernetes.io/revision'] !== revision) return undefined;
    }
    return d;
  };
}

describe('demo cluster controllers', () => {
  let c: DemoCluster;
  let store: ObjectStore;
  before(async () => {
    c = await startDemoCluster({ controllers: true });
    store = c.store;
    store.create('', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });
  after(() => c.stop());

  it('a Deployment gets a ReplicaSet with the template hash, then pods, then Available', async () => {
    const started = Date.now();
    const d = store.create('apps', 'deployments', deployment('web', 2));
    const done = await waitFor(store, 'web Available', deploymentAvailable(store, 'web', 2));
    const [rs, ...more] = ownedBy(store, 'apps', 'replicasets', d);
    assert.equal(more.length, 0);
    const hash = rs!.metadata.labels!['pod-template-hash']!;
    assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(rs!.metadata.name, `web-${hash}`);
    assert.equal(rs!.metadata.annotations!['deployment.kubernetes.io/revision'], '1');
    assert.deepEqual((rs!.spec as Obj).selector.matchLabels, { app: 'web', 'pod-template-hash': hash });
    const pods = ownedBy(store, '', 'pods', rs!);
    assert.equal(pods.length, 2);
    for (const p of pods) {
      assert.equal(p.metadata.labels!['pod-template-hash'], hash);
      assert.ok((p.spec as Obj).nodeName, 'bound by the scheduler');
      assert.ok(isReady(p));
    }
    const st = done.status as Obj;
    assert.equal(st.readyReplicas, 2);
    assert.equal(cond(done, 'Available')!.reason, 'MinimumReplicasAvailable');
    // Events with current timestamps, from the controllers' own components.
    const events = store.list('', 'events', ns).items;
    const scaling = events.find((e) => e.reason === 'ScalingReplicaSet' && (e.involvedObject as Obj).name === 'web');
    assert.ok(scaling, 'a ScalingReplicaSet Event');
    assert.equal(scaling.message, `Scaled up replica set ${rs!.metadata.name} from 0 to 2`);
    assert.equal((scaling.source as Obj).component, 'deployment-controller');
    assert.ok(Date.parse(String(scaling.lastTimestamp)) >= Math.floor(started / 1000) * 1000 - 1000, 'the Event was seen just now');
    const created = events.filter((e) => e.reason === 'SuccessfulCreate' && (e.involvedObject as Obj).name === rs!.metadata.name);
    assert.equal(created.length, 2);
    assert.equal((created[0]!.source as Obj).component, 'replicaset-controller');
  });

  it('a rolling update honours maxSurge 1 / maxUnavailable 0, keeps revisionHistoryLimit old sets', async () => {
    const name = 'roll';
    const d0 = store.create(
      'apps',
      'deployments',
      deployment(name, 3, { revisionHistoryLimit: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }),
    );
    await waitFor(store, 'roll Available', deploymentAvailable(store, name, 3));
    let maxPods = 0;
    let minReady = Infinity;
    const unsub = store.subscribe(() => {
      const pods = activePods(store, name);
      maxPods = Math.max(maxPods, pods.length);
      minReady = Math.min(minReady, pods.filter(isReady).length);
    });
    try {
      for (const image of ['nginx:1.28', 'nginx:1.29']) {
        const cur = store.get('apps', 'deployments', ns, name)!;
        const spec = cur.spec as Obj;
        store.update('apps', 'deployments', { ...cur, spec: { ...spec, template: { ...spec.template, spec: { containers: [{ name: 'c', image }] } } } });
        await waitFor(store, `roll on ${image}`, () => {
          const ok = deploymentAvailable(store, name, 3)();
          return ok && activePods(store, name).length === 3 && activePods(store, name).every((p) => (p.spec as Obj).containers[0].image === image)
            ? ok
            : undefined;
        });
      }
    } finally {
      unsub();
    }
    assert.ok(maxPods <= 4, `at most replicas + maxSurge pods at once (saw ${maxPods})`);
    assert.ok(minReady >= 3, `never fewer than replicas - maxUnavailable ready (saw ${minReady})`);
    const sets = await waitFor(store, 'old sets pruned', () => {
      const s = ownedBy(store, 'apps', 'replicasets', d0);
      return s.length === 2 ? s : undefined;
    });
    const revs = sets.map((s) => [s.metadata.annotations!['deployment.kubernetes.io/revision'], (s.spec as Obj).replicas]).sort();
    assert.deepEqual(revs, [
      ['2', 0],
      ['3', 3],
    ]);
  });

  it('a Deployment that makes no progress for progressDeadlineSeconds gets ProgressDeadlineExceeded', async () => {
    const tmpl = {
      metadata: { labels: labels('stuck') },
      spec: { containers: [{ name: 'c', image: 'nginx', readinessProbe: { exec: { command: ['false'] }, periodSeconds: 1 } }] },
    };
    store.create('apps', 'deployments', deployment('stuck', 1, { progressDeadlineSeconds: 3, template: tmpl }));
    const d = await waitFor(store, 'stuck timed out', () => {
      const o = store.get('apps', 'deployments', ns, 'stuck');
      return cond(o, 'Progressing')?.reason === 'ProgressDeadlineExceeded' ? o : undefined;
    });
    const p = cond(d, 'Progressing')!;
    assert.equal(p.status, 'False');
    assert.match(p.message, /^ReplicaSet "stuck-\w+" has timed out progressing\.$/);
    assert.ok(Date.parse(p.lastTransitionTime) - Date.parse(String(d.metadata.creationTimestamp)) >= 2000, 'not before the deadline');
    assert.equal(cond(d, 'Available')!.status, 'False');
    store.delete('apps', 'deployments', ns, 'stuck');
  });

  it('the scale subresource reads and writes spec.replicas, and the controllers follow', async () => {
    const base = `/apis/apps/v1/namespaces/${ns}/deployments/web/scale`;
    const got = await api(c, base);
    assert.equal(got.status, 200);
    assert.equal(got.body.kind, 'Scale');
    assert.equal(got.body.apiVersion, 'autoscaling/v1');
    assert.deepEqual(got.body.spec, { replicas: 2 });
    assert.deepEqual(got.body.status, { replicas: 2, selector: 'app=web' });
    const patched = await api(c, base, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, json: { spec: { replicas: 4 } } });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.spec.replicas, 4);
    await waitFor(store, 'web at 4', deploymentAvailable(store, 'web', 4));
    const stale = await api(c, base, { method: 'PUT', json: { ...got.body, spec: { replicas: 1 } } });
    assert.equal(stale.status, 409);
    const fresh = (await api(c, base)).body;
    const put = await api(c, base, { method: 'PUT', json: { ...fresh, spec: { replicas: 1 } } });
    assert.equal(put.status, 200);
    await waitFor(store, 'web at 1', () => deploymentAvailable(store, 'web', 1)() && activePods(store, 'web').length === 1);
    const bad = await api(c, base, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, json: { spec: { replicas: -1 } } });
    assert.equal(bad.status, 422);
    assert.equal((await api(c, `/api/v1/namespaces/${ns}/configmaps/x/scale`)).status, 404);
  });

  it('a Job completes its completions; one past backoffLimit fails with BackoffLimitExceeded', async () => {
    const job = (name: string, script: string, spec: Obj) => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name, namespace: ns },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', script] }] } }, ...spec },
    });
    store.create('batch', 'jobs', job('ok', 'echo done', { completions: 2, parallelism: 1 }));
    store.create('batch', 'jobs', job('bad', 'exit 1', { backoffLimit: 1 }));
    const ok = await waitFor(store, 'ok Complete', () => {
      const j = store.get('batch', 'jobs', ns, 'ok');
      return cond(j, 'Complete')?.status === 'True' ? j : undefined;
    });
    assert.equal((ok!.status as Obj).succeeded, 2);
    assert.ok((ok!.status as Obj).completionTime);
    assert.equal(ownedBy(store, '', 'pods', ok!).length, 2);
    const bad = await waitFor(
      store,
      'bad Failed',
      () => {
        const j = store.get('batch', 'jobs', ns, 'bad');
        return cond(j, 'Failed')?.status === 'True' ? j : undefined;
      },
      120_000,
    );
    assert.equal(cond(bad, 'Failed')!.reason, 'BackoffLimitExceeded');
    assert.equal((bad!.status as Obj).failed, 2);
    assert.equal(cond(bad, 'Complete'), undefined);
  });

  it('a StatefulSet creates web-0 before web-1, each once the one before is ready', async () => {
    const order: string[] = [];
    const readyAtCreate: boolean[] = [];
    const unsub = store.subscribe((e) => {
      if (e.type === 'ADDED' && e.resource === 'pods' && e.object.metadata.labels?.app === 'db') {
        order.push(e.object.metadata.name);
        const prev = store.get('', 'pods', ns, `db-${order.length - 2}`);
        readyAtCreate.push(order.length === 1 || (!!prev && isReady(prev)));
      }
    });
    try {
      store.create('apps', 'statefulsets', {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db', namespace: ns },
        spec: { replicas: 2, serviceName: 'db', selector: { matchLabels: labels('db') }, template: podTemplate('db') },
      });
      const s = await waitFor(store, 'db ready', () => {
        const o = store.get('apps', 'statefulsets', ns, 'db');
        return (o?.status as Obj | undefined)?.readyReplicas === 2 ? o : undefined;
      });
      assert.deepEqual(order, ['db-0', 'db-1']);
      assert.deepEqual(readyAtCreate, [true, true]);
      assert.equal((s!.status as Obj).updateRevision, (s!.status as Obj).currentRevision);
      const p1 = store.get('', 'pods', ns, 'db-1')!;
      assert.equal(p1.metadata.labels!['apps.kubernetes.io/pod-index'], '1');
      assert.equal((p1.spec as Obj).hostname, 'db-1');
      assert.equal((p1.spec as Obj).subdomain, 'db');
    } finally {
      unsub();
    }
  });

  it('a StatefulSet scales through its scale subresource: up in order, down from the highest ordinal', async () => {
    const base = `/apis/apps/v1/namespaces/${ns}/statefulsets/db/scale`;
    const got = await api(c, base);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.status, { replicas: 2, selector: 'app=db' });
    const deletedOrder: string[] = [];
    const unsub = store.subscribe((e) => {
      if (e.resource === 'pods' && e.object.metadata.labels?.app === 'db' && e.object.metadata.deletionTimestamp && !e.prevObject?.metadata.deletionTimestamp)
        deletedOrder.push(e.object.metadata.name);
    });
    try {
      assert.equal(
        (await api(c, base, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, json: { spec: { replicas: 3 } } })).status,
        200,
      );
      await waitFor(store, 'db at 3', () => (store.get('apps', 'statefulsets', ns, 'db')?.status as Obj | undefined)?.readyReplicas === 3);
      assert.ok(store.get('', 'pods', ns, 'db-2'));
      assert.equal(
        (await api(c, base, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, json: { spec: { replicas: 1 } } })).status,
        200,
      );
      await waitFor(store, 'db at 1', () => {
        const st = store.get('apps', 'statefulsets', ns, 'db')?.status as Obj | undefined;
        return st?.replicas === 1 && !store.get('', 'pods', ns, 'db-1') && !store.get('', 'pods', ns, 'db-2');
      });
    } finally {
      unsub();
    }
    assert.deepEqual(deletedOrder, ['db-2', 'db-1']);
    assert.ok(store.get('', 'pods', ns, 'db-0'));
  });

  it('a DaemonSet runs one pod on each node', async () => {
    const nodes = store
      .list('', 'nodes')
      .items.map((n) => n.metadata.name)
      .sort();
    assert.ok(nodes.length >= 3);
    store.create('apps', 'daemonsets', {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: ns },
      spec: { selector: { matchLabels: labels('agent') }, template: podTemplate('agent') },
    });
    const ds = await waitFor(store, 'agent ready', () => {
      const o = store.get('apps', 'daemonsets', ns, 'agent');
      return (o?.status as Obj | undefined)?.numberReady === nodes.length ? o : undefined;
    });
    assert.equal((ds!.status as Obj).desiredNumberScheduled, nodes.length);
    const on = activePods(store, 'agent')
      .map((p) => (p.spec as Obj).nodeName)
      .sort();
    assert.deepEqual(on, nodes);
    // A pod pinned to a node that does not exist stays Pending (the scheduler handles pods in order:
    // once the pod created after it is bound, it has had its turn).
    const pin = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['no-such-node'] }] }],
        },
      },
    };
    store.create('', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'pinned', namespace: ns },
      spec: { affinity: pin, containers: [{ name: 'c', image: 'nginx' }] },
    });
    store.create('', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'free', namespace: ns },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    await waitFor(store, 'free bound', () => (store.get('', 'pods', ns, 'free')?.spec as Obj | undefined)?.nodeName);
    assert.equal((store.get('', 'pods', ns, 'pinned')!.spec as Obj).nodeName, undefined);
    assert.equal(store.get('', 'nodes', undefined, 'no-such-node'), undefined);
    store.delete('', 'pods', ns, 'pinned');
    store.delete('', 'pods', ns, 'free');
  });

  it('garbage collection: background, foreground and orphan propagation', async () => {
    for (const n of ['gc-bg', 'gc-fg', 'gc-or']) store.create('apps', 'deployments', deployment(n, 1));
    for (const n of ['gc-bg', 'gc-fg', 'gc-or']) await waitFor(store, `${n} Available`, deploymentAvailable(store, n, 1));
    const rsOf = (n: string) => store.list('apps', 'replicasets', ns).items.filter((r) => r.metadata.labels?.app === n);

    const bg = await api(c, `/apis/apps/v1/namespaces/${ns}/deployments/gc-bg`, { method: 'DELETE', json: { propagationPolicy: 'Background' } });
    assert.equal(bg.status, 200);
    assert.equal(store.get('apps', 'deployments', ns, 'gc-bg'), undefined, 'background: the owner goes at once');
    await waitFor(
      store,
      'gc-bg dependents gone',
      () => rsOf('gc-bg').length === 0 && store.list('', 'pods', ns).items.every((p) => p.metadata.labels?.app !== 'gc-bg'),
    );

    const fg = await api(c, `/apis/apps/v1/namespaces/${ns}/deployments/gc-fg`, { method: 'DELETE', json: { propagationPolicy: 'Foreground' } });
    assert.equal(fg.status, 200);
    assert.ok(fg.body.metadata.deletionTimestamp);
    assert.deepEqual(fg.body.metadata.finalizers, ['foregroundDeletion']);
    // The owner outlives every dependent: record whether it was gone while a pod or set remained.
    let ownerGoneFirst = false;
    const unsub = store.subscribe((e) => {
      if (e.type === 'DELETED' && e.resource === 'deployments' && e.object.metadata.name === 'gc-fg') {
        ownerGoneFirst = rsOf('gc-fg').length > 0 || store.list('', 'pods', ns).items.some((p) => p.metadata.labels?.app === 'gc-fg');
      }
    });
    try {
      await waitFor(store, 'gc-fg gone', () => !store.get('apps', 'deployments', ns, 'gc-fg'));
    } finally {
      unsub();
    }
    assert.equal(ownerGoneFirst, false);
    assert.equal(rsOf('gc-fg').length, 0);

    const rsOrphan = rsOf('gc-or')[0]!;
    const or = await api(c, `/apis/apps/v1/namespaces/${ns}/deployments/gc-or`, { method: 'DELETE', json: { propagationPolicy: 'Orphan' } });
    assert.equal(or.status, 200);
    await waitFor(store, 'gc-or gone', () => !store.get('apps', 'deployments', ns, 'gc-or'));
    const kept = store.get('apps', 'replicasets', ns, rsOrphan.metadata.name)!;
    assert.equal(kept.metadata.uid, rsOrphan.metadata.uid);
    assert.equal(kept.metadata.ownerReferences, undefined);
    assert.equal(ownedBy(store, '', 'pods', kept).length, 1, 'the orphaned set keeps its pod');
  });
});

describe('demo cluster without controllers (the library default)', () => {
  it('leaves Deployments alone and deletes at once whatever the propagation policy', async () => {
    const c = await startDemoCluster({});
    try {
      const d = c.store.create('apps', 'deployments', deployment('idle', 1));
      c.store.create('', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      c.store.create('', 'pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', namespace: ns },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      });
      // The kubelet ran the pod: any controller would have had its turn by now.
      await waitFor(c.store, 'p Ready', () => {
        const p = c.store.get('', 'pods', ns, 'p');
        return p && isReady(p);
      });
      assert.equal(c.store.list('apps', 'replicasets').items.length, 0);
      assert.equal(c.store.get('apps', 'deployments', ns, 'idle')!.status, undefined);
      const r = await api(c, `/apis/apps/v1/namespaces/${ns}/deployments/idle`, { method: 'DELETE', json: { propagationPolicy: 'Foreground' } });
      assert.equal(r.status, 200);
      assert.equal(c.store.get('apps', 'deployments', ns, 'idle'), undefined);
      void d;
    } finally {
      await c.stop();
    }
  });
});

describe('the cronjob controller', () => {
  it('creates the Job of the latest due time, which the job controller runs to Complete', async () => {
    const c = await startDemoCluster({});
    // The controllers' wall clock stands still but where the test moves it: a test that ran across a
    // real minute boundary would otherwise see the next minute's Job too (seen under load).
    let wall = Date.now();
    const cm = startControllers(c.store, { controllers: ['cronjob', 'job'], wallNow: () => wall });
    try {
      c.store.create('', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      const cj = c.store.create('batch', 'cronjobs', {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'tick', namespace: ns },
        spec: {
          schedule: '* * * * *',
          jobTemplate: {
            spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'echo tick'] }] } } },
          },
        },
      });
      // Two minutes on the controllers' clock: the latest due minute is the one to run (the earlier one is missed).
      wall += 120_000;
      c.store.update('batch', 'cronjobs', { ...cj, metadata: { ...cj.metadata, annotations: { touched: '1' } } });
      const job = await waitFor(c.store, 'a Job of tick', () => c.store.list('batch', 'jobs', ns).items.find((j) => j.metadata.name.startsWith('tick-')));
      const due = Math.floor(wall / 60_000);
      assert.ok(Number(job.metadata.name.slice(5)) >= due - 1, `the latest due minute (${job.metadata.name} vs ${due})`);
      assert.equal((job.metadata.ownerReferences as Obj[])[0]!.name, 'tick');
      await waitFor(c.store, 'tick Complete + lastSuccessfulTime', () => {
        const o = c.store.get('batch', 'cronjobs', ns, 'tick');
        const st = (o?.status ?? {}) as Obj;
        return st.lastSuccessfulTime && !st.active ? o : undefined;
      });
      assert.equal(c.store.list('batch', 'jobs', ns).items.length, 1);
      const ev = c.store.list('', 'events', ns).items.find((e) => e.reason === 'SuccessfulCreate' && (e.source as Obj).component === 'cronjob-controller');
      assert.equal(ev?.message, `Created job ${job.metadata.name}`);
    } finally {
      cm.stop();
      await c.stop();
    }
  });
});

describe('generated Events with generatedNow (what kubeloop demo-cluster passes)', () => {
  it('were last seen before now and recently, not months ago', async () => {
    const now = Date.now();
    const c = await startDemoCluster({ objects: 400, seed: 2, kubelet: false, generatedNow: now });
    try {
      const times = c.store.list('', 'events').items.map((e) => Date.parse(String(e.lastTimestamp)));
      assert.ok(times.length > 10);
      assert.ok(
        times.every((t) => t <= now),
        'no Event from the future',
      );
      assert.ok(Math.max(...times) > now - 3_600_000, 'the newest generated Event is less than an hour old');
    } finally {
      await c.stop();
    }
  });
});

describe('generated workloads are stored as the apiserver defaults them', () => {
  it('a metadata-only PATCH of a generated Deployment keeps its generation and template (no rollout)', async () => {
    const c = await startDemoCluster({ objects: 400, seed: 3, kubelet: false });
    try {
      const d = c.store.list('apps', 'deployments').items[0]!;
      assert.equal((d.spec as Obj).template.spec.containers[0].terminationMessagePath, '/dev/termination-log', 'the template was defaulted when generated');
      const r = await api(c, `/apis/apps/v1/namespaces/${d.metadata.namespace}/deployments/${d.metadata.name}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        json: { metadata: { annotations: { touched: 'yes' } } },
      });
      assert.equal(r.status, 200);
      assert.equal(r.body.metadata.generation, d.metadata.generation, 'no spec change, no new generation');
      assert.deepEqual(r.body.spec, d.spec);
    } finally {
      await c.stop();
    }
  });
});
