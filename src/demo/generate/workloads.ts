/**
 * Workloads as the controllers would have left them: Deployments own ReplicaSets (the newest with
 * all the replicas, older ones scaled to 0), ReplicaSets, StatefulSets, DaemonSets and Jobs own
 * their Pods, and Pods are already Running on the nodes (Jobs' pods Succeeded), with the status a
 * kubelet reports. A few pods crash-loop on a failing liveness probe, for the kubelet to keep alive.
 *
 * Pods of one template share their `containers` array (the store freezes it, nobody mutates it):
 * the JSON is the same as with copies, at a fraction of the memory.
 */
import { imageIDFor } from '../kubelet/ids';
import type { ContainerSpec } from '../kubelet/probes';
import { buildPodStatus, qosClassOf, type ContainerStatusView } from '../kubelet/status';
import { templateHash } from '../controllers/deployment';
import { parseCron } from '../controllers/cron';
import { kubeTimestamp } from '../kubelet/eventRecorder';
import { applyDefaults, prepareCreate } from '../server/defaults';
import { withUpdateEntry } from '../server/managed-fields';
import type { DemoObject, TypeInfo } from '../store';
import type { GenContext, GenNode, Obj, Ref } from './genContext';
import { COMPONENTS, ENV_NAMES, IMAGES, TEAMS } from './names';

export type Emit = (group: string, resource: string, obj: DemoObject) => DemoObject;

/** A pod template: what a Deployment/StatefulSet/DaemonSet/Job stamps its pods from. */
export interface Template {
  app: string;
  namespace: string;
  labels: Record<string, string>;
  containers: Obj[];
  serviceAccount: string;
  port: number;
  /** Pods created from it so far, for Services and Events to point at. */
  pods: { name: string; uid: string; ip: string; node: string }[];
}

export function template(ctx: GenContext, namespace: string, kind: 'app' | 'job' | 'broken' = 'app'): Template {
  const r = ctx.rng;
  const team = namespace.split('-')[0] ?? r.pick(TEAMS);
  const app = ctx.exactName(`app/${namespace}`, `${team}-${r.pick(COMPONENTS)}`);
  const img = r.pick(IMAGES);
  const image = img.image.replace('{app}', app).replace('{ver}', `${r.range(1, 4)}.${r.range(0, 30)}.${r.range(0, 9)}`);
  const env = Array.from({ length: r.chance(0.5) ? r.range(1, 3) : 0 }, () => {
    const name = r.pick(ENV_NAMES);
    return { name, value: name === 'PORT' ? String(img.port) : `${r.alnum(r.range(4, 12))}` };
  });
  const c: Obj = { name: app.slice(team.length + 1) || 'app', image };
  if (kind === 'broken') {
    c.image = 'registry.k8s.io/e2e-test-images/agnhost:2.47';
    c.args = ['netexec', '--http-port=8080'];
    c.livenessProbe = {
      httpGet: { path: '/healthz', port: 8081, scheme: 'HTTP' },
      periodSeconds: 5,
      failureThreshold: 2,
      timeoutSeconds: 1,
      successThreshold: 1,
    };
  } else if (kind === 'job') {
    c.command = ['/bin/sh', '-c', `echo processing batch ${r.alnum(6)}; sleep ${r.range(2, 30)}`];
    c.image = r.pick(['busybox:1.36', 'python:3.12-slim', 'ghcr.io/acme/etl:2.3.1']);
  } else {
    if (image.includes('agnhost')) c.args = ['netexec', `--http-port=${img.port}`];
    c.ports = [{ containerPort: img.port, name: 'http', protocol: 'TCP' }];
    if (env.length) c.env = env;
    c.readinessProbe = { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 };
    if (r.chance(0.3)) c.livenessProbe = { tcpSocket: { port: img.port }, periodSeconds: 20 };
  }
  const cpu = r.pick(['50m', '100m', '250m', '500m']);
  const mem = r.pick(['64Mi', '128Mi', '256Mi', '512Mi']);
  c.resources = r.chance(0.2) ? { limits: { cpu, memory: mem }, requests: { cpu, memory: mem } } : { limits: { memory: mem }, requests: { cpu, memory: mem } };
  c.imagePullPolicy = 'IfNotPresent';
  const containers: Obj[] = [c];
  if (kind === 'app' && r.chance(0.08)) {
    containers.push({
      name: 'envoy',
      image: 'docker.io/envoyproxy/envoy:v1.31.2',
      ports: [{ containerPort: 9901, name: 'admin', protocol: 'TCP' }],
      resources: { requests: { cpu: '50m', memory: '64Mi' } },
      imagePullPolicy: 'IfNotPresent',
    });
  }
  return {
    app,
    namespace,
    labels: { app, 'app.kubernetes.io/part-of': team },
    containers,
    serviceAccount: r.chance(0.6) ? 'default' : app,
    port: img.port,
    pods: [],
  };
}

