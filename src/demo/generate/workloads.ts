/**
 * Workloads as the controllers would have left them: Deployments own ReplicaSets (the newest with
 * all the replicas, older ones scaled to 0), ReplicaSets, StatefulSets, DaemonSets and Jobs own
 * their Pods, and Pods are already Running on the nodes (Jobs' pods Succeeded), with the status a
 * kubelet reports. A few pods crash-loop on a failing liveness probe, for the kubelet to keep alive.
 *
 * Pods of one template share their `containers` array (the store freezes it, nobody mutates it):
 * the JSON is the same as with copies, at a fraction of the memory.
 */
import { imageIDFor, normalizeImage } from '../kubelet/ids';
import type { KubeObject } from '../store';
import type { GenContext, GenNode, Obj, Ref } from './context';
import { COMPONENTS, ENV_NAMES, IMAGES, TEAMS } from './names';

export type Emit = (group: string, resource: string, obj: KubeObject) => KubeObject;

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

function podSpec(t: Template, nodeName: string, restartPolicy: string): Obj {
  return {
    containers: t.containers,
    dnsPolicy: 'ClusterFirst',
    nodeName,
    restartPolicy,
    schedulerName: 'default-scheduler',
    serviceAccountName: t.serviceAccount,
    terminationGracePeriodSeconds: 30,
  };
}

const templateSpec = (t: Template, labels: Record<string, string>, restartPolicy = 'Always'): Obj => ({
  metadata: { labels },
  spec: { containers: t.containers, restartPolicy, serviceAccountName: t.serviceAccount },
});

const cond = (type: string, status: string, at: string, reason?: string): Obj =>
  reason ? { lastProbeTime: null, lastTransitionTime: at, reason, status, type } : { lastProbeTime: null, lastTransitionTime: at, status, type };

function podStatus(ctx: GenContext, t: Template, node: GenNode, ip: string, kind: 'running' | 'succeeded' | 'crashloop', startedAgo: number): Obj {
  const r = ctx.rng;
  const start = ctx.ts(startedAgo);
  const running = ctx.ts(startedAgo - 3000);
  const statuses = t.containers.map((c) => {
    const image = String(c.image);
    const cid = `containerd://${r.hex(64)}`;
    const common = { image: normalizeImage(image), imageID: imageIDFor(image) };
    if (kind === 'succeeded') {
      return {
        containerID: cid,
        ...common,
        lastState: {},
        name: c.name,
        ready: false,
        restartCount: 0,
        started: false,
        state: { terminated: { containerID: cid, exitCode: 0, finishedAt: ctx.ts(startedAgo - 40_000), reason: 'Completed', startedAt: running } },
      };
    }
    if (kind === 'crashloop') {
      return {
        containerID: cid,
        ...common,
        name: c.name,
        ready: false,
        restartCount: r.range(3, 40),
        started: false,
        lastState: { terminated: { containerID: cid, exitCode: 137, finishedAt: ctx.ts(60_000), reason: 'Error', startedAt: ctx.ts(70_000) } },
        state: { waiting: { message: `back-off 5m0s restarting failed container=${c.name}`, reason: 'CrashLoopBackOff' } },
      };
    }
    const restarts = r.chance(0.05) ? r.range(1, 4) : 0;
    const last = restarts
      ? { terminated: { containerID: `containerd://${r.hex(64)}`, exitCode: r.pick([1, 137, 143]), finishedAt: running, reason: 'Error', startedAt: start } }
      : {};
    return {
      containerID: cid,
      ...common,
      lastState: last,
      name: c.name,
      ready: true,
      restartCount: restarts,
      started: true,
      state: { running: { startedAt: running } },
    };
  });
  const done = kind === 'succeeded';
  const ready = kind === 'running';
  return {
    conditions: [
      cond('Initialized', 'True', start, done ? 'PodCompleted' : undefined),
      cond('Ready', ready ? 'True' : 'False', running, done ? 'PodCompleted' : ready ? undefined : 'ContainersNotReady'),
      cond('ContainersReady', ready ? 'True' : 'False', running, done ? 'PodCompleted' : ready ? undefined : 'ContainersNotReady'),
      cond('PodScheduled', 'True', start),
    ],
    containerStatuses: statuses,
    hostIP: node.ip,
    hostIPs: [{ ip: node.ip }],
    phase: done ? 'Succeeded' : 'Running',
    podIP: ip,
    podIPs: [{ ip }],
    qosClass: t.containers.every(
      (c) => (c.resources as Obj | undefined)?.limits && JSON.stringify((c.resources as Obj).limits) === JSON.stringify((c.resources as Obj).requests),
    )
      ? 'Guaranteed'
      : 'Burstable',
    startTime: start,
  };
}

