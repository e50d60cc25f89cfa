// The resource tree's model: loader results and sync-loop views in, the smallest change out.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { computeObjectView } from '../../src/core/rows/objectView';
import { objectKey } from '../../src/core/kube/objects/objectKey';
import type { StoredObject } from '../../src/core/kube/objects/types';
import { parseObjectKey } from '../../src/app/model/keys';
import { CLUSTER, failureKey, ResourceModel, viewTransform, type ModelChange } from '../../src/app/model/resourceModel';
import { obj, pod, result, task } from './vscode-fixtures';

const PODS = { group: '', version: 'v1', resource: 'pods' };
const CMS = { group: '', version: 'v1', resource: 'configmaps' };
const NODES = { group: '', version: 'v1', resource: 'nodes' };
const DEPLOYS = { group: 'apps', version: 'v1', resource: 'deployments' };

function recording(model: ResourceModel): ModelChange[] {
  const out: ModelChange[] = [];
  model.onChange((c) => out.push(c));
  return out;
}

describe('parseObjectKey', () => {
  it('reads the three key forms the sync loop writes', () => {
    assert.deepEqual(parseObjectKey('default/web-0'), { typeKey: 'pods', namespace: 'default', name: 'web-0' });
    assert.deepEqual(parseObjectKey('deployments.apps:default/web'), { typeKey: 'deployments.apps', namespace: 'default', name: 'web' });
    assert.deepEqual(parseObjectKey('clusterroles.rbac.authorization.k8s.io:system:controller:x'), {
      typeKey: 'clusterroles.rbac.authorization.k8s.io',
      name: 'system:controller:x',
    });
    assert.deepEqual(parseObjectKey('roles.rbac.authorization.k8s.io:default/<img src=x onerror=alert(1)>'), {
      typeKey: 'roles.rbac.authorization.k8s.io',
      namespace: 'default',
      name: '<img src=x onerror=alert(1)>',
    });
    assert.equal(parseObjectKey('nonsense'), undefined);
  });

  it('inverts objectKey for every type, namespace and name the API allows (property)', () => {
    const dns = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);
    const name = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes('/'));
    fc.assert(
      fc.property(dns, fc.option(dns, { nil: '' }), fc.option(dns, { nil: undefined }), name, (resource, group, ns, n) => {
        const o = { metadata: { name: n, uid: 'u', ...(ns ? { namespace: ns } : {}) } } as StoredObject;
        const p = parseObjectKey(objectKey(o, { group, resource }));
        const isPods = group === '' && resource === 'pods';
        if (isPods && !ns) return; // pods are always namespaced
        assert.deepEqual(p, { typeKey: group ? `${resource}.${group}` : resource, ...(ns ? { namespace: ns } : {}), name: n });
      }),
    );
  });
});

