/**
 * The daemonset controller (kube-controller-manager's "daemonset"): one pod per schedulable node.
 *
 * Guarantees (level-triggered, from the nodes and the set's own pods on every reconcile):
 * - Every node without spec.unschedulable whose labels match the template's nodeSelector (upstream's
 *   nodeShouldRunDaemonPod, selector part) gets exactly one active pod of the set, pinned to it by a
 *   required node affinity on metadata.name (as upstream since 1.12; the scheduler binds it there);
 *   extra pods on a node, and pods on nodes that are gone, are deleted.
 * - RollingUpdate (default): a pod whose controller-revision-hash is not the current template's
 *   is deleted while fewer than maxUnavailable (default 1) of the set's pods are unavailable;
 *   OnDelete leaves pods alone.
 * - status: desiredNumberScheduled, currentNumberScheduled, numberReady, numberAvailable,
 *   numberUnavailable, updatedNumberScheduled, numberMisscheduled, observedGeneration.
 */
import type { DemoObject } from '../store';
import { controllerRef, intOrPercent, isPodActive, isPodReady, type ControllerContext } from './controllerContext';
import { templateHash } from './deployment';
import { keyOf, splitKey } from './queue';
import type { Controller } from './replicaset';

export const DAEMONSET_COMPONENT = 'daemonset-controller';
const REV = 'controller-revision-hash';

type Obj = Record<string, any>;

/** A pod's nodeSelector (every key equal) holds for a node's labels; no selector selects every node. */
function selects(sel: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  return Object.entries(sel ?? {}).every(([k, v]) => labels?.[k] === v);
}

/** The node a daemon pod is bound to, or pinned to by its required node affinity. */
export function targetNode(p: DemoObject): string | undefined {
  const spec = (p.spec ?? {}) as Obj;
  if (spec.nodeName) return spec.nodeName;
  for (const term of spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const f of term.matchFields ?? []) if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
  }
  return undefined;
}

export function startDaemonSetController(ctx: ControllerContext): Controller {
  const { store } = ctx;
  const queue = ctx.queue('daemonset', 'syncDaemonSet', reconcile, 'daemonsets.apps');

  function reconcile(key: string): void {
    const { namespace, name } = splitKey(key);
    const ds = store.get('apps', 'daemonsets', namespace, name);
    if (!ds || ds.metadata.deletionTimestamp) return;
    const spec = (ds.spec ?? {}) as Obj;
    const hash = templateHash(spec.template);
    const nodes = ctx
      .list('', 'nodes')
      .filter((n) => !(n.spec as Obj | undefined)?.unschedulable && selects(spec.template?.spec?.nodeSelector, n.metadata.labels))
      .map((n) => n.metadata.name);
    const wanted = new Set(nodes);
    const pods = ctx.podsOwnedBy(ds).filter(isPodActive);
    const byNode = new Map<string, DemoObject[]>();
    for (const p of pods) {
      const n = targetNode(p) ?? '';
      if (!wanted.has(n)) {
        ctx.deletePod(p);
        continue;
      }
      byNode.set(n, [...(byNode.get(n) ?? []), p]);
    }
    for (const node of nodes) {
      const on = byNode.get(node) ?? [];
      if (on.length === 0) {
        const affinity = {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
            },
          },
        };
        const pod = ctx.createPod(ds, spec.template ?? {}, {
          labels: { [REV]: hash },
          spec: { affinity: { ...(spec.template?.spec?.affinity ?? {}), ...affinity } },
        });
        ctx.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`, DAEMONSET_COMPONENT);
      } else {
        for (const extra of on.slice(1)) {
          ctx.deletePod(extra);
          ctx.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${extra.metadata.name}`, DAEMONSET_COMPONENT);
        }
      }
    }
    const live = ctx.podsOwnedBy(ds).filter(isPodActive);
    if ((spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
      const maxUnavailable = Math.max(1, intOrPercent(spec.updateStrategy?.rollingUpdate?.maxUnavailable, nodes.length, true, '1'));
      let unavailable = nodes.length - live.filter(isPodReady).length;
      for (const p of live) {
        if (unavailable >= maxUnavailable) break;
        if (p.metadata.labels?.[REV] === hash) continue;
        ctx.deletePod(p);
        ctx.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`, DAEMONSET_COMPONENT);
        unavailable++;
      }
    }
    const current = ctx.podsOwnedBy(ds).filter(isPodActive);
    const ready = current.filter(isPodReady).length;
    const status: Obj = {
      currentNumberScheduled: current.length,
      desiredNumberScheduled: nodes.length,
      numberMisscheduled: 0,
      numberReady: ready,
      observedGeneration: ds.metadata.generation,
      updatedNumberScheduled: current.filter((p) => p.metadata.labels?.[REV] === hash).length,
      numberAvailable: ready,
    };
    if (nodes.length - ready > 0) status.numberUnavailable = nodes.length - ready;
    if (!status.numberAvailable) delete status.numberAvailable;
    if (!status.updatedNumberScheduled) delete status.updatedNumberScheduled;
    ctx.updateStatus('apps', 'daemonsets', ds, status);
  }

  const unsubscribe = store.subscribe((e) => {
    if (e.group === 'apps' && e.resource === 'daemonsets' && e.type !== 'DELETED') queue.add(keyOf(e.object.metadata.namespace, e.object.metadata.name));
    else if (e.group === '' && e.resource === 'pods') {
      const ref = controllerRef(e.object);
      if (ref?.kind === 'DaemonSet') queue.add(keyOf(e.object.metadata.namespace, ref.name));
    } else if (e.group === '' && e.resource === 'nodes' && e.type !== 'MODIFIED') {
      for (const ds of ctx.list('apps', 'daemonsets')) queue.add(keyOf(ds.metadata.namespace, ds.metadata.name));
    }
  });
  for (const ds of ctx.list('apps', 'daemonsets')) queue.add(keyOf(ds.metadata.namespace, ds.metadata.name));

  return {
    name: 'daemonset',
    stop() {
      unsubscribe();
      queue.stop();
    },
  };
}
