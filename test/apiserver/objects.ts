/**
 * Valid objects of many built-in types, for seeding a real kube-apiserver. Each maker returns an
 * object the server accepts with no controller running: pods stay Pending (no kubelet),
 * deployments make no ReplicaSets and jobs no pods (no controller-manager), services are headless
 * (the loopback service CIDR holds only 254 cluster IPs).
 */
import { Api, collectionPath, mapLimit } from './support';

export interface SeedType {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
  make(name: string, namespace: string | undefined, i: number): Record<string, unknown>;
}

const labels = (i: number) => ({ 'app.kubernetes.io/name': `app-${i % 5}`, tier: i % 2 ? 'back' : 'front' });
const podSpec = (i: number) => ({ containers: [{ name: 'c', image: `registry.k8s.io/pause:3.${i % 10}` }] });
const template = (i: number, restartPolicy?: string) => ({
  metadata: { labels: { app: `app-${i}` } },
  spec: { ...podSpec(i), ...(restartPolicy ? { restartPolicy } : {}) },
});
const meta = (name: string, namespace: string | undefined, i: number) => ({ name, ...(namespace ? { namespace } : {}), labels: labels(i) });

export const NAMESPACED: SeedType[] = [
  {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    namespaced: true,
    make: (n, ns, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(n, ns, i), data: { index: String(i), text: 'x'.repeat(i % 200) } }),
  },
  {
    group: '',
    version: 'v1',
    resource: 'secrets',
    namespaced: true,
    make: (n, ns, i) => ({ apiVersion: 'v1', kind: 'Secret', metadata: meta(n, ns, i), type: 'Opaque', stringData: { password: `not-a-real-secret-${i}` } }),
  },
  {
    group: '',
    version: 'v1',
    resource: 'services',
    namespaced: true,
    make: (n, ns, i) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(n, ns, i),
      spec: { clusterIP: 'None', selector: { app: `app-${i}` }, ports: [{ port: 80 + (i % 10) }] },
    }),
  },
  {
    group: '',
    version: 'v1',
    resource: 'serviceaccounts',
    namespaced: true,
    make: (n, ns, i) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(n, ns, i) }),
  },
  {
    group: '',
    version: 'v1',
    resource: 'pods',
    namespaced: true,
    make: (n, ns, i) => ({ apiVersion: 'v1', kind: 'Pod', metadata: meta(n, ns, i), spec: podSpec(i) }),
  },
  {
    group: '',
    version: 'v1',
    resource: 'podtemplates',
    namespaced: true,
    make: (n, ns, i) => ({ apiVersion: 'v1', kind: 'PodTemplate', metadata: meta(n, ns, i), template: template(i) }),
  },
  {
    group: '',
    version: 'v1',
    resource: 'persistentvolumeclaims',
    namespaced: true,
    make: (n, ns, i) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: meta(n, ns, i),
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: `${1 + (i % 9)}Gi` } } },
    }),
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    namespaced: true,
    make: (n, ns, i) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(n, ns, i),
      spec: { replicas: 1 + (i % 3), selector: { matchLabels: { app: `app-${i}` } }, template: template(i) },
    }),
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'statefulsets',
    namespaced: true,
    make: (n, ns, i) => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: meta(n, ns, i),
      spec: { serviceName: n, replicas: 1, selector: { matchLabels: { app: `app-${i}` } }, template: template(i) },
    }),
  },
  {
    group: 'batch',
    version: 'v1',
    resource: 'jobs',
    namespaced: true,
    make: (n, ns, i) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: meta(n, ns, i), spec: { template: template(i, 'Never') } }),
  },
  {
    group: 'batch',
    version: 'v1',
    resource: 'cronjobs',
    namespaced: true,
    make: (n, ns, i) => ({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: meta(n, ns, i),
      spec: { schedule: `${i % 60} * * * *`, jobTemplate: { spec: { template: template(i, 'OnFailure') } } },
    }),
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'roles',
    namespaced: true,
    make: (n, ns, i) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: meta(n, ns, i),
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    }),
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'rolebindings',
    namespaced: true,
    make: (n, ns, i) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: meta(n, ns, i),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: n },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: `user-${i}` }],
    }),
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'networkpolicies',
    namespaced: true,
    make: (n, ns, i) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: meta(n, ns, i),
      spec: { podSelector: { matchLabels: { app: `app-${i}` } }, policyTypes: ['Ingress'] },
    }),
  },
  {
    group: 'networking.k8s.io',
    version: 'v1',
    resource: 'ingresses',
    namespaced: true,
    make: (n, ns, i) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: meta(n, ns, i),
      spec: { defaultBackend: { service: { name: n, port: { number: 80 } } } },
    }),
  },
  {
    group: 'policy',
    version: 'v1',
    resource: 'poddisruptionbudgets',
    namespaced: true,
    make: (n, ns, i) => ({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: meta(n, ns, i),
      spec: { minAvailable: 1, selector: { matchLabels: { app: `app-${i}` } } },
    }),
  },
  {
    group: 'coordination.k8s.io',
    version: 'v1',
    resource: 'leases',
    namespaced: true,
    make: (n, ns, i) => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: meta(n, ns, i),
      spec: { holderIdentity: `holder-${i}`, leaseDurationSeconds: 15 },
    }),
  },
  {
    group: 'autoscaling',
    version: 'v2',
    resource: 'horizontalpodautoscalers',
    namespaced: true,
    make: (n, ns, i) => ({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: meta(n, ns, i),
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: n }, minReplicas: 1, maxReplicas: 3 },
    }),
  },
];

