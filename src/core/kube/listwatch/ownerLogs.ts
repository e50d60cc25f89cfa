/**
 * followOwnerLogs(): the logs of an owner's pods together (a Deployment's through its
 * ReplicaSets, a Job's, or the pods of a label selector), interleaved by time (logMerge.ts), each
 * line tagged `pod/NAME/CONTAINER` as kubectl --prefix tags it. Followed live, pods that appear
 * later (a rollout's new ReplicaSet, a Job's retry) and restarted containers join: the pods are
 * watched, and each container instance (by container ID) is read once.
 *
 * Which pods: the owner's selector narrows the list and the watch on the server; ownership is then
 * checked by ownerReferences (a pod that only matches the labels is not the owner's), as the
 * controllers themselves decide it.
 *
 * Guarantees: errors are values (a pod whose log cannot be read is reported through onError and
 * the others go on; an owner that cannot be read ends the call with its failure); memory is the
 * merge's (one line per source) and the streams' buffers; the signal ends every request and watch.
 */
import type { Clock } from '../../clock';
import { KubeApiError } from '../errors';
import type { KubeTransport } from '../transport/transport';
import type { KubeObject } from '../objects/types';
import { resourcePath } from './paths';
import { watch } from './watch';
import { LogMerge, type MergedLine } from './logMerge';
import { openPodLog, podLogFailure, type PodLogFailure, type PodLogOptions } from './podLog';

export type LogOwner = { kind: 'deployment' | 'job'; name: string } | { kind: 'selector'; selector: string };

export interface OwnerLogOptions extends Omit<PodLogOptions, 'container' | 'previous' | 'timestamps'> {
  /** One container by name; unset: each pod's default container (kubectl's), or all with allContainers. */
  container?: string;
  allContainers?: boolean;
  previous?: boolean;
  settleMs?: number;
}

export interface OwnerLogHooks {
  onLine(line: MergedLine): void | Promise<void>;
  /** A pod's container log that could not be read (the others go on). */
  onError?(source: string, failure: PodLogFailure): void;
  /** A source joined (pod/NAME/CONTAINER and the container ID read). */
  onSource?(source: string, containerID?: string): void;
}

export type OwnerLogEnd = { kind: 'ended'; sources: number } | { kind: 'failed'; failure: PodLogFailure };

type Obj = Record<string, any>;

/** A LabelSelector (matchLabels, matchExpressions) in the query form. */
export function selectorString(sel: Obj | undefined): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries((sel?.matchLabels as Record<string, string> | undefined) ?? {})) parts.push(`${k}=${v}`);
  for (const e of (sel?.matchExpressions as Obj[] | undefined) ?? []) {
    const values = ((e.values as string[] | undefined) ?? []).join(',');
    if (e.operator === 'In') parts.push(`${e.key} in (${values})`);
    else if (e.operator === 'NotIn') parts.push(`${e.key} notin (${values})`);
    else if (e.operator === 'Exists') parts.push(String(e.key));
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
  }
  return parts.join(',');
}

const uidsOf = (o: KubeObject): string[] => ((o.metadata?.ownerReferences as Obj[] | undefined) ?? []).map((r) => String(r.uid));

/** Decides, per pod, whether the owner owns it (a Deployment's through a ReplicaSet, read once). */
function ownership(t: KubeTransport, ns: string, owner: KubeObject | undefined, kind: LogOwner['kind'], signal?: AbortSignal) {
  const rsOwned = new Map<string, Promise<boolean>>();
  const uid = String(owner?.metadata?.uid ?? '');
  return async (pod: KubeObject): Promise<boolean> => {
    if (kind === 'selector') return true;
    if (kind === 'job') return uidsOf(pod).includes(uid);
    const rs = ((pod.metadata?.ownerReferences as Obj[] | undefined) ?? []).find((r) => r.kind === 'ReplicaSet');
    if (!rs) return false;
    let owned = rsOwned.get(String(rs.uid));
    if (!owned) {
      const path = `${resourcePath({ group: 'apps', version: 'v1', resource: 'replicasets' }, ns)}/${encodeURIComponent(String(rs.name))}`;
      owned = t.getJson<KubeObject>({ path, signal }).then(
        (r) => String(r.body.metadata?.uid) === String(rs.uid) && uidsOf(r.body).includes(uid),
        () => false,
      );
      rsOwned.set(String(rs.uid), owned);
    }
    return owned;
  };
}

