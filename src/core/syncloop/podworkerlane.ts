import type { PodWorkerDetails, SyncIterationEvent } from '../timeline/events';
import type { PodWorkerSyncRecord } from './podworkers';
import type { ProbeProgress } from './prober/infer';

/**
 * The timeline's pod-worker lane: one 'podworker' mark per finished pod-worker sync, saying what a
 * kubelet's podSyncStatus would — the state the sync ran in and left (syncing, terminating,
 * terminated), how many updates the single pending slot coalesced into it, when the work queue
 * makes the pod due again, the termination's grace period, how long it waited for the PLEG's next
 * relist (the pod cache) before it ran, and each probe's progress towards its failureThreshold. Pure: times are turned relative to the timeline's origin.
 */
export function podWorkerMark(r: PodWorkerSyncRecord, origin: number, progress: readonly ProbeProgress[] | undefined): SyncIterationEvent {
  const handler = { syncing: 'SyncPod', terminating: 'SyncTerminatingPod', terminated: 'SyncTerminatedPod' }[r.work];
  const probes = (progress ?? [])
    .filter((p) => p.failures > 0 || p.result === 'Failure')
    .map(
      (p) =>
        `${p.container} ${p.probe}: ${p.onHold || p.result === 'Failure' ? `Failure (container ${p.containerId.slice(0, 12)})` : `failure ${p.failures} of failureThreshold ${p.failureThreshold}`}`,
    );
  const worker: PodWorkerDetails = {
    state: r.state,
    coalesced: r.coalesced,
    ...(r.waitedMs > 0 ? { waitedMs: round3(r.waitedMs) } : {}),
    ...(r.nextDueAt !== undefined ? { nextDueT: round3(r.nextDueAt - origin) } : {}),
    ...(r.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: r.gracePeriodSeconds } : {}),
    ...(probes.length ? { probes } : {}),
  };
  const parts = [r.work !== r.state ? `${r.work} -> ${r.state}` : r.state];
  if (r.coalesced) parts.push(`${r.coalesced + 1} updates coalesced into one sync`);
  if (r.waitedMs >= 1) parts.push(`waited ${Math.round(r.waitedMs)} ms for the pod cache (the PLEG's next relist)`);
  if (r.error) parts.push(r.error);
  if (r.inferred) parts.push('containers not seen stopping (the pod vanished): terminated is inferred');
  return {
    kind: 'iteration',
    t: round3(r.startedAt - origin),
    durationMs: round3(r.durationMs),
    source: 'podworker',
    op: r.updateType === 'kill' ? 'kill' : r.work,
    key: r.key,
    uid: r.uid,
    handler,
    outcome: r.outcome === 'ok' ? 'ok' : r.outcome === 'error' ? 'error' : 'skipped',
    message: parts.join('; '),
    worker,
    ...(r.inferred ? { inferred: true } : {}),
  };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
