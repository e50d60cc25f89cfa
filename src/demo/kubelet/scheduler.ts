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
 */
import type { DemoObject, ObjectStore } from '../store';
import { matchesNode } from './admission';
import { kubeTimestamp, type EventRecorder } from './eventRecorder';
import type { NodeRegistry } from './nodes';

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

  constructor(
    private readonly store: ObjectStore,
    private readonly nodes: NodeRegistry,
    private readonly recorder: EventRecorder,
    private readonly wallNow: () => number,
    readonly schedulable: readonly string[],
  ) {}

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
    const node = pinned ?? fits[this.nextNode++ % fits.length]!;
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
