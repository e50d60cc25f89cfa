/**
 * The deployment controller (kube-controller-manager's "deployment"): Deployment -> ReplicaSets.
 *
 * Guarantees (level-triggered, from the store's ReplicaSets on every reconcile):
 * - The new ReplicaSet is the one whose template equals spec.template (ignoring the
 *   pod-template-hash label); it is created as `<name>-<hash>` with the pod-template-hash label on
 *   its selector and template, and the `deployment.kubernetes.io/revision` annotation one above
 *   the highest old revision.
 * - RollingUpdate honours maxSurge (rounded up) and maxUnavailable (rounded down; 25% each by
 *   default; both 0 means maxUnavailable 1) as upstream's NewRSNewReplicas and
 *   reconcileOldReplicaSets: total pods (active ones, not only the sets' specs) never exceed replicas + maxSurge, available pods never drop
 *   below replicas - maxUnavailable through the controller's own scale-downs. Recreate scales the
 *   old sets to 0 and waits for their pods to go before scaling the new one up.
 * - The Deployment carries the new set's revision annotation, as upstream (kubectl rollout undo relies on it).
 * - Each scale writes a ScalingReplicaSet Event ("Scaled up replica set X from A to B").
 * - A complete rollout deletes old ReplicaSets (0 replicas) beyond spec.revisionHistoryLimit (default 10).
 * - status: replicas, updatedReplicas, readyReplicas, availableReplicas, unavailableReplicas,
 *   terminatingReplicas (also when 0, as v1.36), observedGeneration, and conditions Available (MinimumReplicasAvailable /
 *   MinimumReplicasUnavailable) and Progressing (NewReplicaSetCreated, FoundNewReplicaSet,
 *   ReplicaSetUpdated, NewReplicaSetAvailable), the reasons kubectl rollout status reads.
 * - Progress (more updated, ready or available pods, fewer old ones) moves the Progressing
 *   condition's lastUpdateTime; none for spec.progressDeadlineSeconds (default 600) turns it False
 *   with reason ProgressDeadlineExceeded, which kubectl rollout status reports as a failure.
 * - A paused Deployment is only scaled, never rolled.
 */
import type { DemoObject } from '../store';
import { controllerRef, controllerRefTo, KCM, fnv32a, intOrPercent, safeEncode, setCondition, stableJson, type ControllerContext } from './controllerContext';
import { keyOf, splitKey, type WorkQueue } from './queue';
import type { Controller } from './replicaset';

export const DEPLOYMENT_COMPONENT = 'deployment-controller';
const HASH = 'pod-template-hash';
const REVISION = 'deployment.kubernetes.io/revision';

type Obj = Record<string, any>;

const replicasOf = (o: DemoObject): number => Number((o.spec as Obj | undefined)?.replicas ?? 1);
const statusOf = (o: DemoObject): Obj => (o.status ?? {}) as Obj;
const revisionOf = (o: DemoObject): number => Number(o.metadata.annotations?.[REVISION] ?? 0) || 0;

/**
 * The template without Go's zero values (null, "", {}, [] , false, 0 are what a client that
 * re-encodes a template adds or drops, e.g. kubectl rollout undo), so equality is semantic as
 * upstream's EqualIgnoreHash over defaulted objects.
 */
function semantic(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(semantic);
  if (v && typeof v === 'object') {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) {
      const y = semantic(x);
      if (y === null || y === undefined || y === '' || y === false || y === 0) continue;
      if (Array.isArray(y) && y.length === 0) continue;
      if (typeof y === 'object' && !Array.isArray(y) && Object.keys(y as Obj).length === 0) continue;
      out[k] = y;
    }
    return out;
  }
  return v;
}

const sameTemplate = (a: Obj | undefined, b: Obj | undefined) => stableJson(semantic(withoutHash(a))) === stableJson(semantic(withoutHash(b)));

function withoutHash(template: Obj | undefined): Obj {
  const t = template ?? {};
  const labels = { ...(t.metadata?.labels ?? {}) };
  delete labels[HASH];
  return { ...t, metadata: { ...(t.metadata ?? {}), labels } };
}

/** controller.ComputeHash: FNV-1a of the template (plus collisionCount), safe-encoded. */
export function templateHash(template: Obj | undefined, collisionCount = 0): string {
  const h = fnv32a(stableJson(semantic(withoutHash(template))) + (collisionCount ? String(collisionCount) : ''));
  return safeEncode(String(h));
}

