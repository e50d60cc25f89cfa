/**
 * The Python client checks (scripts/python-client/checks.py) against a real kube-apiserver: the
 * same checks test/integration/demo-python.test.ts runs against the demo cluster pass here too.
 */
import { after, before, describe, it } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { assertPythonRun, PYTHON_CHECKS, pythonClient, runChecks } from '../support/real-clients';

describe('the Python client against a real kube-apiserver', () => {
  let cp: ControlPlane;
  let python: string;
  before(
    async () => {
      [python, cp] = await Promise.all([pythonClient(), startControlPlane()]);
    },
    { timeout: 20 * 60_000 },
  );
  after(() => cp?.stop());

  it('every check passes', async () => {
    assertPythonRun(await runChecks(python, [PYTHON_CHECKS, cp.kubeconfigPath, 'python-checks']));
  });
});
