/** Pod-status checks the handlers make, named after the kubelet's (pkg/kubelet/status, active_deadline.go). */
import type { Pod } from '../kube/objects/pod';

/**
 * Upstream status.NeedToReconcilePodReadiness (pkg/kubelet/status/status_manager.go), read from the
 * pod as the API has it: false for every pod without spec.readinessGates; otherwise true when its
 * Ready condition is present and its status or message differs from the one the kubelet would
 * generate from the containers' readiness and the gates' conditions (GeneratePodReadyCondition).
 * Most RECONCILEs are the kubelet's own status writes coming back and sync nothing; one that
 * follows a gate's condition written by someone else is synced, as upstream.
 */
export function needToReconcilePodReadiness(pod: Pod): boolean {
  const gates = (pod.spec?.readinessGates as { conditionType?: string }[] | undefined) ?? [];
  if (gates.length === 0) return false;
  const cur = pod.status?.conditions?.find((c) => c.type === 'Ready');
  if (!cur) return false;
  const want = generatePodReadyCondition(pod);
  return cur.status !== want.status || (cur.message ?? '') !== (want.message ?? '');
}

interface GeneratedCondition {
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

/** Go's %s of a []string: `[a b]`. */
const goList = (xs: string[]) => `[${xs.join(' ')}]`;

/** Upstream GenerateContainersReadyCondition, from the pod's own status. */
export function generateContainersReadyCondition(pod: Pod): GeneratedCondition {
  const statuses = pod.status?.containerStatuses;
  if (statuses === undefined) return { status: 'False', reason: 'UnknownContainerStatuses' };
  const phase = pod.status?.phase;
  const unknown: string[] = [];
  const unready: string[] = [];
  const check = (name: string) => {
    const s = statuses.find((c) => c.name === name);
    if (!s) unknown.push(name);
    else if (!s.ready) unready.push(name);
  };
  for (const c of pod.spec?.initContainers ?? []) if (c.restartPolicy === 'Always') check(c.name);
  for (const c of pod.spec?.containers ?? []) check(c.name);
  if (phase === 'Succeeded' && unknown.length === 0) return { status: 'False', reason: 'PodCompleted' };
  if (phase === 'Failed') return { status: 'False', reason: 'PodFailed' };
  const messages: string[] = [];
  if (unknown.length) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length) messages.push(`containers with unready status: ${goList(unready)}`);
  if (messages.length) return { status: 'False', reason: 'ContainersNotReady', message: messages.join(', ') };
  return { status: 'True' };
}

/** Upstream GeneratePodReadyCondition: the containers' readiness, then each readiness gate's condition. */
export function generatePodReadyCondition(pod: Pod): GeneratedCondition {
  const containers = generateContainersReadyCondition(pod);
  if (containers.status !== 'True') return containers;
  const conditions = pod.status?.conditions ?? [];
  const unready: string[] = [];
  for (const g of (pod.spec?.readinessGates as { conditionType?: string }[] | undefined) ?? []) {
    const type = String(g.conditionType ?? '');
    const c = conditions.find((x) => x.type === type);
    if (!c) unready.push(`corresponding condition of pod readiness gate ${JSON.stringify(type)} does not exist.`);
    else if (c.status !== 'True') unready.push(`the status of pod readiness gate ${JSON.stringify(type)} is not "True", but ${c.status}`);
  }
  if (unready.length) return { status: 'False', reason: 'ReadinessGatesNotReady', message: unready.join(', ') };
  return { status: 'True' };
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
