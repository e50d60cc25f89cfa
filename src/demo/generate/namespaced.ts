/**
 * Builders for the namespaced types around the workloads: config, identity, networking, storage
 * claims, policy, RBAC and Events. Objects that name a workload (a Service selecting an app, an
 * Event about a pod) point at one the generator really created in the same namespace.
 */
import type { DemoObject } from '../store';
import type { GenContext, Obj } from './genContext';
import { COMPONENTS } from './names';
import type { Template } from './workloads';

export interface Links {
  /** Templates (with their pods) per namespace. */
  templates: Map<string, Template[]>;
}

type Builder = (ctx: GenContext, ns: string, links: Links) => DemoObject;

function someTemplate(ctx: GenContext, ns: string, links: Links): Template | undefined {
  const ts = links.templates.get(ns);
  return ts && ts.length ? ctx.rng.pick(ts) : undefined;
}

const baseName = (ctx: GenContext, ns: string, links: Links) => someTemplate(ctx, ns, links)?.app ?? `${ns.split('-')[0]}-${ctx.rng.pick(COMPONENTS)}`;

const configMap: Builder = (ctx, ns, links) => {
  const r = ctx.rng;
  const app = baseName(ctx, ns, links);
  const data: Record<string, string> = {};
  for (let i = r.range(1, 2); i > 0; i--) {
    const key = r.pick(['application.yaml', 'config.json', 'LOG_LEVEL', 'nginx.conf', 'settings.ini', 'FEATURES', 'endpoints.txt']);
    data[key] = key.includes('.') ? `port: ${r.range(8000, 9000)}\ntimeout: ${r.range(1, 60)}s\nfeatures: [${r.alnum(6)}]\n` : r.alnum(r.range(4, 16));
  }
  const name = ctx.name(`cm/${ns}`, `${app}-config`, 8);
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: ctx.meta(name, ns, { labels: { app } }), data };
};

const secret: Builder = (ctx, ns, links) => {
  const r = ctx.rng;
  const app = baseName(ctx, ns, links);
  const tls = r.chance(0.25);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: ctx.meta(ctx.name(`secret/${ns}`, tls ? `${app}-tls` : `${app}-credentials`, 5), ns, { labels: { app } }),
    type: tls ? 'kubernetes.io/tls' : 'Opaque',
    data: tls ? { 'tls.crt': r.base64(150), 'tls.key': r.base64(90) } : { username: r.base64(9), password: r.base64(24) },
  };
};

const serviceAccount: Builder = (ctx, ns, links) => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: ctx.meta(ctx.exactName(`sa/${ns}`, baseName(ctx, ns, links)), ns),
});

const service: Builder = (ctx, ns, links) => {
  const t = someTemplate(ctx, ns, links);
  const app = t?.app ?? baseName(ctx, ns, links);
  const port = t?.port ?? 8080;
  const headless = ctx.rng.chance(0.1);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: ctx.meta(ctx.exactName(`svc/${ns}`, app), ns, { labels: { app } }),
    spec: {
      clusterIP: headless ? 'None' : `10.96.${ctx.rng.int(256)}.${ctx.rng.range(1, 254)}`,
      clusterIPs: [headless ? 'None' : `10.96.${ctx.rng.int(256)}.${ctx.rng.range(1, 254)}`],
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: port }],
      selector: { app },
      sessionAffinity: 'None',
      type: 'ClusterIP',
    },
    status: { loadBalancer: {} },
  };
};

/** Endpoints and EndpointSlices name the pods of the app a Service of the same name selects. */
function backends(ctx: GenContext, ns: string, links: Links) {
  const t = someTemplate(ctx, ns, links);
  const app = t?.app ?? baseName(ctx, ns, links);
  return { app, port: t?.port ?? 8080, pods: (t?.pods ?? []).slice(0, 4) };
}

