/**
 * The statefulset controller (kube-controller-manager's "statefulset"): pods with stable, ordered
 * names `<set>-0 .. <set>-(n-1)`.
 *
 * Guarantees (level-triggered, from the set's own pods on every reconcile):
 * - OrderedReady (the default podManagementPolicy): pod i is created only once pods 0..i-1 are
 *   Running and Ready; scale-down deletes the highest ordinal first, one at a time, waiting for a
 *   terminating pod to go. Parallel creates and deletes without waiting.
 * - A pod that failed or succeeded is deleted and recreated under the same name.
 * - RollingUpdate (default): once every pod is Running and Ready, the highest ordinal whose
 *   controller-revision-hash is not the update revision is deleted (recreated from the new
 *   template), one at a time; OnDelete leaves pods alone.
 * - Pods carry statefulset.kubernetes.io/pod-name, apps.kubernetes.io/pod-index and
 *   controller-revision-hash labels, hostname and subdomain (spec.serviceName).
 * - status: replicas, readyReplicas, currentReplicas, updatedReplicas, availableReplicas,
 *   currentRevision, updateRevision, observedGeneration, collisionCount.
 */
import type { DemoObject } from '../store';
import { availableIn, controllerRef, isPodActive, isPodReady, type ControllerContext } from './controllerContext';
import { templateHash } from './deployment';
import { keyOf, splitKey } from './queue';
import type { Controller } from './replicaset';

export const STATEFULSET_COMPONENT = 'statefulset-controller';
const REV = 'controller-revision-hash';

type Obj = Record<string, any>;

const runningAndReady = (p: DemoObject) => (p.status as Obj | undefined)?.phase === 'Running' && isPodReady(p) && !p.metadata.deletionTimestamp;

export function startStatefulSetController(ctx: ControllerContext): Controller {
  const { store } = ctx;
  const queue = ctx.queue('statefulset', 'sync', reconcile, 'statefulsets.apps');

  function reconcile(key: string): void {
    const { namespace, name } = splitKey(key);
    const set = store.get('apps', 'statefulsets', namespace, name);
    if (!set || set.metadata.deletionTimestamp) return;
    const spec = (set.spec ?? {}) as Obj;
    const replicas = Number(spec.replicas ?? 1);
    const ordered = (spec.podManagementPolicy ?? 'OrderedReady') === 'OrderedReady';
    const updateRevision = `${name}-${templateHash(spec.template)}`;
    const ordinal = (p: DemoObject) => {
      const m = new RegExp(`^${name.replace(/[.]/g, '\\.')}-(\\d+)$`).exec(p.metadata.name);
      return m ? Number(m[1]) : -1;
    };
    const byOrdinal = new Map<number, DemoObject>();
    for (const p of ctx.podsOwnedBy(set)) if (ordinal(p) >= 0) byOrdinal.set(ordinal(p), p);

    const create = (i: number) => {
      const podName = `${name}-${i}`;
      const labels = { [REV]: updateRevision, 'statefulset.kubernetes.io/pod-name': podName, 'apps.kubernetes.io/pod-index': String(i) };
      const extra: Obj = { hostname: podName };
      if (spec.serviceName) extra.subdomain = spec.serviceName;
      ctx.createPod(set, spec.template ?? {}, { name: podName, labels, spec: extra });
      ctx.event(set, 'Normal', 'SuccessfulCreate', `create Pod ${podName} in StatefulSet ${name} successful`, STATEFULSET_COMPONENT);
    };
    const remove = (p: DemoObject) => {
      ctx.deletePod(p);
      ctx.event(set, 'Normal', 'SuccessfulDelete', `delete Pod ${p.metadata.name} in StatefulSet ${name} successful`, STATEFULSET_COMPONENT);
    };

    let blocked = false;
    for (let i = 0; i < replicas && !blocked; i++) {
      const p = byOrdinal.get(i);
      if (!p) {
        create(i);
        if (ordered) blocked = true;
      } else if (!p.metadata.deletionTimestamp && !isPodActive(p)) {
        remove(p); // failed or succeeded: recreated on a later pass
        if (ordered) blocked = true;
      } else if (ordered && !runningAndReady(p)) blocked = true;
    }
    const surplus = [...byOrdinal.entries()].filter(([i]) => i >= replicas).sort(([a], [b]) => b - a);
    if (!blocked || !ordered) {
      for (const [, p] of surplus) {
        if (p.metadata.deletionTimestamp) {
          if (ordered) break;
          continue;
        }
        remove(p);
        if (ordered) break;
      }
    }
    const pods = ctx.podsOwnedBy(set);
    const inRange = pods.filter((p) => ordinal(p) >= 0 && ordinal(p) < replicas);
    if ((spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' && inRange.length === replicas && inRange.every(runningAndReady)) {
      const stale = inRange.filter((p) => p.metadata.labels?.[REV] !== updateRevision).sort((a, b) => ordinal(b) - ordinal(a))[0];
      if (stale) remove(stale);
    }
    writeStatus(set, ctx.podsOwnedBy(set), updateRevision, key);
  }

  function writeStatus(set: DemoObject, pods: DemoObject[], updateRevision: string, key: string): void {
    const spec = (set.spec ?? {}) as Obj;
    const live = pods.filter((p) => !p.metadata.deletionTimestamp);
    const updated = live.filter((p) => p.metadata.labels?.[REV] === updateRevision).length;
    const now = ctx.wallNow();
    let available = 0;
    let wait = Infinity;
    for (const p of live) {
      const w = availableIn(p, Number(spec.minReadySeconds ?? 0), now);
      if (w === 0) available++;
      else if (w > 0) wait = Math.min(wait, w);
    }
    const old = (set.status ?? {}) as Obj;
    const complete = updated === live.length;
    const status: Obj = {
      observedGeneration: set.metadata.generation,
      replicas: live.length,
      readyReplicas: live.filter(isPodReady).length,
      currentReplicas: complete ? live.length : live.length - updated,
      updatedReplicas: updated,
      availableReplicas: available,
      currentRevision: complete ? updateRevision : (old.currentRevision ?? updateRevision),
      updateRevision,
      collisionCount: old.collisionCount ?? 0,
    };
    for (const k of ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas']) if (!status[k]) delete status[k];
    ctx.updateStatus('apps', 'statefulsets', set, status);
    if (wait !== Infinity) queue.addAfter(key, wait + 50);
  }

  const unsubscribe = store.subscribe((e) => {
    if (e.group === 'apps' && e.resource === 'statefulsets' && e.type !== 'DELETED') queue.add(keyOf(e.object.metadata.namespace, e.object.metadata.name));
    else if (e.group === '' && e.resource === 'pods') {
      const ref = controllerRef(e.object);
      if (ref?.kind === 'StatefulSet') queue.add(keyOf(e.object.metadata.namespace, ref.name));
    }
  });
  for (const s of ctx.list('apps', 'statefulsets')) queue.add(keyOf(s.metadata.namespace, s.metadata.name));

  return {
    name: 'statefulset',
    stop() {
      unsubscribe();
      queue.stop();
    },
  };
}
