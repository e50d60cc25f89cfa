/**
 * Simulated nodes. Every node a pod names is simulated by this one kubelet: a pod bound to a node
 * the cluster has never heard of (the study guide pins probe-me to `pair-worker`) makes that node
 * register, as a real kubelet on that machine would have.
 */
import { withUpdateEntry } from '../server/managed-fields';
import type { DemoObject, ObjectStore } from '../store';

export const KUBELET_VERSION = 'v1.34.1';

/** Node index -> its pod CIDR: 10.244.1.0/24, ..., 10.244.255.0/24, 10.245.0.0/24, ... */
export function podCIDROf(index: number): string {
  return `10.${244 + (index >> 8)}.${index & 255}.0/24`;
}

function indexOfCIDR(cidr: string): number | undefined {
  const m = /^10\.(\d+)\.(\d+)\.0\/24$/.exec(cidr);
  return m ? (Number(m[1]) - 244) * 256 + Number(m[2]) : undefined;
}

/**
 * A Node as a kind worker reports itself (index picks its pod CIDR and its address), with the
 * managedFields its writers leave: the kubelet's registration (labels, its annotation, providerID),
 * kube-controller-manager's TTL annotation and pod CIDRs, and the kubelet's status update that
 * turned the registered node Ready (its addresses and the Ready condition).
 */
export function nodeObject(name: string, index: number, createdAt: string): DemoObject {
  const node = bareNode(name, index, createdAt);
  const w = (manager: string, subresource?: 'status') => ({ manager, apiVersion: 'v1', time: createdAt, ...(subresource ? { subresource } : {}) });
  const spec = node.spec as Record<string, unknown>;
  const { 'node.alpha.kubernetes.io/ttl': ttl, ...annotations } = node.metadata.annotations ?? {};
  const status = node.status as { conditions: Record<string, unknown>[]; addresses?: unknown };
  const registered = withUpdateEntry(
    undefined,
    { ...node, metadata: { ...node.metadata, annotations }, spec: { providerID: spec.providerID } },
    w('kubelet'),
    true,
  );
  const allocated = withUpdateEntry(
    registered,
    { ...registered, metadata: { ...registered.metadata, annotations: { ...annotations, 'node.alpha.kubernetes.io/ttl': ttl! } }, spec },
    w('kube-controller-manager'),
    true,
  );
  const notReady = {
    ...status,
    addresses: undefined,
    conditions: status.conditions.map((c) =>
      c.type === 'Ready' ? { ...c, status: 'False', reason: 'KubeletNotReady', message: 'container runtime status check may not have completed yet' } : c,
    ),
  };
  const before = { ...allocated, status: notReady };
  const ready = withUpdateEntry(before, { ...before, status: node.status }, w('kubelet', 'status'), true);
  return { ...node, metadata: { ...node.metadata, managedFields: ready.metadata.managedFields } };
}

function bareNode(name: string, index: number, createdAt: string): DemoObject {
  const ip = `172.18.${Math.floor(index / 250)}.${(index % 250) + 2}`;
  const cond = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    lastHeartbeatTime: createdAt,
    lastTransitionTime: createdAt,
    reason,
    message,
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
      },
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: { podCIDR: podCIDROf(index), podCIDRs: [podCIDROf(index)], providerID: `kind://docker/kubeloop/${name}` },
    status: {
      addresses: [
        { type: 'InternalIP', address: ip },
        { type: 'Hostname', address: name },
      ],
      allocatable: { cpu: '8', 'ephemeral-storage': '102626232Ki', 'hugepages-2Mi': '0', memory: '32781524Ki', pods: '110' },
      capacity: { cpu: '8', 'ephemeral-storage': '102626232Ki', 'hugepages-2Mi': '0', memory: '32781524Ki', pods: '110' },
      conditions: [
        cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: 'amd64',
        bootID: `b00t${index.toString(16).padStart(4, '0')}-0000-4000-8000-000000000000`,
        containerRuntimeVersion: 'containerd://2.1.3',
        kernelVersion: '6.8.0-45-generic',
        kubeProxyVersion: '',
        kubeletVersion: KUBELET_VERSION,
        machineID: index.toString(16).padStart(32, '0'),
        operatingSystem: 'linux',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        systemUUID: `00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`,
      },
    },
  };
}

/** Per-node pod IP allocation inside the node's /24: .2 .. .254, then wrapping. */
export class NodeRegistry {
  private readonly index = new Map<string, { index: number; prefix: string; hostIP: string; next: number }>();
  private nextIndex = 1;
  private scanned = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly createdAt: () => string,
  ) {}

  /** Makes sure the Node exists (creating it if absent) and returns its host IP. */
  ensure(name: string): string {
    const known = this.index.get(name);
    if (known) return known.hostIP;
    const hasNodes = this.store.type('', 'nodes') !== undefined;
    if (!this.scanned && hasNodes) {
      // A new node must not reuse the pod CIDR of a node registered by someone else (the generator).
      this.scanned = true;
      for (const n of this.store.list('', 'nodes').items) {
        const idx = indexOfCIDR(String((n.spec as { podCIDR?: string } | undefined)?.podCIDR ?? ''));
        if (idx !== undefined && idx >= this.nextIndex) this.nextIndex = idx + 1;
      }
    }
    let node = hasNodes ? this.store.get('', 'nodes', undefined, name) : undefined;
    if (!node && hasNodes) node = this.store.create('', 'nodes', nodeObject(name, this.nextIndex, this.createdAt()), { manager: 'kubelet' });
    const cidr = String((node?.spec as { podCIDR?: string } | undefined)?.podCIDR ?? '');
    const idx = indexOfCIDR(cidr) ?? this.nextIndex;
    const prefix = podCIDROf(idx).replace(/\.0\/24$/, '');
    if (idx >= this.nextIndex) this.nextIndex = idx + 1;
    const addrs = (node?.status as { addresses?: { type: string; address: string }[] } | undefined)?.addresses ?? [];
    const hostIP = addrs.find((a) => a.type === 'InternalIP')?.address ?? `172.18.0.${(idx % 250) + 2}`;
    this.index.set(name, { index: idx, prefix, hostIP, next: 2 });
    return hostIP;
  }

  allocatePodIP(nodeName: string): string {
    this.ensure(nodeName);
    const n = this.index.get(nodeName)!;
    const ip = `${n.prefix}.${n.next}`;
    n.next = n.next >= 254 ? 2 : n.next + 1;
    return ip;
  }
}