function podSpec(t: Template, nodeName: string, restartPolicy: string, extra: Obj = {}): Obj {
  return {
    containers: t.containers,
    dnsPolicy: 'ClusterFirst',
    nodeName,
    restartPolicy,
    schedulerName: 'default-scheduler',
    serviceAccountName: t.serviceAccount,
    terminationGracePeriodSeconds: 30,
    ...extra,
  };
}

const templateSpec = (t: Template, labels: Record<string, string>, restartPolicy = 'Always', extra: Obj = {}): Obj => ({
  metadata: { labels },
  spec: { containers: t.containers, restartPolicy, serviceAccountName: t.serviceAccount, ...extra },
});

const POD_TYPE = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', subresources: ['status'] } as TypeInfo;

/** The containers of a generated pod as the kubelet's status reads them (what its adoption of the pod will find). */
function containerViews(ctx: GenContext, containers: Obj[], kind: 'running' | 'succeeded' | 'crashloop', startedAgo: number): ContainerStatusView[] {
  const r = ctx.rng;
  const start = ctx.ts(startedAgo);
  const running = ctx.ts(startedAgo - 3000);
  return containers.map((spec) => {
    const image = String(spec.image);
    const containerID = `containerd://${r.hex(64)}`;
    const base = { name: String(spec.name), spec: spec as ContainerSpec, imageID: imageIDFor(image), containerID, sidecar: false, completed: false };
    const terminated = (exitCode: number, reason: string, startedAt: string, finishedAt: string, id = containerID) => ({
      exitCode,
      reason,
      startedAt,
      finishedAt,
      containerID: id,
      finishedSim: 0,
    });
    if (kind === 'succeeded') {
      const state = { kind: 'terminated' as const, ...terminated(0, 'Completed', running, ctx.ts(startedAgo - 40_000)) };
      return { ...base, state, ready: false, started: false, restartCount: 0 };
    }
    if (kind === 'crashloop') {
      const message = `back-off 5m0s restarting failed container=${String(spec.name)}`;
      return {
        ...base,
        state: { kind: 'waiting' as const, reason: 'CrashLoopBackOff', message },
        lastTerminated: terminated(137, 'Error', ctx.ts(70_000), ctx.ts(60_000)),
        ready: false,
        started: false,
        restartCount: r.range(3, 40),
      };
    }
    const restartCount = r.chance(0.05) ? r.range(1, 4) : 0;
    const last = restartCount ? terminated(r.pick([1, 137, 143]), 'Error', start, running, `containerd://${r.hex(64)}`) : undefined;
    return {
      ...base,
      state: { kind: 'running' as const, startedAt: running, startedSim: 0 },
      ...(last ? { lastTerminated: last } : {}),
      ready: true,
      started: true,
      restartCount,
    };
  });
}

/**
 * One pod of template t, owned by owner, on `node` (default: the next node): stored as its create
 * left it (defaults, admission's kube-api-access volume and tolerations; the creator's managedFields
 * entry), with the status the kubelet's adoption of it computes (buildPodStatus) and the kubelet's
 * status entry, so neither the kubelet nor a controller has anything to change.
 */
