import { hostSlicer } from '../../slice';
import { sharedInterner } from '../../kube/objects/intern';
import { shareUnchanged } from '../../kube/objects/share';
import type { PodConfig } from '../config/podconfig';
import type { ProbeInference } from '../prober/infer';
import type { SyncLoop } from '../syncloop';
import type { PlegRelister } from '../pleg/relister';
import type { KubeEvent, Pod } from '../../kube/objects/pod';
import type { PodLifecycleEvent, PodOperation, ProbeUpdate } from '../types';
import type { StoredObject } from '../../kube/objects/types';
import type { ResourceRef } from '../../kube/objects/objectKey';
import { allContainerStatuses } from '../../kube/objects/pod';
import { isPodResource } from '../../kube/objects/objectKey';
import type { ReflectorSink } from './reflector';

/** Watch event type -> the config operation it is merged as (DELETED: the object is gone: REMOVE). */
/** What a source may touch of the loop: its input channels (as upstream's sources hold only their channel) and its clock. */
export type LoopInputs = Pick<SyncLoop, 'clock' | 'channels'>;

const opOf: Record<'ADDED' | 'MODIFIED' | 'DELETED', PodOperation> = { ADDED: 'ADD', MODIFIED: 'UPDATE', DELETED: 'REMOVE' };

/**
 * ConfigSink: a reflector's output into the config merge, as one config source. For pods it also
 * reads every object as the kubelet's report of its runtime: the PLEG events and probe results that
 * a status write shows happened.
 *
 * Causes before effects. In the kubelet a PLEG event or a probe result comes first; it causes a pod
 * sync, the sync writes the status, and the RECONCILE that echoes that write comes last. A
 * workstation sees only the write, so for a watch change of a pod it already holds it derives the
 * causes first and hands each to the loop (plegCh, then the probe channels), waiting until the loop
 * has taken it, and merges the change (the echo) only then. A new pod's ADD comes before its
 * containers' events (the kubelet adds a pod, then starts it); a pod gone from the API has the
 * deaths its last status shows before its REMOVE, and those it does not (containers it still showed
 * running, its sandbox: the kubelet kills them after the REMOVE) after it, inferred.
 * Once a pod is being deleted or has reached a terminal phase, the kubelet's teardown writes its
 * status itself and its PLEG sees the deaths at the next relist: those writes are merged at once
 * and the periodic relist reports the deaths after them.
 * Full lists (a first list, a relist after a gap) are merged first and left to the PLEG's periodic
 * relist, which bounds its work per second: a list of 20,000 pods is no burst on plegCh.
 */
export class ConfigSink implements ReflectorSink {
  constructor(
    private readonly loop: LoopInputs,
    private readonly podConfig: PodConfig,
    readonly source: string,
    readonly resource: ResourceRef,
    private readonly probes: ProbeInference | undefined,
    private readonly signal: AbortSignal,
    private readonly namespace?: string,
    /** For pods: the PLEG that turns a watch change's status into lifecycle events (and its pod cache). */
    private readonly pleg?: PlegRelister,
  ) {}

  async replace(items: StoredObject[]): Promise<void> {
    // The loop keeps these objects: their repeated values (namespaces, images, label values, ...)
    // as one copy each (intern.ts), in slices of the thread.
    for (const o of items) {
      const turn = hostSlicer.due();
      if (turn) await turn;
      sharedInterner.internObject(o);
    }
    await this.podConfig.merge(this.source, { op: 'SET', pods: items, source: this.source, resource: this.resource }, this.signal);
    if (this.pleg && isPodResource(this.resource)) for (const p of items) this.pleg.podCache.observe(p as Pod);
    if (this.probes && isPodResource(this.resource)) {
      const seen = new Set<string>();
      for (const p of items) {
        const turn = hostSlicer.due(); // a first list of many pods: in slices of the thread
        if (turn) await turn;
        seen.add(p.metadata.uid);
        await sendProbeUpdates(this.loop, this.probes.observePod(p as Pod), this.signal);
      }
      this.probes.retainPods(seen, this.namespace);
    }
  }

