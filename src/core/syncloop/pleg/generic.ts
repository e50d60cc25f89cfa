import { runSteps, STEP_ITEMS, type Steps } from '../../slice';
import { allContainerStatuses, type Pod } from '../../kube/objects/pod';
import { objectKey } from '../../kube/objects/objectKey';
import { type PodLifecycleEvent } from '../types';
import { loopPod } from '../config/loopPod';

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
 * initContainerStatuses and ephemeralContainerStatuses, and the sandbox from the
 * PodReadyToStartContainers condition (SANDBOX_ID: its events are inferred). A container is identified by its container
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
  if (cid === SANDBOX_ID) return generateEventsOf(podID, cid, oldState, newState).map((e) => ({ ...e, inferred: true }));
  return generateEventsOf(podID, cid, oldState, newState);
}

function generateEventsOf(podID: string, cid: string, oldState: PlegContainerState, newState: PlegContainerState): PodLifecycleEvent[] {
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
  readStates(pod, (id, st) => out.set(id, st));
  return out;
}

/**
 * containerStates as a flat array, [id, state, id, state, ...], in the same order: what a relist
 * keeps per pod. A pod has a handful of containers; a Map per changed pod per relist was garbage
 * the major GC had to collect under churn.
 */
export function flatContainerStates(pod: Pod | undefined): string[] {
  const out: string[] = [];
  readStates(pod, (id, st) => {
    const i = indexOfId(out, id);
    if (i >= 0) out[i + 1] = st;
    else out.push(id, st);
  });
  // Exactly sized (push left room for 17): a relist keeps one per pod for the pod's life.
  return out.slice();
}

/** The events between two flat container-state lists of one pod (ContainerChanged left out, as the relist does). */
function diffContainers(uid: string, before: readonly string[], after: readonly string[]): PodLifecycleEvent[] {
  const out: PodLifecycleEvent[] = [];
  const emit = (cid: string, from: PlegContainerState, to: PlegContainerState) => {
    for (const e of generateEvents(uid, cid, from, to)) if (e.type !== 'ContainerChanged') out.push(e);
  };
  for (let i = 0; i < before.length; i += 2) emit(before[i]!, before[i + 1] as PlegContainerState, stateIn(after, before[i]!));
  for (let i = 0; i < after.length; i += 2) if (indexOfId(before, after[i]!) < 0) emit(after[i]!, 'non-existent', after[i + 1] as PlegContainerState);
  return out;
}

/** A copy of a flat state list with `id`'s state set (added when absent). */
function withState(flat: readonly string[], id: string, st: PlegContainerState): string[] {
  const out = flat.slice();
  const i = indexOfId(out, id);
  if (i >= 0) out[i + 1] = st;
  else out.push(id, st);
  return out;
}

function indexOfId(flat: readonly string[], id: string): number {
  for (let i = 0; i < flat.length; i += 2) if (flat[i] === id) return i;
  return -1;
}

function stateIn(flat: readonly string[], id: string): PlegContainerState {
  const i = indexOfId(flat, id);
  return i >= 0 ? (flat[i + 1] as PlegContainerState) : 'non-existent';
}

/**
 * The pod sandbox's stand-in ID. A kubelet's PLEG reports its sandboxes like containers
 * (ContainerStarted when one runs, ContainerDied when it stops); the API has no sandbox ID, only the
 * PodReadyToStartContainers condition (True once the sandbox runs with its network), so the sandbox
 * is read from it under this ID, and its events are marked inferred.
 */
export const SANDBOX_ID = '(sandbox)';

function readStates(pod: Pod | undefined, put: (id: string, st: PlegContainerState) => void): void {
  const sandbox = pod?.status?.conditions?.find((c) => c.type === 'PodReadyToStartContainers');
  if (sandbox?.status === 'True') put(SANDBOX_ID, 'running');
  // False: stopped, once the pod ever had a container (before that, no sandbox was made yet).
  else if (sandbox?.status === 'False' && allContainerStatuses(pod).some((c) => c.containerID || c.lastState?.terminated)) put(SANDBOX_ID, 'exited');
  for (const s of allContainerStatuses(pod)) {
    const previous = s.lastState?.terminated?.containerID;
    if (previous) put(containerIdOf(previous), 'exited');
    if (!s.containerID) continue;
    const id = containerIdOf(s.containerID);
    const st = s.state ?? {};
    if (st.running) put(id, 'running');
    else if (st.terminated) put(id, 'exited');
    // Waiting with an ID: the ID is the last container's (CrashLoopBackOff) when lastState names it.
    else if (previous && containerIdOf(previous) === id) put(id, 'exited');
    else put(id, 'unknown');
  }
}