const endpoints: Builder = (ctx, ns, links) => {
  const b = backends(ctx, ns, links);
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: ctx.meta(ctx.exactName(`ep/${ns}`, b.app), ns, { labels: { app: b.app } }),
    subsets: [
      {
        addresses: b.pods.map((p) => ({ ip: p.ip, nodeName: p.node, targetRef: { kind: 'Pod', name: p.name, namespace: ns, uid: p.uid } })),
        ports: [{ name: 'http', port: b.port, protocol: 'TCP' }],
      },
    ],
  };
};

const endpointSlice: Builder = (ctx, ns, links) => {
  const b = backends(ctx, ns, links);
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: ctx.meta(ctx.name(`eps/${ns}`, b.app), ns, {
      labels: { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', 'kubernetes.io/service-name': b.app },
    }),
    addressType: 'IPv4',
    endpoints: b.pods.map((p) => ({
      addresses: [p.ip],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: p.node,
      targetRef: { kind: 'Pod', name: p.name, namespace: ns, uid: p.uid },
    })),
    ports: [{ name: 'http', port: b.port, protocol: 'TCP' }],
  };
};

const ingress: Builder = (ctx, ns, links) => {
  const app = baseName(ctx, ns, links);
  const host = `${app}.${ns}.example.com`;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: ctx.meta(ctx.exactName(`ing/${ns}`, app), ns, { annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt-prod' } }),
    spec: {
      ingressClassName: 'nginx',
      rules: [{ host, http: { paths: [{ backend: { service: { name: app, port: { number: 80 } } }, path: '/', pathType: 'Prefix' }] } }],
      tls: [{ hosts: [host], secretName: `${app}-tls` }],
    },
    status: { loadBalancer: { ingress: [{ ip: `203.0.113.${ctx.rng.range(1, 254)}` }] } },
  };
};

const networkPolicy: Builder = (ctx, ns, links) => {
  const app = baseName(ctx, ns, links);
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: ctx.meta(ctx.name(`np/${ns}`, `allow-${app}`), ns),
    spec: {
      ingress: [{ from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/part-of': ns.split('-')[0]! } } }], ports: [{ port: 8080, protocol: 'TCP' }] }],
      podSelector: { matchLabels: { app } },
      policyTypes: ['Ingress'],
    },
  };
};

const role: Builder = (ctx, ns, links) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: ctx.meta(ctx.name(`role/${ns}`, `${baseName(ctx, ns, links)}-reader`, 4), ns),
  rules: [
    { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
  ],
});

const roleBinding: Builder = (ctx, ns, links) => {
  const app = baseName(ctx, ns, links);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: ctx.meta(ctx.name(`rb/${ns}`, `${app}-reader`, 4), ns),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${app}-reader` },
    subjects: [{ kind: 'ServiceAccount', name: app, namespace: ns }],
  };
};

const lease: Builder = (ctx, ns, links) => {
  const app = baseName(ctx, ns, links);
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: ctx.meta(ctx.name(`lease/${ns}`, `${app}-leader`, 4), ns),
    spec: {
      acquireTime: ctx.ts(ctx.age()).replace('Z', '.000000Z'),
      holderIdentity: `${app}-${ctx.rng.suffix(10)}-${ctx.rng.suffix()}`,
      leaseDurationSeconds: 15,
      leaseTransitions: ctx.rng.int(9),
      renewTime: ctx.ts(2000).replace('Z', '.000000Z'),
    },
  };
};

const pvc: Builder = (ctx, ns, links) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: ctx.meta(ctx.name(`pvc/${ns}`, `data-${baseName(ctx, ns, links)}`, 4), ns, {
    annotations: { 'pv.kubernetes.io/bind-completed': 'yes', 'volume.kubernetes.io/storage-provisioner': 'rancher.io/local-path' },
  }),
  spec: {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: ctx.rng.pick(['1Gi', '5Gi', '10Gi', '50Gi']) } },
    storageClassName: 'standard',
    volumeMode: 'Filesystem',
    volumeName: `pvc-${ctx.rng.uuid()}`,
  },
  status: { accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' }, phase: 'Bound' },
});

const resourceQuota: Builder = (ctx, ns) => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: ctx.meta(ctx.name(`quota/${ns}`, 'compute', 4), ns),
  spec: { hard: { 'limits.memory': '64Gi', pods: '200', 'requests.cpu': '32', 'requests.memory': '64Gi' } },
  status: {
    hard: { 'limits.memory': '64Gi', pods: '200', 'requests.cpu': '32', 'requests.memory': '64Gi' },
    used: {
      'limits.memory': `${ctx.rng.range(1, 60)}Gi`,
      pods: String(ctx.rng.range(1, 150)),
      'requests.cpu': String(ctx.rng.range(1, 30)),
      'requests.memory': `${ctx.rng.range(1, 60)}Gi`,
    },
  },
});

const limitRange: Builder = (ctx, ns) => ({
  apiVersion: 'v1',
  kind: 'LimitRange',
  metadata: ctx.meta(ctx.name(`limits/${ns}`, 'default-limits', 4), ns),
  spec: { limits: [{ default: { cpu: '500m', memory: '512Mi' }, defaultRequest: { cpu: '100m', memory: '128Mi' }, type: 'Container' }] },
});

const pdb: Builder = (ctx, ns, links) => {
  const app = baseName(ctx, ns, links);
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: ctx.meta(ctx.exactName(`pdb/${ns}`, app), ns),
    spec: { maxUnavailable: 1, selector: { matchLabels: { app } } },
    status: { currentHealthy: 2, desiredHealthy: 1, disruptionsAllowed: 1, expectedPods: 2, observedGeneration: 1 },
  };
};

const hpa: Builder = (ctx, ns, links) => {
  const app = baseName(ctx, ns, links);
  const cur = ctx.rng.range(2, 8);
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: ctx.meta(ctx.exactName(`hpa/${ns}`, app), ns),
    spec: {
      maxReplicas: 10,
      metrics: [{ resource: { name: 'cpu', target: { averageUtilization: 70, type: 'Utilization' } }, type: 'Resource' }],
      minReplicas: 2,
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: app },
    },
    status: {
      currentMetrics: [
        { resource: { current: { averageUtilization: ctx.rng.range(10, 90), averageValue: `${ctx.rng.range(5, 400)}m` }, name: 'cpu' }, type: 'Resource' },
      ],
      currentReplicas: cur,
      desiredReplicas: cur,
    },
  };
};

const POD_EVENTS: [string, string, (c: string, img: string, ip: string) => string][] = [
  ['Normal', 'Pulled', (_c, img) => `Container image "${img}" already present on machine`],
  ['Normal', 'Created', (c) => `Created container: ${c}`],
  ['Normal', 'Started', (c) => `Started container ${c}`],
  ['Normal', 'Killing', (c) => `Stopping container ${c}`],
  [
    'Warning',
    'Unhealthy',
    (_c, _i, ip) => `Readiness probe failed: Get "http://${ip}:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
  ],
  ['Warning', 'BackOff', (c) => `Back-off restarting failed container ${c}`],
];

