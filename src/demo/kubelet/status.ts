/**
 * The pod status the kubelet's status manager would write, computed from the simulated
 * containers (upstream: kubelet_pods.go generateAPIPodStatus / getPhase).
 */
import type { ContainerRuntime, Terminated } from './container';
import { normalizeImage } from './ids';
import type { ContainerSpec } from './probes';

type Json = Record<string, unknown>;

/** What a status reads of a container: a live ContainerRuntime, or a generated pod's (generate/workloads.ts). */
export type ContainerStatusView = Pick<
  ContainerRuntime,
  'name' | 'spec' | 'state' | 'lastTerminated' | 'ready' | 'started' | 'restartCount' | 'imageID' | 'containerID' | 'sidecar' | 'completed'
>;

export interface PodStatusInput {
  containers: ContainerStatusView[];
  initContainers: ContainerStatusView[];
  restartPolicy: string;
  hostIP: string;
  podIP?: string;
  sandboxReady: boolean;
  startTime: string;
  qosClass: string;
  /** A terminal phase decided outside getPhase (init failure with restartPolicy Never, deletion). */
  forcedPhase?: 'Failed' | 'Succeeded';
  /** status.reason and status.message of a pod the kubelet failed itself (DeadlineExceeded). */
  reason?: { reason: string; message: string };
  /** spec.readinessGates' condition types: Ready needs each of them True (written by others). */
  readinessGates?: string[];
  /** metadata.generation of the pod the status is about (status.observedGeneration, since 1.34). */
  observedGeneration?: number;
  now: string;
}

function terminatedJSON(t: Terminated): Json {
  return { exitCode: t.exitCode, reason: t.reason, startedAt: t.startedAt, finishedAt: t.finishedAt, containerID: t.containerID };
}

export function containerStatusJSON(c: ContainerStatusView): Json {
  const s = c.state;
  const state: Json =
    s.kind === 'waiting'
      ? { waiting: s.message ? { reason: s.reason, message: s.message } : { reason: s.reason } }
      : s.kind === 'running'
        ? { running: { startedAt: s.startedAt } }
        : { terminated: terminatedJSON(s) };
  const out: Json = {
    name: c.name,
    state,
    lastState: c.lastTerminated ? { terminated: terminatedJSON(c.lastTerminated) } : {},
    ready: c.ready,
    restartCount: c.restartCount,
    image: normalizeImage(c.spec.image ?? ''),
    imageID: c.imageID ?? '',
  };
  if (c.containerID) out.containerID = c.containerID;
  out.started = c.started;
  return { ...out, ...containerStatusExtras(c.spec) };
}

type Mount = { name?: string; mountPath?: string; readOnly?: boolean };

/**
 * What a v1.36 kubelet adds to a container's status: its allocated and actual resources
 * (in-place resize) and its volume mounts (recursive read-only mounts), each in the spec's terms.
 */
export function containerStatusExtras(spec: ContainerSpec): Json {
  const out: Json = {};
  const requests = spec.resources?.requests;
  if (requests && Object.keys(requests).length) out.allocatedResources = { ...requests };
  out.resources = spec.resources ?? {};
  const mounts = spec.volumeMounts as Mount[] | undefined;
  if (Array.isArray(mounts) && mounts.length) {
    out.volumeMounts = mounts.map((m) => ({ name: m.name, mountPath: m.mountPath, ...(m.readOnly ? { readOnly: true, recursiveReadOnly: 'Disabled' } : {}) }));
  }
  return out;
}

const UNITS: Record<string, number> = { m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };

/** A quantity's value ("250m" -> 0.25, "128Mi" -> 134217728); NaN when unreadable. */
function quantity(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(m|k|M|G|Ki|Mi|Gi|Ti)?$/.exec(q);
  return m ? Number(m[1]) * UNITS[m[2] ?? '']! : NaN;
}

function formatQuantity(resource: string, v: number): string {
  if (resource === 'cpu') return Number.isInteger(v) ? String(v) : `${Math.round(v * 1000)}m`;
  return v % 1024 ** 3 === 0 ? `${v / 1024 ** 3}Gi` : v % 1024 ** 2 === 0 ? `${v / 1024 ** 2}Mi` : String(v);
}

/** The sum of the containers' resource lists (one container: its own list, as written). */
export function sumResources(lists: (Record<string, string> | undefined)[]): Record<string, string> {
  const given = lists.filter((l): l is Record<string, string> => !!l && Object.keys(l).length > 0);
  if (given.length <= 1) return given[0] ? { ...given[0] } : {};
  const total: Record<string, number> = {};
  for (const l of given) for (const [k, q] of Object.entries(l)) total[k] = (total[k] ?? 0) + quantity(q);
  return Object.fromEntries(Object.entries(total).map(([k, v]) => [k, formatQuantity(k, v)]));
}

/** The pod-level allocatedResources and resources a v1.36 kubelet reports: its containers' sums. */
export function podResourcesStatus(specs: ContainerSpec[]): Json {
  const requests = sumResources(specs.map((s) => s.resources?.requests));
  const limits = sumResources(specs.map((s) => s.resources?.limits));
  const resources: Json = {};
  if (Object.keys(limits).length) resources.limits = limits;
  if (Object.keys(requests).length) resources.requests = requests;
  return Object.keys(requests).length ? { allocatedResources: requests, resources } : { resources };
}