/** One pod of template t, owned by owner, on the next node. */
export function pod(
  ctx: GenContext,
  emit: Emit,
  t: Template,
  name: string,
  owner: Ref | undefined,
  labels: Record<string, string>,
  kind: 'running' | 'succeeded' | 'crashloop',
): KubeObject {
  const node = ctx.takeNode();
  const ip = ctx.podIP(node);
  const age = ctx.age();
  const restartPolicy = kind === 'succeeded' ? 'Never' : 'Always';
  const obj: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: ctx.meta(name, t.namespace, { labels, owner }),
    spec: podSpec(t, node.name, restartPolicy),
    status: podStatus(ctx, t, node, ip, kind, age),
  };
  const stored = emit('', 'pods', obj);
  t.pods.push({ name, uid: stored.metadata.uid ?? '', ip, node: node.name });
  return stored;
}

export function deployment(ctx: GenContext, emit: Emit, t: Template, replicas: number): KubeObject {
  return emit('apps', 'deployments', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: ctx.meta(t.app, t.namespace, { labels: t.labels, annotations: { 'deployment.kubernetes.io/revision': String(ctx.rng.range(1, 12)) } }),
    spec: {
      progressDeadlineSeconds: 600,
      replicas,
      revisionHistoryLimit: 10,
      selector: { matchLabels: { app: t.app } },
      strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, type: 'RollingUpdate' },
      template: templateSpec(t, t.labels),
    },
    status: {
      availableReplicas: replicas,
      observedGeneration: 1,
      readyReplicas: replicas,
      replicas,
      updatedReplicas: replicas,
      conditions: [
        {
          lastTransitionTime: ctx.ts(ctx.age()),
          lastUpdateTime: ctx.ts(ctx.age()),
          message: 'Deployment has minimum availability.',
          reason: 'MinimumReplicasAvailable',
          status: 'True',
          type: 'Available',
        },
        {
          lastTransitionTime: ctx.ts(ctx.age()),
          lastUpdateTime: ctx.ts(ctx.age()),
          message: `ReplicaSet "${t.app}" has successfully progressed.`,
          reason: 'NewReplicaSetAvailable',
          status: 'True',
          type: 'Progressing',
        },
      ],
    },
  });
}

export function replicaSet(ctx: GenContext, emit: Emit, t: Template, owner: Ref | undefined, replicas: number): { rs: KubeObject; hash: string } {
  const hash = ctx.rng.suffix(10);
  const labels = { ...t.labels, 'pod-template-hash': hash };
  const rs = emit('apps', 'replicasets', {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: ctx.meta(ctx.exactName(`rs/${t.namespace}`, `${t.app}-${hash}`), t.namespace, {
      labels,
      owner,
      annotations: {
        'deployment.kubernetes.io/desired-replicas': String(replicas),
        'deployment.kubernetes.io/max-replicas': String(replicas + 1),
        'deployment.kubernetes.io/revision': String(ctx.rng.range(1, 12)),
      },
    }),
    spec: { replicas, selector: { matchLabels: { app: t.app, 'pod-template-hash': hash } }, template: templateSpec(t, labels) },
    status: replicas
      ? { availableReplicas: replicas, fullyLabeledReplicas: replicas, observedGeneration: 1, readyReplicas: replicas, replicas }
      : { observedGeneration: 2, replicas: 0 },
  });
  return { rs, hash };
}

