import { hostSlicer } from '../../slice';
import { sharedInterner } from '../../kube/intern';
import { shareUnchanged } from '../../kube/share';
import type { PodConfig } from '../config/podconfig';
import type { ProbeInference } from '../prober/infer';
import type { SyncLoop } from '../syncloop';
import type { KubeEvent, KubeObject, Pod, PodOperation, ProbeUpdate, ResourceRef } from '../types';
import { isPodResource } from '../types';
import type { ReflectorSink } from './reflector';

/** Watch event type -> the config operation it is merged as (DELETED: the object is gone: REMOVE). */
const opOf: Record<'ADDED' | 'MODIFIED' | 'DELETED', PodOperation> = { ADDED: 'ADD', MODIFIED: 'UPDATE', DELETED: 'REMOVE' };

/**
 * ConfigSink: a reflector's output into the config merge, as one config source. For pods it also
 * shows every object to the probe inference, after the merge (so the loop knows the pod by the
 * time a probe result about it arrives).
 */
export class ConfigSink implements ReflectorSink {
  constructor(
    private readonly kl: SyncLoop,
    private readonly podConfig: PodConfig,
    readonly source: string,
    readonly resource: ResourceRef,
    private readonly probes: ProbeInference | undefined,
    private readonly signal: AbortSignal,
    private readonly namespace?: string,
  ) {}

  async replace(items: KubeObject[]): Promise<void> {
    // The loop keeps these objects: their repeated values (namespaces, images, label values, ...)
    // as one copy each (intern.ts), in slices of the thread.
    for (const o of items) {
      const turn = hostSlicer.due();
      if (turn) await turn;
      sharedInterner.internObject(o);
    }
    await this.podConfig.merge(this.source, { op: 'SET', pods: items, source: this.source, resource: this.resource }, this.signal);
    if (this.probes && isPodResource(this.resource)) {
      const seen = new Set<string>();
      for (const p of items) {
        const turn = hostSlicer.due(); // a first list of many pods: in slices of the thread
        if (turn) await turn;
        seen.add(p.metadata.uid);
        await sendProbeUpdates(this.kl, this.probes.observePod(p as Pod), this.signal);
      }
      this.probes.retainPods(seen, this.namespace);
    }
  }

  /**
   * A MODIFIED object reuses the unchanged parts of the version the source holds (share.ts): the
   * loop then keeps only what changed, and the fresh copies of the rest die young. Only what
   * changed is interned then (the held version was interned when it came).
   */
  async apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): Promise<void> {
    const prev = type === 'MODIFIED' ? this.podConfig.storage.held(this.source, obj.metadata.uid) : undefined;
    if (prev) {
      obj = shareUnchanged(prev, obj);
      sharedInterner.internChanged(obj, prev);
    } else if (type !== 'DELETED') sharedInterner.internObject(obj);
    await this.podConfig.merge(this.source, { op: opOf[type], pods: [obj], source: this.source, resource: this.resource }, this.signal);
    if (this.probes && isPodResource(this.resource)) {
      if (type === 'DELETED') this.probes.forgetPod(obj.metadata.uid);
      else await sendProbeUpdates(this.kl, this.probes.observePod(obj as Pod), this.signal);
    }
  }
}

/**
 * EventsSink: Events into the probe inference. Events present when a (re)list happens are a
 * baseline, except those already known whose count rose during a gap: those are new occurrences.
 */
export class EventsSink implements ReflectorSink {
  constructor(
    private readonly kl: SyncLoop,
    private readonly probes: ProbeInference,
    private readonly signal: AbortSignal,
  ) {}

  async replace(items: KubeObject[]): Promise<void> {
    for (const ev of items as KubeEvent[]) {
      const turn = hostSlicer.due();
      if (turn) await turn;
      if (this.probes.knowsEvent(ev.metadata.uid)) await sendProbeUpdates(this.kl, this.probes.observeEvent(ev), this.signal);
      else this.probes.baselineEvent(ev);
    }
  }

  async apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): Promise<void> {
    if (type === 'DELETED') this.probes.forgetEvent(obj.metadata.uid);
    else await sendProbeUpdates(this.kl, this.probes.observeEvent(obj as KubeEvent), this.signal);
  }
}

/** Sends inferred probe results on their channels (blocking: the channels' backpressure reaches the watch). */
export async function sendProbeUpdates(kl: SyncLoop, updates: readonly ProbeUpdate[], signal: AbortSignal): Promise<void> {
  for (const u of updates) await kl.channels[u.probe].send(u, signal);
}
