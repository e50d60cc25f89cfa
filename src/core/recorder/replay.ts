/**
 * replayRecording: plays a recording's changes into a writable object store (the demo cluster's,
 * through ReplayTarget), at the pace they were recorded, scaled by `speed`.
 *
 * Order: the first complete keyframe is loaded at once (before `ready` resolves); then every
 * delta after it is applied, in recorded order, when (its time - the keyframe's) / speed has passed
 * since the start (`startWhen`, if given, is awaited first: e.g. until a client watches). Later
 * keyframes are not applied: they repeat what the deltas built. The store assigns its own
 * resourceVersions, uids and creation times, so watches see the changes happen as on a live server;
 * and its own managedFields: the recorded ones (format 4, managed.ts) are left out of what is put.
 *
 * Guarantees: every async step takes the signal, and the replay ends (resolves) when it aborts;
 * a change the store refuses (a type it does not serve) is counted in `skipped`, never fatal.
 */
import { abortReason, realClock, type Clock } from '../clock';
import { applyMergePatch } from './diff';
import type { Recording } from './reader';
import { parseKey, type Obj } from './records';

export interface ReplayTarget {
  /** Creates or replaces the object (the whole object, status included). */
  put(group: string, resource: string, namespace: string | undefined, obj: Obj): void;
  remove(group: string, resource: string, namespace: string | undefined, name: string): void;
}

export interface ReplayOptions {
  speed?: number;
  clock?: Clock;
  startWhen?: (signal: AbortSignal) => Promise<void>;
}

export interface ReplayStats {
  loaded: number;
  applied: number;
  skipped: number;
}

export interface Replay {
  /** Resolves once the first keyframe is in the store. */
  ready: Promise<void>;
  /** Resolves when every change was applied (or the signal aborted). */
  done: Promise<ReplayStats>;
}

export function replayRecording(rec: Recording, target: ReplayTarget, signal: AbortSignal, opts: ReplayOptions = {}): Replay {
  const speed = opts.speed ?? 1;
  if (!(speed > 0) || !Number.isFinite(speed)) throw new RangeError(`speed must be a positive number, got ${speed}`);
  const clock = opts.clock ?? realClock;
  const stats: ReplayStats = { loaded: 0, applied: 0, skipped: 0 };
  const kf = rec.keyframes[0];
  const state = new Map<string, Obj>();
  const apply = (key: string, op: 'A' | 'M' | 'D', after: Obj | undefined): void => {
    const k = parseKey(key);
    if (!k) return void stats.skipped++;
    try {
      if (op === 'D') target.remove(k.group, k.resource, k.namespace, k.name);
      else target.put(k.group, k.resource, k.namespace, withoutManagedFields(after!));
      stats.applied++;
    } catch {
      stats.skipped++;
    }
  };
  let resolveReady!: () => void;
  let rejectReady!: (e: unknown) => void;
  const ready = new Promise<void>((res, rej) => ((resolveReady = res), (rejectReady = rej)));
  const done = (async (): Promise<ReplayStats> => {
    try {
      if (!kf) throw new Error('the recording has no complete keyframe to start from');
      for (const [key, o] of await rec.objectsAt(kf.t, signal)) {
        state.set(key, o);
        apply(key, 'A', o);
        stats.loaded++;
      }
      stats.applied -= stats.loaded;
      resolveReady();
    } catch (e) {
      rejectReady(e);
      throw e;
    }
    try {
      await opts.startWhen?.(signal);
      const start = clock.now();
      for await (const r of rec.changesAfter(kf, signal)) {
        const due = start + (r.t - kf.t) / speed;
        const wait = due - clock.now();
        if (wait > 1) await clock.sleep(wait, signal);
        if (signal.aborted) throw abortReason(signal);
        let after: Obj | undefined;
        if (r.op === 'D') state.delete(r.key);
        else {
          after = r.o ?? (applyMergePatch(state.get(r.key), r.p) as Obj);
          state.set(r.key, after);
        }
        apply(r.key, r.op, after);
      }
    } catch (e) {
      if (!signal.aborted) throw e;
    }
    return stats;
  })();
  done.catch(() => undefined);
  return { ready, done };
}

function withoutManagedFields(o: Obj): Obj {
  const meta = o.metadata as Obj | undefined;
  if (!meta || !('managedFields' in meta)) return o;
  const { managedFields: _m, ...rest } = meta;
  return { ...o, metadata: rest };
}