export function statefulSet(ctx: GenContext, emit: Emit, t: Template, replicas: number): { sts: KubeObject; revision: string } {
  const revision = `${t.app}-${ctx.rng.suffix(10)}`;
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
      template: templateSpec(t, t.labels),
      updateStrategy: { rollingUpdate: { partition: 0 }, type: 'RollingUpdate' },
    },
    status: {
      availableReplicas: replicas,
      collisionCount: 0,
      currentReplicas: replicas,
      currentRevision: revision,
      observedGeneration: 1,
      readyReplicas: replicas,
      replicas,
      updateRevision: revision,
      updatedReplicas: replicas,
    },
  });
  return { sts, revision };
}

export function daemonSet(ctx: GenContext, emit: Emit, t: Template, desired: number): KubeObject {
  return emit('apps', 'daemonsets', {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: ctx.meta(t.app, t.namespace, { labels: t.labels, annotations: { 'deprecated.daemonset.template.generation': '1' } }),
    spec: {
      revisionHistoryLimit: 10,
      selector: { matchLabels: { app: t.app } },
      template: templateSpec(t, t.labels),
      updateStrategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 }, type: 'RollingUpdate' },
    },
    status: {
      currentNumberScheduled: desired,
      desiredNumberScheduled: desired,
      numberAvailable: desired,
      numberMisscheduled: 0,
      numberReady: desired,
      observedGeneration: 1,
      updatedNumberScheduled: desired,
    },
  });
}

export function cronJob(ctx: GenContext, emit: Emit, t: Template): KubeObject {
  return emit('batch', 'cronjobs', {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: ctx.meta(t.app, t.namespace, { labels: t.labels }),
    spec: {
      concurrencyPolicy: 'Forbid',
      failedJobsHistoryLimit: 1,
      schedule: `${ctx.rng.int(60)} ${ctx.rng.pick(['*', '*/2', '3', '*/6'])} * * *`,
      successfulJobsHistoryLimit: 3,
      suspend: false,
      jobTemplate: { spec: { backoffLimit: 6, template: templateSpec(t, t.labels, 'Never') } },
    },
    status: { lastScheduleTime: ctx.ts(ctx.rng.range(60_000, 3_600_000)), lastSuccessfulTime: ctx.ts(ctx.rng.range(60_000, 3_600_000)) },
  });
}

export function job(ctx: GenContext, emit: Emit, t: Template, owner: Ref | undefined, completions: number): KubeObject {
  const started = ctx.age();
  const uidLabel = ctx.rng.uuid();
  const labels = { 'batch.kubernetes.io/controller-uid': uidLabel, 'batch.kubernetes.io/job-name': t.app, ...t.labels };
  return emit('batch', 'jobs', {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: ctx.meta(owner ? ctx.exactName(`job/${t.namespace}`, `${t.app}-${29_000_000 + ctx.rng.int(900_000)}`) : t.app, t.namespace, { labels, owner }),
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
      completionTime: ctx.ts(started - 40_000),
      ready: 0,
      startTime: ctx.ts(started),
      succeeded: Math.max(1, completions),
      terminating: 0,
      uncountedTerminatedPods: {},
      conditions: [
        {
          lastProbeTime: ctx.ts(started - 40_000),
          lastTransitionTime: ctx.ts(started - 40_000),
          message: 'Reached expected number of succeeded pods',
          reason: 'CompletionsReached',
          status: 'True',
          type: 'SuccessCriteriaMet',
        },
        {
          lastProbeTime: ctx.ts(started - 40_000),
          lastTransitionTime: ctx.ts(started - 40_000),
          message: 'Reached expected number of succeeded pods',
          reason: 'CompletionsReached',
          status: 'True',
          type: 'Complete',
        },
      ],
    },
  });
}

export function controllerRevision(ctx: GenContext, emit: Emit, t: Template, owner: Ref | undefined, name?: string): KubeObject {
  return emit('apps', 'controllerrevisions', {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: ctx.meta(ctx.exactName(`cr/${t.namespace}`, name ?? `${t.app}-${ctx.rng.suffix(10)}`), t.namespace, { labels: t.labels, owner }),
    data: { spec: { template: { $patch: 'replace', metadata: { labels: t.labels }, spec: { containers: t.containers } } } },
    revision: ctx.rng.range(1, 6),
  });
}
