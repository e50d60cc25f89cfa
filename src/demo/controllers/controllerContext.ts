/**
 * What the demo's controllers share: the store, time, the Event recorder, and the helpers every
 * upstream controller has in pkg/controller (controller refs, label selectors, pod readiness,
 * pod creation from a template, status writes that happen only on a change).
 *
 * Guarantee: every helper reads the object as it is in the store now (level-triggered), and a
 * write that races another (404, 409) is reported to onError, never thrown into the store.
 */
import { randomBytes } from 'node:crypto';
import { prepareCreate } from '../server/defaults';
import type { DemoObject, ObjectStore } from '../store';
import type { KubeletClock } from '../kubelet/kubeletClock';
import { kubeTimestamp, type EventRecorder, type InvolvedObject } from '../kubelet/eventRecorder';
import { objectKey, type ReconcileObserver } from './observe';
import { splitKey, WorkQueue } from './queue';

type Obj = Record<string, any>;

/** The field manager of every write the controllers make (upstream's controller manager binary). */
export const KCM = 'kube-controller-manager';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/**
 * Objects of one type by namespace, kept from the store's events (an informer's indexer): the
 * store's own list re-sorts a whole type after any write to it, which a controller listing pods
 * after every pod write cannot afford in a big cluster.
 */
class NamespaceIndex {
  private readonly byNs = new Map<string, Map<string, DemoObject>>();

  constructor(items: readonly DemoObject[]) {
    for (const o of items) this.put(o);
  }

  put(o: DemoObject): void {
    const ns = o.metadata.namespace ?? '';
    let m = this.byNs.get(ns);
    if (!m) this.byNs.set(ns, (m = new Map()));
    m.set(o.metadata.name, o);
  }

  remove(o: DemoObject): void {
    this.byNs.get(o.metadata.namespace ?? '')?.delete(o.metadata.name);
  }

  list(namespace: string | undefined): DemoObject[] {
    if (namespace !== undefined) return [...(this.byNs.get(namespace)?.values() ?? [])];
    return [...this.byNs.values()].flatMap((m) => [...m.values()]);
  }
}

export class ControllerContext {
  private readonly indexes = new Map<string, NamespaceIndex>();
  private readonly unsubscribe: () => void;

  constructor(
    readonly store: ObjectStore,
    readonly clock: KubeletClock,
    readonly recorder: EventRecorder,
    /** Wall-clock ms, for timestamps and minReadySeconds. */
    readonly wallNow: () => number,
    readonly onError: (e: unknown) => void,
    /** Reports every reconcile (the timeline's controller lanes); absent: nothing is observed. */
    private readonly observer?: ReconcileObserver,
  ) {
    this.unsubscribe = store.subscribe((e) => {
      const idx = this.indexes.get(`${e.group}/${e.resource}`);
      if (!idx) return;
      if (e.type === 'DELETED') idx.remove(e.object);
      else idx.put(e.object);
    });
  }

  /** The objects of a type (in one namespace), as the store has them now, in no particular order. */
  list(group: string, resource: string, namespace?: string): DemoObject[] {
    const key = `${group}/${resource}`;
    let idx = this.indexes.get(key);
    if (!idx) {
      if (!this.store.type(group, resource)) return [];
      this.indexes.set(key, (idx = new NamespaceIndex(this.store.list(group, resource).items)));
    }
    return idx.list(namespace);
  }

  /**
   * The work queue of one controller: `reconcile` is upstream's `handler` (syncDeployment, ...) for
   * keys `namespace/name` of `resource[.group]`, reported to the observer when there is one.
   * `keyText` turns a key of another form (the garbage collector's) into an object key.
   */
  queue(controller: string, handler: string, reconcile: (key: string) => void, keyText: string | ((key: string) => string)): WorkQueue {
    const text =
      typeof keyText === 'function'
        ? keyText
        : (key: string) => {
            const { namespace, name } = splitKey(key);
            const dot = keyText.indexOf('.');
            return dot < 0 ? objectKey('', keyText, namespace, name) : objectKey(keyText.slice(dot + 1), keyText.slice(0, dot), namespace, name);
          };
    const fn = this.observer ? this.observer.wrap(controller, handler, text, reconcile) : reconcile;
    return new WorkQueue(fn, this.clock, this.onError);
  }

  stop(): void {
    this.unsubscribe();
    this.observer?.stop();
    this.indexes.clear();
  }

  timestamp(): string {
    return kubeTimestamp(this.wallNow());
  }

