/**
 * The start-up story of many pods: each pod's phases (podStartup.ts), grouped per rollout (the
 * ReplicaSet, named with its Deployment) or Job or other owner, slowest pods first.
 *
 * Guarantees: one pass over the Events (indexed by the pod they are about: uid, else
 * namespace/name) and one over the pods, so 100,000 objects cost a map of them, not a product.
 * A pod's row holds its figures, not its bounds (row.ts): those are made for the rows that are
 * shown or written out, so 100,000 pods with 500,000 Events take about a second.
 * Groups are ordered by their slowest pod, pods in a group by total time (unknown totals last).
 * A ReplicaSet's Deployment is read from the ReplicaSet's name and the pod's pod-template-hash
 * label (the deployment controller names it DEPLOYMENT-HASH), so no ReplicaSet need be readable.
 */
import { podStartup, type PodLike, type PodStartup } from './podStartup';
import type { EventLike } from './podEvents';
import { PhaseTable, startupRow } from './row';

export interface StartupGroup {
  /** `deployment/NAME`, `job/NAME`, `statefulset/NAME`, ..., or `pod` for pods without a controller. */
  owner: string;
  /** The ReplicaSet of a Deployment's rollout. */
  rollout?: string;
  namespace: string;
  /** StartupRows (row.ts) from startupReport: a pod's bounds are made when its `phases` are read. */
  pods: PodStartup[];
  /** Pods whose every phase is known. */
  complete: number;
}

/** What to report: everything, or one workload (`deployment/NAME`, `job/NAME`, `pod/NAME`, ...). */
export interface StartupSelection {
  namespace?: string;
  target?: { kind: string; name: string };
}

/** The owner of a pod as the report groups it. */
export function ownerOf(pod: PodLike): { owner: string; rollout?: string } {
  const ref = pod.metadata?.ownerReferences?.find((r) => r.controller) ?? pod.metadata?.ownerReferences?.[0];
  if (!ref?.kind || !ref.name) return { owner: 'pod' };
  const hash = pod.metadata?.labels?.['pod-template-hash'];
  if (ref.kind === 'ReplicaSet' && hash && ref.name.endsWith(`-${hash}`)) {
    return { owner: `deployment/${ref.name.slice(0, -hash.length - 1)}`, rollout: `replicaset/${ref.name}` };
  }
  return { owner: `${ref.kind.toLowerCase()}/${ref.name}` };
}

function selected(pod: PodLike, sel: StartupSelection): boolean {
  if (sel.namespace !== undefined && pod.metadata?.namespace !== sel.namespace) return false;
  const t = sel.target;
  if (!t) return true;
  if (t.kind === 'pod') return pod.metadata?.name === t.name;
  const o = ownerOf(pod);
  return o.owner === `${t.kind}/${t.name}` || o.rollout === `${t.kind}/${t.name}`;
}

const eventKeyOf = (e: EventLike) => e.involvedObject?.uid || `${e.involvedObject?.namespace ?? e.metadata?.namespace ?? ''}/${e.involvedObject?.name ?? ''}`;

/**
 * Pods (of the selection) with their Events, grouped, slowest first. `detail` 'bounds': every pod's
 * bounds made at once (for output that writes them all, as JSON does), not rows; the same report.
 */
export function startupReport(
  pods: Iterable<PodLike>,
  events: Iterable<EventLike>,
  sel: StartupSelection = {},
  detail: 'rows' | 'bounds' = 'rows',
): StartupGroup[] {
  const wanted: PodLike[] = [];
  // Each key (a pod's uid; its namespace/name only when an Event names a pod so) to its slot in
  // `lists`: one lookup per Event, no string made per pod or per Event with a uid.
  const slots = new Map<string, number>();
  for (const p of pods) {
    if (!selected(p, sel)) continue;
    wanted.push(p);
    const uid = p.metadata?.uid;
    if (uid && !slots.has(uid)) slots.set(uid, slots.size);
  }
  const lists: (EventLike[] | undefined)[] = [];
  const add = (s: number, e: EventLike) => {
    const list = lists[s];
    if (list) list.push(e);
    else lists[s] = [e];
  };
  const byName: EventLike[] = [];
  for (const e of events) {
    if (e.involvedObject?.kind !== undefined && e.involvedObject.kind !== 'Pod') continue;
    if (!e.involvedObject?.uid) byName.push(e);
    else {
      const s = slots.get(e.involvedObject.uid);
      if (s !== undefined) add(s, e);
    }
  }
  const nameOf = (p: PodLike) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;
  if (byName.length) {
    for (const p of wanted) if (!slots.has(nameOf(p))) slots.set(nameOf(p), slots.size);
    for (const e of byName) {
      const s = slots.get(eventKeyOf(e));
      if (s !== undefined) add(s, e);
    }
  }
  const eventsOf = (k: string) => {
    const s = slots.get(k);
    return s === undefined ? undefined : lists[s];
  };
  const groups = new Map<string, StartupGroup>();
  const table = new PhaseTable(detail === 'rows' ? wanted.length : 0);
  const none: EventLike[] = [];
  wanted.forEach((p, i) => {
    const uid = p.metadata?.uid;
    // Events naming the pod by uid, and those naming it by name only (no uid: keyed by name).
    const byUid = (uid ? eventsOf(uid) : undefined) ?? none;
    const named = byName.length ? eventsOf(nameOf(p)) : undefined;
    const mine = named ? [...byUid, ...named] : byUid;
    const s = detail === 'bounds' ? podStartup(p, mine) : startupRow(p, mine, table, i);
    const o = ownerOf(p);
    const key = `${s.namespace}\0${o.owner}\0${o.rollout ?? ''}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { owner: o.owner, ...(o.rollout ? { rollout: o.rollout } : {}), namespace: s.namespace, pods: [], complete: 0 }));
    g.pods.push(s);
    if (s.complete) g.complete++;
  });
  // Names compare by code unit (localeCompare costs ICU per call: seconds at 100,000 pods).
  const slowest = (a: PodStartup, b: PodStartup) => (b.totalMs ?? -1) - (a.totalMs ?? -1) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const out = [...groups.values()];
  for (const g of out) g.pods.sort(slowest);
  out.sort((a, b) => slowest(a.pods[0]!, b.pods[0]!));
  return out;
}