export function pod(
  ctx: GenContext,
  emit: Emit,
  t: Template,
  name: string,
  owner: Ref | undefined,
  labels: Record<string, string>,
  kind: 'running' | 'succeeded' | 'crashloop',
  opts: { node?: GenNode; spec?: Obj } = {},
): DemoObject {
  const node = opts.node ?? ctx.takeNode();
  const ip = ctx.podIP(node);
  const age = ctx.age();
  const restartPolicy = kind === 'succeeded' ? 'Never' : 'Always';
  const given: DemoObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: ctx.meta(name, t.namespace, { labels, owner }),
    spec: podSpec(t, node.name, restartPolicy, opts.spec),
  };
  // A controller's pod is kube-controller-manager's; a bare one its author's (kubectl).
  const created = prepareCreate(POD_TYPE, given, owner ? 'kube-controller-manager' : 'kubectl-create', ctx.ts(age), ctx.rng.suffix(5));
  const spec = created.spec as Obj;
  const views = containerViews(ctx, spec.containers as Obj[], kind, age);
  const status = buildPodStatus(undefined, {
    containers: views,
    initContainers: [],
    restartPolicy,
    hostIP: node.ip,
    podIP: ip,
    sandboxReady: true,
    startTime: ctx.ts(age),
    qosClass: qosClassOf(spec.containers as ContainerSpec[]),
    observedGeneration: 1,
    now: ctx.ts(age - 3000),
  });
  const write = { manager: 'kubelet', apiVersion: 'v1', time: ctx.ts(age - 3000), subresource: 'status' as const };
  const stored = emit('', 'pods', withUpdateEntry(created, { ...created, status }, write, true));
  t.pods.push({ name, uid: stored.metadata.uid ?? '', ip, node: node.name });
  return stored;
}

const TYPE = (group: string, resource: string, kind: string) => ({ group, version: 'v1', resource, kind }) as TypeInfo;
const DEPLOYMENTS = TYPE('apps', 'deployments', 'Deployment');
const STATEFULSETS = TYPE('apps', 'statefulsets', 'StatefulSet');
const DAEMONSETS = TYPE('apps', 'daemonsets', 'DaemonSet');
/** A template's hash as its controller computes it: over the template as stored (defaults applied). */
const hashOf = (type: TypeInfo, template: Obj) =>
  templateHash((applyDefaults(type, { apiVersion: 'apps/v1', kind: type.kind, metadata: { name: 'x' }, spec: { template } }).spec as Obj).template as Obj);
const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

/**
 * The pod template of revision `revision` of `revisions` of a Deployment: each rollout after the
 * first a `kubectl rollout restart` (its restartedAt annotation), so every revision's template differs.
 */
function revisionTemplate(ctx: GenContext, t: Template, revision: number, revisions: number, labels: Record<string, string>): Obj {
  const tmpl = templateSpec(t, labels);
  if (revision <= 1) return tmpl;
  const at = ctx.ts((revisions - revision + 1) * 86_400_000);
  return { ...tmpl, metadata: { ...(tmpl.metadata as Obj), annotations: { [RESTARTED_AT]: at } } };
}

/** A Deployment at rest with `revisions` ReplicaSets (the newest holding every replica); returns it and its newest set's hash. */
export function deployment(ctx: GenContext, emit: Emit, t: Template, replicas: number, revisions: number): { deploy: DemoObject; hash: string } {
  const template = revisionTemplate(ctx, t, revisions, revisions, t.labels);
  const hash = hashOf(DEPLOYMENTS, template);
  const at = ctx.ts(ctx.age());
  const cond = (type: string, reason: string, message: string) => ({ type, status: 'True', lastUpdateTime: at, lastTransitionTime: at, reason, message });
  const status: Obj = { observedGeneration: 1 };
  if (replicas) Object.assign(status, { replicas, updatedReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas });
  status.terminatingReplicas = 0;
  status.conditions = [
    cond('Available', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'),
    cond('Progressing', 'NewReplicaSetAvailable', `ReplicaSet "${t.app}-${hash}" has successfully progressed.`),
  ];
  const deploy = emit('apps', 'deployments', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: ctx.meta(t.app, t.namespace, { labels: t.labels, annotations: { 'deployment.kubernetes.io/revision': String(Math.max(1, revisions)) } }),
    spec: {
      progressDeadlineSeconds: 600,
      replicas,
      revisionHistoryLimit: 10,
      selector: { matchLabels: { app: t.app } },
      strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, type: 'RollingUpdate' },
      template,
    },
    status,
  });
  return { deploy, hash };
}

