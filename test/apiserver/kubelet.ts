/**
 * A scripted kubelet for a control plane that has none: it registers its Node, writes pod status
 * through the status subresource, records Events the way client-go's recorder does (a repeat
 * bumps count and lastTimestamp), and confirms graceful deletions with a grace-0 DELETE. Every
 * write goes through the API, so the server validates and normalises it as it would a kubelet's.
 */
import { randomBytes } from 'node:crypto';
import type { Api } from './support';

const ts = (d = new Date()) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const containerId = () => `containerd://${randomBytes(32).toString('hex')}`;

export interface ContainerState {
  name: string;
  image: string;
  /** Current container, if one was created. */
  id?: string;
  state: Record<string, unknown>;
  lastState?: Record<string, unknown>;
  ready: boolean;
  started: boolean;
  restartCount: number;
}

export class ScriptedKubelet {
  readonly hostIP = '172.18.0.2';
  readonly podIP = '10.244.1.7';
  private readonly recorded = new Map<string, { name: string; count: number }>();

  constructor(
    private readonly api: Api,
    readonly node: string,
  ) {}

  /** Registers the Node and reports it Ready, as a kubelet does at start. */
  async register(): Promise<void> {
    await this.api.must(
      'POST',
      '/api/v1/nodes',
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: this.node, labels: { 'kubernetes.io/hostname': this.node, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' } },
        spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'] },
      },
      [201],
    );
    const now = ts();
    await this.api.must(
      'PATCH',
      `/api/v1/nodes/${this.node}/status`,
      {
        status: {
          addresses: [
            { type: 'InternalIP', address: this.hostIP },
            { type: 'Hostname', address: this.node },
          ],
          capacity: { cpu: '2', memory: '8Gi', pods: '110' },
          allocatable: { cpu: '2', memory: '8Gi', pods: '110' },
          ...readyNodeStatus(now),
        },
      },
      [200],
      { 'Content-Type': 'application/merge-patch+json' },
    );
  }

  newContainerId(): string {
    return containerId();
  }

  /** Writes the pod's status as the kubelet's status manager would (phase and conditions from the containers). */
  async writeStatus(ns: string, name: string, containers: ContainerState[], startTime: string, terminalPhase?: 'Succeeded' | 'Failed'): Promise<any> {
    const allReady = containers.every((c) => c.ready);
    const anyRunning = containers.some((c) => 'running' in c.state);
    const anyStarted = containers.some((c) => c.id);
    const phase = terminalPhase ?? (anyRunning || containers.some((c) => c.lastState && 'terminated' in c.lastState) ? 'Running' : 'Pending');
    const unready = containers.filter((c) => !c.ready).map((c) => c.name);
    const cond = (type: string, ok: boolean, reason?: string) => ({
      type,
      status: ok ? 'True' : 'False',
      lastProbeTime: null,
      lastTransitionTime: startTime,
      ...(ok || !reason ? {} : { reason, message: `containers with unready status: [${unready.join(' ')}]` }),
    });
    const status = {
      phase,
      conditions: [
        cond('PodReadyToStartContainers', !terminalPhase),
        cond('Initialized', true),
        cond('Ready', allReady, 'ContainersNotReady'),
        cond('ContainersReady', allReady, 'ContainersNotReady'),
        cond('PodScheduled', true),
      ],
      hostIP: this.hostIP,
      hostIPs: [{ ip: this.hostIP }],
      ...(anyStarted ? { podIP: this.podIP, podIPs: [{ ip: this.podIP }] } : {}),
      startTime,
      qosClass: 'BestEffort',
      containerStatuses: containers.map((c) => ({
        name: c.name,
        state: c.state,
        lastState: c.lastState ?? {},
        ready: c.ready,
        restartCount: c.restartCount,
        image: c.image,
        imageID: c.id ? `${c.image.replace(/:[^/]*$/, '')}@sha256:${'a'.repeat(64)}` : '',
        ...(c.id ? { containerID: c.id } : {}),
        started: c.started,
      })),
    };
    return this.api.must('PATCH', `/api/v1/namespaces/${ns}/pods/${name}/status`, { status }, [200], { 'Content-Type': 'application/merge-patch+json' });
  }

  /**
   * Records an Event about a pod's container. A repeat (same reason and message) within the
   * recorder's lifetime updates the existing Event: count + 1, new lastTimestamp.
   */
  async event(
    pod: { metadata: { name: string; namespace: string; uid: string; resourceVersion?: string } },
    container: string,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): Promise<any> {
    const ns = pod.metadata.namespace;
    const k = `${pod.metadata.uid}\u0000${container}\u0000${reason}\u0000${message}`;
    const now = ts();
    const seen = this.recorded.get(k);
    if (seen) {
      seen.count++;
      return this.api.must('PATCH', `/api/v1/namespaces/${ns}/events/${seen.name}`, { count: seen.count, lastTimestamp: now }, [200], {
        'Content-Type': 'application/strategic-merge-patch+json',
      });
    }
    const name = `${pod.metadata.name}.${(BigInt(Date.now()) * 1_000_000n + BigInt(this.recorded.size)).toString(16)}`;
    this.recorded.set(k, { name, count: 1 });
    return this.api.must(
      'POST',
      `/api/v1/namespaces/${ns}/events`,
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace: ns },
        involvedObject: {
          kind: 'Pod',
          namespace: ns,
          name: pod.metadata.name,
          uid: pod.metadata.uid,
          apiVersion: 'v1',
          resourceVersion: pod.metadata.resourceVersion,
          fieldPath: `spec.containers{${container}}`,
        },
        reason,
        message,
        source: { component: 'kubelet', host: this.node },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        type,
        reportingComponent: 'kubelet',
        reportingInstance: this.node,
      },
      [201],
    );
  }

  /** The kubelet's last word on a gracefully deleted pod: remove it for good (grace 0, same uid). */
  async confirmDeletion(ns: string, name: string, uid: string): Promise<void> {
    await this.api.must(
      'DELETE',
      `/api/v1/namespaces/${ns}/pods/${name}`,
      { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid } },
      [200],
    );
  }
}

export const kubeTimestamp = ts;

/** The Ready condition and nodeInfo a v1.36 kubelet posts in its Node's status (both stand-ins post these). */
export function readyNodeStatus(now: string) {
  return {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
        lastHeartbeatTime: now,
        lastTransitionTime: now,
      },
    ],
    nodeInfo: {
      kubeletVersion: 'v1.36.3',
      containerRuntimeVersion: 'containerd://2.1.3',
      operatingSystem: 'linux',
      architecture: 'amd64',
      kernelVersion: '6.8.0',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
      machineID: '0'.repeat(32),
      systemUUID: '00000000-0000-4000-8000-000000000001',
      bootID: '00000000-0000-4000-8000-000000000002',
      kubeProxyVersion: '',
    },
  };
}