export function startDeploymentController(ctx: ControllerContext): Controller {
  const queue: WorkQueue = ctx.queue('deployment', 'syncDeployment', (key) => syncDeployment(ctx, queue, key), 'deployments.apps');
  const unsubscribe = ctx.store.subscribe((e) => {
    if (e.group !== 'apps') return;
    if (e.resource === 'deployments' && e.type !== 'DELETED') queue.add(keyOf(e.object.metadata.namespace, e.object.metadata.name));
    else if (e.resource === 'replicasets') {
      const ref = controllerRef(e.object);
      if (ref?.kind === 'Deployment') queue.add(keyOf(e.object.metadata.namespace, ref.name));
    }
  });
  for (const d of ctx.list('apps', 'deployments')) queue.add(keyOf(d.metadata.namespace, d.metadata.name));

  return {
    name: 'deployment',
    stop() {
      unsubscribe();
      queue.stop();
    },
  };
}

/** One pass's view of a Deployment: its spec's replicas and the rollout's bounds (upstream's MaxSurge / MaxUnavailable). */
interface Rollout {
  readonly d: DemoObject;
  readonly spec: Obj;
  readonly replicas: number;
  readonly rolling: boolean;
  readonly maxSurge: number;
  readonly maxUnavailable: number;
}

function rolloutOf(d: DemoObject): Rollout {
  const spec = (d.spec ?? {}) as Obj;
  const replicas = replicasOf(d);
  const rolling = (spec.strategy?.type ?? 'RollingUpdate') !== 'Recreate';
  const maxSurge = rolling ? intOrPercent(spec.strategy?.rollingUpdate?.maxSurge, replicas, true, '25%') : 0;
  let maxUnavailable = rolling ? intOrPercent(spec.strategy?.rollingUpdate?.maxUnavailable, replicas, false, '25%') : replicas;
  if (rolling && maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  if (maxUnavailable > replicas) maxUnavailable = replicas;
  return { d, spec, replicas, rolling, maxSurge, maxUnavailable };
}

function syncDeployment(ctx: ControllerContext, queue: WorkQueue, key: string): void {
  const { namespace, name } = splitKey(key);
  const d = ctx.store.get('apps', 'deployments', namespace, name);
  if (!d || d.metadata.deletionTimestamp) return;
  const r = rolloutOf(d);
  const all = ctx.list('apps', 'replicasets', namespace).filter((rs) => controllerRef(rs)?.uid === d.metadata.uid);
  let newRS = all.find((rs) => sameTemplate((rs.spec as Obj | undefined)?.template, r.spec.template));
  const olds = all.filter((rs) => rs !== newRS);
  const maxOldRevision = Math.max(0, ...olds.map(revisionOf));
  const now = ctx.timestamp();

  if (!newRS && !r.spec.paused) {
    newRS = createNewReplicaSet(ctx, r, olds, maxOldRevision);
    const progressing = { type: 'Progressing', status: 'True', reason: 'NewReplicaSetCreated', message: `Created new replica set "${newRS.metadata.name}"` };
    // Creating the new set is this pass's scale-up; the next pass (its ADDED event) goes on.
    return syncRolloutStatus(ctx, queue, r, newRS, olds, progressing, now);
  }
  if (newRS && revisionOf(newRS) <= maxOldRevision) newRS = bumpRevision(ctx, newRS, maxOldRevision);
  olds.sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));

  if (newRS) {
    if (r.spec.paused || (r.rolling && !olds.some((rs) => replicasOf(rs) > 0))) newRS = scaleReplicaSet(ctx, r, newRS, r.replicas, r.maxSurge);
    else if (!r.rolling) newRS = rolloutRecreate(ctx, r, newRS, olds);
    else newRS = rolloutRolling(ctx, r, newRS, olds, all);
  }
  syncRolloutStatus(ctx, queue, r, newRS, olds, undefined, now);
}

