import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { FakeClock } from '../../src/core/clock';
import { SyncLoop } from '../../src/core/syncloop/syncloop';
import { syncLoop } from '../../src/core/syncloop/loop';
import { PodCache } from '../../src/core/syncloop/pleg/podcache';
import { GenericPLEG } from '../../src/core/syncloop/pleg/generic';
import { checkAndUpdatePod, PodStorage } from '../../src/core/syncloop/config/storage';
import { loopPod } from '../../src/core/syncloop/config/loopPod';
import { computeObjectView } from '../../src/core/rows/objectView';
import { objectKey } from '../../src/core/kube/objects/objectKey';
import type { Pod } from '../../src/core/kube/objects/pod';
import { eventually } from '../support/eventually';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const uid = (i: number) => `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;

/** A pod as a cluster lists it: most of its bytes are what only the merge compares. */
function fullPod(i: number, o: { rv?: number; image?: string; podIP?: string; ready?: boolean; restarts?: number } = {}): Pod {
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name: `p${i}`,
      namespace: 'ns',
      uid: uid(i),
      resourceVersion: String(o.rv ?? 10),
      creationTimestamp: '2026-12-07T00:00:00Z',
      labels: { app: 'a' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true }],
      managedFields: [{ manager: 'kubelet', operation: 'Update', fieldsV1: { 'f:status': {} } }],
    },
    spec: {
      nodeName: 'node-1',
      containers: [
        {
          name: 'c',
          image: o.image ?? 'registry/app:1',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } },
          readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 10 },
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    },
    status: {
      phase: 'Running',
      podIP: o.podIP ?? '10.0.0.1',
      hostIP: '192.168.0.1',
      qosClass: 'Burstable',
      startTime: '2026-12-07T00:00:01Z',
      conditions: [
        { type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: '2026-12-07T00:00:05Z', lastProbeTime: null } as never,
        { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-12-07T00:00:00Z' } as never,
      ],
      containerStatuses: [
        {
          name: 'c',
          ready: o.ready !== false,
          started: true,
          restartCount: o.restarts ?? 0,
          image: 'registry/app:1',
          imageID: 'registry/app@sha256:0123',
          containerID: `containerd://${i}`,
          state: { running: { startedAt: '2026-12-07T00:00:02Z' } },
        } as never,
      ],
    },
  };
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
};

