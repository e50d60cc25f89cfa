import type { Container, ContainerStatus, Pod } from '../kube/objects/pod';
import type { StoredObject } from '../kube/objects/types';
import type { ProbeResult, ProbeType } from '../syncloop/types';
import type { ResourceRef } from '../kube/objects/objectKey';
import { isPodResource } from '../kube/objects/objectKey';

/**
 * ObjectView: what our model shows for one object — the tree view's row. It is a pure function of
 * the object (spec + latest status) and the latest recorded probe results, never of the event that
 * led to computing it: that is what makes the sync level-triggered.
 */
export interface ObjectView {
  key: string;
  uid: string;
  resourceVersion?: string;
  kind: string;
  namespace?: string;
  name: string;
  /** Pods: status.phase. Others: status.phase when the kind has one. */
  phase?: string;
  /** kubectl's STATUS column for pods (Running, CrashLoopBackOff, Init:0/1, Terminating, ...). */
  status: string;
  /** Pods: "ready/total" containers (READY column). Workloads: "ready/desired" replicas. */
  ready?: string;
  /** Pods: RESTARTS column. */
  restarts?: number;
  deleting: boolean;
  /** Latest inferred probe result per container and probe. */
  probes?: Record<string, Partial<Record<ProbeType, ProbeResult>>>;
}

export type ProbeResultsByContainer = ReadonlyMap<string, Partial<Record<ProbeType, ProbeResult>>>;

/** What a row is made of besides its key: the object's metadata and its columns (makeView's other arguments). */
export type RowMeta = { uid: string; name: string; namespace?: string; resourceVersion?: string; deletionTimestamp?: unknown };
export type RowColumns = { phase?: string | undefined; ready?: string | undefined; restarts?: number | undefined };

/**
 * Where a row's fields go once read from an object, a Table row or metadata: into a view
 * (makeView), or straight into packed words (core/rows/rowBatch.ts) with no object made per row.
 * Both are handed the same arguments, so a packed row is the view it would have been.
 */
export interface RowSink<T> {
  row(m: RowMeta, kind: string, status: string, cols?: RowColumns): T;
}

/**
 * The one way an ObjectView is built: its fields are set in one fixed order, the optional ones only
 * when present, so every view of the same fields shares one V8 hidden class. (Spreading a base into a
 * literal with more fields, `{ ...base, status }`, gave every view a hidden class of its own: about
 * 400 bytes per object, a quarter of what the loop held per pod at 100,000 objects.)
 */
export function makeView(key: string, m: RowMeta, kind: string, status: string, cols?: RowColumns): ObjectView {
  const v: ObjectView = { key, uid: m.uid, kind, name: m.name, status, deleting: m.deletionTimestamp != null };
  if (m.resourceVersion !== undefined) v.resourceVersion = m.resourceVersion;
  if (m.namespace !== undefined) v.namespace = m.namespace;
  if (cols?.phase !== undefined) v.phase = cols.phase;
  if (cols?.ready !== undefined) v.ready = cols.ready;
  if (cols?.restarts !== undefined) v.restarts = cols.restarts;
  return v;
}

/**
 * The view of `obj`. `previous` (the view shown now, if any) lends its probe results when they are
 * the same as `probes`: views are never changed once made, so two may share them, and a pod's
 * every watch event (a new resourceVersion, hence a new view kept until the next) no longer copies
 * its unchanged probe results.
 */
export function computeObjectView(
  key: string,
  obj: StoredObject,
  resource: ResourceRef | undefined,
  probes?: ProbeResultsByContainer,
  previous?: ObjectView,
): ObjectView {
  const m = obj.metadata;
  const pod = isPodResource(resource);
  const kind = obj.kind ?? (pod ? 'Pod' : resource!.resource);
  if (pod) {
    const p = podPrintColumns(obj as Pod);
    const view = makeView(key, m, kind, p.status, { phase: (obj as Pod).status?.phase || undefined, ready: `${p.ready}/${p.total}`, restarts: p.restarts });
    if (probes && probes.size > 0)
      view.probes = previous?.probes && sameProbes(previous.probes, probes) ? previous.probes : Object.fromEntries([...probes].map(([c, r]) => [c, { ...r }]));
    return view;
  }
  const c = genericColumns(obj);
  return makeView(key, m, kind, c.status, c);
}

/**
 * The row of a full object without probe results, given to `sink`: computeObjectView's fields, and
 * its kind (the object's, else `kind`, the type's from discovery).
 */
