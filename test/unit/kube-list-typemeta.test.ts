/**
 * A real kube-apiserver encodes built-in types as typed lists whose items carry no apiVersion and
 * kind (test/apiserver/facts.ts). The paged list puts them back from the list's own, as client-go's
 * unstructured decoding does, so an object reads the same from a list as from a watch event.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/core/kube';
import { contextFor, startServer, type TestServer } from './kube-helpers';

const servers: TestServer[] = [];
const clients: KubeClient[] = [];
after(async () => {
  clients.forEach((c) => c.close());
  await Promise.all(servers.map((s) => s.close()));
});

describe('list items of a typed list', () => {
  it('get the list kind (minus List) and apiVersion; items that carry their own keep them; metadata-only stays metadata', async () => {
    const s = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const meta = req.headers.accept?.includes('PartialObjectMetadataList');
      res.end(
        JSON.stringify({
          kind: meta ? 'PartialObjectMetadataList' : 'DeploymentList',
          apiVersion: meta ? 'meta.k8s.io/v1' : 'apps/v1',
          metadata: { resourceVersion: '5' },
          items: [
            { metadata: { name: 'a' }, spec: {} },
            { kind: 'Other', apiVersion: 'x/v1', metadata: { name: 'b' } },
          ],
        }),
      );
    });
    servers.push(s);
    const c = await KubeClient.connect(contextFor(s.url), { qps: 0 });
    clients.push(c);
    const gvr = { group: 'apps', version: 'v1', resource: 'deployments' };
    const l = await c.list(gvr, {});
    assert.deepEqual(
      l.items.map((o) => [o.kind, o.apiVersion, o.metadata.name]),
      [
        ['Deployment', 'apps/v1', 'a'],
        ['Other', 'x/v1', 'b'],
      ],
    );
    const m = await c.list(gvr, { metadataOnly: true });
    assert.deepEqual(
      m.items.map((o) => Object.keys(o)),
      [['metadata'], ['metadata']],
    );
  });
});