/** getNewReplicaSet's create: `<name>-<hash>`, the hash label on selector and template, revision one above the old sets'. */
function createNewReplicaSet(ctx: ControllerContext, r: Rollout, olds: DemoObject[], maxOldRevision: number): DemoObject {
  const { d, spec, replicas, rolling, maxSurge } = r;
  const hash = templateHash(spec.template, Number(statusOf(d).collisionCount ?? 0));
  const tmpl = withoutHash(spec.template);
  const labels = { ...(tmpl.metadata.labels ?? {}), [HASH]: hash };
  const sel = spec.selector ?? {};
  const initial = rolling ? (olds.length ? 0 : replicas) : 0;
  const start = rolling && olds.length ? Math.min(replicas, Math.max(0, replicas + maxSurge - olds.reduce((n, rs) => n + replicasOf(rs), 0))) : initial;
  const newRS = ctx.store.create(
    'apps',
    'replicasets',
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata.name}-${hash}`,
        namespace: d.metadata.namespace,
        labels,
        annotations: {
          [REVISION]: String(maxOldRevision + 1),
          'deployment.kubernetes.io/desired-replicas': String(replicas),
          'deployment.kubernetes.io/max-replicas': String(replicas + maxSurge),
        },
        ownerReferences: [controllerRefTo(d)],
      },
      spec: {
        replicas: start,
        ...(spec.minReadySeconds ? { minReadySeconds: spec.minReadySeconds } : {}), // omitempty: 0 is not written
        selector: { ...sel, matchLabels: { ...(sel.matchLabels ?? {}), [HASH]: hash } },
        template: { ...tmpl, metadata: { ...tmpl.metadata, labels } },
      },
    },
    { manager: KCM },
  );
  if (start > 0) ctx.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${newRS.metadata.name} from 0 to ${start}`, DEPLOYMENT_COMPONENT);
  return newRS;
}

/** A rollback to an old template: the old set becomes the newest revision. */
function bumpRevision(ctx: ControllerContext, rs: DemoObject, maxOldRevision: number): DemoObject {
  const annotations = { ...(rs.metadata.annotations ?? {}), [REVISION]: String(maxOldRevision + 1) };
  return ctx.store.update('apps', 'replicasets', { ...rs, metadata: { ...rs.metadata, annotations } }, { manager: KCM });
}

function scaleReplicaSet(ctx: ControllerContext, r: Rollout, rs: DemoObject, to: number, maxSurge: number): DemoObject {
  const from = replicasOf(rs);
  if (from === to) return rs;
  const annotations = {
    ...(rs.metadata.annotations ?? {}),
    'deployment.kubernetes.io/desired-replicas': String(r.replicas),
    'deployment.kubernetes.io/max-replicas': String(r.replicas + maxSurge),
  };
  const next = ctx.store.update(
    'apps',
    'replicasets',
    { ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...(rs.spec as Obj), replicas: to } },
    { manager: KCM },
  );
  ctx.event(
    r.d,
    'Normal',
    'ScalingReplicaSet',
    `Scaled ${to > from ? 'up' : 'down'} replica set ${rs.metadata.name} from ${from} to ${to}`,
    DEPLOYMENT_COMPONENT,
  );
  return next;
}

/** rolloutRecreate: every old set to 0 (olds is updated in place), the new one up once their pods are gone. */
function rolloutRecreate(ctx: ControllerContext, r: Rollout, newRS: DemoObject, olds: DemoObject[]): DemoObject {
  for (let i = 0; i < olds.length; i++) olds[i] = scaleReplicaSet(ctx, r, olds[i]!, 0, 0);
  const oldPods = olds.reduce((n, rs) => n + Number(statusOf(rs).replicas ?? 0), 0);
  return oldPods === 0 ? scaleReplicaSet(ctx, r, newRS, r.replicas, 0) : newRS;
}

/**
 * rolloutRolling: the new set up within maxSurge, else the old sets down within maxUnavailable
 * (olds is updated in place). As upstream, a pass that scaled the new set up ends there: the old
 * sets are scaled down on the next pass, once the replicaset controller has acted on this one.
 */
function rolloutRolling(ctx: ControllerContext, r: Rollout, newRS: DemoObject, olds: DemoObject[], all: DemoObject[]): DemoObject {
  const cur = replicasOf(newRS);
  const next = reconcileNewReplicaSet(ctx, r, newRS, all);
  if (replicasOf(next) <= cur) reconcileOldReplicaSets(ctx, r, next, olds);
  return next;
}

/** NewRSNewReplicas: total pods stay within replicas + maxSurge. */
function reconcileNewReplicaSet(ctx: ControllerContext, r: Rollout, newRS: DemoObject, all: DemoObject[]): DemoObject {
  const { replicas, maxSurge } = r;
  const cur = replicasOf(newRS);
  // An old set counts as the larger of its spec and its active pods (status.replicas): upstream
  // counts specs only and relies on the old set's replicaset controller deleting before the new
  // one's creates (a network round trip apart); the demo's in-process queues can run the next
  // pass first, so a scale-up waits until the old set's pods are actually going.
  const oldPods = (rs: DemoObject) => Math.max(replicasOf(rs), Number(statusOf(rs).replicas ?? 0));
  const total = all.reduce((n, rs) => n + (rs.metadata.uid === newRS.metadata.uid ? cur : oldPods(rs)), 0);
  if (cur > replicas) return scaleReplicaSet(ctx, r, newRS, replicas, maxSurge);
  if (total < replicas + maxSurge) return scaleReplicaSet(ctx, r, newRS, cur + Math.min(replicas + maxSurge - total, replicas - cur), maxSurge);
  return newRS;
}

