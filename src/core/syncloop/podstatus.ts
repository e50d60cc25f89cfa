import { computeObjectView, type ObjectView } from './state/view';
import type { Pod } from './types';

/** Pod-status checks the handlers make, named after the kubelet's (pkg/kubelet/status, active_deadline.go). */

/**
 * NeedToReconcilePodReadiness, from a workstation: the readiness the pod's status reports (its
 * READY column, ready containers of all) differs from what the model shows. Upstream compares the
 * Ready condition with the one the kubelet would generate (readiness gates); the workstation's
 * model is the generated side. A pod the model does not show yet needs no reconciling: its ADD
 * shows it.
 */
export function needToReconcilePodReadiness(pod: Pod, shown: ObjectView | undefined): boolean {
  if (!shown) return false;
  return computeObjectView(shown.key, pod, undefined).ready !== shown.ready;
}

/** Upstream activeDeadlineHandler.ShouldSync: spec.activeDeadlineSeconds passed since status.startTime. */
export function activeDeadlinePassed(pod: Pod, wallNowMs: number): boolean {
  const ads = activeDeadlineSeconds(pod);
  if (ads === undefined) return false;
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const start = Date.parse((pod.status?.startTime as string | undefined) ?? '');
  return !Number.isNaN(start) && wallNowMs - start >= ads * 1000;
}

/** spec.activeDeadlineSeconds when it is a positive number (the only deadline the handler acts on). */
export function activeDeadlineSeconds(obj: { spec?: unknown }): number | undefined {
  const ads = (obj.spec as { activeDeadlineSeconds?: unknown } | undefined)?.activeDeadlineSeconds;
  return typeof ads === 'number' && ads > 0 ? ads : undefined;
}
