/**
 * The demo generator's cluster (src/demo/generator.ts, the objects `kubeloop demo-cluster
 * --objects N` serves) as the owner index sees it, without a store or a server: each object's
 * metadata (uid, name, namespace, ownerReferences: the generator's own Deployments -> ReplicaSets
 * -> Pods, StatefulSets, DaemonSets, CronJobs -> Jobs -> Pods, ...), with the uids it gives them.
 */
import { OwnerIndex, type OwnedObject } from '../../src/core/relations/ownerIndex';
import { generate } from '../../src/demo/generator';
import { Catalog } from '../../src/demo/server/catalog';
import { ObjectStore } from '../../src/demo/store';

export interface OwnedItem {
  obj: OwnedObject;
  typeKey: string;
  kind: string;
}

export interface DemoOwners {
  items: OwnedItem[];
  /** The uid of the owner with the most dependents, and of a pod with an owner chain (a CronJob's Job's pod when there is one). */
  widestOwner: string;
  ownedPod: string;
}

export function demoOwners(objects: number, seed = 1): DemoOwners {
  const store = new ObjectStore();
  new Catalog(store).registerBuiltins();
  const types = store.types();
  const items: OwnedItem[] = [];
  const deps = new Map<string, number>();
  const kinds = new Map<string, string>();
  let ownedPod = '';
  generate(types, { objects, seed }, (g, r, o) => {
    const typeKey = g ? `${r}.${g}` : r;
    let kind = kinds.get(typeKey);
    if (kind === undefined) kinds.set(typeKey, (kind = o.kind ?? types.find((t) => t.group === g && t.resource === r)?.kind ?? r));
    const m = o.metadata;
    if (!m.uid) return o;
    const refs = m.ownerReferences;
    items.push({
      obj: { metadata: { uid: m.uid, name: m.name, ...(m.namespace ? { namespace: m.namespace } : {}), ...(refs ? { ownerReferences: refs } : {}) } },
      typeKey,
      kind,
    });
    for (const ref of refs ?? []) {
      const u = (ref as { uid?: string }).uid;
      if (u) deps.set(u, (deps.get(u) ?? 0) + 1);
    }
    if (typeKey === 'pods' && refs?.length) ownedPod = m.uid;
    return o;
  });
  let widestOwner = '';
  let most = -1;
  for (const [u, n] of deps) if (n > most) [widestOwner, most] = [u, n];
  return { items, widestOwner, ownedPod };
}

export function indexOf(items: readonly OwnedItem[]): OwnerIndex {
  const index = new OwnerIndex();
  for (const i of items) index.upsert(i.obj, i.typeKey, i.kind);
  return index;
}
