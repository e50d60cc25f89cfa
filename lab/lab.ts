/**
 * The lab: a real Kubernetes cluster on this machine, with no container runtime. etcd,
 * kube-apiserver, kube-controller-manager and kube-scheduler (./controlplane.ts, ./components.ts)
 * and N nodes, each a real kubelet over a fake runtime (./hollowkubelet.ts), all built from Go
 * modules by scripts/build-controlplane.sh and cached.
 *
 * `npm run lab` (./main.ts) runs one with KubeLoop open on it; the apiserver test tier's
 * differential suite runs scenarios on one and compares each kubelet's -v=4 log with KubeLoop's
 * iterations. The kubeconfig it writes has one context, `kubeloop-lab`, whose
 * `kubeloop.dev/kubelet-logs` extension names each node's log file: KubeLoop shows that kubelet's
 * own lines on a lane beside its inferred iterations (core/kubeletlog), and `kubeloop sync --node
 * NODE --compare` prints the differential.
 *
 * Guarantees: startLab resolves once every component is healthy and every Node is Ready (no
 * not-ready taint left), or rejects having stopped what it started; stop() ends the kubelets,
 * then the controller manager and scheduler, then the apiserver and etcd, and removes the temp dir.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startControllerManagerAndScheduler, type Components } from './components';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './controlplane';
import { startHollowKubelets, type HollowKubelets } from './hollowkubelet';

export const LAB_CONTEXT = 'kubeloop-lab';
export const KUBELET_LOGS_EXTENSION = 'kubeloop.dev/kubelet-logs';

export interface LabOptions {
  /** Node names (default lab-1, lab-2, lab-3). */
  nodes?: string[];
  /** kube-apiserver flags beyond the harness's. */
  extraApiserverArgs?: string[];
  /** The kubelets' syncFrequency (default 1m, the kubelet's). */
  syncFrequency?: string;
  signal?: AbortSignal;
  /** The controller manager's node monitor grace period (upstream 50s). */
  nodeMonitorGracePeriod?: string;
  controlPlane?: ControlPlaneOptions;
}

export interface Lab {
  cp: ControlPlane;
  components: Components;
  kubelets: HollowKubelets;
  /** A kubeconfig for the lab: context kubeloop-lab, admin user, the kubelet logs extension. */
  kubeconfigPath: string;
  /** Each node's kubelet log file. */
  kubeletLogs: Record<string, string>;
  stop(): Promise<void>;
}

export async function startLab(opts: LabOptions = {}): Promise<Lab> {
  const nodes = opts.nodes ?? ['lab-1', 'lab-2', 'lab-3'];
  const cp = await startControlPlane({
    ...opts.controlPlane,
    ...(opts.extraApiserverArgs ? { extraApiserverArgs: opts.extraApiserverArgs } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  let components: Components | undefined;
  let kubelets: HollowKubelets | undefined;
  const stop = async () => {
    await kubelets?.stop().catch(() => undefined);
    await components?.stop().catch(() => undefined);
    await cp.stop();
  };
  try {
    components = await startControllerManagerAndScheduler(cp, {
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.nodeMonitorGracePeriod ? { nodeMonitorGracePeriod: opts.nodeMonitorGracePeriod } : {}),
    });
    kubelets = await startHollowKubelets(cp, { nodes, ...(opts.syncFrequency ? { syncFrequency: opts.syncFrequency } : {}) });
  } catch (e) {
    await stop();
    throw e;
  }
  const kubeletLogs = Object.fromEntries(kubelets.nodes.map((n) => [n.name, n.logPath]));
  const kubeconfigPath = path.join(cp.dir, 'lab.kubeconfig');
  fs.writeFileSync(kubeconfigPath, cp.kubeconfigText(LAB_CONTEXT, [{ name: KUBELET_LOGS_EXTENSION, extension: kubeletLogs }]), { mode: 0o600 });
  return { cp, components, kubelets, kubeconfigPath, kubeletLogs, stop };
}
