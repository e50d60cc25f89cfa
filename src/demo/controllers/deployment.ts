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
import { keyOf, splitKey } from './queue';
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
  const { store } = ctx;
  const queue = ctx.queue('deployment', 'syncDeployment', reconcile, 'deployments.apps');

  function scale(d: DemoObject, rs: DemoObject, to: number, maxSurge: number): DemoObject {
    const from = replicasOf(rs);
    if (from === to) return rs;
    const annotations = {
      ...(rs.metadata.annotations ?? {}),
      'deployment.kubernetes.io/desired-replicas': String(replicasOf(d)),
      'deployment.kubernetes.io/max-replicas': String(replicasOf(d) + maxSurge),
    };
    const next = store.update(
      'apps',
      'replicasets',
      { ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...(rs.spec as Obj), replicas: to } },
      { manager: KCM },
    );
    ctx.event(
      d,
      'Normal',
      'ScalingReplicaSet',
      `Scaled ${to > from ? 'up' : 'down'} replica set ${rs.metadata.name} from ${from} to ${to}`,
      DEPLOYMENT_COMPONENT,
    );
    return next;
  }

  function reconcile(key: string): void {
    const { namespace, name } = splitKey(key);
    const d = store.get('apps', 'deployments', namespace, name);
    if (!d || d.metadata.deletionTimestamp) return;
    const spec = (d.spec ?? {}) as Obj;
    const replicas = replicasOf(d);
    const all = ctx.list('apps', 'replicasets', namespace).filter((rs) => controllerRef(rs)?.uid === d.metadata.uid);
    let newRS = all.find((rs) => sameTemplate((rs.spec as Obj | undefined)?.template, spec.template));
    let olds = all.filter((rs) => rs !== newRS);
    const maxOldRevision = Math.max(0, ...olds.map(revisionOf));
    const rolling = (spec.strategy?.type ?? 'RollingUpdate') !== 'Recreate';
    let maxSurge = rolling ? intOrPercent(spec.strategy?.rollingUpdate?.maxSurge, replicas, true, '25%') : 0;
    let maxUnavailable = rolling ? intOrPercent(spec.strategy?.rollingUpdate?.maxUnavailable, replicas, false, '25%') : replicas;
    if (rolling && maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
    if (maxUnavailable > replicas) maxUnavailable = replicas;
    const now = ctx.timestamp();
    let progressing: Obj | undefined;

    if (!newRS && !spec.paused) {
      const hash = templateHash(spec.template, Number(statusOf(d).collisionCount ?? 0));
      const tmpl = withoutHash(spec.template);
      const labels = { ...(tmpl.metadata.labels ?? {}), [HASH]: hash };
      const sel = spec.selector ?? {};
      const initial = rolling ? (olds.length ? 0 : replicas) : 0;
      const start = rolling && olds.length ? Math.min(replicas, Math.max(0, replicas + maxSurge - olds.reduce((n, rs) => n + replicasOf(rs), 0))) : initial;
      newRS = store.create(
        'apps',
        'replicasets',
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name: `${d.metadata.name}-${hash}`,
            namespace,
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
      progressing = { type: 'Progressing', status: 'True', reason: 'NewReplicaSetCreated', message: `Created new replica set "${newRS.metadata.name}"` };
      // Creating the new set is this pass's scale-up; the next pass (its ADDED event) goes on.
      return writeStatus(d, newRS, olds, replicas, maxUnavailable, progressing, now);
    } else if (newRS && revisionOf(newRS) <= maxOldRevision) {
      // A rollback to an old template: the old set becomes the newest revision.
      newRS = store.update(
        'apps',
        'replicasets',
        {
          ...newRS,
          metadata: { ...newRS.metadata, annotations: { ...(newRS.metadata.annotations ?? {}), [REVISION]: String(maxOldRevision + 1) } },
        },
        { manager: KCM },
      );
    }
    olds = olds.sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));

    if (newRS) {
      if (spec.paused || (rolling && !olds.some((rs) => replicasOf(rs) > 0))) {
        newRS = scale(d, newRS, replicas, maxSurge);
      } else if (!rolling) {
        for (let i = 0; i < olds.length; i++) olds[i] = scale(d, olds[i]!, 0, 0);
        const oldPods = olds.reduce((n, rs) => n + Number(statusOf(rs).replicas ?? 0), 0);
        if (oldPods === 0) newRS = scale(d, newRS, replicas, 0);
      } else {
        // NewRSNewReplicas
        const cur = replicasOf(newRS);
        // An old set counts as the larger of its spec and its active pods (status.replicas): upstream
        // counts specs only and relies on the old set's replicaset controller deleting before the new
        // one's creates (a network round trip apart); the demo's in-process queues can run the next
        // pass first, so a scale-up waits until the old set's pods are actually going.
        const oldPods = (rs: DemoObject) => Math.max(replicasOf(rs), Number(statusOf(rs).replicas ?? 0));
        const total = all.reduce((n, rs) => n + (rs.metadata.uid === newRS!.metadata.uid ? cur : oldPods(rs)), 0);
        if (cur > replicas) newRS = scale(d, newRS, replicas, maxSurge);
        else if (total < replicas + maxSurge) newRS = scale(d, newRS, cur + Math.min(replicas + maxSurge - total, replicas - cur), maxSurge);
        // As upstream's rolloutRolling, a pass that scaled the new set up ends there: the old sets
        // are scaled down on the next pass, once the replicaset controller has acted on this one.
        const scaledUp = replicasOf(newRS) > cur;
        // reconcileOldReplicaSets
        const newSpec = replicasOf(newRS);
        const allPods = newSpec + olds.reduce((n, rs) => n + replicasOf(rs), 0);
        const minAvailable = replicas - maxUnavailable;
        const newUnavailable = newSpec - Number(statusOf(newRS).availableReplicas ?? 0);
        let maxScaledDown = scaledUp ? 0 : allPods - minAvailable - newUnavailable;
        // cleanupUnhealthyReplicas: old pods that are not available go first.
        for (let i = 0; i < olds.length && maxScaledDown > 0; i++) {
          const rs = olds[i]!;
          const unhealthy = replicasOf(rs) - Number(statusOf(rs).availableReplicas ?? 0);
          if (unhealthy <= 0) continue;
          const down = Math.min(maxScaledDown, unhealthy);
          olds[i] = scale(d, rs, replicasOf(rs) - down, maxSurge);
          maxScaledDown -= down;
        }
        // scaleDownOldReplicaSetsForRollingUpdate
        const availableNow = [newRS, ...olds].reduce((n, rs) => n + Math.min(replicasOf(rs), Number(statusOf(rs).availableReplicas ?? 0)), 0);
        let budget = scaledUp ? 0 : availableNow - minAvailable;
        for (let i = 0; i < olds.length && budget > 0; i++) {
          const rs = olds[i]!;
          const down = Math.min(replicasOf(rs), budget);
          if (down <= 0) continue;
          olds[i] = scale(d, rs, replicasOf(rs) - down, maxSurge);
          budget -= down;
        }
      }
    }
    writeStatus(d, newRS, olds, replicas, maxUnavailable, progressing, now);
  }

  /** SetDeploymentRevision: the Deployment carries its new ReplicaSet's revision annotation (kubectl rollout undo patches next to it). */
  function syncRevision(d: DemoObject, newRS: DemoObject | undefined): DemoObject {
    const rev = newRS?.metadata.annotations?.[REVISION];
    const current = store.get('apps', 'deployments', d.metadata.namespace, d.metadata.name);
    if (!rev || !current || current.metadata.uid !== d.metadata.uid || current.metadata.annotations?.[REVISION] === rev) return current ?? d;
    return store.update(
      'apps',
      'deployments',
      {
        ...current,
        metadata: { ...current.metadata, annotations: { ...(current.metadata.annotations ?? {}), [REVISION]: rev } },
      },
      { manager: KCM },
    );
  }

  function writeStatus(
    d0: DemoObject,
    newRS: DemoObject | undefined,
    olds: DemoObject[],
    replicas: number,
    maxUnavailable: number,
    progressing: Obj | undefined,
    now: string,
  ): void {
    const d = syncRevision(d0, newRS);
    const sets = newRS ? [newRS, ...olds] : olds;
    const sum = (f: string) => sets.reduce((n, rs) => n + Number(statusOf(rs)[f] ?? 0), 0);
    const available = sum('availableReplicas');
    const total = sum('replicas');
    const updated = newRS ? Number(statusOf(newRS).replicas ?? 0) : 0;
    const newAvailable = newRS ? Number(statusOf(newRS).availableReplicas ?? 0) : 0;
    const complete = !!newRS && updated === replicas && newAvailable === replicas && total === replicas && replicasOf(newRS) === replicas;
    const old = statusOf(d);
    let conds = old.conditions as Obj[] | undefined;
    conds = setCondition(
      conds,
      available >= replicas - maxUnavailable
        ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
        : { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
      now,
      true,
    );
    if (newRS) {
      const rsName = newRS.metadata.name;
      const prev = conds.find((c) => c.type === 'Progressing');
      const ready = sum('readyReplicas');
      const oldPods = total - updated;
      const progressed =
        updated > Number(old.updatedReplicas ?? 0) ||
        ready > Number(old.readyReplicas ?? 0) ||
        available > Number(old.availableReplicas ?? 0) ||
        oldPods < Number(old.replicas ?? 0) - Number(old.updatedReplicas ?? 0);
      const updating = { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `ReplicaSet "${rsName}" is progressing.` };
      const deadlineS = (d.spec as Obj).progressDeadlineSeconds;
      const deadlineMs = deadlineS === null ? Infinity : Number(deadlineS ?? 600) * 1000;
      if (progressing) conds = setCondition(conds, progressing, now, 'touch');
      else if (complete)
        conds = setCondition(
          conds,
          { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rsName}" has successfully progressed.` },
          now,
          true,
        );
      else if (progressed || !prev || prev.reason === 'NewReplicaSetAvailable' || !String(prev.message ?? '').includes(`"${rsName}"`))
        conds = setCondition(conds, updating, now, 'touch');
      else if (prev.reason !== 'ProgressDeadlineExceeded') {
        // pkg/controller/deployment/util DeploymentTimedOut: no progress for progressDeadlineSeconds.
        const left = Date.parse(String(prev.lastUpdateTime)) + deadlineMs - ctx.wallNow();
        if (left <= 0)
          conds = setCondition(
            conds,
            { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${rsName}" has timed out progressing.` },
            now,
            true,
          );
        else if (Number.isFinite(left)) queue.addAfter(keyOf(d.metadata.namespace, d.metadata.name), left + 100);
      }
    }
    const status: Obj = {
      observedGeneration: d.metadata.generation,
      replicas: total,
      updatedReplicas: updated,
      readyReplicas: sum('readyReplicas'),
      availableReplicas: available,
      // DeploymentReplicaSetTerminatingReplicas (beta, on in v1.36): written even when 0.
      terminatingReplicas: sum('terminatingReplicas'),
    };
    const unavailable = Math.max(0, replicas - available);
    if (unavailable) status.unavailableReplicas = unavailable;
    for (const k of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas']) if (!status[k]) delete status[k];
    status.conditions = conds;
    if (old.collisionCount !== undefined) status.collisionCount = old.collisionCount;
    const current = store.get('apps', 'deployments', d.metadata.namespace, d.metadata.name);
    if (current && current.metadata.uid === d.metadata.uid) ctx.updateStatus('apps', 'deployments', current, status);
    if (complete) cleanup(d, olds);
  }

  /** cleanupDeployment: old ReplicaSets with no pods beyond revisionHistoryLimit, oldest first. */
  function cleanup(d: DemoObject, olds: DemoObject[]): void {
    const limit = Number((d.spec as Obj).revisionHistoryLimit ?? 10);
    const idle = olds
      .filter((rs) => replicasOf(rs) === 0 && Number(statusOf(rs).replicas ?? 0) === 0 && !rs.metadata.deletionTimestamp)
      .sort((a, b) => revisionOf(a) - revisionOf(b));
    for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) store.delete('apps', 'replicasets', rs.metadata.namespace, rs.metadata.name);
  }

  const unsubscribe = store.subscribe((e) => {
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