export function fullObjectRow<T>(obj: StoredObject, resource: ResourceRef, kind: string, sink: RowSink<T>): T {
  const k = obj.kind ? obj.kind : kind;
  if (isPodResource(resource)) {
    const p = podPrintColumns(obj as Pod);
    return sink.row(obj.metadata, k, p.status, { phase: (obj as Pod).status?.phase || undefined, ready: `${p.ready}/${p.total}`, restarts: p.restarts });
  }
  const c = genericColumns(obj);
  return sink.row(obj.metadata, k, c.status, c);
}

/** Whether a view's probe results say what the cache's do (same containers, probes and results). */
function sameProbes(shown: NonNullable<ObjectView['probes']>, probes: ProbeResultsByContainer): boolean {
  let n = 0;
  for (const c in shown) {
    n++;
    const r = probes.get(c);
    if (r === undefined) return false;
    const s = shown[c]!;
    // The same probes (keys) with the same results: what a copy of `r` would be.
    let k = 0;
    for (const t in s) {
      if (!(t in r) || s[t as ProbeType] !== r[t as ProbeType]) return false;
      k++;
    }
    for (const _ in r) k--;
    if (k !== 0) return false;
  }
  return n === probes.size;
}

function genericColumns(obj: StoredObject): { status: string; ready?: string; phase?: string } {
  const st = (obj.status ?? {}) as Record<string, unknown>;
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const out: { status: string; ready?: string; phase?: string } = { status: obj.metadata.deletionTimestamp ? 'Terminating' : 'Active' };
  if (typeof st.phase === 'string') {
    out.phase = st.phase;
    if (!obj.metadata.deletionTimestamp) out.status = st.phase;
  }
  if (typeof spec.replicas === 'number') out.ready = `${typeof st.readyReplicas === 'number' ? st.readyReplicas : 0}/${spec.replicas}`;
  return out;
}

export interface PodColumns {
  ready: number;
  total: number;
  status: string;
  restarts: number;
}

/**
 * kubectl's READY / STATUS / RESTARTS for a pod, computed the way kubectl's printPod does
 * (pkg/printers/internalversion/printers.go): the phase, overridden by the pod's reason, by the
 * first init container that has not completed (Init:N/M, Init:<reason>), then by the last
 * container's waiting or terminated reason; "Completed" with a ready running container reads
 * Running (or NotReady); a deletion timestamp on a non-terminal pod reads Terminating.
 * Restartable init containers (sidecars) count towards READY and RESTARTS once started.
 */
export function podPrintColumns(pod: Pod): PodColumns {
  const spec = pod.spec ?? { containers: [] };
  const status = pod.status ?? {};
  const phase = status.phase ?? '';
  let total = spec.containers?.length ?? 0;
  let ready = 0;
  let restarts = 0;
  let reason = phase;
  if (status.reason) reason = status.reason;
  for (const c of status.conditions ?? []) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }

  const initSpecs = new Map<string, Container>();
  for (const c of spec.initContainers ?? []) {
    initSpecs.set(c.name, c);
    if (c.restartPolicy === 'Always') total++;
  }

  let sidecarRestarts = 0;
  let initializing = false;
  const inits = status.initContainerStatuses ?? [];
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i]!;
    restarts += c.restartCount ?? 0;
    const sidecar = initSpecs.get(c.name)?.restartPolicy === 'Always';
    if (sidecar) sidecarRestarts += c.restartCount ?? 0;
    if (sidecar && c.started) {
      if (c.ready) ready++;
      continue;
    }
    const st = c.state ?? {};
    if (st.terminated && st.terminated.exitCode === 0) continue;
    if (st.terminated) {
      const t = st.terminated;
      reason = t.reason ? `Init:${t.reason}` : t.signal ? `Init:Signal:${t.signal}` : `Init:ExitCode:${t.exitCode}`;
    } else if (st.waiting?.reason && st.waiting.reason !== 'PodInitializing') {
      reason = `Init:${st.waiting.reason}`;
    } else {
      reason = `Init:${i}/${spec.initContainers?.length ?? inits.length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(pod, 'Initialized')) {
    restarts = sidecarRestarts;
    let hasRunning = false;
    const cs: ContainerStatus[] = status.containerStatuses ?? [];
    for (let i = cs.length - 1; i >= 0; i--) {
      const c = cs[i]!;
      restarts += c.restartCount ?? 0;
      const st = c.state ?? {};
      if (st.waiting?.reason) reason = st.waiting.reason;
      else if (st.terminated?.reason) reason = st.terminated.reason;
      else if (st.terminated) reason = st.terminated.signal ? `Signal:${st.terminated.signal}` : `ExitCode:${st.terminated.exitCode}`;
      else if (c.ready && st.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = conditionTrue(pod, 'Ready') ? 'Running' : 'NotReady';
  }

  if (pod.metadata.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  return { ready, total, status: reason, restarts };
}

function conditionTrue(pod: Pod, type: string): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}