/** reconcileOldReplicaSets: available pods never drop below replicas - maxUnavailable through these scale-downs. */
function reconcileOldReplicaSets(ctx: ControllerContext, r: Rollout, newRS: DemoObject, olds: DemoObject[]): void {
  const newSpec = replicasOf(newRS);
  const allPods = newSpec + olds.reduce((n, rs) => n + replicasOf(rs), 0);
  const minAvailable = r.replicas - r.maxUnavailable;
  const newUnavailable = newSpec - Number(statusOf(newRS).availableReplicas ?? 0);
  // cleanupUnhealthyReplicas: old pods that are not available go first.
  let maxScaledDown = allPods - minAvailable - newUnavailable;
  for (let i = 0; i < olds.length && maxScaledDown > 0; i++) {
    const rs = olds[i]!;
    const unhealthy = replicasOf(rs) - Number(statusOf(rs).availableReplicas ?? 0);
    if (unhealthy <= 0) continue;
    const down = Math.min(maxScaledDown, unhealthy);
    olds[i] = scaleReplicaSet(ctx, r, rs, replicasOf(rs) - down, r.maxSurge);
    maxScaledDown -= down;
  }
  // scaleDownOldReplicaSetsForRollingUpdate
  const availableNow = [newRS, ...olds].reduce((n, rs) => n + Math.min(replicasOf(rs), Number(statusOf(rs).availableReplicas ?? 0)), 0);
  let budget = availableNow - minAvailable;
  for (let i = 0; i < olds.length && budget > 0; i++) {
    const rs = olds[i]!;
    const down = Math.min(replicasOf(rs), budget);
    if (down <= 0) continue;
    olds[i] = scaleReplicaSet(ctx, r, rs, replicasOf(rs) - down, r.maxSurge);
    budget -= down;
  }
}

/** The new and old sets' pod counts, summed over their statuses. */
interface SetCounts {
  readonly total: number;
  readonly updated: number;
  readonly ready: number;
  readonly available: number;
  readonly terminating: number;
  readonly complete: boolean;
}

function countSets(r: Rollout, newRS: DemoObject | undefined, olds: DemoObject[]): SetCounts {
  const sets = newRS ? [newRS, ...olds] : olds;
  const sum = (f: string) => sets.reduce((n, rs) => n + Number(statusOf(rs)[f] ?? 0), 0);
  const total = sum('replicas');
  const updated = newRS ? Number(statusOf(newRS).replicas ?? 0) : 0;
  const newAvailable = newRS ? Number(statusOf(newRS).availableReplicas ?? 0) : 0;
  const { replicas } = r;
  const complete = !!newRS && updated === replicas && newAvailable === replicas && total === replicas && replicasOf(newRS) === replicas;
  return { total, updated, ready: sum('readyReplicas'), available: sum('availableReplicas'), terminating: sum('terminatingReplicas'), complete };
}

