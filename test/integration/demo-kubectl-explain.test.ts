/**
 * `kubectl explain` (a real kubectl v1.34) against the demo cluster over a real socket: the built-in
 * types come from kube-apiserver's own OpenAPI v3 documents (src/demo/data/openapi), a custom
 * resource from its CRD's schema. test/apiserver/explain.test.ts compares the output with the real
 * kube-apiserver's, line for line.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GIZMO_CRD } from '../fixtures/explain-crd';
import { startTestCluster, type TestCluster } from './demo-support';

describe('kubectl explain against the demo cluster', () => {
  let t: TestCluster;
  before(async () => {
    t = await startTestCluster();
    await t.kubectlOk(['apply', '-f', '-'], JSON.stringify(GIZMO_CRD));
  });
  after(() => t.close());

  it('explains pods with the upstream descriptions and fields', async () => {
    const out = await t.kubectlOk(['explain', 'pods']);
    assert.match(out, /^KIND:\s+Pod$/m);
    assert.match(out, /^VERSION:\s+v1$/m);
    assert.match(out, /Pod is a collection of containers that can run on a host\./);
    for (const f of ['apiVersion\t<string>', 'kind\t<string>', 'metadata\t<ObjectMeta>', 'spec\t<PodSpec>', 'status\t<PodStatus>']) {
      assert.ok(out.includes(`  ${f}`), `missing field line "${f}" in:\n${out}`);
    }
  });

  it('explains a nested field of a named group: deployment.spec.strategy', async () => {
    const out = await t.kubectlOk(['explain', 'deployment.spec.strategy']);
    assert.match(out, /^GROUP:\s+apps$/m);
    assert.match(out, /^KIND:\s+Deployment$/m);
    assert.match(out, /^FIELD: strategy <DeploymentStrategy>$/m);
    assert.match(out, /The deployment strategy to use to replace existing pods with new ones\./);
    assert.ok(out.includes('  rollingUpdate\t<RollingUpdateDeployment>'), out);
    assert.match(out, /^ {2}type\t<string>$/m);
    assert.match(out, /^ {2}enum: Recreate, RollingUpdate$/m);
    assert.match(out, /`"Recreate"` Kill all existing pods before creating new ones\./);
  });

  it('explains pods --recursive down to container fields', async () => {
    const out = await t.kubectlOk(['explain', 'pods', '--recursive']);
    const head = out.split('\n').slice(0, 12).join('\n');
    assert.match(head, /^KIND:\s+Pod$/m);
    assert.match(out, /^ {4}containers\t<\[\]Container> -required-$/m);
    assert.match(out, /^ {6}livenessProbe\t<Probe>$/m);
    assert.ok(out.split('\n').length > 500, `only ${out.split('\n').length} lines`);
  });

  it('explains a custom resource from its CRD schema', async () => {
    const out = await t.kubectlOk(['explain', 'gizmos']);
    assert.match(out, /^GROUP:\s+explain\.kubeloop\.io$/m);
    assert.match(out, /^KIND:\s+Gizmo$/m);
    assert.match(out, /Gizmo is a thing the explain test explains\./);
    assert.ok(out.includes('  metadata\t<ObjectMeta>'), out);
    assert.ok(out.includes('  spec\t<Object>'), out);
    const spec = await t.kubectlOk(['explain', 'gizmos.spec']);
    assert.match(spec, /^ {2}size\t<integer> -required-$/m);
    assert.match(spec, /How big, in gizmo units\./);
    assert.match(spec, /^ {2}colour\t<string>$/m);
    const meta = await t.kubectlOk(['explain', 'gizmos.metadata.labels']);
    assert.match(meta, /Map of string keys and values/);
  });

  it('serves documents with the hash kube-apiserver gives them: ETag, immutable caching, 304, redirect', async () => {
    const base = t.cluster.url;
    const root = (await (await fetch(`${base}/openapi/v3`)).json()) as { paths: Record<string, { serverRelativeURL: string }> };
    const url = root.paths['apis/apps/v1']!.serverRelativeURL;
    const hash = new URL(url, base).searchParams.get('hash')!;
    assert.match(hash, /^[0-9A-F]{128}$/);
    const r = await fetch(`${base}${url}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.equal(r.headers.get('etag'), `"${hash}"`);
    assert.equal(r.headers.get('cache-control'), 'public, immutable');
    const body = Buffer.from(await r.arrayBuffer());
    const { createHash } = await import('node:crypto');
    assert.equal(createHash('sha512').update(body).digest('hex').toUpperCase(), hash);
    const again = await fetch(`${base}${url}`, { headers: { 'If-None-Match': `"${hash}"` } });
    assert.equal(again.status, 304);
    const stale = await fetch(`${base}/openapi/v3/apis/apps/v1?hash=0123`, { redirect: 'manual' });
    assert.equal(stale.status, 301);
    assert.equal(stale.headers.get('location'), url);
    const crdUrl = root.paths['apis/explain.kubeloop.io/v1']!.serverRelativeURL;
    const crdDoc = await fetch(`${base}${crdUrl}`);
    assert.equal(crdDoc.headers.get('etag'), `"${new URL(crdUrl, base).searchParams.get('hash')}"`);
  });
});
