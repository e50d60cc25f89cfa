/**
 * The demo cluster answers as a real kube-apiserver v1.36 does, in every place where it used to
 * differ: the checks in test/apiserver/facts.ts, which test/apiserver/parity.test.ts runs against a
 * real kube-apiserver and etcd. No kubelet simulation runs here, as none runs there.
 */
import { after, before, describe, it } from 'node:test';
import { FACTS, fetchRequest, prepareFacts, type FactTarget } from '../apiserver/facts';
import { startTestCluster, type TestCluster } from './demo-support';

describe('the demo cluster answers as the real kube-apiserver does', () => {
  let t: TestCluster;
  let target: FactTarget;

  before(async () => {
    t = await startTestCluster({ kubelet: false });
    const request = fetchRequest(() => t.cluster.url);
    target = {
      request,
      async createCrd(group, kind, plural) {
        const r = await request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `${plural}.${group}` },
          spec: { group, scope: 'Namespaced', names: { kind, plural, singular: kind.toLowerCase() }, versions: [{ name: 'v1', served: true, storage: true }] },
        });
        if (r.status !== 201) throw new Error(`CRD: ${r.status} ${r.text}`);
      },
    };
    await prepareFacts(target, 'facts');
  });
  after(() => t.close());

  for (const f of FACTS) it(f.name, () => f.run(target, 'facts'));
});
