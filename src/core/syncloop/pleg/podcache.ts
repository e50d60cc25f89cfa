import { abortReason } from '../../clock';
import type { Pod } from '../../kube/objects/pod';
import { loopPod } from '../config/loopPod';

/**
 * PodCache: upstream pkg/kubelet/container/cache.go, reduced to what the pod workers wait on.
 *
 * The kubelet's PLEG writes every pod's runtime status into this cache when it relists, stamps each
 * entry with the relist's start, and after the whole relist moves the cache's global timestamp to
 * that start (UpdateTime). A pod worker, before each sync but its first, calls GetNewerThan(uid,
 * lastSyncTime) and blocks until the cache holds something observed after its last sync. So a pod
 * syncs at most once per relist (about a second) and the updates that arrive meanwhile coalesce in
 * its single pending slot: that is what paces the kubelet's syncs.
 *
 * Ours holds, per pod, the latest object a watch delivered (`observe`), which is the latest status the
 * kubelet reported: a sync reads it as upstream's reads the runtime status, since the loop's desired
 * copy of the pod lags behind by the config updates still queued. And the times:
 * - `set(uid, t)`: the pod's containers were observed changing at t (a status write derived into PLEG
 *   events, see sources/sinks.ts);
 * - `updateTime(t)`: a relist that started at t has finished (the PlegRelister);
 * - `getNewerThan(uid, min, signal)`: resolves once the pod's entry or the global timestamp is
 *   strictly newer than `min`, at once when it already is.
 *
 * Guarantees: a waiter is released by the first set/updateTime that satisfies it, or rejected when it
 * is cancelled (its signal aborts); either way it leaves nothing behind (its record and its abort listener are removed).
 * Memory: a time and a reference (to the loop's copy of the pod, config/loopPod.ts, which the merge's
 * storage holds too) per pod observed, until its
 * worker is forgotten (remove), and one record per waiting worker.
 */
interface Waiter {
  uid: string;
  min: number;
  resolve: () => void;
  reject: (e: unknown) => void;
  settled: boolean;
}

export class PodCache {
  private readonly modified = new Map<string, number>();
  private readonly latestPods = new Map<string, Pod>();
  private timestamp: number | undefined;
  private waiters: Waiter[] = [];

  /** The pod's containers were observed at `t`. */
  set(uid: string, t: number): void {
    const cur = this.modified.get(uid);
    if (cur === undefined || t > cur) this.modified.set(uid, t);
    if (this.waiters.length) this.notify();
  }

  /** A relist that started at `t` finished: every pod is known as of `t`. */
  updateTime(t: number): void {
    if (this.timestamp === undefined || t > this.timestamp) this.timestamp = t;
    if (this.waiters.length) this.notify();
  }

  /** The latest object a watch delivered for the pod, as the loop's copy the merge keeps too (no time is stamped: that is `set`'s). */
  observe(pod: Pod): void {
    this.latestPods.set(pod.metadata.uid, loopPod(pod));
  }

  /** The latest observed object of the pod, if any. */
  latest(uid: string): Pod | undefined {
    return this.latestPods.get(uid);
  }

  /** Forgets the pod (its worker was forgotten). */
  remove(uid: string): void {
    this.modified.delete(uid);
    this.latestPods.delete(uid);
  }

  /** True when something about `uid` was observed after `min` (upstream getIfNewerThan). */
  isNewerThan(uid: string, min: number): boolean {
    if (this.timestamp !== undefined && this.timestamp > min) return true;
    const m = this.modified.get(uid);
    return m !== undefined && m > min;
  }

  /** Resolves once isNewerThan(uid, min); rejects with the signal's reason if it aborts first. */
  getNewerThan(uid: string, min: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const w = this.wait(uid, min);
    if (!signal) return w.done;
    const onAbort = () => w.cancel(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    return w.done.finally(() => signal.removeEventListener('abort', onAbort));
  }

  /**
   * getNewerThan without an AbortSignal: `cancel` rejects `done` (if it has not resolved) and drops
   * the record. The pod workers use this form: an AbortController per sync was a measurable share
   * of what the loop allocated (podworkers.ts, PodSyncContext).
   */
  wait(uid: string, min: number): { done: Promise<void>; cancel(reason: unknown): void } {
    if (this.isNewerThan(uid, min)) return { done: Promise.resolve(), cancel: () => undefined };
    let w!: Waiter;
    const done = new Promise<void>((resolve, reject) => {
      w = { uid, min, settled: false, resolve, reject };
    });
    this.waiters.push(w);
    return {
      done,
      cancel: (reason) => {
        if (w.settled) return;
        w.settled = true;
        this.waiters = this.waiters.filter((x) => x !== w);
        w.reject(reason);
      },
    };
  }

  /** Waiting workers (tests prove none is left behind). */
  get waiting(): number {
    return this.waiters.length;
  }

  get size(): number {
    return Math.max(this.modified.size, this.latestPods.size);
  }

  private notify(): void {
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.settled) continue;
      if (this.isNewerThan(w.uid, w.min)) {
        w.settled = true;
        w.resolve();
      } else still.push(w);
    }
    this.waiters = still;
  }
}
