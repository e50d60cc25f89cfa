import { allContainerStatuses, objectKey, type Pod, type PodLifecycleEvent } from '../types';

/**
 * GenericPLEG: upstream pkg/kubelet/pleg/generic.go — the pod lifecycle event generator. Each relist
 * records every container's state per pod and diffs it with the previous relist:
 *
 *   now running      -> ContainerStarted
 *   now exited       -> ContainerDied
 *   now unknown      -> ContainerChanged (computed, never sent, as upstream)
 *   now non-existent -> ContainerRemoved, preceded by ContainerDied unless it had already exited
 *
 * Upstream reads the container runtime; we read what the API shows: status.containerStatuses,
 * initContainerStatuses and ephemeralContainerStatuses. A container is identified by its container
 * ID (the runtime's, scheme stripped), so a restart is one container dying (it moves to
 * lastState.terminated) and a new one starting. A status without a container ID has no container yet.
 *
 * Memory: one record per pod present in the last relist; a pod gone from a relist yields its final
 * events and its record is dropped.
 *
 * Cost: a pod whose object is the same reference as at the previous relist (the store replaces an
 * object on every change and never mutates one) is not re-read, so relisting a quiet store of N
 * pods is N map look-ups, and only changed pods have their container states recomputed.
 */
export type PlegContainerState = 'running' | 'exited' | 'unknown' | 'non-existent';

export function generateEvents(podID: string, cid: string, oldState: PlegContainerState, newState: PlegContainerState): PodLifecycleEvent[] {
  if (newState === oldState) return [];
  switch (newState) {
    case 'running':
      return [{ id: podID, type: 'ContainerStarted', data: cid }];
    case 'exited':
      return [{ id: podID, type: 'ContainerDied', data: cid }];
    case 'unknown':
      return [{ id: podID, type: 'ContainerChanged', data: cid }];
    case 'non-existent':
      // An exited container was already reported dead; anything else dies and goes in one step.
      if (oldState === 'exited') return [{ id: podID, type: 'ContainerRemoved', data: cid }];
      return [
        { id: podID, type: 'ContainerDied', data: cid },
        { id: podID, type: 'ContainerRemoved', data: cid },
      ];
  }
}

/** Strips the runtime scheme: "containerd://abc" -> "abc" (upstream ContainerID.ID). */
export function containerIdOf(raw: string): string {
  const i = raw.indexOf('://');
  return i >= 0 ? raw.slice(i + 3) : raw;
}

/** Every container the pod's status mentions, by container ID, with its PLEG state. */
export function containerStates(pod: Pod | undefined): Map<string, PlegContainerState> {
  const out = new Map<string, PlegContainerState>();
  for (const s of allContainerStatuses(pod)) {
    const previous = s.lastState?.terminated?.containerID;
    if (previous) out.set(containerIdOf(previous), 'exited');
    if (!s.containerID) continue;
    const id = containerIdOf(s.containerID);
    const st = s.state ?? {};
    if (st.running) out.set(id, 'running');
    else if (st.terminated) out.set(id, 'exited');
    // Waiting with an ID: the ID is the last container's (CrashLoopBackOff) when lastState names it.
    else if (previous && containerIdOf(previous) === id) out.set(id, 'exited');
    else out.set(id, 'unknown');
  }
  return out;
}

interface PodRecord {
  key: string;
  /** The object the states were read from: the same reference next time means nothing to diff. */
  obj: Pod;
  containers: Map<string, PlegContainerState>;
}

export interface RelistResult {
  /** Events to send, in order; ContainerChanged already filtered out. */
  events: PodLifecycleEvent[];
  /** The pod key for each pod UID that produced events (the loop looks pods up by UID). */
  keys: Map<string, string>;
}

export class GenericPLEG {
  private records = new Map<string, PodRecord>();

  /** Diffs `pods` (the whole observed set) with the previous relist and returns the events. */
  relist(pods: readonly Pod[]): RelistResult {
    const events: PodLifecycleEvent[] = [];
    const keys = new Map<string, string>();
    const next = new Map<string, PodRecord>();
    const none = new Map<string, PlegContainerState>();
    const diff = (uid: string, key: string, before: Map<string, PlegContainerState>, after: Map<string, PlegContainerState>) => {
      const cids = new Set([...before.keys(), ...after.keys()]);
      for (const cid of cids) {
        for (const e of generateEvents(uid, cid, before.get(cid) ?? 'non-existent', after.get(cid) ?? 'non-existent')) {
          if (e.type === 'ContainerChanged') continue;
          events.push(e);
          keys.set(uid, key);
        }
      }
    };
    for (const pod of pods) {
      const uid = pod.metadata.uid;
      const prev = this.records.get(uid);
      if (prev && prev.obj === pod) {
        next.set(uid, prev);
        continue;
      }
      const rec = { key: objectKey(pod), obj: pod, containers: containerStates(pod) };
      next.set(uid, rec);
      diff(uid, rec.key, prev?.containers ?? none, rec.containers);
    }
    for (const [uid, prev] of this.records) if (!next.has(uid)) diff(uid, prev.key, prev.containers, none);
    this.records = next;
    return { events, keys };
  }

  get podCount(): number {
    return this.records.size;
  }
}
