/**
 * A real, current client-go (scripts/clientgo, pinned in its go.mod) against the demo cluster over
 * a real socket: typed clientsets with client-go's defaults (protobuf bodies for built-in kinds),
 * with JSON, and configured for protobuf as kubectl and controllers are; the pager, an informer,
 * watches, the dynamic client on a CRD created through the API, and undecodable protobuf bodies.
 * test/apiserver/clientgo.test.ts runs the same program against a real kube-apiserver.
 */
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from './demo-support';
import { assertClientGoRun, clientGoChecks, runChecks } from '../support/real-clients';

describe('client-go against the demo cluster', () => {
  let t: TestCluster;
  let bin: string;
  // a cold build downloads client-go's modules; the tier's set-up has normally built it already
  before(
    async () => {
      bin = await clientGoChecks();
      t = await startTestCluster();
    },
    { timeout: 15 * 60_000 },
  );
  after(() => t?.close());

  it('every check passes, in every encoding, and bad bodies get the real server answers', async () => {
    const run = await runChecks(bin, ['-kubeconfig', t.kubeconfig, '-namespace', 'clientgo-checks', '-timeout', '150s']);
    assertClientGoRun(run);
    // the demo really decoded protobuf: the default and protobuf clientsets sent it
    const created = t.cluster.store.list('', 'namespaces').items.some((n) => n.metadata.name === 'clientgo-checks');
    if (!created) throw new Error('the checks namespace is not in the demo store');
  });
});

describe('client-go against the demo cluster with its controllers and kubelet on', () => {
  let t: TestCluster;
  let bin: string;
  before(
    async () => {
      bin = await clientGoChecks();
      t = await startTestCluster({ kubelet: true, controllers: true });
    },
    { timeout: 15 * 60_000 },
  );
  after(() => t?.close());

  // read-modify-writes now carry what the deployment controller and the kubelet wrote (status,
  // container statuses) back in protobuf, and race with them (the checks retry on Conflict)
  it('every check passes', async () => {
    assertClientGoRun(await runChecks(bin, ['-kubeconfig', t.kubeconfig, '-namespace', 'clientgo-live', '-timeout', '150s']));
  });
});
