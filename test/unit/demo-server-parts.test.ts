/**
 * The demo API server's pure parts: selectors, patches, fault rules, request parsing, discovery
 * documents (derived legacy documents must equal the upstream ones), printers, snapshots.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import appsV1 from '../../src/demo/data/apis__apps__v1.json';
import batchV1 from '../../src/demo/data/apis__batch__v1.json';
import coreV1 from '../../src/demo/data/api__v1.json';
import upstreamApis from '../../src/demo/data/apis.json';
import { Catalog, compareVersions } from '../../src/demo/server/catalog';
import { apiGroupList, apiResourceList, wantsAggregated } from '../../src/demo/server/discovery';
import { FaultController, parseFaultSpec } from '../../src/demo/server/faults';
import { negotiate } from '../../src/demo/server/forms';
import { jsonPatch, mergePatch, strategicMergePatch } from '../../src/demo/server/patch';
import { humanDuration, podStatusReason } from '../../src/demo/server/printers';
import { parseRequestInfo } from '../../src/demo/server/requestinfo';
import { parseFieldSelector, parseLabelSelector } from '../../src/demo/server/selectors';
import { decodeToken, encodeToken, SnapshotCache } from '../../src/demo/server/snapshots';
import { ApiError } from '../../src/demo/server/status';
import { ObjectStore, type DemoObject } from '../../src/demo/store';

const obj = (labels?: Record<string, string>, extra: Partial<DemoObject> = {}): DemoObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'n', namespace: 'ns', labels },
  ...extra,
});
const code = (fn: () => unknown): number => {
  try {
    fn();
  } catch (e) {
    return (e as ApiError).code;
  }
  return 0;
};

describe('label selectors', () => {
  it('implement =, ==, !=, in, notin, exists, !exists, gt, lt with upstream semantics', () => {
    const m = (sel: string, labels?: Record<string, string>) => parseLabelSelector(sel)!(obj(labels));
    assert.ok(m('a=1', { a: '1' }) && m('a==1', { a: '1' }) && !m('a=1', { a: '2' }));
    assert.ok(m('a!=1', {}) && m('a!=1', { a: '2' }) && !m('a!=1', { a: '1' }), '!= matches a missing label');
    assert.ok(m('a in (1,2)', { a: '2' }) && !m('a in (1,2)', {}) && m('a notin (1, 2)', {}) && !m('a notin (1,2)', { a: '1' }));
    assert.ok(m('a', { a: '' }) && !m('a', {}) && m('!a', {}) && !m('!a', { a: 'x' }));
    assert.ok(m('a,b=2', { a: '1', b: '2' }) && !m('a,b=2', { a: '1' }));
    assert.ok(m('n>3', { n: '4' }) && !m('n>3', { n: '3' }) && m('n<3', { n: '2' }));
    assert.ok(m('example.com/tier=web', { 'example.com/tier': 'web' }));
    assert.equal(parseLabelSelector(''), undefined);
  });
  it('reject malformed requirements with 400', () => {
    for (const bad of ['a b', 'a in 1', '=x', 'a=b=c', 'a!b', 'a=bad value', 'a in (x y)', 'n>x'])
      assert.equal(
        code(() => parseLabelSelector(bad)),
        400,
        bad,
      );
  });
});

describe('field selectors', () => {
  it('support metadata.name/namespace everywhere and pod fields on pods; 400 otherwise', () => {
    const p = obj({}, { spec: { nodeName: 'n1' }, status: { phase: 'Running' } });
    assert.ok(parseFieldSelector('metadata.name=n,metadata.namespace==ns', '', 'pods')!(p));
    assert.ok(parseFieldSelector('spec.nodeName=n1,status.phase!=Pending', '', 'pods')!(p));
    assert.ok(!parseFieldSelector('spec.nodeName=', '', 'pods')!(p));
    assert.ok(parseFieldSelector('spec.nodeName=', '', 'pods')!(obj()), 'an unset field matches the empty value');
    assert.equal(
      code(() => parseFieldSelector('spec.nodeName=n1', '', 'configmaps')),
      400,
    );
    assert.equal(
      code(() => parseFieldSelector('metadata.name', '', 'pods')),
      400,
    );
  });
});

describe('patches', () => {
  it('merge patch follows RFC 7386 and never mutates its input', () => {
    const target = Object.freeze({ a: 1, b: Object.freeze({ c: 2, d: 3 }), l: Object.freeze([1, 2]) });
    assert.deepEqual(mergePatch(target, { b: { c: null, e: 4 }, l: [3], z: 'new' }), { a: 1, b: { d: 3, e: 4 }, l: [3], z: 'new' });
    assert.deepEqual(target, { a: 1, b: { c: 2, d: 3 }, l: [1, 2] });
  });
  it('strategic merge patch merges named lists and honours $patch directives', () => {
    const pod = {
      spec: {
        containers: [
          { name: 'a', image: '1' },
          { name: 'b', image: '2' },
        ],
      },
      metadata: { labels: { x: '1' } },
    };
    assert.deepEqual(
      strategicMergePatch(pod, {
        spec: {
          containers: [
            { name: 'b', image: '3' },
            { name: 'c', image: '4' },
          ],
        },
      }),
      {
        spec: {
          containers: [
            { name: 'a', image: '1' },
            { name: 'b', image: '3' },
            { name: 'c', image: '4' },
          ],
        },
        metadata: { labels: { x: '1' } },
      },
    );
    assert.deepEqual((strategicMergePatch(pod, { spec: { containers: [{ name: 'a', $patch: 'delete' }] } }) as any).spec.containers, [
      { name: 'b', image: '2' },
    ]);
    assert.deepEqual((strategicMergePatch(pod, { metadata: { labels: { $patch: 'replace', y: '2' } } }) as any).metadata.labels, { y: '2' });
    assert.deepEqual((strategicMergePatch(pod, { metadata: { labels: { x: null } }, $setElementOrder: 1 }) as any).metadata.labels, {});
  });
  it('json patch supports add/remove/replace/move/copy/test, and 422s on a failed test or a missing path', () => {
    const doc = { a: { b: [1, 2] }, c: 'x' };
    assert.deepEqual(
      jsonPatch(doc, [
        { op: 'add', path: '/a/b/-', value: 3 },
        { op: 'replace', path: '/c', value: 'y' },
        { op: 'copy', from: '/c', path: '/d' },
        { op: 'move', from: '/d', path: '/e' },
        { op: 'remove', path: '/a/b/0' },
        { op: 'test', path: '/e', value: 'y' },
      ]),
      { a: { b: [2, 3] }, c: 'y', e: 'y' },
    );
    assert.deepEqual(doc, { a: { b: [1, 2] }, c: 'x' });
    assert.equal(
      code(() => jsonPatch(doc, [{ op: 'test', path: '/c', value: 'no' }])),
      422,
    );
    assert.equal(
      code(() => jsonPatch(doc, [{ op: 'replace', path: '/nope', value: 1 }])),
      422,
    );
    assert.equal(
      code(() => jsonPatch(doc, { op: 'add' })),
      400,
    );
  });
  it('property: merge patch is idempotent and leaves keys the patch does not name untouched', () => {
    const json = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.integer(),
        fc.string(),
        fc.boolean(),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 3 }), tie('v'), { maxKeys: 3 }),
      ),
    })).v;
    const objects = fc.dictionary(fc.string({ minLength: 1, maxLength: 3 }), json, { maxKeys: 4 });
    fc.assert(
      fc.property(objects, objects, (a, b) => {
        const r = mergePatch(a, b) as Record<string, unknown>;
        assert.deepEqual(mergePatch(r, b), r);
        for (const k of Object.keys(a)) if (!(k in b)) assert.equal(r[k], a[k]);
        for (const k of Object.keys(b)) assert.ok(k in r);
      }),
    );
  });
});

describe('fault rules', () => {
  it('parse spec strings with every key; reject unknown kinds and keys', () => {
    const [r1, r2] = parseFaultSpec('throttle,verb=list,resource=deployments.apps,times=3,retryAfter=2; drop-events,fraction=0.5,group=core,namespace=a');
    assert.deepEqual(r1, { kind: 'throttle', verb: 'list', resource: 'deployments.apps', times: 3, retryAfterSeconds: 2 });
    assert.deepEqual(r2, { kind: 'drop-events', dropFraction: 0.5, group: '', namespace: 'a' });
    assert.throws(() => parseFaultSpec('boom'), /unknown fault kind/);
    assert.throws(() => parseFaultSpec('latency,speed=3'), /unknown key/);
    assert.throws(() => parseFaultSpec('latency,ms'), /key=value/);
    assert.throws(() => parseFaultSpec('error,status=200'), /400..599/);
  });
  it('match by method/verb/group/resource/namespace/path; count times and every', () => {
    const f = new FaultController();
    const q = (over: Partial<Parameters<FaultController['pick']>[0]> = {}) => ({
      method: 'GET',
      verb: 'list',
      group: 'apps',
      resource: 'deployments',
      namespace: 'a',
      path: '/apis/apps/v1/namespaces/a/deployments',
      hasContinue: false,
      ...over,
    });
    f.add({ kind: 'error', id: 'x', resource: 'deployments.apps', namespace: 'a', times: 2, every: 2 });
    const fired = [1, 2, 3, 4, 5, 6].map(() => f.pick(q()).length);
    assert.deepEqual(fired, [0, 1, 0, 1, 0, 0]);
    assert.deepEqual(f.pick(q({ namespace: 'b' })), []);
    f.clear();
    f.add({ kind: 'expire-continue' });
    assert.equal(f.pick(q()).length, 0);
    assert.equal(f.pick(q({ hasContinue: true })).length, 1);
    f.add({ kind: 'latency', path: '/api', group: '' });
    assert.equal(f.pick(q({ path: '/apis', group: '' })).filter((r) => r.kind === 'latency').length, 1);
    assert.equal(f.list().find((r) => r.kind === 'expire-continue')!.applied, 1);
  });
});

describe('request info', () => {
  const p = (method: string, path: string) => parseRequestInfo(method, new URL(`http://x${path}`));
  it('parses resource paths like the apiserver', () => {
    assert.deepEqual(pick(p('GET', '/api/v1/namespaces/a/pods/b/status')), {
      verb: 'get',
      group: '',
      version: 'v1',
      namespace: 'a',
      resource: 'pods',
      name: 'b',
      subresource: 'status',
    });
    assert.deepEqual(pick(p('GET', '/apis/apps/v1/deployments?watch=true')), {
      verb: 'watch',
      group: 'apps',
      version: 'v1',
      namespace: undefined,
      resource: 'deployments',
      name: '',
      subresource: '',
    });
    assert.deepEqual(pick(p('GET', '/api/v1/namespaces/a')), {
      verb: 'get',
      group: '',
      version: 'v1',
      namespace: 'a',
      resource: 'namespaces',
      name: 'a',
      subresource: '',
    });
    assert.deepEqual(pick(p('PUT', '/api/v1/namespaces/a/finalize')), {
      verb: 'update',
      group: '',
      version: 'v1',
      namespace: 'a',
      resource: 'namespaces',
      name: 'a',
      subresource: 'finalize',
    });
    assert.equal(p('DELETE', '/api/v1/namespaces/a/pods').verb, 'deletecollection');
    assert.equal(p('GET', '/api/v1/watch/pods').verb, 'watch');
    assert.equal(p('GET', '/apis/apps/v1').isResourceRequest, false);
  });
});
function pick(i: ReturnType<typeof parseRequestInfo>) {
  return { verb: i.verb, group: i.group, version: i.version, namespace: i.namespace, resource: i.resource, name: i.name, subresource: i.subresource };
}

describe('discovery documents', () => {
  const catalog = new Catalog(new ObjectStore());
  const strip = (doc: any) => ({ ...doc, apiVersion: undefined, resources: doc.resources.map(({ storageVersionHash: _h, ...r }: any) => r) });
  it('the legacy documents derived from aggregated discovery equal the upstream apps/v1, batch/v1 and core v1', () => {
    assert.deepEqual(strip(apiResourceList('apps', catalog.group('apps')!.versions[0]!)), strip(appsV1));
    assert.deepEqual(strip(apiResourceList('batch', catalog.group('batch')!.versions[0]!)), strip(batchV1));
    assert.deepEqual(strip(apiResourceList('', catalog.coreGroup().versions[0]!)), strip(coreV1));
  });
  it('/apis lists the upstream groups, versions and preferred versions', () => {
    const mine = apiGroupList(catalog).groups;
    const theirs = (upstreamApis as any).groups;
    assert.deepEqual(mine, theirs);
  });
  it('aggregated discovery is chosen from the Accept header; versions sort like Kubernetes', () => {
    assert.equal(wantsAggregated('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json'), 'v2');
    assert.equal(wantsAggregated('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList'), 'v2beta1');
    assert.equal(wantsAggregated('application/json'), undefined);
    const sorted = ['v1alpha1', 'v2', 'v1beta2', 'foo', 'v1', 'v1beta1', 'v10']
      .map((version) => ({ version, resources: [] }))
      .sort(compareVersions)
      .map((v) => v.version);
    assert.deepEqual(sorted, ['v10', 'v2', 'v1', 'v1beta2', 'v1beta1', 'v1alpha1', 'foo']);
  });
  it('content negotiation: Table, metadata, protobuf falls back to JSON', () => {
    assert.deepEqual(negotiate('application/json;as=Table;v=v1;g=meta.k8s.io,application/json', 'list'), { kind: 'table', version: 'v1' });
    assert.deepEqual(negotiate('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1', 'list'), { kind: 'metadata', version: 'v1' });
    assert.deepEqual(negotiate('application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1', 'one'), { kind: 'object' });
    assert.deepEqual(negotiate('application/vnd.kubernetes.protobuf', 'one'), { kind: 'object' });
    assert.deepEqual(negotiate(undefined, 'list'), { kind: 'object' });
  });
});

describe('printers', () => {
  it('humanDuration matches apimachinery', () => {
    const s = 1000;
    const cases: [number, string][] = [
      [-5 * s, '<invalid>'],
      [0, '0s'],
      [119 * s, '119s'],
      [150 * s, '2m30s'],
      [600 * s, '10m'],
      [179 * 60 * s, '179m'],
      [3 * 3600 * s + 60 * s, '3h1m'],
      [30 * 3600 * s, '30h'],
      [3 * 86400 * s + 3600 * s, '3d1h'],
      [400 * 86400 * s, '400d'],
      [3 * 365 * 86400 * s, '3y'],
      [9 * 365 * 86400 * s, '9y'],
    ];
    for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, String(ms));
  });
  it('pod status reasons follow kubectl', () => {
    assert.equal(podStatusReason(obj({}, { status: { phase: 'Pending' } })), 'Pending');
    assert.equal(
      podStatusReason(obj({}, { status: { phase: 'Running', containerStatuses: [{ state: { waiting: { reason: 'CrashLoopBackOff' } } }] } })),
      'CrashLoopBackOff',
    );
    assert.equal(
      podStatusReason(obj({}, { spec: { initContainers: [{}, {}] }, status: { phase: 'Pending', initContainerStatuses: [{ state: { running: {} } }] } })),
      'Init:0/2',
    );
    assert.equal(podStatusReason({ ...obj({}, { status: { phase: 'Running' } }), metadata: { name: 'n', deletionTimestamp: 'x' } }), 'Terminating');
  });
});

describe('protobuf bodies', () => {
  const varint = (n: number): number[] => {
    const out: number[] = [];
    do {
      let b = n & 0x7f;
      n = Math.floor(n / 128);
      if (n) b |= 0x80;
      out.push(b);
    } while (n);
    return out;
  };
  const bytes = (num: number, b: number[] | string): number[] => {
    const data = typeof b === 'string' ? [...Buffer.from(b)] : b;
    return [...varint((num << 3) | 2), ...varint(data.length), ...data];
  };
  const int = (num: number, v: number): number[] => [...varint(num << 3), ...varint(v)];
  const body = (apiVersion: string, kind: string, raw: number[]) =>
    Buffer.from([0x6b, 0x38, 0x73, 0, ...bytes(1, [...bytes(1, apiVersion), ...bytes(2, kind)]), ...bytes(2, raw), ...bytes(3, ''), ...bytes(4, '')]);
  const meta = [...bytes(1, 'cm'), ...bytes(2, ''), ...int(7, 0), ...bytes(11, [...bytes(1, 'a'), ...bytes(2, 'b')])];

  it('decode a ConfigMap with labels, data and zero-valued fields left out', async () => {
    const { decodeProtobufObject } = await import('../../src/demo/server/protobuf');
    const o = decodeProtobufObject(body('v1', 'ConfigMap', [...bytes(1, meta), ...bytes(2, [...bytes(1, 'k'), ...bytes(2, 'v')]), ...bytes(99, [])]));
    assert.deepEqual(o, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: { a: 'b' } }, data: { k: 'v' } });
  });
  it('refuse unknown non-zero fields and unknown kinds (415), and bodies that are not protobuf (400)', async () => {
    const { decodeProtobufObject, ProtobufMalformed, ProtobufUnsupported } = await import('../../src/demo/server/protobuf');
    assert.throws(() => decodeProtobufObject(body('v1', 'ConfigMap', [...bytes(1, meta), ...int(42, 7)])), ProtobufUnsupported);
    assert.throws(() => decodeProtobufObject(body('v1', 'PodTemplate', [...bytes(1, meta)])), /no protobuf schema for v1\/PodTemplate/);
    assert.throws(
      () => decodeProtobufObject(Buffer.from('{"json":true}')),
      (e: unknown) => e instanceof ProtobufMalformed && /expected prefix \[107 56 115 0\]/.test(e.message),
    );
    assert.throws(
      () => decodeProtobufObject(Buffer.from([0x6b, 0x38, 0x73, 0, 0x0a, 0x50])),
      (e: unknown) => e instanceof ProtobufMalformed && !e.gvk,
    );
    // the envelope decodes, the object inside does not: the error names the envelope's kind
    assert.throws(
      () => decodeProtobufObject(body('v1', 'ConfigMap', [0x0a, 0x7f])),
      (e: unknown) => e instanceof ProtobufMalformed && e.gvk?.kind === 'ConfigMap' && e.gvk.version === 'v1' && e.message === 'unexpected EOF',
    );
  });
  it('keep zeros that are values: Scale replicas 0, DeleteOptions gracePeriodSeconds 0 in any group version', async () => {
    const { decodeProtobufObject } = await import('../../src/demo/server/protobuf');
    const scale = decodeProtobufObject(
      body('autoscaling/v1', 'Scale', [...bytes(1, meta), ...bytes(2, int(1, 0)), ...bytes(3, [...int(1, 0), ...bytes(2, '')])]),
    );
    assert.deepEqual(scale.spec, { replicas: 0 });
    for (const gv of ['v1', 'apps/v1', 'meta.k8s.io/v1']) {
      const d = decodeProtobufObject(body(gv, 'DeleteOptions', [...int(1, 0), ...bytes(4, 'Foreground'), ...bytes(5, 'All')]));
      assert.deepEqual(d, { apiVersion: gv, kind: 'DeleteOptions', gracePeriodSeconds: 0, propagationPolicy: 'Foreground', dryRun: ['All'] });
    }
    // a deployment's replicas 0 is kept; its unset minReadySeconds 0 is left out
    const dep = decodeProtobufObject(body('apps/v1', 'Deployment', [...bytes(1, meta), ...bytes(2, [...int(1, 0), ...int(5, 0)])]));
    assert.deepEqual(dep.spec, { replicas: 0 });
  });
  it('decode managedFields with their fieldsV1 JSON, and a Pod with its status conditions', async () => {
    const { decodeProtobufObject } = await import('../../src/demo/server/protobuf');
    const fields = '{"f:data":{"f:k":{}}}';
    const entry = [...bytes(1, 'kubectl'), ...bytes(2, 'Apply'), ...bytes(3, 'v1'), ...bytes(6, 'FieldsV1'), ...bytes(7, bytes(1, fields))];
    const cm = decodeProtobufObject(body('v1', 'ConfigMap', [...bytes(1, [...bytes(1, 'cm'), ...bytes(17, entry)])]));
    assert.deepEqual((cm.metadata as { managedFields: unknown }).managedFields, [
      { manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: JSON.parse(fields) },
    ]);
    const pod = decodeProtobufObject(
      body('v1', 'Pod', [
        ...bytes(1, meta),
        ...bytes(2, [...bytes(2, [...bytes(1, 'main'), ...bytes(2, 'pause')]), ...int(25, 0), ...int(30, 1)]),
        ...bytes(3, [...bytes(1, 'Pending'), ...bytes(2, [...bytes(1, 'Ready'), ...bytes(2, 'False')])]),
      ]),
    );
    assert.deepEqual(pod.spec, { containers: [{ name: 'main', image: 'pause' }], priority: 0, enableServiceLinks: true });
    assert.deepEqual(pod.status, { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] });
  });
});

describe('snapshots', () => {
  it('tokens round-trip; expired and foreign tokens are refused with 410 and 400', () => {
    let now = 0;
    const c = new SnapshotCache(
      () => 100,
      () => now,
      2,
    );
    const id = c.put([], '5', false, 'k');
    const tok = encodeToken({ v: 'meta.k8s.io/v1', rv: 5, snap: id, off: 3, key: 'a/b' });
    assert.equal(decodeToken(tok).off, 3);
    assert.equal(c.resolve(tok, 'k').off, 3);
    assert.equal(
      code(() => c.resolve(tok, 'other')),
      400,
    );
    now = 100;
    assert.equal(
      code(() => c.resolve(tok, 'k')),
      410,
    );
    assert.equal(
      code(() => decodeToken('%%%')),
      400,
    );
    const ids = [c.put([], '1', false, 'k'), c.put([], '1', false, 'k'), c.put([], '1', false, 'k')];
    assert.equal(c.size, 2, 'bounded: the oldest snapshot was evicted');
    assert.equal(
      code(() => c.resolve(encodeToken({ v: 'meta.k8s.io/v1', rv: 1, snap: ids[0]!, off: 0, key: '' }), 'k')),
      410,
    );
  });
});