/** Core Events, mostly about the namespace's pods, as the kubelet and controllers emit them. */
const event: Builder = (ctx, ns, links) => {
  const r = ctx.rng;
  const t = someTemplate(ctx, ns, links);
  const p = t && t.pods.length ? r.pick(t.pods) : undefined;
  const count = r.chance(0.8) ? 1 : r.range(2, 40);
  const last = r.range(5_000, 3_600_000);
  const first = last + (count > 1 ? r.range(60_000, 7_200_000) : 0);
  let involved: Obj;
  let reason: string;
  let message: string;
  let type = 'Normal';
  let source: Obj;
  if (p && t) {
    const c = String(t.containers[0]!.name);
    const [ty, rs, msg] = r.pick(POD_EVENTS);
    involved = { apiVersion: 'v1', fieldPath: `spec.containers{${c}}`, kind: 'Pod', name: p.name, namespace: ns, uid: p.uid };
    type = ty;
    reason = rs;
    message = msg(c, String(t.containers[0]!.image), p.ip);
    source = { component: 'kubelet', host: p.node };
  } else {
    const app = t?.app ?? baseName(ctx, ns, links);
    involved = { apiVersion: 'apps/v1', kind: 'Deployment', name: app, namespace: ns, uid: r.uuid() };
    reason = 'ScalingReplicaSet';
    message = `Scaled up replica set ${app}-${r.suffix(10)} from 0 to ${r.range(1, 5)}`;
    source = { component: 'deployment-controller' };
  }
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: ctx.meta(ctx.exactName(`ev/${ns}`, `${involved.name}.${(BigInt(ctx.now - last) * 1_000_000n + BigInt(r.int(1_000_000))).toString(16)}`), ns),
    count,
    eventTime: null,
    firstTimestamp: ctx.ts(first),
    involvedObject: involved,
    lastTimestamp: ctx.ts(last),
    message,
    reason,
    reportingComponent: String(source.component),
    reportingInstance: String(source.host ?? ''),
    source,
    type,
  };
};