describe('ResourceModel', () => {
  it('fills buckets per namespace from an all-namespaces result, as views (not objects)', () => {
    const m = new ResourceModel();
    m.reset('ctx');
    m.applyResult(result(task(PODS, 'Pod', true), [pod('a', 'p1'), pod('b', 'p2'), pod('a', 'p0', 'Pending', false)]));
    assert.deepEqual(m.namespaces(), ['a', 'b']);
    assert.equal(m.objectCount, 3);
    assert.deepEqual(
      m
        .bucket('a', 'pods')!
        .sortedObjects()
        .map((e) => e.name),
      ['p0', 'p1'],
    );
    const v = m.object('a', 'pods', 'p0')!.view;
    assert.equal(v.status, 'ContainerCreating');
    assert.equal(v.ready, '0/1');
    assert.ok(!('spec' in v), 'the full object is not kept');
  });

  it('announces a bucket change per (namespace, type) and nothing when a reload brings the same objects', () => {
    const m = new ResourceModel();
    m.reset('ctx');
    const items = [pod('a', 'p1'), pod('b', 'p2')];
    const changes = recording(m);
    m.applyResult(result(task(PODS, 'Pod', true), items));
    assert.deepEqual(
      changes.map((c) => c.kind === 'bucket' && [c.namespace, c.typeKey, c.created]),
      [
        ['a', 'pods', true],
        ['b', 'pods', true],
      ],
    );
    changes.length = 0;
    m.applyResult(result(task(PODS, 'Pod', true), items));
    assert.deepEqual(changes, []);
  });

  it('a reload that changes one view announces that one row only', () => {
    const m = new ResourceModel();
    m.reset('ctx');
    const p1 = pod('a', 'p1');
    const p2 = pod('a', 'p2');
    m.applyResult(result(task(PODS, 'Pod', true), [p1, p2]));
    const changes = recording(m);
    const crashed = structuredClone(p1);
    crashed.status = {
      ...(crashed.status as object),
      containerStatuses: [{ name: 'c', ready: false, restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } } }],
    };
    m.applyResult(result(task(PODS, 'Pod', true), [crashed, p2]));
    assert.deepEqual(changes, [{ kind: 'object', namespace: 'a', typeKey: 'pods', name: 'p1' }]);
    assert.equal(m.object('a', 'pods', 'p1')!.view.status, 'CrashLoopBackOff');
  });

  it('an all-namespaces reload empties namespaces that no longer hold the type', () => {
    const m = new ResourceModel();
    m.reset('ctx');
    m.applyResult(result(task(PODS, 'Pod', true), [pod('a', 'p1'), pod('b', 'p2')]));
    const changes = recording(m);
    m.applyResult(result(task(PODS, 'Pod', true), [pod('a', 'p1')]));
    assert.deepEqual(m.namespaces(), ['a']);
    assert.ok(
      changes.some((c) => c.kind === 'bucket' && c.namespace === 'b' && c.emptied),
      'namespace b announced as emptied',
    );
  });

  it('a per-namespace task replaces only its namespace', () => {
    const m = new ResourceModel();
    m.reset('ctx');
    m.applyResult(result(task(PODS, 'Pod', true), [pod('a', 'p1'), pod('b', 'p2')]));
    m.applyResult(result(task(PODS, 'Pod', true, 'a'), []));
    assert.deepEqual(m.namespaces(), ['b']);
  });

  it('a failed type is a failure with its status, shows the objects that arrived, and clears on success', () => {
    const m = new ResourceModel();
    m.reset('ctx');
    const t = task(CMS, 'ConfigMap', true);
    m.applyResult(result(t, [obj('ConfigMap', 'c1', 'a')], 'error', { status: 403, reason: 'Forbidden', message: 'configmaps is forbidden' }));
    assert.deepEqual(
      m.failures().map((f) => [f.type.key, f.status, f.reason, f.received]),
      [['configmaps', 403, 'Forbidden', 1]],
    );
    assert.equal(m.bucket('a', 'configmaps')!.partial, true);
    m.applyResult(result(t, [obj('ConfigMap', 'c1', 'a')]));
    assert.deepEqual(m.failures(), []);
    assert.equal(m.bucket('a', 'configmaps')!.partial, false);
  });

  it('retainFailures drops failures of tasks a new load did not plan (e.g. all-namespaces after picking namespaces)', () => {
    const m = new ResourceModel();
    m.reset('ctx');
    m.applyResult(result(task(CMS, 'ConfigMap', true), [], 'error', { status: 403, reason: 'Forbidden' }));
    m.applyResult(result(task(CMS, 'ConfigMap', true, 'a'), [], 'error', { status: 403, reason: 'Forbidden' }));
    const changes = recording(m);
    m.retainFailures(new Set([failureKey('configmaps', 'a')]));
    assert.deepEqual(
      m.failures().map((f) => f.namespace),
      ['a'],
    );
    assert.deepEqual(changes, [{ kind: 'failures' }]);
  });

  it('a cancelled task changes nothing', () => {
    const m = new ResourceModel();
    m.reset('ctx');
    m.applyResult(result(task(PODS, 'Pod', true), [pod('a', 'p1')]));
    const changes = recording(m);
    m.applyResult(result(task(PODS, 'Pod', true), [], 'cancelled'));
    assert.deepEqual(changes, []);
    assert.equal(m.objectCount, 1);
  });

  it('cluster-scoped objects go to the cluster bucket; Namespace objects name namespaces even when empty', () => {
    const m = new ResourceModel();
    m.reset('ctx');
    m.applyResult(result(task(NODES, 'Node', false), [obj('Node', 'n1')]));
    m.applyResult(result(task({ group: '', version: 'v1', resource: 'namespaces' }, 'Namespace', false), [obj('Namespace', 'empty')]));
    assert.ok(m.hasClusterScoped(), 'the cluster-scoped group exists');
    assert.deepEqual(m.namespaces(), ['empty']);
    assert.equal(m.bucket(CLUSTER, 'nodes')!.objects.size, 1);
  });

  it('namespaceScope hides namespaces outside the selected ones', () => {
    const m = new ResourceModel();
    m.retarget({ context: 'ctx', namespaces: ['a'] });
    m.applyResult(result(task({ group: '', version: 'v1', resource: 'namespaces' }, 'Namespace', false), [obj('Namespace', 'a'), obj('Namespace', 'b')]));
    assert.deepEqual(m.namespaces(), ['a']);
  });

  it('retainTypes drops types a full load no longer lists', () => {
    const m = new ResourceModel();
    m.reset('ctx');
    m.applyResult(result(task(PODS, 'Pod', true), [pod('a', 'p1')]));
    m.applyResult(result(task(DEPLOYS, 'Deployment', true), [obj('Deployment', 'd', 'a')]));
    m.retainTypes(new Set(['pods']));
    assert.deepEqual(
      m.bucketsIn('a').map((b) => b.type.key),
      ['pods'],
    );
    assert.equal(m.objectCount, 1);
  });

  it('applies sync-loop views: add, change, equal (silent), remove; ignores types that were not loaded', () => {
    const m = new ResourceModel();
    m.reset('ctx');
    const changes = recording(m);
    const p = pod('a', 'p1');
    const view = computeObjectView('a/p1', p, undefined);
    assert.equal(m.applyView('a/p1', view), true);
    assert.equal(m.applyView('a/p1', { ...view }), false, 'an equal view is silent');
    assert.equal(m.applyView('a/p1', { ...view, status: 'CrashLoopBackOff' }), true);
    assert.equal(
      m.applyView('deployments.apps:a/d', computeObjectView('deployments.apps:a/d', obj('Deployment', 'd', 'a'), { group: 'apps', resource: 'deployments' })),
      false,
    );
    assert.equal(m.applyView('a/p1', undefined), true);
    assert.deepEqual(
      changes.map((c) =>
        c.kind === 'reset' ? 'reset' : c.kind === 'object' ? 'object' : c.kind === 'bucket' ? `bucket${c.created ? '+' : ''}${c.emptied ? '-' : ''}` : c.kind,
      ),
      ['bucket+', 'object', 'bucket-'],
    );
    assert.equal(m.objectCount, 0);
  });

  it('removeWhere in steps: a yield point every few hundred objects, each judged when its step runs', () => {
    const m = new ResourceModel();
    m.reset('ctx');
    m.applyResult(
      result(
        task(PODS, 'Pod', true),
        Array.from({ length: 1000 }, (_, i) => pod(`ns${i % 3}`, `p${i}`)),
      ),
    );
    const gone = new Set(
      Array.from({ length: 1000 }, (_, i) => i)
        .filter((i) => i % 4 === 0)
        .map((i) => `ns${i % 3}/p${i}`),
    );
    const steps = m.removeWhereSteps(new Set(['pods']), (key) => !gone.has(key));
    let yields = 0;
    let n = steps.next();
    // Between the first and second step, one more object goes from the API's set: it is still caught.
    gone.add('ns2/p998');
    for (; !n.done; n = steps.next()) yields++;
    assert.ok(yields >= 3, `yields ${yields}`);
    assert.equal(n.value, 251);
    assert.equal(m.objectCount, 749);
    assert.equal(
      m.removeWhere(new Set(['pods']), (key) => !gone.has(key)),
      0,
      'nothing left to remove',
    );
  });

  it('keeps objectCount equal to the objects held whatever the sequence (property)', () => {
    const names = ['p0', 'p1', 'p2', 'p3'];
    const nss = ['a', 'b'];
    const op = fc.oneof(
      fc.record({
        k: fc.constant('view' as const),
        ns: fc.constantFrom(...nss),
        name: fc.constantFrom(...names),
        remove: fc.boolean(),
        phase: fc.constantFrom('Running', 'Pending'),
      }),
      fc.record({ k: fc.constant('load' as const), ns: fc.option(fc.constantFrom(...nss), { nil: undefined }), pick: fc.subarray(names) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const m = new ResourceModel();
        m.reset('ctx');
        for (const o of ops) {
          if (o.k === 'view') {
            const key = `${o.ns}/${o.name}`;
            m.applyView(key, o.remove ? undefined : computeObjectView(key, pod(o.ns, o.name, o.phase), undefined));
          } else {
            const items = o.pick.map((n) => pod(o.ns ?? nss[n.length % 2]!, n));
            m.applyResult(result(task(PODS, 'Pod', true, o.ns), items));
          }
        }
        let held = 0;
        for (const ns of m.namespaces()) for (const b of m.bucketsIn(ns)) held += b.objects.size;
        assert.equal(m.objectCount, held);
        for (const ns of m.namespaces()) for (const b of m.bucketsIn(ns)) assert.ok(b.objects.size > 0, 'no empty bucket is kept');
      }),
    );
  });
});

