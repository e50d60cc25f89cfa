/**
 * The client-go check program (scripts/clientgo) against a real kube-apiserver: the same checks
 * test/integration/demo-clientgo.test.ts runs against the demo cluster pass here too, which is
 * what shows they ask for upstream behaviour (and the bad-body answers are upstream's).
 */
import { after, before, describe, it } from 'node:test';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { assertClientGoRun, clientGoChecks, runChecks } from '../support/real-clients';

describe('client-go against a real kube-apiserver', () => {
  let cp: ControlPlane;
  let bin: string;
  before(
    async () => {
      [bin, cp] = await Promise.all([clientGoChecks(), startControlPlane()]);
    },
    { timeout: 20 * 60_000 },
  );
  after(() => cp?.stop());

  it('every check passes, in every encoding, and bad bodies get these answers', async () => {
    const run = await runChecks(bin, ['-kubeconfig', cp.kubeconfigPath, '-namespace', 'clientgo-checks', '-timeout', '150s']);
    assertClientGoRun(run);
  });
});
