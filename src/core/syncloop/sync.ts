import type { PodSyncer, SyncContext, TerminationResult } from './podworkers';
import type { ActualStateOfWorld } from './state/actual';
import type { DesiredStateOfWorld } from './state/desired';
import type { ProbeResultsCache } from './state/probes';
import { computeObjectView } from './state/view';
import { allContainerStatuses, isPodResource, type KubeObject, type Pod } from './types';

/**
 * ModelSyncer: what a sync means for our model (upstream's syncPod / syncTerminatingPod /
 * syncTerminatedPod act on containers; ours act on the view a tree shows).
 *
 * - syncPod publishes the view and reports isTerminal: a pod in phase Succeeded or Failed has
 *   finished (a completed Job), so its worker goes terminating without any deletion.
 * - syncTerminatingPod publishes the view while the pod is still in the API and reports done once
 *   its containers have stopped (no container running) — what the kubelet reaches before its
 *   status manager deletes the API object. A pod that vanished (force delete, REMOVE) is done too,
 *   but if its last view still had running containers the workstation never saw them stop: the
 *   result is marked inferred.
 * - syncTerminatedPod removes the view only if the object is no longer in the API (a completed
 *   pod stays visible, as `kubectl get pods` shows it, until it is deleted).
 *
 * Level-triggered: every function recomputes from the current desired object of the same UID
 * (spec + latest status, falling back to the update's copy) and the latest recorded probe results;
 * none of them looks at the update type or at which source caused the sync.
 */
export class ModelSyncer implements PodSyncer {
  constructor(
    private readonly desired: DesiredStateOfWorld,
    private readonly actual: ActualStateOfWorld,
    private readonly probes: ProbeResultsCache,
  ) {}

  async syncPod(ctx: SyncContext): Promise<boolean> {
    const obj = this.current(ctx) ?? ctx.obj;
    this.publish(ctx.key, obj, ctx);
    return isPodResource(ctx.resource) && isTerminalPhase(obj as Pod);
  }

  async syncTerminatingPod(ctx: SyncContext): Promise<TerminationResult> {
    const cur = this.current(ctx);
    if (cur) {
      this.publish(ctx.key, cur, ctx);
      return { done: containersStopped(cur as Pod) };
    }
    return { done: true, ...(containersStopped(ctx.obj as Pod) ? {} : { inferred: true }) };
  }

  async syncTerminatedPod(ctx: SyncContext): Promise<void> {
    if (this.current(ctx)) return; // still in the API: the view stays
    this.actual.delete(ctx.key, ctx.uid);
    this.probes.delete(ctx.uid);
  }

  /** The desired object of this UID, or undefined when the API no longer has it. */
  private current(ctx: SyncContext): KubeObject | undefined {
    const cur = this.desired.get(ctx.key);
    return cur && cur.obj.metadata.uid === ctx.uid ? cur.obj : undefined;
  }

  private publish(key: string, obj: KubeObject, ctx: SyncContext): void {
    // An older incarnation must not overwrite the view of the one now under this name.
    const shown = this.actual.get(key);
    const d = this.desired.get(key);
    if (shown && shown.uid !== ctx.uid && d && d.obj.metadata.uid !== ctx.uid) return;
    this.actual.set(computeObjectView(key, obj, ctx.resource, this.probes.get(ctx.uid), shown?.uid === ctx.uid ? shown : undefined));
  }
}

/** Upstream podutil.IsPodPhaseTerminal. */
export function isTerminalPhase(pod: Pod | undefined): boolean {
  const phase = pod?.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** No container of the pod is running (the kubelet's "containers stopped" for a terminating pod). */
export function containersStopped(pod: Pod | undefined): boolean {
  return !allContainerStatuses(pod).some((c) => c.state?.running);
}
