/**
 * The pod printer, as kube-apiserver's printPod (pkg/printers/internalversion/printers.go) prints a
 * row: READY counts ready regular containers and started restartable init containers (sidecars)
 * out of containers + sidecars; STATUS is the phase, overridden by status.reason, a scheduling
 * gate, the first unfinished init container, then the last container's waiting / terminated
 * reason ("Completed" with a running ready container reads Running or NotReady), then Terminating
 * (or Unknown for a lost node) while deleting; RESTARTS is "N" or "N (5m ago)"; a Succeeded or
 * Failed pod's row carries a Completed condition.
 */
import type { DemoObject } from '../store';
import { ageCol, arr, get, humanDuration, nameCol, type Column, type Obj } from './printers-common';

interface PodRow {
  ready: number;
  total: number;
  reason: string;
  restarts: number;
  /** ms since epoch of the newest lastState.terminated.finishedAt among the counted containers. */
  lastRestart?: number;
}

const isSidecar = (c: Obj | undefined) => c?.restartPolicy === 'Always';
const truthy = (o: Obj, ...path: string[]) => !!get(o, ...path);

function finishedAt(st: Obj): number | undefined {
  const f = get(st, 'lastState', 'terminated', 'finishedAt');
  return typeof f === 'string' ? Date.parse(f) : undefined;
}
const later = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b));

function conditionTrue(pod: DemoObject, type: string): boolean {
  return arr(get(pod, 'status', 'conditions')).some((c) => c.type === type && c.status === 'True');
}

/** Stored objects are frozen: a row computed once serves its Ready, Status and Restarts cells. */
const rows = new WeakMap<DemoObject, PodRow>();

export function podRow(pod: DemoObject): PodRow {
  let row = rows.get(pod);
  if (!row) rows.set(pod, (row = computePodRow(pod)));
  return row;
}

function computePodRow(pod: DemoObject): PodRow {
  const phase = String(get(pod, 'status', 'phase') ?? '');
  let reason = String(get(pod, 'status', 'reason') ?? '') || phase;
  for (const c of arr(get(pod, 'status', 'conditions'))) if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  const initList = arr(get(pod, 'spec', 'initContainers'));
  const initSpec = new Map(initList.map((c) => [String(c.name), c]));
  const total = arr(get(pod, 'spec', 'containers')).length + initList.filter(isSidecar).length;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let last: number | undefined;
  let sidecarLast: number | undefined;
  let initializing = false;
  const inits = arr(get(pod, 'status', 'initContainerStatuses'));
  for (let i = 0; i < inits.length; i++) {
    const st = inits[i]!;
    const count = Number(st.restartCount ?? 0);
    restarts += count;
    last = later(last, finishedAt(st));
    const sidecar = isSidecar(initSpec.get(String(st.name)));
    if (sidecar) {
      sidecarRestarts += count;
      sidecarLast = later(sidecarLast, finishedAt(st));
    }
    const term = get(st, 'state', 'terminated') as Obj | undefined;
    const waiting = get(st, 'state', 'waiting') as Obj | undefined;
    if (term && term.exitCode === 0) continue;
    if (sidecar && st.started === true) {
      if (st.ready === true) ready++;
      continue;
    }
    if (term)
      reason = term.reason ? `Init:${String(term.reason)}` : term.signal ? `Init:Signal:${String(term.signal)}` : `Init:ExitCode:${String(term.exitCode)}`;
    else if (waiting?.reason && waiting.reason !== 'PodInitializing') reason = `Init:${String(waiting.reason)}`;
    else reason = `Init:${i}/${initList.length}`;
    initializing = true;
    break;
  }
  if (!initializing || conditionTrue(pod, 'Initialized')) {
    restarts = sidecarRestarts;
    last = sidecarLast;
    let hasRunning = false;
    const cs = arr(get(pod, 'status', 'containerStatuses'));
    for (let i = cs.length - 1; i >= 0; i--) {
      const st = cs[i]!;
      restarts += Number(st.restartCount ?? 0);
      last = later(last, finishedAt(st));
      const waiting = get(st, 'state', 'waiting') as Obj | undefined;
      const term = get(st, 'state', 'terminated') as Obj | undefined;
      if (waiting?.reason) reason = String(waiting.reason);
      else if (term?.reason) reason = String(term.reason);
      else if (term) reason = term.signal ? `Signal:${String(term.signal)}` : `ExitCode:${String(term.exitCode)}`;
      else if (st.ready === true && truthy(st, 'state', 'running')) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = conditionTrue(pod, 'Ready') ? 'Running' : 'NotReady';
  }
  if (pod.metadata.deletionTimestamp && get(pod, 'status', 'reason') === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  return { ready, total, reason, restarts, ...(last !== undefined ? { lastRestart: last } : {}) };
}

/** kubectl's pod Status column. */
export function podStatusReason(pod: DemoObject): string {
  return podRow(pod).reason;
}

function restartsCell(pod: DemoObject, now: Date): string {
  const r = podRow(pod);
  return r.restarts !== 0 && r.lastRestart !== undefined ? `${r.restarts} (${humanDuration(now.getTime() - r.lastRestart)} ago)` : String(r.restarts);
}

/** printPod's row conditions: a terminal pod is Completed (reason Succeeded or Failed). */
export function podRowConditions(pod: DemoObject): Obj[] | undefined {
  const phase = get(pod, 'status', 'phase');
  if (phase === 'Succeeded') return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
  if (phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  return undefined;
}

export const podColumns: Column[] = [
  nameCol,
  {
    name: 'Ready',
    type: 'string',
    description: 'The aggregate readiness state of this pod for accepting traffic.',
    cell: (o) => {
      const r = podRow(o);
      return `${r.ready}/${r.total}`;
    },
  },
  { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.', cell: (o) => podStatusReason(o) },
  {
    name: 'Restarts',
    type: 'string',
    description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    cell: restartsCell,
  },
  ageCol,
  {
    name: 'IP',
    type: 'string',
    priority: 1,
    description: 'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
    cell: (o) => String(get(o, 'status', 'podIP') ?? '<none>'),
  },
  {
    name: 'Node',
    type: 'string',
    priority: 1,
    description: 'NodeName is a request to schedule this pod onto a specific node.',
    cell: (o) => String(get(o, 'spec', 'nodeName') ?? '<none>'),
  },
  {
    name: 'Nominated Node',
    type: 'string',
    priority: 1,
    description: 'nominatedNodeName is set only when this pod preempts other pods on the node.',
    cell: (o) => String(get(o, 'status', 'nominatedNodeName') ?? '<none>'),
  },
  {
    name: 'Readiness Gates',
    type: 'string',
    priority: 1,
    description: 'If specified, all readiness gates will be evaluated for pod readiness.',
    cell: (o) => {
      const gates = arr(get(o, 'spec', 'readinessGates'));
      if (!gates.length) return '<none>';
      const ok = gates.filter((g) => conditionTrue(o, String(g.conditionType))).length;
      return `${ok}/${gates.length}`;
    },
  },
];
