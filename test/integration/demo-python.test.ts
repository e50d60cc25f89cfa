/**
 * The official Kubernetes Python client (pinned in scripts/python-client/requirements.txt, in a
 * cached venv) against the demo cluster over a real socket: CoreV1Api/AppsV1Api writes and reads,
 * limit/_continue paging, watch.Watch, the scale subresource, a CRD and CustomObjectsApi.
 * test/apiserver/python.test.ts runs the same script against a real kube-apiserver.
 */
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from './demo-support';
import { assertPythonRun, PYTHON_CHECKS, pythonClient, runChecks } from '../support/real-clients';

describe('the Python client against the demo cluster', () => {
  let t: TestCluster;
  let python: string;
  before(
    async () => {
      python = await pythonClient();
      t = await startTestCluster();
    },
    { timeout: 10 * 60_000 },
  );
  after(() => t?.close());

  it('every check passes', async () => {
    // core/secrets/create-read-delete needs stringData stored as data (write-only), as a real server does
    assertPythonRun(await runChecks(python, [PYTHON_CHECKS, t.kubeconfig, 'python-checks']));
  });
});
