/**
 * `kubectl explain` (a real kubectl v1.34) against the real kube-apiserver and against the demo
 * cluster, the same arguments to both: the output must be the same, byte for byte, for built-in
 * types (the demo serves kube-apiserver's own OpenAPI v3 documents, src/demo/data/openapi) and for
 * a custom resource (the demo builds its document from the CRD's schema, as apiextensions does).
 * A failure here after a kube-apiserver upgrade means: run `node scripts/refresh-openapi.mjs`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoCluster, type DemoCluster } from '../../src/demo';
import { GIZMO_CRD } from '../fixtures/explain-crd';
import { eventually } from '../support/eventually';
import { runKubectl } from '../support/kubectl';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';

const CASES: string[][] = [
  ['explain', 'pods'],
  ['explain', 'deployment.spec.strategy'],
  ['explain', 'pods', '--recursive'],
  ['explain', 'jobs.spec.backoffLimit'],
  ['explain', 'cronjobs.spec'],
  ['explain', 'services.spec.ports'],
  ['explain', 'pod.spec.containers.livenessProbe'],
  ['explain', 'statefulsets', '--api-version=apps/v1'],
  ['explain', 'gizmos'],
  ['explain', 'gizmos.spec'],
];

describe('kubectl explain: demo cluster = kube-apiserver', () => {
  let cp: ControlPlane;
  let demo: DemoCluster;
  let dir: string;
  const real = () => cp.kubeconfigPath;
  const fake = () => join(dir, 'demo', 'kubeconfig');
  before(async () => {
    [cp, demo] = await Promise.all([startControlPlane(), startDemoCluster({ kubelet: false })]);
    dir = mkdtempSync(join(tmpdir(), 'kubeloop-explain-'));
    // Each kubectl its own cache folder (KUBECACHEDIR follows the kubeconfig's folder).
    mkdirSync(join(dir, 'demo'));
    writeFileSync(fake(), demo.kubeconfig());
    for (const kc of [real(), fake()]) {
      const r = await runKubectl(['apply', '-f', '-'], { kubeconfig: kc, input: JSON.stringify(GIZMO_CRD) });
      assert.equal(r.code, 0, r.stderr);
    }
    // kube-apiserver publishes a new CRD's OpenAPI a moment after it is Established.
    await eventually(async () => (await runKubectl(['explain', 'gizmos.spec.size'], { kubeconfig: real() })).code === 0, {
      description: "kube-apiserver's OpenAPI v3 to explain gizmos.spec.size",
      timeoutMs: 60_000,
      maxIntervalMs: 500,
    });
  });
  after(async () => {
    await Promise.all([cp?.stop(), demo?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const args of CASES) {
    it(`kubectl ${args.join(' ')}`, async () => {
      const [a, b] = await Promise.all([runKubectl(args, { kubeconfig: real() }), runKubectl(args, { kubeconfig: fake() })]);
      assert.equal(a.code, 0, `kube-apiserver: ${a.stderr}`);
      assert.equal(b.code, 0, `demo: ${b.stderr}`);
      assert.ok(a.stdout.length > 200, a.stdout);
      assert.equal(b.stdout, a.stdout);
    });
  }
});
