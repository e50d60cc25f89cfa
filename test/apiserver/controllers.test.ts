/**
 * The controller scenarios (./controller-scenarios.ts) against a real control plane: etcd,
 * kube-apiserver, kube-controller-manager and kube-scheduler v1.36, all built from Go modules by
 * scripts/build-controlplane.sh. No kubelet exists here: ./nodekubelet.ts registers one Node,
 * keeps its Lease fresh and runs the pods the scheduler binds to it. The demo cluster is held to
 * the same scenarios by test/integration/demo-controllers-parity.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startControllerManagerAndScheduler, type Components } from '../../lab/components';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { CONTROLLER_SCENARIOS, prepareNamespace, type ControllerTarget } from './controller-scenarios';
import { NodeKubelet } from './nodekubelet';
import { Api } from './support';
import { eventually } from '../support/eventually';

describe('workload controllers as a client sees them: a real kube-controller-manager and kube-scheduler', () => {
  let cp: ControlPlane;
  let components: Components | undefined;
  let api: Api;
  let kubelet: NodeKubelet | undefined;
  let ghost: NodeKubelet | undefined;
  let target: ControllerTarget;

  before(async () => {
    cp = await startControlPlane();
    api = Api.admin(cp);
    // Heartbeats every 2 s against a 10 s grace, so the node lifecycle controller judges both nodes
    // within the test: worker-1 must stay Ready, ghost-1 (no heartbeat, unschedulable) must not.
    kubelet = new NodeKubelet(cp, api, 'worker-1', { leaseRenewMs: 2000 });
    await kubelet.start();
    ghost = new NodeKubelet(cp, api, 'ghost-1', { heartbeat: false, unschedulable: true });
    await ghost.start();
    components = await startControllerManagerAndScheduler(cp, { nodeMonitorGracePeriod: '10s' });
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
    await ghost?.stop();
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

  it("the stand-in's Lease heartbeat keeps its node Ready and untainted; a node without one is tainted unreachable", async () => {
    const node = (name: string) => api.must('GET', `/api/v1/nodes/${name}`);
    const ready = (n: any) => n.status.conditions.find((c: any) => c.type === 'Ready');
    const lost = await eventually(
      async () => {
        const n = await node('ghost-1');
        return ready(n).status === 'Unknown' && (n.spec.taints ?? []).some((t: any) => t.key === 'node.kubernetes.io/unreachable') && n;
      },
      { description: 'ghost-1 Ready=Unknown and tainted unreachable', timeoutMs: 120_000, maxIntervalMs: 500 },
    );
    assert.equal(ready(lost).reason, 'NodeStatusUnknown');
    // The node lifecycle controller has now judged the nodes past the grace period: worker-1 passed.
    const w = await node('worker-1');
    assert.equal(ready(w).status, 'True');
    assert.deepEqual(w.spec.taints ?? [], []);
  });
});