/** The containers of a pod to read, and the instance each would be read as now. */
function containersToRead(pod: KubeObject, opts: OwnerLogOptions): { name: string; id: string }[] {
  const spec = (pod.spec ?? {}) as Obj;
  const st = (pod.status ?? {}) as Obj;
  const names = ((spec.containers as Obj[] | undefined) ?? []).map((c) => String(c.name));
  const wanted = opts.allContainers
    ? names
    : opts.container
      ? [opts.container]
      : [(pod.metadata?.annotations as Record<string, string> | undefined)?.['kubectl.kubernetes.io/default-container'] ?? names[0]!];
  const out: { name: string; id: string }[] = [];
  for (const name of wanted) {
    const cs = ((st.containerStatuses as Obj[] | undefined) ?? []).find((s) => s?.name === name);
    const last = cs?.lastState?.terminated?.containerID as string | undefined;
    // Only instances that have written something: running or ended (a waiting one has its last).
    const id = opts.previous ? last : cs?.state?.running || cs?.state?.terminated ? (cs?.containerID as string | undefined) : last;
    if (id) out.push({ name, id });
  }
  return out;
}

export async function followOwnerLogs(
  t: KubeTransport,
  namespace: string,
  target: LogOwner,
  opts: OwnerLogOptions,
  hooks: OwnerLogHooks,
  clock: Clock,
  signal?: AbortSignal,
): Promise<OwnerLogEnd> {
  let owner: KubeObject | undefined;
  let selector: string;
  try {
    if (target.kind === 'selector') selector = target.selector;
    else {
      const gvr =
        target.kind === 'deployment' ? { group: 'apps', version: 'v1', resource: 'deployments' } : { group: 'batch', version: 'v1', resource: 'jobs' };
      owner = (await t.getJson<KubeObject>({ path: `${resourcePath(gvr, namespace)}/${encodeURIComponent(target.name)}`, signal })).body;
      selector = selectorString((owner.spec as Obj | undefined)?.selector as Obj | undefined);
    }
  } catch (e) {
    return { kind: 'failed', failure: podLogFailure(e, namespace, signal) };
  }
  const owns = ownership(t, namespace, owner, target.kind, signal);
  const merge = new LogMerge(hooks.onLine, { follow: !!opts.follow, settleMs: opts.settleMs, clock, signal });
  const read = new Set<string>();
  let sources = 0;
  const join = async (pod: KubeObject) => {
    if (!(await owns(pod))) return;
    const name = String(pod.metadata?.name);
    for (const c of containersToRead(pod, opts)) {
      if (read.has(c.id)) continue;
      read.add(c.id);
      const tag = `pod/${name}/${c.name}`;
      const { container: _c, allContainers: _a, settleMs: _s, ...logOpts } = opts;
      const open = await openPodLog(t, namespace, name, { ...logOpts, container: c.name, timestamps: true }, signal, pod);
      if (!open.ok) {
        hooks.onError?.(tag, open.failure);
        continue;
      }
      sources++;
      hooks.onSource?.(tag, open.log.instance.containerID);
      merge.add(tag, open.log.lines);
    }
  };
  const pods = resourcePath({ group: '', version: 'v1', resource: 'pods' }, namespace);
  let rv: string;
  try {
    const list = (
      await t.getJson<{ metadata?: { resourceVersion?: string }; items?: KubeObject[] }>({
        path: pods,
        query: { labelSelector: selector || undefined },
        signal,
      })
    ).body;
    rv = String(list.metadata?.resourceVersion ?? '');
    for (const p of list.items ?? []) await join(p);
  } catch (e) {
    return { kind: 'failed', failure: podLogFailure(e, namespace, signal) };
  }
  merge.start();
  if (opts.follow) {
    // New pods and new instances join until the signal ends the watch; a watch that closes resumes.
    for (;;) {
      if (signal?.aborted) break;
      const end = await watch(
        t,
        { group: '', version: 'v1', resource: 'pods' },
        { namespace, labelSelector: selector || undefined, resourceVersion: rv, allowWatchBookmarks: true, protobuf: false },
        (ev) => {
          rv = String(ev.object.metadata?.resourceVersion ?? rv);
          if (ev.type === 'ADDED' || ev.type === 'MODIFIED') void join(ev.object);
        },
        signal,
      );
      if (end.kind === 'aborted') break;
      if (end.kind === 'expired' || end.kind === 'error') {
        if (end.kind === 'error' && end.error instanceof KubeApiError && end.error.status === 403) {
          hooks.onError?.(`pods`, podLogFailure(end.error, namespace));
          break;
        }
        rv = '';
        if (end.kind === 'error') await clock.sleep(1000, signal).catch(() => undefined);
      }
    }
  }
  merge.close();
  await merge.done();
  return { kind: 'ended', sources };
}
