/**
 * default-scheduler's part of the demo: binds a pod without spec.nodeName to a node.
 *
 * Guarantees:
 * - A pod whose required node affinity names one node by metadata.name (how DaemonSet pods are
 *   pinned) is bound to that node once it exists, and stays Pending until then.
 * - Otherwise round-robin over the nodes its nodeSelector and node affinity admit (the predicate
 *   the kubelet's admission checks); none: the pod stays Pending, said once by a FailedScheduling
 *   Event (again only after forget()).
 * - A bind writes spec.nodeName (the binding subresource), PodScheduled=True and a Scheduled Event.
 * - With a capacity (./capacity.ts), a pod that finds every node full stays Pending with
 *   PodScheduled=False (Unschedulable) and a FailedScheduling Event worded as kube-scheduler's
 *   ("0/3 nodes are available: 3 Too many pods. ..."), repeated (count + 1) at each retry; with an
 *   autoscaler, a node is added and the waiting pods are tried again.
 */
import type { DemoObject, ObjectStore } from '../store';
import { matchesNode } from './admission';
import { kubeTimestamp, type EventRecorder } from './eventRecorder';
import type { NodeRegistry } from './nodes';
import { NodeCapacity, type Capacity } from './capacity';
import type { TimerGroup } from './kubeletClock';

/** The one node a pod's required node affinity allows by metadata.name, if that is how it is pinned. */
function pinnedNode(pod: DemoObject): string | undefined {
  const terms = (pod.spec as any)?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms as any[] | undefined;
  for (const term of terms ?? []) {
    for (const f of term?.matchFields ?? []) if (f?.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return String(f.values[0]);
  }
  return undefined;
}

const involved = (pod: DemoObject) => ({ kind: 'Pod', apiVersion: 'v1', name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid });

export class Scheduler {
  private nextNode = 0;
  private readonly toldUnschedulable = new Set<string>();
  private readonly schedulable: string[];
  private readonly capacity?: NodeCapacity;
  /** Pods waiting for room (uid -> namespace/name), tried again when a node is added. */
  private readonly waiting = new Map<string, { namespace?: string; name: string }>();
  private scaleUpPending = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly nodes: NodeRegistry,
    private readonly recorder: EventRecorder,
    private readonly wallNow: () => number,
    schedulable: readonly string[],
    private readonly autoscale?: { capacity: Capacity; timers: TimerGroup },
  ) {
    this.schedulable = [...schedulable];
    if (autoscale) this.capacity = new NodeCapacity(autoscale.capacity.podsPerNode);
  }

  schedule(pod: DemoObject): void {
    if (pod.metadata.deletionTimestamp) return;
    const { store, nodes } = this;
    const pinned = pinnedNode(pod);
    if (pinned !== undefined && !store.get('', 'nodes', undefined, pinned)) return;
    const fits = this.schedulable.filter((n) => {
      nodes.ensure(n);
      const o = store.get('', 'nodes', undefined, n);
      return !o || matchesNode(pod, n, (o.metadata.labels ?? {}) as Record<string, string>);
    });
    if (pinned === undefined && !fits.length) return this.unschedulable(pod);
    const roomy = this.capacity ? fits.filter((n) => this.capacity!.hasRoom(n)) : fits;
    if (pinned === undefined && !roomy.length) return this.full(pod);
    const node = pinned ?? roomy[this.nextNode++ % roomy.length]!;
    this.capacity?.bind(pod.metadata.uid ?? '', node);
    this.waiting.delete(pod.metadata.uid ?? '');
    nodes.ensure(node);
    const bound = store.update('', 'pods', { ...pod, spec: { ...(pod.spec as object), nodeName: node } }, { subresource: 'binding' });
    const now = kubeTimestamp(this.wallNow());
    const st = (bound.status ?? {}) as { conditions?: { type: string }[] };
    const conditions = [
      ...(st.conditions ?? []).filter((c) => c.type !== 'PodScheduled'),
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now },
    ];
    store.update('', 'pods', { ...bound, status: { phase: 'Pending', ...st, conditions } }, { subresource: 'status' });
    const message = `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${node}`;
    this.recorder.record(involved(pod), 'Normal', 'Scheduled', message, { component: 'default-scheduler' }, { action: 'Binding' });
  }

  /** A deleted pod: a pod of the same uid would be told again. */
  forget(uid: string): void {
    this.toldUnschedulable.delete(uid);
    this.waiting.delete(uid);
    this.capacity?.release(uid);
  }

  /** Every fitting node is full: Unschedulable, told (again on each retry), and a node asked for. */
  private full(pod: DemoObject): void {
    const uid = pod.metadata.uid ?? '';
    const first = !this.waiting.has(uid);
    this.waiting.set(uid, { namespace: pod.metadata.namespace, name: pod.metadata.name });
    if (first) {
      const message = this.tooManyPods(pod);
      const st = (pod.status ?? {}) as { conditions?: { type: string }[] };
      const conditions = [
        ...(st.conditions ?? []).filter((c) => c.type !== 'PodScheduled'),
        { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: kubeTimestamp(this.wallNow()), reason: 'Unschedulable', message },
      ];
      this.store.update('', 'pods', { ...pod, status: { phase: 'Pending', ...st, conditions } }, { subresource: 'status' });
    }
    const after = this.autoscale?.capacity.addNodeAfterMs;
    if (after === undefined || this.scaleUpPending) return;
    this.scaleUpPending = true;
    this.autoscale!.timers.after(after, () => this.addNode());
  }

  /** The autoscaler's new node, then every waiting pod tried again (those still without room are told again). */
  private addNode(): void {
    this.scaleUpPending = false;
    const name = `demo-node-${this.schedulable.length + 1}`;
    this.nodes.ensure(name);
    this.schedulable.push(name);
    for (const [uid, ref] of [...this.waiting]) {
      const pod = this.store.get('', 'pods', ref.namespace, ref.name);
      if (!pod || pod.metadata.uid !== uid || (pod.spec as { nodeName?: string } | undefined)?.nodeName) {
        this.waiting.delete(uid);
        continue;
      }
      this.schedule(pod);
      // kube-scheduler records FailedScheduling again at each failed retry (the correlator counts it).
      if (this.waiting.has(uid)) this.tooManyPods(pod);
    }
  }

  /** kube-scheduler's FailedScheduling for a pod no node has room for; returns its message. */
  private tooManyPods(pod: DemoObject): string {
    const n = this.schedulable.length;
    const message = `0/${n} nodes are available: ${n} Too many pods. preemption: 0/${n} nodes are available: ${n} No preemption victims found for incoming pod.`;
    this.recorder.record(involved(pod), 'Warning', 'FailedScheduling', message, { component: 'default-scheduler' });
    return message;
  }

  /** Cancels the autoscaler's pending scale-up. */
  stop(): void {
    this.autoscale?.timers.cancelAll(true);
  }

  private unschedulable(pod: DemoObject): void {
    const uid = pod.metadata.uid ?? '';
    if (this.toldUnschedulable.has(uid)) return;
    this.toldUnschedulable.add(uid);
    const n = this.schedulable.length;
    const message = `0/${n} nodes are available: ${n} node(s) didn't match Pod's node affinity/selector.`;
    this.recorder.record(involved(pod), 'Warning', 'FailedScheduling', message, { component: 'default-scheduler' });
  }
}