  event(obj: DemoObject, type: 'Normal' | 'Warning', reason: string, message: string, component: string): void {
    const involved: InvolvedObject = {
      kind: obj.kind,
      apiVersion: obj.apiVersion,
      name: obj.metadata.name,
      namespace: obj.metadata.namespace,
      uid: obj.metadata.uid,
      resourceVersion: obj.metadata.resourceVersion,
    };
    this.recorder.record(involved, type, reason, message, { component });
  }

  /**
   * Writes .status when it differs from the stored one (no empty writes, no watch noise). Equal
   * means semantically equal, as upstream's DeepEqual: the order of an object's keys does not count.
   */
  updateStatus(group: string, resource: string, obj: DemoObject, status: Obj): DemoObject {
    if (stableJson(obj.status ?? {}) === stableJson(status)) return obj;
    const write = () => this.store.update(group, resource, { ...obj, status }, { subresource: 'status', manager: KCM });
    return this.observer ? this.observer.as('status', write) : write();
  }

  /** Creates a pod from a template, owned by (controller ref) owner, with extra labels/fields. */
  createPod(
    owner: DemoObject,
    template: Obj,
    opts: { name?: string; labels?: Record<string, string>; spec?: Obj; annotations?: Record<string, string> } = {},
  ): DemoObject {
    const tm = (template.metadata ?? {}) as Obj;
    const ns = owner.metadata.namespace!;
    const meta: Obj = {
      ...(opts.name ? { name: opts.name } : { name: `${owner.metadata.name}-${randomSuffix()}`, generateName: `${owner.metadata.name}-` }),
      namespace: ns,
      labels: { ...(tm.labels ?? {}), ...(opts.labels ?? {}) },
      ownerReferences: [controllerRefTo(owner)],
    };
    const annotations = { ...(tm.annotations ?? {}), ...(opts.annotations ?? {}) };
    if (Object.keys(annotations).length) meta.annotations = annotations;
    if (tm.finalizers) meta.finalizers = tm.finalizers;
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: meta, spec: { ...(template.spec ?? {}), ...(opts.spec ?? {}) } } as DemoObject;
    const type = this.store.type('', 'pods')!;
    return this.store.create('', 'pods', prepareCreate(type, pod, KCM, this.timestamp()));
  }

  /**
   * Deletes a pod as a DELETE through the API would: a pod bound to a node and still running is
   * marked (deletionTimestamp, grace period) and the kubelet finishes it; any other pod goes at once,
   * its grace period of 0 written first (watchers see it marked, then gone, as from kube-apiserver).
   */
  deletePod(pod: DemoObject): void {
    if (pod.metadata.deletionTimestamp) return;
    const spec = (pod.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
    const phase = (pod.status as { phase?: string } | undefined)?.phase;
    const grace = spec.terminationGracePeriodSeconds ?? 30;
    if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed' || grace <= 0) {
      this.store.update('', 'pods', { ...pod, metadata: { ...pod.metadata, deletionTimestamp: kubeTimestamp(this.wallNow()), deletionGracePeriodSeconds: 0 } });
      this.store.delete('', 'pods', pod.metadata.namespace, pod.metadata.name);
      return;
    }
    const mark = () =>
      this.store.update('', 'pods', {
        ...pod,
        metadata: { ...pod.metadata, deletionTimestamp: kubeTimestamp(this.wallNow() + grace * 1000), deletionGracePeriodSeconds: grace },
      });
    if (this.observer) this.observer.as('delete', mark);
    else mark();
  }

  /** Pods of a namespace whose controller ref is owner. */
  podsOwnedBy(owner: DemoObject): DemoObject[] {
    return this.list('', 'pods', owner.metadata.namespace).filter((p) => controllerRef(p)?.uid === owner.metadata.uid);
  }
}

export function controllerRefTo(owner: DemoObject): OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true };
}

export function controllerRef(o: DemoObject): OwnerReference | undefined {
  return (o.metadata.ownerReferences as OwnerReference[] | undefined)?.find((r) => r.controller === true);
}

const SAFE = 'bcdfghjklmnpqrstvwxz2456789';

/** apimachinery's rand.String(5): the suffix of generateName. */
export function randomSuffix(n = 5): string {
  return [...randomBytes(n)].map((b) => SAFE[b % SAFE.length]).join('');
}

/** apimachinery's rand.SafeEncodeString: each character mapped into the alphabet without vowels. */
export function safeEncode(s: string): string {
  return [...s].map((c) => SAFE[c.charCodeAt(0) % SAFE.length]).join('');
}

