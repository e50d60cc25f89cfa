import type { Clock } from '../clock';
import type { PodCache } from './pleg/podcache';
import type { PodSyncer, SyncContext, TerminationResult } from './podworkers';
import type { ActualStateOfWorld } from './state/actual';
import type { DesiredStateOfWorld } from './state/desired';
import type { ProbeResultsCache } from './state/probes';
import { computeObjectView } from '../rows/objectView';
import { allContainerStatuses, type Pod } from '../kube/objects/pod';
import { isPodResource } from '../kube/objects/objectKey';
import type { StoredObject } from '../kube/objects/types';

/**
 * ModelSyncer: what a sync means for our model (upstream's syncPod / syncTerminatingPod /
 * syncTerminatedPod act on containers; ours act on the view a tree shows).
 *
 * - syncPod publishes the view and reports isTerminal: a pod in phase Succeeded or Failed has
 *   finished (a completed Job), so its worker goes terminating without any deletion.
 * - syncTerminatingPod is upstream's killPod: one call that blocks until the pod's containers have
 *   stopped (no container running, as the kubelet's status reports them), publishing the view as
 *   it goes, for up to the termination's grace period (at least the runtime's 2 s) plus
 *   TERMINATION_REPORT_SLACK_MS for the kubelet's report to arrive. Meanwhile the pod's updates
 *   queue in its worker's pending slot, as they do behind a kubelet's killPod: what a user debugging
 *   a pod stuck Terminating needs to see. Not seen stopping by then, it fails (the worker retries
 *   after its backoff, and says so): the kubelet may be slow, or gone. A pod that vanished (force
 *   delete, REMOVE) is done, but if its last view still had running containers the workstation
 *   never saw them stop: the result is marked inferred. Without a pod cache to wait on (a bare
 *   loop) it only checks, and the worker's resync checks again.
 * - syncTerminatedPod removes the view only if the object is no longer in the API (a completed
 *   pod stays visible, as `kubectl get pods` shows it, until it is deleted).
 *
 * Level-triggered: every function recomputes from the current object of the same UID and the latest
 * recorded probe results; none of them looks at the update type or at which source caused the
 * sync. The current object is the latest one a watch delivered (the pod cache's: upstream's sync
 * reads the runtime's status from its cache, not the pod manager's copy), as long as the desired
 * set still has the pod; else the desired copy, falling back to the update's.
 */
export class ModelSyncer implements PodSyncer {
  constructor(
    private readonly desired: DesiredStateOfWorld,
    private readonly actual: ActualStateOfWorld,
    private readonly probes: ProbeResultsCache,
    private readonly clock: Clock,
    private readonly podCache?: Pick<PodCache, 'latest' | 'wait'>,
  ) {}

  async syncPod(ctx: SyncContext): Promise<boolean> {
    const obj = this.current(ctx) ?? ctx.obj;
    this.publish(ctx.key, obj, ctx);
    return isPodResource(ctx.resource) && isTerminalPhase(obj as Pod);
  }

  async syncTerminatingPod(ctx: SyncContext): Promise<TerminationResult> {
    let last = ctx.obj;
    const grace = Math.max(ctx.gracePeriodSeconds ?? 0, MINIMUM_GRACE_PERIOD_SECONDS);
    const deadline = this.clock.now() + grace * 1000 + TERMINATION_REPORT_SLACK_MS;
    for (;;) {
      const cur = this.current(ctx);
      if (!cur) return { done: true, ...(containersStopped(last as Pod) ? {} : { inferred: true }) };
      last = cur;
      this.publish(ctx.key, cur, ctx);
      if (containersStopped(cur as Pod)) return { done: true };
      if (!this.podCache) return { done: false };
      const left = deadline - this.clock.now();
      if (left <= 0) {
        throw new Error(
          `containers not seen stopping within the grace period (${grace}s) and ${TERMINATION_REPORT_SLACK_MS / 1000}s for the kubelet's report: the kubelet may be slow, or gone`,
        );
      }
      // The next news of the pod, or the PLEG's next relist (about a second), or the deadline.
      await this.nextObservation(ctx, left);
    }
  }

  /** Resolves on the pod cache's next news of the pod (or relist), or after `ms`; rejects when the sync is aborted. */
  private async nextObservation(ctx: SyncContext, ms: number): Promise<void> {
    const w = this.podCache!.wait(ctx.uid, this.clock.now());
    const timer = this.clock.setTimer(ms, () => w.cancel(TIMED_OUT));
    const onAbort = () => w.cancel(ctx.signal.reason);
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    if (ctx.signal.aborted) onAbort();
    try {
      await w.done;
    } catch (e) {
      if (e !== TIMED_OUT) throw e;
    } finally {
      timer.cancel();
      ctx.signal.removeEventListener('abort', onAbort);
    }
  }

  async syncTerminatedPod(ctx: SyncContext): Promise<void> {
    const cur = this.current(ctx);
    // Still in the API (a finished Job's pod, one rejected at admission, one first seen terminal,
    // whose worker runs this alone): shown as it ended, until it is deleted.
    if (cur) return this.publish(ctx.key, cur, ctx);
    this.actual.delete(ctx.key, ctx.uid);
    this.probes.delete(ctx.uid);
  }

  /** The latest object of this UID, or undefined when the API no longer has it. */
  private current(ctx: SyncContext): StoredObject | undefined {
    const cur = this.desired.get(ctx.key);
    if (!cur || cur.obj.metadata.uid !== ctx.uid) return undefined;
    return this.podCache?.latest(ctx.uid) ?? cur.obj;
  }

  private publish(key: string, obj: StoredObject, ctx: SyncContext): void {
    // An older incarnation must not overwrite the view of the one now under this name.
    const shown = this.actual.get(key);
    const d = this.desired.get(key);
    if (shown && shown.uid !== ctx.uid && d && d.obj.metadata.uid !== ctx.uid) return;
    this.actual.set(computeObjectView(key, obj, ctx.resource, this.probes.get(ctx.uid), shown?.uid === ctx.uid ? shown : undefined));
  }
}

/** Upstream kuberuntime's minimumGracePeriodInSeconds: a container is always given this long to stop. */
export const MINIMUM_GRACE_PERIOD_SECONDS = 2;
/** How long after the grace period a terminating pod's stop may take to be reported (status write, watch). */
export const TERMINATION_REPORT_SLACK_MS = 5000;
const TIMED_OUT = new Error('timed out');

/** Upstream podutil.IsPodPhaseTerminal. */
export function isTerminalPhase(pod: Pod | undefined): boolean {
  const phase = pod?.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** No container of the pod is running (the kubelet's "containers stopped" for a terminating pod). */
export function containersStopped(pod: Pod | undefined): boolean {
  return !allContainerStatuses(pod).some((c) => c.state?.running);
}