/** Upstream getPhase: waiting containers that never ran keep the pod Pending. */
export function podPhase(p: PodStatusInput): string {
  if (p.forcedPhase) return p.forcedPhase;
  const initPending = p.initContainers.some((c) => !c.sidecar && !c.completed) || p.initContainers.some((c) => c.sidecar && !c.started);
  if (initPending) return 'Pending';
  let running = 0,
    waiting = 0,
    stopped = 0,
    succeeded = 0;
  for (const c of p.containers) {
    if (c.state.kind === 'running') running++;
    else if (c.state.kind === 'terminated') {
      stopped++;
      if (c.state.exitCode === 0) succeeded++;
    } else if (c.lastTerminated) {
      stopped++;
      if (c.lastTerminated.exitCode === 0) succeeded++;
    } else waiting++;
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped === 0) return 'Pending';
  if (p.restartPolicy === 'Always') return 'Running';
  if (stopped === succeeded) return 'Succeeded';
  if (p.restartPolicy === 'Never') return 'Failed';
  return 'Running';
}

interface Condition {
  type: string;
  status: 'True' | 'False';
  reason?: string;
  message?: string;
}

/**
 * Upstream GeneratePodReadyCondition's gates part: with the containers ready, Ready is False while
 * a readiness gate's condition is missing or not True, with upstream's message.
 */
function gated(ready: Condition, gates: readonly string[], previous: readonly { type: string; status: string }[]): Condition {
  if (ready.status !== 'True' || gates.length === 0) return ready;
  const unready: string[] = [];
  for (const g of gates) {
    const c = previous.find((x) => x.type === g);
    if (!c) unready.push(`corresponding condition of pod readiness gate ${JSON.stringify(g)} does not exist.`);
    else if (c.status !== 'True') unready.push(`the status of pod readiness gate ${JSON.stringify(g)} is not "True", but ${c.status}`);
  }
  return unready.length ? { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: unready.join(', ') } : ready;
}

function conditions(p: PodStatusInput, phase: string, previous: readonly { type: string; status: string }[] = []): Condition[] {
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const uninit = p.initContainers.filter((c) => (c.sidecar ? !c.started : !c.completed)).map((c) => c.name);
  const unready = p.containers.filter((c) => !c.ready).map((c) => c.name);
  const notReady = (type: string): Condition =>
    terminal
      ? { type, status: 'False', reason: 'PodCompleted' }
      : unready.length
        ? { type, status: 'False', reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` }
        : { type, status: 'True' };
  return [
    { type: 'PodReadyToStartContainers', status: p.sandboxReady && !terminal ? 'True' : 'False' },
    terminal && uninit.length === 0
      ? { type: 'Initialized', status: 'True', ...(p.initContainers.length ? { reason: 'PodCompleted' } : {}) }
      : uninit.length
        ? { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: `containers with incomplete status: [${uninit.join(' ')}]` }
        : { type: 'Initialized', status: 'True' },
    gated(notReady('Ready'), p.readinessGates ?? [], previous),
    notReady('ContainersReady'),
  ];
}

/** The new status, keeping fields the kubelet does not own and unchanged conditions' transition times. */
export function buildPodStatus(previous: Json | undefined, p: PodStatusInput): Json {
  const phase = podPhase(p);
  const prevConds = (Array.isArray(previous?.conditions) ? previous!.conditions : []) as (Condition & Json)[];
  const conds: Json[] = conditions(p, phase, prevConds).map((c) => {
    const prev = prevConds.find((x) => x.type === c.type);
    const lastTransitionTime = prev && prev.status === c.status ? prev.lastTransitionTime : p.now;
    const observed = p.observedGeneration !== undefined ? { observedGeneration: p.observedGeneration } : {};
    return {
      type: c.type,
      ...observed,
      status: c.status,
      lastProbeTime: null,
      lastTransitionTime,
      ...(c.reason ? { reason: c.reason } : {}),
      ...(c.message ? { message: c.message } : {}),
    };
  });
  // PodScheduled (written by the scheduler) and any condition of others stay as they were.
  for (const c of prevConds) if (!conds.some((x) => x.type === c.type)) conds.push(c);
  // The kubelet reports PodScheduled=True for a pod it runs even when no scheduler bound it (spec.nodeName set by its author).
  if (!conds.some((x) => x.type === 'PodScheduled')) conds.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: p.startTime });
  const status: Json = { ...(previous ?? {}) };
  if (p.observedGeneration !== undefined) status.observedGeneration = p.observedGeneration;
  Object.assign(status, { phase, conditions: conds, hostIP: p.hostIP, hostIPs: [{ ip: p.hostIP }] });
  if (p.podIP) {
    status.podIP = p.podIP;
    status.podIPs = [{ ip: p.podIP }];
  }
  status.startTime = p.startTime;
  if (p.initContainers.length) status.initContainerStatuses = p.initContainers.map(containerStatusJSON);
  status.containerStatuses = p.containers.map(containerStatusJSON);
  status.qosClass = p.qosClass;
  Object.assign(status, podResourcesStatus(p.containers.map((c) => c.spec)));
  if (p.reason) {
    status.reason = p.reason.reason;
    status.message = p.reason.message;
  }
  return status;
}

/** Guaranteed: every container limits cpu and memory with equal requests; BestEffort: nothing set. */
export function qosClassOf(containers: ContainerSpec[]): string {
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    if (Object.keys(req).length || Object.keys(lim).length) any = true;
    for (const r of ['cpu', 'memory']) {
      if (lim[r] === undefined || (req[r] !== undefined && req[r] !== lim[r])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