interface PodRecord {
  key: string;
  /** The object the states were read from: the same reference next time means nothing to diff. */
  obj: Pod;
  /** flatContainerStates of obj. */
  containers: string[];
  /** The relist that last saw the pod. */
  seen: number;
  /**
   * Set by observePod: the object obj replaced, which the store may still hold until the watch
   * change is merged. A relist that reads it must not diff it (it would undo the observation).
   */
  superseded?: Pod;
  /** Set by observeGone: the pod is gone; the store may hold it until the removal is merged. */
  gone?: boolean;
  /**
   * Set by observePod when it left a change for the relist to report (the sandbox's death: a
   * teardown's): the next relist diffs the pod even if it reads the same object.
   */
  deferred?: boolean;
}

export interface RelistResult {
  /** Events to send, in order; ContainerChanged already filtered out. */
  events: PodLifecycleEvent[];
  /** Changed pods left for the next relist (more than maxDiffs changed). */
  deferred: number;
  /** The pod key for each pod UID that produced events (the loop looks pods up by UID). */
  keys: Map<string, string>;
}

/** Changed pods one relist diffs at most (about 10 µs each): the rest wait for the next relist. */
export const PLEG_MAX_DIFFS_PER_RELIST = 2000;

export class GenericPLEG {
  private records = new Map<string, PodRecord>();

  /** maxDiffs bounds one relist's work, so a store that changed wholesale (a first list of 10,000 pods) never blocks the thread for long. */
  constructor(readonly maxDiffs = PLEG_MAX_DIFFS_PER_RELIST) {}

  private generation = 0;

  /**
   * Diffs `pods` (the whole observed set) with the previous relist and returns the events. The
   * records are updated in place: a relist of unchanged objects allocates nothing per pod. Past
   * `maxDiffs` changed pods, the others keep their old record (or none) and are diffed by a later
   * relist: their events are late, never lost, and a pod is never reported removed for it.
   * `pods` may throw, but only before yielding a pod (records are then untouched).
   */
  relist(pods: Iterable<Pod>): RelistResult {
    return runSteps(this.relistSteps(pods));
  }

  /**
   * relist as steps (slice.ts): a yield point every STEP_ITEMS pods of either pass, so a relist of
   * 100,000 pods gives the thread back between slices. Between two steps `pods` may change (a live
   * store): a pod added is still reached, one removed before it was reached is reported removed,
   * one removed after is reported by the next relist, as if the relist had run a moment earlier.
   */
  *relistSteps(pods: Iterable<Pod>): Steps<RelistResult> {
    const events: PodLifecycleEvent[] = [];
    const keys = new Map<string, string>();
    const gen = ++this.generation;
    const none: string[] = [];
    // Every container ID of before (in order), then those only in after: containerStates' union.
    const diff = (uid: string, key: string, before: readonly string[], after: readonly string[]) => {
      const emit = (cid: string, from: PlegContainerState, to: PlegContainerState) => {
        for (const e of generateEvents(uid, cid, from, to)) {
          if (e.type === 'ContainerChanged') continue;
          events.push(e);
          keys.set(uid, key);
        }
      };
      for (let i = 0; i < before.length; i += 2) emit(before[i]!, before[i + 1] as PlegContainerState, stateIn(after, before[i]!));
      for (let i = 0; i < after.length; i += 2) if (indexOfId(before, after[i]!) < 0) emit(after[i]!, 'non-existent', after[i + 1] as PlegContainerState);
    };
    let diffs = 0;
    let deferred = 0;
    let n = 0;
    for (const pod of pods) {
      if (++n % STEP_ITEMS === 0) yield;
      const uid = pod.metadata.uid;
      const prev = this.records.get(uid);
      if (prev && !prev.deferred && (prev.obj === pod || prev.superseded === pod || prev.gone)) {
        // Already diffed, or observed ahead of the store (observePod / observeGone): nothing new.
        if (prev.obj === pod) prev.superseded = undefined;
        prev.seen = gen;
        continue;
      }
      if (prev?.gone) {
        prev.seen = gen;
        continue;
      }
      if (diffs >= this.maxDiffs) {
        deferred++;
        if (prev) prev.seen = gen; // a pod first seen past the bound gets its record next time
        continue;
      }
      diffs++;
      const rec: PodRecord = { key: objectKey(pod), obj: pod, containers: flatContainerStates(pod), seen: gen };
      this.records.set(uid, rec);
      diff(uid, rec.key, prev?.containers ?? none, rec.containers);
    }
    for (const [uid, rec] of this.records) {
      if (++n % STEP_ITEMS === 0) yield;
      if (rec.seen === gen) continue;
      this.records.delete(uid);
      if (!rec.gone) diff(uid, rec.key, rec.containers, none); // a gone pod's final events were given by observeGone
    }
    return { events, keys, deferred };
  }

