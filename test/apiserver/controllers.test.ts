/**
 * The controller scenarios (./controller-scenarios.ts) against a real control plane: etcd,
 * kube-apiserver, kube-controller-manager and kube-scheduler v1.36, all built from Go modules by
 * scripts/build-controlplane.sh. No kubelet exists here: ./nodekubelet.ts registers one Node,
 * keeps its Lease fresh and runs the pods the scheduler binds to it. The demo cluster is held to
 * the same scenarios by test/integration/demo-controllers-parity.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startControllerManagerAndScheduler, type Components } from './components';
import { startControlPlane, type ControlPlane } from './controlplane';
import { CONTROLLER_SCENARIOS, prepareNamespace, type ControllerTarget } from './controller-scenarios';
import { NodeKubelet } from './nodekubelet';
import { Api } from './support';

describe('workload controllers as a client sees them: a real kube-controller-manager and kube-scheduler', () => {
  let cp: ControlPlane;
  let components: Components | undefined;
  let api: Api;
  let kubelet: NodeKubelet | undefined;
  let target: ControllerTarget;

  before(async () => {
    cp = await startControlPlane();
    api = Api.admin(cp);
    kubelet = new NodeKubelet(cp, api, 'worker-1');
    await kubelet.start();
    components = await startControllerManagerAndScheduler(cp);
    target = {
      request: (method, path, body, headers) => api.request(method, path, body, headers),
      watch: (path, signal, onEvent) => api.watch(path, signal, onEvent),
      kubeconfig: cp.kubeconfigPath,
    };
  });
  after(async () => {
    // The stand-in's own failures are the test's: a scenario may have passed only by waiting them out.
    const errors = kubelet?.errors ?? [];
    await kubelet?.stop();
    await components?.stop();
    api?.close();
    await cp?.stop();
    assert.deepEqual(errors, [], 'the kubelet stand-in had no failures');
  });

  CONTROLLER_SCENARIOS.forEach((s, i) => {
    it(s.name, { skip: s.skip }, async () => {
      const ns = `ctl-${i}`;
      await prepareNamespace(target, ns);
      await s.run(target, ns);
    });
  });
});
