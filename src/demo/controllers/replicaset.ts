/**
 * The replicaset controller (kube-controller-manager's "replicaset"): keeps spec.replicas active
 * pods for each ReplicaSet, owned by it through a controller ownerReference.
 *
 * Guarantees (level-triggered: every reconcile compares the store's pods with spec.replicas):
 * - Too few active pods: creates the missing ones (at most 25 a pass, the rest in later passes) from spec.template (a SuccessfulCreate Event
 *   each); too many: deletes the surplus, unscheduled before pending before not-ready before
 *   ready, newest first (upstream's ActivePods ordering, simplified), a SuccessfulDelete Event each.
 * - Orphan pods that match the selector are adopted (a controller ownerReference is added).
 * - status (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas, terminatingReplicas, observedGeneration)
 *   is written only when it changes; a pod ready but not yet minReadySeconds old re-queues the set.
 * - A ReplicaSet being deleted creates nothing (the garbage collector removes its pods).
 */
import type { DemoObject } from '../store';
import { availableIn, controllerRef, controllerRefTo, KCM, isPodActive, isPodReady, selectorMatcher, type ControllerContext } from './controllerContext';
import { keyOf, splitKey } from './queue';

export const REPLICASET_COMPONENT = 'replicaset-controller';

type Obj = Record<string, any>;

/**
 * Pods created or deleted per pass (upstream's burstReplicas is 500); the rest follow in later
 * passes, so one pass and the kubelet's work on its pods stay short for the event loop.
 */
const MAX_BURST = 25;

export interface Controller {
  readonly name: string;
  stop(): void;
}

export function startReplicaSetController(ctx: ControllerContext): Controller {
  const { store } = ctx;
  const queue = ctx.queue('replicaset', 'syncReplicaSet', reconcile, 'replicasets.apps');

  function rank(p: DemoObject): number {
    const spec = p.spec as Obj | undefined;
    const phase = (p.status as Obj | undefined)?.phase;
    if (!spec?.nodeName) return 0;
    if (phase === 'Pending') return 1;
    if (!isPodReady(p)) return 2;
    return 3;
  }

  function reconcile(key: string): void {
    const { namespace, name } = splitKey(key);
    const rs = store.get('apps', 'replicasets', namespace, name);
    if (!rs) return;
    const spec = (rs.spec ?? {}) as Obj;
    const matches = selectorMatcher(spec.selector);
    const pods = ctx.list('', 'pods', namespace);
    let owned: DemoObject[] = [];
    for (const p of pods) {
      const ref = controllerRef(p);
      if (ref?.uid === rs.metadata.uid) owned.push(p);
      else if (!ref && !rs.metadata.deletionTimestamp && isPodActive(p) && matches(p.metadata.labels)) {
        // Adoption, as the ControllerRefManager does.
        const refs = [...((p.metadata.ownerReferences as Obj[] | undefined) ?? []), controllerRefTo(rs)];
        owned.push(store.update('', 'pods', { ...p, metadata: { ...p.metadata, ownerReferences: refs } }, { manager: KCM }));
      }
    }
    const want = typeof spec.replicas === 'number' ? spec.replicas : 1;
    const active = owned.filter(isPodActive);
    if (!rs.metadata.deletionTimestamp) {
      const diff = active.length - want;
      if (diff < 0) {
        if (-diff > MAX_BURST) queue.add(key);
        for (let i = 0; i < Math.min(-diff, MAX_BURST); i++) {
          const pod = ctx.createPod(rs, spec.template ?? {});
          ctx.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`, REPLICASET_COMPONENT);
        }
      } else if (diff > 0) {
        if (diff > MAX_BURST) queue.add(key);
        const victims = [...active]
          .sort((a, b) => rank(a) - rank(b) || (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''))
          .slice(0, Math.min(diff, MAX_BURST));
        for (const p of victims) {
          ctx.deletePod(p);
          ctx.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`, REPLICASET_COMPONENT);
        }
      }
      owned = ctx.podsOwnedBy(rs);
    }
    writeStatus(rs, owned.filter(isPodActive), owned.filter(isPodTerminating).length, key);
  }

  /** Deleted but not yet gone, and not finished: what upstream counts as terminatingReplicas. */
  function isPodTerminating(p: DemoObject): boolean {
    const phase = (p.status as Obj | undefined)?.phase;
    return !!p.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed';
  }

  function writeStatus(rs: DemoObject, active: DemoObject[], terminating: number, key: string): void {
    const current = store.get('apps', 'replicasets', rs.metadata.namespace, rs.metadata.name);
    if (!current || current.metadata.uid !== rs.metadata.uid) return;
    const spec = (current.spec ?? {}) as Obj;
    const minReady = Number(spec.minReadySeconds ?? 0);
    const tl = (spec.template?.metadata?.labels ?? {}) as Record<string, string>;
    const now = ctx.wallNow();
    let ready = 0;
    let available = 0;
    let wait = Infinity;
    for (const p of active) {
      if (isPodReady(p)) ready++;
      const w = availableIn(p, minReady, now);
      if (w === 0) available++;
      else if (w > 0) wait = Math.min(wait, w);
    }
    const fully = active.filter((p) => Object.entries(tl).every(([k, v]) => p.metadata.labels?.[k] === v)).length;
    const old = (current.status ?? {}) as Obj;
    const status: Obj = { replicas: active.length };
    if (fully) status.fullyLabeledReplicas = fully;
    if (ready) status.readyReplicas = ready;
    if (available) status.availableReplicas = available;
    status.terminatingReplicas = terminating; // DeploymentReplicaSetTerminatingReplicas (beta in v1.36): also when 0
    status.observedGeneration = current.metadata.generation;
    if (old.conditions) status.conditions = old.conditions;
    ctx.updateStatus('apps', 'replicasets', current, status);
    if (wait !== Infinity) queue.addAfter(key, wait + 50);
  }

  const unsubscribe = store.subscribe((e) => {
    if (e.group === 'apps' && e.resource === 'replicasets') {
      if (e.type !== 'DELETED') queue.add(keyOf(e.object.metadata.namespace, e.object.metadata.name));
      return;
    }
    if (e.group !== '' || e.resource !== 'pods') return;
    const ref = controllerRef(e.object);
    const oldRef = e.prevObject && controllerRef(e.prevObject);
    for (const r of [ref, oldRef]) if (r?.kind === 'ReplicaSet') queue.add(keyOf(e.object.metadata.namespace, r.name));
    if (!ref && e.type !== 'DELETED' && store.type('apps', 'replicasets')) {
      // An orphan: every ReplicaSet whose selector matches may adopt it.
      for (const rs of ctx.list('apps', 'replicasets', e.object.metadata.namespace)) {
        if (selectorMatcher((rs.spec as Obj | undefined)?.selector)(e.object.metadata.labels)) queue.add(keyOf(rs.metadata.namespace, rs.metadata.name));
      }
    }
  });
  for (const rs of ctx.list('apps', 'replicasets')) queue.add(keyOf(rs.metadata.namespace, rs.metadata.name));

  return {
    name: 'replicaset',
    stop() {
      unsubscribe();
      queue.stop();
    },
  };
}