  /**
   * One pod, outside a relist: what a watch change of it says happened to its containers, diffed
   * with its record, which takes the new state. The next relist then finds nothing new to report
   * about it, even while the store still holds the version this one replaced.
   */
  observePod(listed: Pod, opts: { sandboxDeath?: boolean | 'with-containers' } = {}): PodLifecycleEvent[] {
    // The record keeps the loop's copy (the one the merge's storage will hold), not the pod as listed.
    const pod = loopPod(listed);
    const uid = pod.metadata.uid;
    const prev = this.records.get(uid);
    if (prev && prev.obj === pod && !prev.gone && !prev.deferred) return [];
    const before = prev && !prev.gone ? prev.containers : [];
    const now = flatContainerStates(pod);
    // The sandbox stops only in a teardown (killPod), which writes it itself: its death is the
    // relist's to report, after the write (the record keeps it running until then), unless the
    // caller knows the relist has happened (`sandboxDeath`; 'with-containers': if a container's
    // death is reported with it, as one relist sees both after one killPod).
    let containers = now;
    let deferred = false;
    const withContainers =
      opts.sandboxDeath === 'with-containers' && diffContainers(uid, before, now).some((e) => e.type === 'ContainerDied' && e.data !== SANDBOX_ID);
    if (opts.sandboxDeath !== true && !withContainers && stateIn(before, SANDBOX_ID) === 'running' && stateIn(now, SANDBOX_ID) !== 'running') {
      containers = withState(now, SANDBOX_ID, 'running');
      deferred = true;
    }
    const rec: PodRecord = { key: objectKey(pod), obj: pod, containers, seen: prev?.seen ?? this.generation };
    if (prev && !prev.gone) rec.superseded = prev.obj;
    if (deferred) rec.deferred = true;
    this.records.set(uid, rec);
    return diffContainers(uid, before, containers);
  }

  /** Whether the pod's containers are in other states than its record says (what a relist would report). */
  differs(listed: Pod): boolean {
    const pod = loopPod(listed);
    const prev = this.records.get(pod.metadata.uid);
    const now = flatContainerStates(pod);
    if (!prev || prev.gone) return now.length > 0;
    if (prev.obj === pod) return false;
    return now.length !== prev.containers.length || now.some((v, i) => v !== prev.containers[i]);
  }

  /**
   * One pod is gone (a watch DELETED): its containers that were not known to have exited died, and
   * every container is removed. The record stays as a tombstone until a relist no longer finds the
   * pod in the store, so that relist reports nothing again.
   */
  observeGone(uid: string): PodLifecycleEvent[] {
    const prev = this.records.get(uid);
    if (!prev || prev.gone) return [];
    prev.gone = true;
    prev.superseded = undefined;
    return diffContainers(uid, prev.containers, []);
  }

  get podCount(): number {
    return this.records.size;
  }
}