/**
 * Revision `revision` of `revisions` of a Deployment's ReplicaSets (the newest holds the replicas,
 * older ones are scaled to 0), or a ReplicaSet of its own (no owner: revision 1 of 1).
 */
export function replicaSet(
  ctx: GenContext,
  emit: Emit,
  t: Template,
  owner: Ref | undefined,
  replicas: number,
  revision = 1,
  revisions = 1,
): { rs: DemoObject; hash: string } {
  const template = revisionTemplate(ctx, t, revision, revisions, t.labels);
  const hash = hashOf(DEPLOYMENTS, template);
  const labels = { ...t.labels, 'pod-template-hash': hash };
  const status: Obj = { replicas };
  if (replicas) Object.assign(status, { fullyLabeledReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas });
  Object.assign(status, { terminatingReplicas: 0, observedGeneration: 1 });
  const desired = revision === revisions ? replicas : 0;
  const rs = emit('apps', 'replicasets', {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: ctx.meta(ctx.exactName(`rs/${t.namespace}`, `${t.app}-${hash}`), t.namespace, {
      labels,
      owner,
      annotations: {
        'deployment.kubernetes.io/desired-replicas': String(desired),
        'deployment.kubernetes.io/max-replicas': String(desired + Math.ceil(desired / 4)),
        'deployment.kubernetes.io/revision': String(revision),
      },
    }),
    spec: {
      replicas,
      selector: { matchLabels: { app: t.app, 'pod-template-hash': hash } },
      template: { ...template, metadata: { ...(template.metadata as Obj), labels } },
    },
    status,
  });
  return { rs, hash };
}

export function statefulSet(ctx: GenContext, emit: Emit, t: Template, replicas: number): { sts: DemoObject; revision: string } {
  const template = templateSpec(t, t.labels);
  const revision = `${t.app}-${hashOf(STATEFULSETS, template)}`;
  const status: Obj = { observedGeneration: 1 };
  if (replicas) Object.assign(status, { replicas, readyReplicas: replicas, currentReplicas: replicas, updatedReplicas: replicas });
  Object.assign(status, { availableReplicas: replicas, currentRevision: revision, updateRevision: revision, collisionCount: 0 });
  const sts = emit('apps', 'statefulsets', {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: ctx.meta(t.app, t.namespace, { labels: t.labels }),
    spec: {
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      podManagementPolicy: 'OrderedReady',
      replicas,
      revisionHistoryLimit: 10,
      selector: { matchLabels: { app: t.app } },
      serviceName: t.app,
      template,
      updateStrategy: { rollingUpdate: { partition: 0 }, type: 'RollingUpdate' },
    },
    status,
  });
  return { sts, revision };
}

/** The nodeSelector of a DaemonSet meant for GPU nodes, which the generated cluster has none of. */
export const GPU_NODES = { 'nvidia.com/gpu.present': 'true' };

/** A DaemonSet on every node (`nodes` of them), or with gpuOnly on none (a GPU node selector); returns it and its template hash. */
export function daemonSet(ctx: GenContext, emit: Emit, t: Template, nodes: number, gpuOnly: boolean): { ds: DemoObject; hash: string } {
  const template = templateSpec(t, t.labels, 'Always', gpuOnly ? { nodeSelector: GPU_NODES } : {});
  const hash = hashOf(DAEMONSETS, template);
  const n = gpuOnly ? 0 : nodes;
  const status: Obj = { currentNumberScheduled: n, desiredNumberScheduled: n, numberMisscheduled: 0, numberReady: n, observedGeneration: 1 };
  if (n) Object.assign(status, { updatedNumberScheduled: n, numberAvailable: n });
  const ds = emit('apps', 'daemonsets', {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: ctx.meta(t.app, t.namespace, { labels: t.labels, annotations: { 'deprecated.daemonset.template.generation': '1' } }),
    spec: {
      revisionHistoryLimit: 10,
      selector: { matchLabels: { app: t.app } },
      template,
      updateStrategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 }, type: 'RollingUpdate' },
    },
    status,
  });
  return { ds, hash };
}