/** syncRolloutStatus: the Deployment's revision, status counts and conditions; a complete rollout then cleans up old sets. */
function syncRolloutStatus(
  ctx: ControllerContext,
  queue: WorkQueue,
  r: Rollout,
  newRS: DemoObject | undefined,
  olds: DemoObject[],
  progressing: Obj | undefined,
  now: string,
): void {
  const d = syncRevision(ctx, r.d, newRS);
  const counts = countSets(r, newRS, olds);
  const old = statusOf(d);
  let conds = setCondition(old.conditions as Obj[] | undefined, availableCondition(r, counts), now, true);
  if (newRS) conds = syncProgressing(ctx, queue, d, newRS, conds, counts, progressing, now);
  const status: Obj = {
    observedGeneration: d.metadata.generation,
    replicas: counts.total,
    updatedReplicas: counts.updated,
    readyReplicas: counts.ready,
    availableReplicas: counts.available,
    // DeploymentReplicaSetTerminatingReplicas (beta, on in v1.36): written even when 0.
    terminatingReplicas: counts.terminating,
  };
  const unavailable = Math.max(0, r.replicas - counts.available);
  if (unavailable) status.unavailableReplicas = unavailable;
  for (const k of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas']) if (!status[k]) delete status[k];
  status.conditions = conds;
  if (old.collisionCount !== undefined) status.collisionCount = old.collisionCount;
  const current = ctx.store.get('apps', 'deployments', d.metadata.namespace, d.metadata.name);
  if (current && current.metadata.uid === d.metadata.uid) ctx.updateStatus('apps', 'deployments', current, status);
  if (counts.complete) cleanupDeployment(ctx, d, olds);
}

function availableCondition(r: Rollout, counts: SetCounts): Obj {
  return counts.available >= r.replicas - r.maxUnavailable
    ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
    : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' };
}

/**
 * The Progressing condition: this pass's own (a new set created), NewReplicaSetAvailable once
 * complete, ReplicaSetUpdated on progress, else ProgressDeadlineExceeded once the deadline passed
 * without progress (the key is re-queued for the deadline until then).
 */
function syncProgressing(
  ctx: ControllerContext,
  queue: WorkQueue,
  d: DemoObject,
  newRS: DemoObject,
  conds: Obj[],
  counts: SetCounts,
  progressing: Obj | undefined,
  now: string,
): Obj[] {
  const rsName = newRS.metadata.name;
  const old = statusOf(d);
  const prev = conds.find((c) => c.type === 'Progressing');
  const oldPods = counts.total - counts.updated;
  const progressed =
    counts.updated > Number(old.updatedReplicas ?? 0) ||
    counts.ready > Number(old.readyReplicas ?? 0) ||
    counts.available > Number(old.availableReplicas ?? 0) ||
    oldPods < Number(old.replicas ?? 0) - Number(old.updatedReplicas ?? 0);
  const updating = { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `ReplicaSet "${rsName}" is progressing.` };
  if (progressing) return setCondition(conds, progressing, now, 'touch');
  if (counts.complete) {
    const done = { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rsName}" has successfully progressed.` };
    return setCondition(conds, done, now, true);
  }
  if (progressed || !prev || prev.reason === 'NewReplicaSetAvailable' || !String(prev.message ?? '').includes(`"${rsName}"`)) {
    return setCondition(conds, updating, now, 'touch');
  }
  if (prev.reason === 'ProgressDeadlineExceeded') return conds;
  // pkg/controller/deployment/util DeploymentTimedOut: no progress for progressDeadlineSeconds.
  const deadlineS = (d.spec as Obj).progressDeadlineSeconds;
  const deadlineMs = deadlineS === null ? Infinity : Number(deadlineS ?? 600) * 1000;
  const left = Date.parse(String(prev.lastUpdateTime)) + deadlineMs - ctx.wallNow();
  if (left <= 0) {
    const timedOut = { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${rsName}" has timed out progressing.` };
    return setCondition(conds, timedOut, now, true);
  }
  if (Number.isFinite(left)) queue.addAfter(keyOf(d.metadata.namespace, d.metadata.name), left + 100);
  return conds;
}

/** SetDeploymentRevision: the Deployment carries its new ReplicaSet's revision annotation (kubectl rollout undo patches next to it). */
function syncRevision(ctx: ControllerContext, d: DemoObject, newRS: DemoObject | undefined): DemoObject {
  const rev = newRS?.metadata.annotations?.[REVISION];
  const current = ctx.store.get('apps', 'deployments', d.metadata.namespace, d.metadata.name);
  if (!rev || !current || current.metadata.uid !== d.metadata.uid || current.metadata.annotations?.[REVISION] === rev) return current ?? d;
  const annotations = { ...(current.metadata.annotations ?? {}), [REVISION]: rev };
  return ctx.store.update('apps', 'deployments', { ...current, metadata: { ...current.metadata, annotations } }, { manager: KCM });
}

/** cleanupDeployment: old ReplicaSets with no pods beyond revisionHistoryLimit, oldest first. */
function cleanupDeployment(ctx: ControllerContext, d: DemoObject, olds: DemoObject[]): void {
  const limit = Number((d.spec as Obj).revisionHistoryLimit ?? 10);
  const idle = olds
    .filter((rs) => replicasOf(rs) === 0 && Number(statusOf(rs).replicas ?? 0) === 0 && !rs.metadata.deletionTimestamp)
    .sort((a, b) => revisionOf(a) - revisionOf(b));
  for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) ctx.store.delete('apps', 'replicasets', rs.metadata.namespace, rs.metadata.name);
}
