import type { SyncLoop } from './syncloop';

/**
 * HandlePodCleanups: upstream kubelet_pods.go, the case that catches what the others missed. It
 * compares the two sets and the workers and repairs every gap, whatever caused it:
 *
 * 1. Workers of keys no longer desired (or desired as a new incarnation) are driven to termination,
 *    and finished ones are forgotten (podWorkers.SyncKnownPods).
 * 2. Views in the actual state that no desired object and no worker accounts for are removed (a
 *    REMOVE that never arrived, a worker forgotten with its view still shown).
 * 3. Desired keys without a worker get one (work dropped before it started).
 * 4. Desired keys whose worker is idle with no work queued, or whose view is missing or older than
 *    the desired object, are synced again (work dropped after it started).
 * 5. Probe results of keys no longer desired are dropped.
 * 6. The wiring's hook runs (it restarts dead watches and relists).
 *
 * Every step reads current state only, so running it twice in a row does nothing the second time
 * (idempotent), and a missed event is repaired within one housekeeping period of the sources being
 * right again.
 */
export interface HousekeepingReport {
  removed: string[];
  /** Finished workers forgotten (their objects are gone and cleaned up). */
  forgotten: string[];
  terminating: string[];
  readded: string[];
  resynced: string[];
  hookError?: string;
}

export async function handlePodCleanups(kl: SyncLoop, signal: AbortSignal): Promise<HousekeepingReport> {
  const report: HousekeepingReport = { removed: [], forgotten: [], terminating: [], readded: [], resynced: [] };
  const desiredUIDs = new Map<string, string>();
  for (const d of kl.desired.values()) desiredUIDs.set(d.key, d.obj.metadata.uid);

  const workers = kl.podWorkers.SyncKnownPods(desiredUIDs, report.forgotten);
  for (const [key, w] of workers) if (w.orphan && w.state !== 'terminated') report.terminating.push(key);

  for (const view of [...kl.actual.values()]) {
    const uid = desiredUIDs.get(view.key);
    if (uid === view.uid || workers.has(view.key)) continue;
    if (kl.actual.delete(view.key, view.uid)) report.removed.push(view.key);
  }

  for (const d of kl.desired.values()) {
    const w = workers.get(d.key);
    const base = { key: d.key, obj: d.obj, ...(d.resource ? { resource: d.resource } : {}) };
    if (!w) {
      kl.podWorkers.UpdatePod({ ...base, updateType: 'create' });
      report.readded.push(d.key);
      continue;
    }
    if (w.orphan || kl.podWorkers.isWorking(d.key) || kl.podWorkers.isFinished(d.key)) continue;
    const view = kl.actual.get(d.key);
    const stale = !view || view.uid !== d.obj.metadata.uid || view.resourceVersion !== d.obj.metadata.resourceVersion;
    if (stale || !kl.workQueue.has(d.key)) {
      kl.podWorkers.UpdatePod({ ...base, updateType: 'sync' });
      report.resynced.push(d.key);
    }
  }

  for (const key of [...kl.probeResults.keys()]) if (!desiredUIDs.has(key)) kl.probeResults.delete(key);

  if (kl.opts.onHousekeeping) {
    try {
      await kl.opts.onHousekeeping(signal);
    } catch (e) {
      if (signal.aborted) throw e;
      report.hookError = e instanceof Error ? e.message : String(e);
    }
  }
  return report;
}