  /**
   * A MODIFIED object reuses the unchanged parts of the version the source holds (share.ts): the
   * loop then keeps only what changed, and the fresh copies of the rest die young. Only what
   * changed is interned then (the held version was interned when it came).
   */
  async apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: StoredObject): Promise<void> {
    const prev = type === 'MODIFIED' ? this.podConfig.storage.held(this.source, obj.metadata.uid) : undefined;
    if (prev) {
      obj = shareUnchanged(prev, obj);
      sharedInterner.internChanged(obj, prev);
    } else if (type !== 'DELETED') sharedInterner.internObject(obj);
    const pod = isPodResource(this.resource) ? (obj as Pod) : undefined;
    // A change of a pod we hold: its causes first (PLEG, then probes), then its echo; but once the
    // pod was being torn down, its status is what the kubelet's own termination wrote (killPod
    // stops the containers and writes their state), and its PLEG reports the deaths at its next
    // relist, after the echo: the periodic relist does the same here.
    if (pod && prev) {
      if (!tornDown(prev as Pod)) await this.deliverCauses(pod);
      else if (finalDelete(pod)) {
        // The kubelet deletes a pod that ran only once its pod cache (the PLEG's relist) shows the
        // containers stopped: the deaths that relist saw come first (the sandbox's with them). A
        // sandbox killed alone (a pod already terminal) may die at a relist after the delete.
        if (this.pleg) await this.deliverPleg(this.pleg.observePod(pod, { sandboxDeath: 'with-containers' }));
      } else {
        // The teardown's own write: the containers' new states are news for a worker in killPod
        // (the pod cache is stamped), but the PLEG's events come at its next relist, after the echo.
        if (this.pleg) {
          if (this.pleg.pleg.differs(pod)) this.pleg.podCache.set(pod.metadata.uid, this.loop.clock.now());
          this.pleg.podCache.observe(pod);
        }
        if (this.probes) await sendProbeUpdates(this.loop, this.probes.observePod(pod), this.signal, true);
      }
    }
    // A pod gone: its last status may show containers that stopped (the kubelet's PLEG saw them
    // before its final delete).
    if (pod && type === 'DELETED' && this.pleg) await this.deliverPleg(this.pleg.observePod(pod, { sandboxDeath: 'with-containers' }));
    await this.podConfig.merge(this.source, { op: opOf[type], pods: [obj], source: this.source, resource: this.resource }, this.signal);
    if (!pod) return;
    if (type === 'DELETED') {
      this.probes?.forgetPod(obj.metadata.uid);
      // Those it still showed running (a force delete), and its sandbox: the kubelet kills them
      // after the REMOVE, and its PLEG reports a pod it no longer has (inferred).
      if (this.pleg) await this.deliverPleg(this.pleg.observeGone(pod));
    } else if (!prev) await this.deliverCauses(pod); // a new pod: its ADD came first
  }

  /** The PLEG events and probe results a pod's status shows, each taken by the loop before the next. */
  private async deliverCauses(pod: Pod): Promise<void> {
    if (this.pleg) await this.deliverPleg(this.pleg.observePod(pod));
    if (this.probes) await sendProbeUpdates(this.loop, this.probes.observePod(pod), this.signal, true);
  }

  private async deliverPleg(events: readonly PodLifecycleEvent[]): Promise<void> {
    for (const e of events) await this.loop.channels.pleg.sendReceived(e, this.signal);
  }
}

/** The kubelet's own delete once the pod's containers stopped (its status manager: grace period 0). */
function finalDelete(pod: Pod): boolean {
  return pod.metadata.deletionGracePeriodSeconds === 0 && !allContainerStatuses(pod).some((c) => c.state?.running);
}

/** Being deleted, or in a terminal phase: what the kubelet writes about it now comes from its teardown. */
function tornDown(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return pod.metadata.deletionTimestamp != null || phase === 'Succeeded' || phase === 'Failed';
}

/**
 * EventsSink: Events into the probe inference. Events present when a (re)list happens are a
 * baseline, except those already known whose count rose during a gap: those are new occurrences.
 */
export class EventsSink implements ReflectorSink {
  constructor(
    private readonly loop: LoopInputs,
    private readonly probes: ProbeInference,
    private readonly signal: AbortSignal,
  ) {}

  async replace(items: StoredObject[]): Promise<void> {
    for (const ev of items as KubeEvent[]) {
      const turn = hostSlicer.due();
      if (turn) await turn;
      if (this.probes.knowsEvent(ev.metadata.uid)) await sendProbeUpdates(this.loop, this.probes.observeEvent(ev), this.signal);
      else this.probes.baselineEvent(ev);
    }
  }

  async apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: StoredObject): Promise<void> {
    if (type === 'DELETED') this.probes.forgetEvent(obj.metadata.uid);
    else await sendProbeUpdates(this.loop, this.probes.observeEvent(obj as KubeEvent), this.signal);
  }
}

/**
 * Sends inferred probe results on their channels (blocking: the channels' backpressure reaches the
 * watch). With `received`, each is taken by the loop before the next is sent (and before the caller
 * goes on): what makes a status write's causes come before its echo.
 */
export async function sendProbeUpdates(loop: LoopInputs, updates: readonly ProbeUpdate[], signal: AbortSignal, received = false): Promise<void> {
  for (const u of updates) {
    if (received) await loop.channels[u.probe].sendReceived(u, signal);
    else await loop.channels[u.probe].send(u, signal);
  }
}
