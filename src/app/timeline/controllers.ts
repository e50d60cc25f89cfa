/**
 * The in-process demo cluster's controller reconciles as timeline events (lanes `controller/<name>`).
 * No 'vscode' import. The controllers' clock is performance.now(), as the timeline's realClock, so a
 * reconcile lands on the same time axis as the loader's tasks and the sync loop's iterations.
 */
import type { ControllerReconcileEvent } from '../../core/timeline/events';
import type { TimelineStore } from '../../core/timeline/store';
import type { ReconcileRecord } from '../../demo';

export function reconcileEvent(r: ReconcileRecord, origin: number): ControllerReconcileEvent {
  return { kind: 'reconcile', ...r, t: r.t - origin };
}

/** The callback startDemoCluster's onControllerReconcile takes: every reconcile appended to the store. */
export function appendReconciles(timeline: TimelineStore, origin: number): (r: ReconcileRecord) => void {
  return (r) => timeline.append(reconcileEvent(r, origin));
}