/** The affinity the daemonset controller pins a daemon pod to its node with. */
export const pinnedTo = (node: string): Obj => ({
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] },
    },
  },
});

/**
 * A CronJob whose last run is its schedule's latest time before now, with `runs` finished Jobs
 * behind it (the newest at that time): returns it and its runs' scheduled times, newest first.
 */
export function cronJob(ctx: GenContext, emit: Emit, t: Template, runs: number): { cj: DemoObject; times: number[] } {
  const schedule = `${ctx.rng.int(60)} ${ctx.rng.pick(['*', '*/2', '3', '*/6'])} * * *`;
  const cron = parseCron(schedule);
  const times: number[] = [];
  for (let at = ctx.now; times.length < Math.max(1, runs);) {
    const prev = cron.prev(at);
    if (prev === undefined) break;
    times.push(prev);
    at = prev - 1;
  }
  const status: Obj = { lastScheduleTime: kubeTimestamp(times[0]!) };
  if (runs > 0) status.lastSuccessfulTime = kubeTimestamp(jobTimes(ctx, times[0]!).completion);
  const cj = emit('batch', 'cronjobs', {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: ctx.meta(t.app, t.namespace, { labels: t.labels }),
    spec: {
      concurrencyPolicy: 'Forbid',
      failedJobsHistoryLimit: 1,
      schedule,
      successfulJobsHistoryLimit: 3,
      suspend: false,
      jobTemplate: { spec: { backoffLimit: 6, template: templateSpec(t, t.labels, 'Never') } },
    },
    status,
  });
  return { cj, times: times.slice(0, runs) };
}

/** When a Job scheduled at `at` started and completed (a run of 40 s, never after now). */
function jobTimes(ctx: GenContext, at: number): { start: number; completion: number } {
  const start = Math.min(at + 1000, ctx.now);
  return { start, completion: Math.min(start + 40_000, ctx.now) };
}

/** A finished Job; a CronJob's run when `scheduledAt` is given (named after it, as the cronjob controller names it). */
export function job(ctx: GenContext, emit: Emit, t: Template, owner: Ref | undefined, completions: number, scheduledAt?: number): DemoObject {
  const times =
    scheduledAt !== undefined
      ? jobTimes(ctx, scheduledAt)
      : (() => {
          const start = ctx.now - ctx.age();
          return { start, completion: start + 40_000 };
        })();
  const done = kubeTimestamp(times.completion);
  const uidLabel = ctx.rng.uuid();
  const labels = { 'batch.kubernetes.io/controller-uid': uidLabel, 'batch.kubernetes.io/job-name': t.app, ...t.labels };
  const name = owner && scheduledAt !== undefined ? ctx.exactName(`job/${t.namespace}`, `${t.app}-${Math.floor(scheduledAt / 60_000)}`) : t.app;
  const cond = (type: string) => ({
    lastProbeTime: done,
    lastTransitionTime: done,
    message: 'Reached expected number of succeeded pods',
    reason: 'CompletionsReached',
    status: 'True',
    type,
  });
  return emit('batch', 'jobs', {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: ctx.meta(name, t.namespace, { labels, owner }),
    spec: {
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      completions: Math.max(1, completions),
      manualSelector: false,
      parallelism: 1,
      podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uidLabel } },
      suspend: false,
      template: templateSpec(t, labels, 'Never'),
    },
    status: {
      completionTime: done,
      ready: 0,
      startTime: kubeTimestamp(times.start),
      succeeded: Math.max(1, completions),
      terminating: 0,
      uncountedTerminatedPods: {},
      conditions: [cond('SuccessCriteriaMet'), cond('Complete')],
    },
  });
}

export function controllerRevision(ctx: GenContext, emit: Emit, t: Template, owner: Ref | undefined, name?: string): DemoObject {
  return emit('apps', 'controllerrevisions', {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: ctx.meta(ctx.exactName(`cr/${t.namespace}`, name ?? `${t.app}-${ctx.rng.suffix(10)}`), t.namespace, { labels: t.labels, owner }),
    data: { spec: { template: { $patch: 'replace', metadata: { labels: t.labels }, spec: { containers: t.containers } } } },
    revision: ctx.rng.range(1, 6),
  });
}