/** FNV-1a 32-bit over a string (the hash upstream's ComputeHash uses, over a stable JSON here). */
export function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Obj)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/** A metav1.LabelSelector as a predicate; an empty or missing selector matches nothing (as controllers treat it). */
export function selectorMatcher(sel: Obj | undefined): (labels: Record<string, string> | undefined) => boolean {
  const ml = (sel?.matchLabels ?? {}) as Record<string, string>;
  const me = (sel?.matchExpressions ?? []) as { key: string; operator: string; values?: string[] }[];
  if (!Object.keys(ml).length && !me.length) return () => false;
  return (labels = {}) => {
    for (const [k, v] of Object.entries(ml)) if (labels[k] !== v) return false;
    for (const e of me) {
      const has = Object.prototype.hasOwnProperty.call(labels, e.key);
      const inValues = has && (e.values ?? []).includes(labels[e.key]!);
      if (e.operator === 'In' && !inValues) return false;
      if (e.operator === 'NotIn' && inValues) return false;
      if (e.operator === 'Exists' && !has) return false;
      if (e.operator === 'DoesNotExist' && has) return false;
    }
    return true;
  };
}

/** The selector as `kubectl get -l` writes it (Scale's status.selector). */
export function selectorString(sel: Obj | undefined): string {
  const parts = Object.entries((sel?.matchLabels ?? {}) as Record<string, string>)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`);
  for (const e of (sel?.matchExpressions ?? []) as { key: string; operator: string; values?: string[] }[]) {
    const vs = [...(e.values ?? [])].sort().join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${vs})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${vs})`);
    else if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

/** Active as pkg/controller's FilterActivePods: not terminating, not Succeeded or Failed. */
export function isPodActive(p: DemoObject): boolean {
  const phase = (p.status as { phase?: string } | undefined)?.phase;
  return !p.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed';
}

function readyCondition(p: DemoObject): { status?: string; lastTransitionTime?: string } | undefined {
  return ((p.status as Obj | undefined)?.conditions as Obj[] | undefined)?.find((c) => c.type === 'Ready');
}

export function isPodReady(p: DemoObject): boolean {
  return readyCondition(p)?.status === 'True';
}

/**
 * podutil.IsPodAvailable: ready for at least minReadySeconds at nowMs. Returns the ms still to wait
 * when ready but not yet available (0 = available, -1 = not ready).
 */
export function availableIn(p: DemoObject, minReadySeconds: number, nowMs: number): number {
  const c = readyCondition(p);
  if (c?.status !== 'True') return -1;
  if (!minReadySeconds) return 0;
  const since = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  if (Number.isNaN(since)) return 0;
  return Math.max(0, since + minReadySeconds * 1000 - nowMs);
}

/** An intstr (int or "25%") resolved against total, rounding up or down as upstream's GetScaledValueFromIntOrPercent. */
export function intOrPercent(v: unknown, total: number, roundUp: boolean, dflt: string): number {
  const x = v ?? dflt;
  if (typeof x === 'number') return x;
  const m = /^(\d+)%$/.exec(String(x));
  if (!m) return Number.parseInt(String(x), 10) || 0;
  const f = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(f) : Math.floor(f);
}

/** Sets (or keeps) a condition: lastTransitionTime changes only when the status does. */
export function setCondition(conds: Obj[] | undefined, next: Obj, now: string, withUpdateTime: boolean | 'touch' = false): Obj[] {
  const list = [...(conds ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const old = i >= 0 ? list[i] : undefined;
  const transition = old && old.status === next.status ? old.lastTransitionTime : now;
  // 'touch': lastUpdateTime moves to now even when nothing else changes (the deployment
  // controller's sign of progress, which the progress deadline counts from).
  const same = withUpdateTime !== 'touch' && old && old.status === next.status && old.reason === next.reason && old.message === next.message;
  const c: Obj = { ...next, lastTransitionTime: transition };
  if (withUpdateTime) c.lastUpdateTime = same ? old!.lastUpdateTime : now;
  const ordered = withUpdateTime
    ? { type: c.type, status: c.status, lastUpdateTime: c.lastUpdateTime, lastTransitionTime: c.lastTransitionTime, reason: c.reason, message: c.message }
    : c;
  if (same) return list;
  if (i >= 0) list[i] = ordered;
  else list.push(ordered);
  return list;
}
