/**
 * The demo cluster answers as a real kube-apiserver v1.36 does, in every place where it used to
 * differ: the checks in test/apiserver/facts.ts, which test/apiserver/parity.test.ts runs against a
 * real kube-apiserver and etcd. No kubelet simulation runs here, as none runs there.
 */
import { after, before, describe, it } from 'node:test';
import { FACTS, prepareFacts, type Answer, type FactTarget } from '../apiserver/facts';
import { startTestCluster, type TestCluster } from './demo-support';

describe('the demo cluster answers as the real kube-apiserver does', () => {
  let t: TestCluster;
  let target: FactTarget;

  before(async () => {
    t = await startTestCluster({ kubelet: false });
    const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
      const h: Record<string, string> = { Accept: 'application/json', ...headers };
      if (body !== undefined) h['Content-Type'] ??= 'application/json';
      const r = await fetch(`${t.cluster.url}${path}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await r.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // a watch stream, or not JSON
      }
      const out: Record<string, string> = {};
      r.headers.forEach((v, k) => (out[k] = v));
      return { status: r.status, body: parsed, text, headers: out };
    };
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
