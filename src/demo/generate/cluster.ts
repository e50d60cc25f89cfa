/**
 * Builders for cluster-scoped types, the CustomResourceDefinitions of well-known projects (with
 * their custom resources), and a generic shape for any other type, so that every listable type
 * of the store has objects.
 */
import type { DemoObject, TypeInfo } from '../store';
import type { GenContext, Obj } from './genContext';
import { COMPONENTS, TEAMS } from './names';

type Builder = (ctx: GenContext) => DemoObject;

const persistentVolume: Builder = (ctx) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: ctx.meta(`pvc-${ctx.rng.uuid()}`, undefined, { annotations: { 'pv.kubernetes.io/provisioned-by': 'rancher.io/local-path' } }),
  spec: {
    accessModes: ['ReadWriteOnce'],
    capacity: { storage: ctx.rng.pick(['1Gi', '5Gi', '10Gi', '50Gi']) },
    hostPath: { path: `/var/local-path-provisioner/pvc-${ctx.rng.hex(8)}`, type: 'DirectoryOrCreate' },
    persistentVolumeReclaimPolicy: 'Delete',
    storageClassName: 'standard',
    volumeMode: 'Filesystem',
  },
  status: { lastPhaseTransitionTime: ctx.ts(ctx.age()), phase: 'Bound' },
});

const clusterRole: Builder = (ctx) => {
  const team = ctx.rng.pick(TEAMS);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: ctx.meta(ctx.name('clusterrole', `${team}-${ctx.rng.pick(['viewer', 'operator', 'admin'])}`, 4), undefined),
    rules: [
      { apiGroups: ['', 'apps'], resources: ['pods', 'deployments', 'services'], verbs: ['get', 'list', 'watch'] },
      { nonResourceURLs: ['/metrics'], verbs: ['get'] },
    ],
  };
};