export const CLUSTER: SeedType[] = [
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'clusterroles',
    namespaced: false,
    make: (n, _ns, i) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: meta(n, undefined, i),
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    }),
  },
  {
    group: 'scheduling.k8s.io',
    version: 'v1',
    resource: 'priorityclasses',
    namespaced: false,
    make: (n, _ns, i) => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: meta(n, undefined, i), value: 1000 + i }),
  },
  {
    group: '',
    version: 'v1',
    resource: 'persistentvolumes',
    namespaced: false,
    make: (n, _ns, i) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: meta(n, undefined, i),
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${n}` } },
    }),
  },
  {
    group: 'storage.k8s.io',
    version: 'v1',
    resource: 'storageclasses',
    namespaced: false,
    make: (n, _ns, i) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: meta(n, undefined, i), provisioner: 'example.com/none' }),
  },
];

export interface Created {
  /** group/resource -> names created (namespace/name for namespaced types). */
  byType: Map<string, Set<string>>;
  total: number;
}

export const typeKey = (group: string, resource: string) => `${group}/${resource}`;

/**
 * Creates `perNamespace` objects of every namespaced type in each namespace (creating the
 * namespaces first) and `cluster` of every cluster-scoped type, `concurrency` requests at once.
 */
export async function seed(
  api: Api,
  opts: { namespaces: string[]; perNamespace: number; cluster: number; concurrency?: number; prefix?: string },
): Promise<Created> {
  const created: Created = { byType: new Map(), total: 0 };
  const note = (t: { group: string; resource: string }, key: string) => {
    const k = typeKey(t.group, t.resource);
    if (!created.byType.has(k)) created.byType.set(k, new Set());
    created.byType.get(k)!.add(key);
    created.total++;
  };
  const prefix = opts.prefix ?? 'obj';
  await mapLimit(opts.namespaces, 8, async (ns) => {
    await api.must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    note({ group: '', resource: 'namespaces' }, ns);
  });
  const jobs: { t: SeedType; ns?: string; i: number }[] = [];
  for (const ns of opts.namespaces) for (const t of NAMESPACED) for (let i = 0; i < opts.perNamespace; i++) jobs.push({ t, ns, i });
  for (const t of CLUSTER) for (let i = 0; i < opts.cluster; i++) jobs.push({ t, i });
  await mapLimit(jobs, opts.concurrency ?? 16, async ({ t, ns, i }) => {
    const name = `${prefix}-${String(i).padStart(4, '0')}`;
    await api.must('POST', collectionPath(t.group, t.version, t.resource, ns), t.make(name, ns, i), [201]);
    note(t, ns ? `${ns}/${name}` : name);
  });
  return created;
}