describe('viewTransform (the loader transform of tree loads)', () => {
  it('gives the model the same views as whole objects do, while the objects it keeps hold no spec or status', () => {
    const DEPLOY = { group: 'apps', version: 'v1', resource: 'deployments' };
    const NODES = { group: '', version: 'v1', resource: 'nodes' };
    const deploy = (ns: string, name: string, ready: number): StoredObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: ns, uid: `d-${name}`, resourceVersion: '7' },
      spec: { replicas: 3 },
      status: { replicas: 3, readyReplicas: ready, availableReplicas: ready },
    });
    const loads = [
      result(task(PODS, 'Pod', true), [pod('a', 'p1'), pod('a', 'p2', 'Pending', false), pod('b', 'p3', 'Running', true, 4)]),
      result(task(DEPLOY, 'Deployment', true, 'a', 1), [deploy('a', 'web', 2), deploy('a', 'db', 3)]),
      result(task(NODES, 'Node', false, undefined, 2), [obj('Node', 'n1'), { metadata: {} } as StoredObject]),
    ];
    const whole = new ResourceModel();
    whole.reset('ctx');
    const slim = new ResourceModel();
    slim.reset('ctx');
    for (const r of loads) {
      whole.applyResult(r);
      const items = r.items.map((o) => viewTransform(o, r.task)).filter((o) => o !== undefined);
      for (const o of items) assert.deepEqual(Object.keys(o), ['metadata'], 'a slim object: metadata (and the view, out of sight)');
      slim.applyResult({ ...r, items });
    }
    assert.equal(slim.objectCount, whole.objectCount);
    assert.equal(whole.objectCount, 6, 'three pods, two deployments, one node: the nameless node is skipped both ways');
    for (const ns of [...whole.namespaces(), CLUSTER]) {
      for (const b of whole.bucketsIn(ns)) {
        for (const e of b.sortedObjects()) assert.deepEqual(slim.object(ns, b.type.key, e.name)?.view, e.view, `${ns}/${b.type.key}/${e.name}`);
      }
    }
    assert.equal(slim.object('a', 'deployments.apps', 'web')!.view.ready, '2/3', 'a real view, not an empty one');
  });
});
