import type { PodSyncer, SyncContext } from './podworkers';
import type { ActualStateOfWorld } from './state/actual';
import type { DesiredStateOfWorld } from './state/desired';
import type { ProbeResultsCache } from './state/probes';
import { computeObjectView } from './state/view';
import type { KubeObject } from './types';

/**
 * ModelSyncer: what a sync means for our model (upstream's syncPod / syncTerminatingPod /
 * syncTerminatedPod act on containers; ours act on the view a tree shows).
 *
 * Level-triggered: every function recomputes from the current desired object for the key (spec +
 * latest status, falling back to the update's copy if the key now holds another incarnation) and
 * the latest recorded probe results. None of them looks at the update type or at which source
 * caused the sync; updateType is passed for logs and metrics only, as upstream.
 */
export class ModelSyncer implements PodSyncer {
  constructor(
    private readonly desired: DesiredStateOfWorld,
    private readonly actual: ActualStateOfWorld,
    private readonly probes: ProbeResultsCache,
  ) {}

  async syncPod(ctx: SyncContext): Promise<boolean> {
    this.publish(ctx.key, this.current(ctx), ctx);
    return false; // objects stay in the API after completing; the view says Completed, the worker keeps syncing
  }

  async syncTerminatingPod(ctx: SyncContext): Promise<boolean> {
    const cur = this.desired.get(ctx.key);
    if (cur && cur.obj.metadata.uid === ctx.obj.metadata.uid) {
      // Still in the API (graceful deletion in progress): show it as it is now, keep terminating.
      this.publish(ctx.key, cur.obj, ctx);
      return false;
    }
    return true; // gone from the API: termination is complete
  }

  async syncTerminatedPod(ctx: SyncContext): Promise<void> {
    this.actual.delete(ctx.key, ctx.obj.metadata.uid);
    if (!this.desired.has(ctx.key)) this.probes.delete(ctx.key);
  }

  private current(ctx: SyncContext): KubeObject {
    const cur = this.desired.get(ctx.key);
    return cur && cur.obj.metadata.uid === ctx.obj.metadata.uid ? cur.obj : ctx.obj;
  }

  private publish(key: string, obj: KubeObject, ctx: SyncContext): void {
    this.actual.set(computeObjectView(key, obj, ctx.resource, this.probes.get(key)));
  }
}