describe('the loop keeps its own copy of a pod, not the pod as listed', () => {
  it('holds no listed pod once the merge, the desired state, the pod workers and the pod cache have taken it', async () => {
    const clock = new FakeClock();
    const podCache = new PodCache();
    const kl = new SyncLoop({ clock, sources: ['api'], podCache });
    const ac = new AbortController();
    const done = syncLoop(kl, ac.signal);
    const N = 500;
    const refs: WeakRef<Pod>[] = [];
    try {
      await (async () => {
        // In a frame of its own: the listed pods are referenced from here only until it returns.
        const listed = Array.from({ length: N }, (_, i) => fullPod(i));
        for (const p of listed) refs.push(new WeakRef(p));
        await kl.podConfig.merge('api', { op: 'SET', source: 'api', pods: listed });
        for (const p of listed) podCache.observe(p); // as the pods source does after its SET
      })();
      await eventually(() => kl.desired.podCount === N && kl.actual.size === N && kl.podWorkers.size === N, {
        description: 'every pod desired, shown and given a worker',
        timeoutMs: 10_000,
      });
      await settle(); // WeakRefs made in this job hold their targets until it ends
      gc();
      const alive = refs.filter((r) => r.deref() !== undefined).length;
      assert.equal(alive, 0, `${alive} of ${N} pods as listed are still held by the loop`);
      const held = kl.podConfig.storage.held('api', uid(7))!;
      assert.equal(held, kl.desired.getByUID(uid(7))!.obj, 'the merge and the desired state share one copy');
      assert.equal(held, podCache.latest(uid(7)), 'and the pod cache the same one');
      const key = objectKey(fullPod(7), undefined);
      assert.deepEqual(kl.actual.get(key), computeObjectView(key, fullPod(7), undefined), 'its row is the listed pod’s');
    } finally {
      ac.abort();
      await done;
    }
  });

  it('the PLEG keeps the copy too: a watched pod it observed is not held, and its relist of the merged copies finds nothing new', async () => {
    const pleg = new GenericPLEG();
    const s = new PodStorage();
    const refs: WeakRef<Pod>[] = [];
    (() => {
      const listed = Array.from({ length: 50 }, (_, i) => fullPod(i));
      for (const p of listed) {
        refs.push(new WeakRef(p));
        pleg.observePod(p); // a watch change's causes, before its merge (sources/sinks.ts)
      }
      s.merge('api', { op: 'SET', source: 'api', pods: listed });
    })();
    await settle();
    gc();
    const alive = refs.filter((r) => r.deref() !== undefined).length;
    assert.equal(alive, 0, `${alive} of 50 pods as listed are still held by the PLEG`);
    assert.deepEqual(pleg.relist(s.sourceValues('api') as IterableIterator<Pod>).events, [], 'the merged copies are what the PLEG observed');
  });

  it('a change of what the copy dropped is still an UPDATE or a RECONCILE, and no change is none', () => {
    const s = new PodStorage();
    s.merge('api', { op: 'SET', source: 'api', pods: [fullPod(1)] });
    const held = s.held('api', uid(1))!;
    assert.equal((held as Pod).spec?.containers[0]?.image, undefined, 'the image is not kept');
    assert.equal(
      s.merge('api', { op: 'UPDATE', source: 'api', pods: [fullPod(1, { rv: 11, image: 'registry/app:2' })] }).updates.pods.length,
      1,
      'a new image',
    );
    assert.equal(
      s.merge('api', { op: 'UPDATE', source: 'api', pods: [fullPod(1, { rv: 12, image: 'registry/app:2', podIP: '10.0.0.9' })] }).reconciles.pods.length,
      1,
      'a new pod IP',
    );
    const same = s.merge('api', { op: 'UPDATE', source: 'api', pods: [fullPod(1, { rv: 13, image: 'registry/app:2', podIP: '10.0.0.9' })] });
    assert.equal(same.updates.pods.length + same.reconciles.pods.length + same.deletes.pods.length, 0, 'a new resourceVersion alone');
    const again = s.merge('api', { op: 'SET', source: 'api', pods: [fullPod(1, { rv: 13, image: 'registry/app:2', podIP: '10.0.0.9' })] });
    assert.equal(
      again.adds.pods.length + again.updates.pods.length + again.reconciles.pods.length + again.removes.pods.length,
      0,
      'a relist of the same state',
    );
  });

  it('classifies copies as it classifies whole pods (any change, any key order)', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string({ maxLength: 3 }),
        fc.integer({ min: -3, max: 3 }),
        fc.boolean(),
        fc.constant(null),
        tie('array'),
        tie('object'),
      ),
      array: fc.array(tie('value'), { maxLength: 3 }),
      object: fc.dictionary(fc.constantFrom('a', 'b', 'image', 'ports'), tie('value'), { maxKeys: 3 }),
    })).value;
    const edit = fc.record({
      image: fc.constantFrom('x:1', 'x:2'),
      extra: fc.option(json, { nil: undefined }),
      statusExtra: fc.option(json, { nil: undefined }),
      ready: fc.boolean(),
      restarts: fc.integer({ min: 0, max: 2 }),
      deleting: fc.boolean(),
      label: fc.constantFrom('a', 'b'),
      reorder: fc.boolean(),
    });
    type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never;
    const make = (e: Edit): Pod => {
      const p = fullPod(1, { image: e.image, ready: e.ready, restarts: e.restarts });
      p.metadata.labels = { app: e.label };
      if (e.deleting) p.metadata.deletionTimestamp = '2026-12-07T00:01:00Z';
      if (e.extra !== undefined) p.spec!.tolerations = e.extra;
      if (e.statusExtra !== undefined) p.status!.podIPs = e.statusExtra;
      if (e.reorder) {
        // The same members in another order: equal JSON, as the merge has always counted it.
        p.spec = Object.fromEntries(Object.entries(p.spec!).reverse()) as Pod['spec'];
        p.status = Object.fromEntries(Object.entries(p.status!).reverse()) as Pod['status'];
      }
      return p;
    };
    fc.assert(
      fc.property(edit, edit, (x, y) => {
        const [a, b] = [make(x), make(y)];
        assert.deepEqual(checkAndUpdatePod(loopPod(a), loopPod(b)), checkAndUpdatePod(a, b));
      }),
      { numRuns: 500 },
    );
  });
});