const clusterRoleBinding: Builder = (ctx) => {
  const team = ctx.rng.pick(TEAMS);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: ctx.meta(ctx.name('crb', `${team}-viewer`, 4), undefined),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${team}-viewer` },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: `${team}@example.com` }],
  };
};

const storageClass: Builder = (ctx) => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: ctx.meta(ctx.exactName('sc', ctx.rng.pick(['standard', 'fast-ssd', 'archive', 'regional'])), undefined),
  provisioner: 'rancher.io/local-path',
  reclaimPolicy: 'Delete',
  volumeBindingMode: 'WaitForFirstConsumer',
  allowVolumeExpansion: true,
});

const priorityClass: Builder = (ctx) => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: ctx.meta(ctx.name('pc', `${ctx.rng.pick(TEAMS)}-critical`, 4), undefined),
  value: ctx.rng.range(1000, 1_000_000),
  globalDefault: false,
  preemptionPolicy: 'PreemptLowerPriority',
  description: 'Workloads that must not be preempted by batch jobs.',
});

const ingressClass: Builder = (ctx) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'IngressClass',
  metadata: ctx.meta(ctx.exactName('ingc', ctx.rng.pick(['nginx', 'traefik', 'internal'])), undefined),
  spec: { controller: 'k8s.io/ingress-nginx' },
});

const componentStatus: Builder = (ctx) => ({
  apiVersion: 'v1',
  kind: 'ComponentStatus',
  metadata: ctx.meta(ctx.exactName('cs', ctx.rng.pick(['scheduler', 'controller-manager', 'etcd-0'])), undefined),
  conditions: [{ message: 'ok', status: 'True', type: 'Healthy' }],
});

export const CLUSTER: Record<string, Builder> = {
  '/persistentvolumes': persistentVolume,
  'rbac.authorization.k8s.io/clusterroles': clusterRole,
  'rbac.authorization.k8s.io/clusterrolebindings': clusterRoleBinding,
  'storage.k8s.io/storageclasses': storageClass,
  'scheduling.k8s.io/priorityclasses': priorityClass,
  'networking.k8s.io/ingressclasses': ingressClass,
  '/componentstatuses': componentStatus,
};

/** Any other type: metadata, labels and a small spec, enough to list, get and render. */
export function genericObject(ctx: GenContext, t: TypeInfo, namespace: string | undefined): DemoObject {
  const r = ctx.rng;
  const team = namespace?.split('-')[0] ?? r.pick(TEAMS);
  const base = `${team}-${r.pick(COMPONENTS)}`;
  const spec: Obj = { description: `${t.kind} for ${base}`, selector: { matchLabels: { app: base } }, priority: r.range(0, 100) };
  if (r.chance(0.5)) spec.parameters = { mode: r.pick(['Enforce', 'Audit', 'Warn']), retries: r.range(0, 5) };
  return {
    apiVersion: t.group ? `${t.group}/${t.version}` : t.version,
    kind: t.kind,
    metadata: ctx.meta(ctx.name(`${t.group}/${t.resource}/${namespace ?? ''}`, base, 5), namespace, {
      labels: { app: base, 'app.kubernetes.io/managed-by': r.pick(['helm', 'argocd', 'kustomize']) },
    }),
    spec,
  };
}

/** Well-known CRDs (group, version, kind, plural, scope), in the order the generator installs them. */
export const WELL_KNOWN_CRDS: [string, string, string, string, 'Namespaced' | 'Cluster'][] = [
  ['cert-manager.io', 'v1', 'Certificate', 'certificates', 'Namespaced'],
  ['monitoring.coreos.com', 'v1', 'ServiceMonitor', 'servicemonitors', 'Namespaced'],
  ['argoproj.io', 'v1alpha1', 'Application', 'applications', 'Namespaced'],
  ['networking.istio.io', 'v1', 'VirtualService', 'virtualservices', 'Namespaced'],
  ['cert-manager.io', 'v1', 'ClusterIssuer', 'clusterissuers', 'Cluster'],
  ['external-secrets.io', 'v1beta1', 'ExternalSecret', 'externalsecrets', 'Namespaced'],
  ['keda.sh', 'v1alpha1', 'ScaledObject', 'scaledobjects', 'Namespaced'],
  ['monitoring.coreos.com', 'v1', 'PrometheusRule', 'prometheusrules', 'Namespaced'],
  ['gateway.networking.k8s.io', 'v1', 'HTTPRoute', 'httproutes', 'Namespaced'],
  ['snapshot.storage.k8s.io', 'v1', 'VolumeSnapshot', 'volumesnapshots', 'Namespaced'],
  ['networking.istio.io', 'v1', 'DestinationRule', 'destinationrules', 'Namespaced'],
  ['kyverno.io', 'v1', 'ClusterPolicy', 'clusterpolicies', 'Cluster'],
  ['cert-manager.io', 'v1', 'Issuer', 'issuers', 'Namespaced'],
  ['argoproj.io', 'v1alpha1', 'AppProject', 'appprojects', 'Namespaced'],
  ['external-secrets.io', 'v1beta1', 'ClusterSecretStore', 'clustersecretstores', 'Cluster'],
  ['monitoring.coreos.com', 'v1', 'PodMonitor', 'podmonitors', 'Namespaced'],
  ['gateway.networking.k8s.io', 'v1', 'Gateway', 'gateways', 'Namespaced'],
  ['snapshot.storage.k8s.io', 'v1', 'VolumeSnapshotClass', 'volumesnapshotclasses', 'Cluster'],
  ['networking.istio.io', 'v1', 'Gateway', 'gateways', 'Namespaced'],
  ['kyverno.io', 'v1', 'Policy', 'policies', 'Namespaced'],
];

export function crdObject(ctx: GenContext, [group, version, kind, plural, scope]: (typeof WELL_KNOWN_CRDS)[number]): DemoObject {
  const names = { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: ctx.meta(`${plural}.${group}`, undefined, { labels: { 'app.kubernetes.io/managed-by': 'helm' } }),
    spec: {
      conversion: { strategy: 'None' },
      group,
      names,
      scope,
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          subresources: { status: {} },
        },
      ],
    },
    status: {
      acceptedNames: names,
      storedVersions: [version],
      conditions: [
        { lastTransitionTime: ctx.ts(ctx.age()), message: 'no conflicts found', reason: 'NoConflicts', status: 'True', type: 'NamesAccepted' },
        {
          lastTransitionTime: ctx.ts(ctx.age()),
          message: 'the initial names have been accepted',
          reason: 'InitialNamesAccepted',
          status: 'True',
          type: 'Established',
        },
      ],
    },
  };
}

/** The TypeInfo a CRD declares (what the API server would register for it). */
export function crdTypeInfo([group, version, kind, plural, scope]: (typeof WELL_KNOWN_CRDS)[number]): TypeInfo {
  return {
    group,
    version,
    resource: plural,
    kind,
    listKind: `${kind}List`,
    singular: kind.toLowerCase(),
    namespaced: scope === 'Namespaced',
    verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
    subresources: ['status'],
  };
}
