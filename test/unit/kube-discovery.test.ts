import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as http from 'node:http';
import {
  AGGREGATED_DISCOVERY_ACCEPT,
  KubeClient,
  listableResources,
  parseAggregated,
  parseApiVersions,
  parseGroupList,
  parseResourceList,
} from '../../src/core/kube';
import { contextFor, json, startServer, status, type TestServer } from './kube-helpers';

// Real discovery documents from kubernetes/kubernetes api/discovery (see test/fixtures/discovery/README.md).
const fx = (name: string): any => JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'discovery', name), 'utf8'));
const aggregated = fx('aggregated_v2.json');
const apiV1 = fx('api__v1.json');

describe('discovery parsing: aggregated v2 (real document)', () => {
  const { groups, failures } = parseAggregated(aggregated);

  it('reads every group and group version, in server order, with no failures', () => {
    assert.equal(groups.length, 22);
    assert.equal(
      groups.reduce((n, g) => n + g.versions.length, 0),
      33,
    );
    assert.equal(failures.length, 0);
    assert.equal(groups[0].name, 'apiregistration.k8s.io');
  });

  it('counts resources as the fixture README does: subresources excluded, 70 listable over all versions', () => {
    const all = groups.flatMap((g) => g.versions.flatMap((v) => v.resources));
    assert.equal(all.length, 76);
    assert.ok(all.every((r) => !r.resource.includes('/')));
    assert.equal(listableResources({ groups }, { versions: 'all' }).length, 70);
    assert.equal(new Set(all.map((r) => `${r.group}/${r.resource}`)).size, 59);
  });

  it('group-preferred versions: 53 resources, 47 with list', () => {
    const preferred = groups.flatMap((g) => g.versions.filter((v) => v.version === g.preferredVersion).flatMap((v) => v.resources));
    assert.equal(preferred.length, 53);
    const listable = listableResources({ groups }, { versions: 'group-preferred' });
    assert.equal(listable.length, 47);
    assert.equal(groups.find((g) => g.name === 'autoscaling')!.preferredVersion, 'v2');
    assert.ok(listable.every((r) => r.verbs.includes('list')));
    // The 6 without list are the create-only reviews.
    const unlisted = groups.flatMap((g) => g.versions.flatMap((v) => v.resources)).filter((r) => !r.verbs.includes('list'));
    assert.ok(unlisted.every((r) => /^authentication\.k8s\.io$|^authorization\.k8s\.io$/.test(r.group) && /reviews$/.test(r.resource)));
  });

  it('by default each resource once, from the most preferred version serving it (ServerPreferredResources): 53 types', () => {
    const types = listableResources({ groups });
    assert.equal(types.length, 53);
    assert.equal(new Set(types.map((r) => `${r.group}/${r.resource}`)).size, 53, 'no resource twice');
    const notPreferred = types
      .filter((r) => r.version !== groups.find((g) => g.name === r.group)!.preferredVersion)
      .map((r) => `${r.resource}.${r.group}@${r.version}`);
    // Resources that only a non-preferred version serves are still loaded.
    assert.deepEqual(notPreferred.sort(), [
      'clustertrustbundles.certificates.k8s.io@v1beta1',
      'leasecandidates.coordination.k8s.io@v1beta1',
      'podcertificaterequests.certificates.k8s.io@v1beta1',
      'podgroups.scheduling.k8s.io@v1alpha3',
      'resourcepoolstatusrequests.resource.k8s.io@v1alpha3',
      'workloads.scheduling.k8s.io@v1alpha3',
    ]);
    assert.equal(types.find((r) => r.resource === 'horizontalpodautoscalers')!.version, 'v2');
  });

  it('maps kind, scope, short names and categories', () => {
    const deploy = listableResources({ groups }).find((r) => r.group === 'apps' && r.resource === 'deployments')!;
    assert.deepEqual(
      {
        kind: deploy.kind,
        namespaced: deploy.namespaced,
        shortNames: deploy.shortNames,
        categories: deploy.categories,
        singular: deploy.singular,
        version: deploy.version,
      },
      { kind: 'Deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], singular: 'deployment', version: 'v1' },
    );
    const crd = listableResources({ groups }).find((r) => r.resource === 'customresourcedefinitions')!;
    assert.equal(crd.namespaced, false);
  });

  it('a Stale group version is a partial failure, not a crash; the group falls back to a fresh version', () => {
    const doc = structuredClone(aggregated);
    const autoscaling = doc.items.find((g: any) => g.metadata.name === 'autoscaling');
    autoscaling.versions[0].freshness = 'Stale';
    const parsed = parseAggregated(doc);
    assert.deepEqual(
      parsed.failures.map((f) => f.groupVersion),
      ['autoscaling/v2'],
    );
    assert.match(parsed.failures[0].message, /stale/);
    const g = parsed.groups.find((x) => x.name === 'autoscaling')!;
    assert.equal(g.preferredVersion, 'v1');
    const hpa = listableResources(parsed).filter((r) => r.group === 'autoscaling');
    assert.deepEqual(
      hpa.map((r) => `${r.version}/${r.resource}`),
      ['v1/horizontalpodautoscalers'],
    );
    assert.equal(listableResources(parsed).length, 53);
    assert.equal(listableResources(parsed, { versions: 'group-preferred' }).length, 47);
  });
});

describe('discovery parsing: legacy documents (real)', () => {
  it('core v1: 17 resources, 16 with list, subresources excluded', () => {
    const rs = parseResourceList(apiV1, '', 'v1');
    assert.equal(rs.length, 17);
    assert.equal(rs.filter((r) => r.verbs.includes('list')).length, 16);
    assert.deepEqual(parseApiVersions(fx('api.json')), ['v1']);
  });

  it('APIGroupList agrees with the aggregated document on groups and preferred versions', () => {
    const legacy = parseGroupList(fx('apis.json'));
    const agg = parseAggregated(aggregated).groups;
    assert.deepEqual(
      legacy.map((g) => g.name),
      agg.map((g) => g.name),
    );
    assert.deepEqual(
      legacy.map((g) => g.preferredVersion),
      agg.map((g) => g.preferredVersion),
    );
  });

  it('apps/v1 and batch/v1 resource lists agree with the aggregated form', () => {
    const agg = parseAggregated(aggregated).groups;
    for (const [group, file] of [
      ['apps', 'apis__apps__v1.json'],
      ['batch', 'apis__batch__v1.json'],
    ]) {
      const legacy = parseResourceList(fx(file), group, 'v1');
      const fromAgg = agg.find((g) => g.name === group)!.versions.find((v) => v.version === 'v1')!.resources;
      const shape = (r: any) => ({ resource: r.resource, kind: r.kind, namespaced: r.namespaced, verbs: [...r.verbs].sort(), shortNames: r.shortNames });
      assert.deepEqual(legacy.map(shape), fromAgg.map(shape));
    }
  });
});

/** A server that answers discovery from the fixtures, aggregated or legacy. */
function discoveryServer(mode: 'aggregated' | 'legacy') {
  const coreAggregated = {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: [
      {
        metadata: { name: '' },
        versions: [
          {
            version: 'v1',
            freshness: 'Current',
            resources: apiV1.resources
              .filter((r: any) => !r.name.includes('/'))
              .map((r: any) => ({
                resource: r.name,
                responseKind: { group: '', version: '', kind: r.kind },
                scope: r.namespaced ? 'Namespaced' : 'Cluster',
                singularResource: r.singularName,
                verbs: r.verbs,
                shortNames: r.shortNames,
              })),
          },
        ],
      },
    ],
  };
  const legacyDocs: Record<string, any> = {
    '/api': fx('api.json'),
    '/api/v1': apiV1,
    '/apis': fx('apis.json'),
    '/apis/apps/v1': fx('apis__apps__v1.json'),
    '/apis/batch/v1': fx('apis__batch__v1.json'),
  };
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const wantsAggregated = String(req.headers.accept ?? '').includes('as=APIGroupDiscoveryList');
    if (mode === 'aggregated' && wantsAggregated && req.url === '/api')
      return json(res, coreAggregated, { 'content-type': 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    if (mode === 'aggregated' && wantsAggregated && req.url === '/apis') return json(res, aggregated);
    const doc = legacyDocs[req.url ?? ''];
    if (doc) return json(res, doc);
    // Every other group version: as if its aggregated API server were down.
    return status(res, 503, 'ServiceUnavailable', 'the server is currently unable to handle the request');
  };
}

describe('discover() over HTTP', () => {
  let agg: TestServer;
  let legacy: TestServer;
  before(async () => {
    agg = await startServer(discoveryServer('aggregated'));
    legacy = await startServer(discoveryServer('legacy'));
  });
  after(async () => {
    await agg.close();
    await legacy.close();
  });

  it('uses aggregated discovery when offered: two requests, core + 22 groups, 69 listable types', async () => {
    const client = await KubeClient.connect(contextFor(agg.url, {}, { 'insecure-skip-tls-verify': true }));
    try {
      const d = await client.discover();
      assert.equal(d.mode, 'aggregated');
      assert.equal(agg.seen.length, 2);
      assert.ok(agg.seen.every((s) => s.headers.accept === AGGREGATED_DISCOVERY_ACCEPT));
      assert.equal(d.groups[0].name, '');
      assert.equal(listableResources(d).length, 16 + 53);
      assert.equal(d.failures.length, 0);
    } finally {
      client.close();
    }
  });

  it('falls back to legacy documents; failed group versions become failures, the rest loads', async () => {
    const client = await KubeClient.connect(contextFor(legacy.url, {}, { 'insecure-skip-tls-verify': true }), { retry: { maxBackoffRetries: 0 } });
    try {
      const d = await client.discover();
      assert.equal(d.mode, 'legacy');
      const types = listableResources(d);
      assert.deepEqual([...new Set(types.map((r) => r.group))], ['', 'apps', 'batch']);
      assert.equal(types.length, 16 + 5 + 2);
      assert.equal(d.failures.length, 33 - 2, 'every group version but apps/v1 and batch/v1 failed');
      assert.ok(d.failures.every((f) => f.status === 503));
      assert.ok(d.failures.some((f) => f.groupVersion === 'autoscaling/v2'));
    } finally {
      client.close();
    }
  });

  it('an unreachable server is an error from discover(), quickly (connection refused is not retried)', async () => {
    const s = await startServer(() => {});
    const url = s.url;
    await s.close();
    const client = await KubeClient.connect(contextFor(url, {}, { 'insecure-skip-tls-verify': true }));
    try {
      await assert.rejects(client.discover(), (e: any) => e.name === 'KubeTransportError' && e.kind === 'connect');
    } finally {
      client.close();
    }
  });
});