/** events.k8s.io/v1 Events (the newer API the scheduler writes). */
const eventV1: Builder = (ctx, ns, links) => {
  const t = someTemplate(ctx, ns, links);
  const p = t && t.pods.length ? ctx.rng.pick(t.pods) : undefined;
  const name = p?.name ?? baseName(ctx, ns, links);
  const at = ctx.rng.range(60_000, 3_600_000);
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: ctx.meta(ctx.exactName(`evv1/${ns}`, `${name}.${(BigInt(ctx.now - at) * 1_000_000n).toString(16)}`), ns),
    action: 'Binding',
    eventTime: ctx.ts(at).replace('Z', '.000000Z'),
    note: `Successfully assigned ${ns}/${name} to ${p?.node ?? 'demo-node-1'}`,
    reason: 'Scheduled',
    regarding: { apiVersion: 'v1', kind: 'Pod', name, namespace: ns, uid: p?.uid ?? ctx.rng.uuid() },
    reportingController: 'default-scheduler',
    reportingInstance: `default-scheduler-${ctx.rng.suffix(8)}`,
    type: 'Normal',
  };
};

const podTemplate: Builder = (ctx, ns, links) => {
  const app = baseName(ctx, ns, links);
  return {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: ctx.meta(ctx.name(`pt/${ns}`, app, 4), ns),
    template: {
      metadata: { labels: { app } },
      spec: { containers: [{ image: 'busybox:1.36', name: 'main', command: ['sleep', '3600'] }], restartPolicy: 'Always' },
    },
  };
};

const replicationController: Builder = (ctx, ns, links) => {
  const app = baseName(ctx, ns, links);
  return {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: ctx.meta(ctx.name(`rc/${ns}`, `legacy-${app}`, 4), ns, { labels: { app } }),
    spec: {
      replicas: 0,
      selector: { app: `legacy-${app}` },
      template: { metadata: { labels: { app: `legacy-${app}` } }, spec: { containers: [{ image: 'nginx:1.27.3', name: 'web' }] } },
    },
    status: { observedGeneration: 1, replicas: 0 },
  };
};

export const NAMESPACED: Record<string, Builder> = {
  '/configmaps': configMap,
  '/secrets': secret,
  '/serviceaccounts': serviceAccount,
  '/services': service,
  '/endpoints': endpoints,
  'discovery.k8s.io/endpointslices': endpointSlice,
  'networking.k8s.io/ingresses': ingress,
  'networking.k8s.io/networkpolicies': networkPolicy,
  'rbac.authorization.k8s.io/roles': role,
  'rbac.authorization.k8s.io/rolebindings': roleBinding,
  'coordination.k8s.io/leases': lease,
  '/persistentvolumeclaims': pvc,
  '/resourcequotas': resourceQuota,
  '/limitranges': limitRange,
  'policy/poddisruptionbudgets': pdb,
  'autoscaling/horizontalpodautoscalers': hpa,
  '/events': event,
  'events.k8s.io/events': eventV1,
  '/podtemplates': podTemplate,
  '/replicationcontrollers': replicationController,
};
