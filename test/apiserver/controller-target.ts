/**
 * What the controller scenarios (./controller-scenarios.ts) share: the target they run against
 * (a request function, a watch, a kubeconfig for kubectl), waits for states (never for time),
 * object builders, and the defaulted pod template both servers store.
 */
import assert from 'node:assert/strict';
import { eventually } from '../support/eventually';
import { runKubectl } from '../support/kubectl';
import type { Answer } from './facts';

export type Obj = Record<string, any>;

export interface ControllerTarget {
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /**
   * Streams a watch (path includes watch=1): onEvent for every event, in order, until the signal
   * aborts (resolves then) or the server ends it (resolves too).
   */
  watch(path: string, signal: AbortSignal, onEvent: (type: string, object: Obj) => void): Promise<void>;
  kubeconfig: string;
}

export interface ControllerScenario {
  name: string;
  /** Set while the scenario cannot run yet, with the reason (node:test reports it as skipped). */
  skip?: string;
  run(t: ControllerTarget, ns: string): Promise<void>;
}

/** Generous: the machine is shared, and the Job controller's pod back-off is 10 s on a real one. */
const WAIT_MS = 150_000;
export const KUBECTL_WAIT = '150s';
export const MERGE = { 'Content-Type': 'application/merge-patch+json' };

export async function must(
  t: ControllerTarget,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
  want = [200, 201],
): Promise<any> {
  const r = await t.request(method, path, body, headers);
  assert.ok(want.includes(r.status), `${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

/** kubectl that must succeed; returns stdout. */
export async function kubectl(t: ControllerTarget, ns: string, ...args: string[]): Promise<string> {
  const r = await runKubectl(['-n', ns, ...args], { kubeconfig: t.kubeconfig, timeoutMs: 200_000 });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed (${r.code}):\n${r.stderr}`);
  return r.stdout;
}

export function until<T>(what: string, check: () => Promise<T | undefined | false>): Promise<NonNullable<T>> {
  return eventually(check, { description: what, timeoutMs: WAIT_MS, maxIntervalMs: 250 }) as Promise<NonNullable<T>>;
}

export const cond = (o: Obj | undefined, type: string): Obj | undefined => o?.status?.conditions?.find((c: Obj) => c.type === type);
export const apps = (ns: string, r: string) => `/apis/apps/v1/namespaces/${ns}/${r}`;
export const batch = (ns: string) => `/apis/batch/v1/namespaces/${ns}/jobs`;
export const core = (ns: string, r: string) => `/api/v1/namespaces/${ns}/${r}`;
export const sel = (app: string) => `labelSelector=${encodeURIComponent(`app=${app}`)}`;

export function deployment(name: string, replicas: number, strategy?: Obj): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
      ...(strategy ? { strategy } : {}),
    },
  };
}

/** Waits until the Deployment's status says all `replicas` are updated and available for its generation. */
export async function available(t: ControllerTarget, ns: string, name: string, replicas: number): Promise<Obj> {
  return until(`deployment ${name} Available with ${replicas} replicas`, async () => {
    const d = await must(t, 'GET', `${apps(ns, 'deployments')}/${name}`);
    const s = d.status ?? {};
    const done =
      s.observedGeneration === d.metadata.generation &&
      (s.replicas ?? 0) === replicas &&
      (s.updatedReplicas ?? 0) === replicas &&
      (s.readyReplicas ?? 0) === replicas &&
      (s.availableReplicas ?? 0) === replicas &&
      cond(d, 'Available')?.status === 'True' &&
      cond(d, 'Progressing')?.reason === 'NewReplicaSetAvailable';
    if (!done) throw new Error(`status ${JSON.stringify(s)}`);
    return d;
  });
}

export async function livePods(t: ControllerTarget, ns: string, app: string): Promise<Obj[]> {
  return (await must(t, 'GET', `${core(ns, 'pods')}?${sel(app)}`)).items.filter((p: Obj) => !p.metadata.deletionTimestamp);
}

/** Waits until a Job's status has a `type` condition that is True. */
export function jobCondition(t: ControllerTarget, ns: string, name: string, type: string): Promise<Obj> {
  return until(`job ${name} ${type}`, async () => {
    const j = await must(t, 'GET', `${batch(ns)}/${name}`);
    if (cond(j, type)?.status !== 'True') throw new Error(`status ${JSON.stringify(j.status)}`);
    return j;
  });
}

export function job(name: string, script: string, spec: Obj): Obj {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: { ...spec, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', script] }] } } },
  };
}

/** Waits until the namespace has an Event of this reason about this object; resolves with it. */
export function eventAbout(t: ControllerTarget, ns: string, kind: string, name: string, reason: string): Promise<Obj> {
  return until(`a ${reason} event about ${kind} ${name}`, async () => {
    const fs = encodeURIComponent(`involvedObject.kind=${kind},involvedObject.name=${name},reason=${reason}`);
    return (await must(t, 'GET', `${core(ns, 'events')}?fieldSelector=${fs}`)).items[0];
  });
}

/** What both a core/v1 recorder's and the controller manager's Events say: reason, type, message, component. */
export const said = (e: Obj) => [e.type, e.reason, e.message, e.source?.component, e.reportingComponent];

/** A pod template's spec as the apiserver's defaulting leaves it (SetDefaults_PodSpec; no admission defaults). */
export const TEMPLATE_SPEC = (name: string, image: string, command?: string[]): Obj => ({
  containers: [
    {
      name,
      image,
      ...(command ? { command } : {}),
      resources: {},
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      imagePullPolicy: 'IfNotPresent',
    },
  ],
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  securityContext: {},
  schedulerName: 'default-scheduler',
});

/** The condition types of an object, in the order the controller wrote them. */
export const conditionTypes = (o: Obj) => (o.status?.conditions ?? []).map((c: Obj) => c.type);

/** Creates the scenario's namespace and waits until it is Active. */
export async function prepareNamespace(t: ControllerTarget, ns: string): Promise<void> {
  await must(t, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await until(`namespace ${ns} Active`, async () => (await must(t, 'GET', `/api/v1/namespaces/${ns}`)).status?.phase === 'Active');
}
