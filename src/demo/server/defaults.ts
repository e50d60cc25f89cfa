/**
 * What the apiserver's create strategies and defaulting do to a new object before it is stored
 * (PrepareForCreate + SetDefaults), for the types where clients notice: pods get the defaults
 * `kubectl get -o yaml` shows and start Pending; namespaces start Active; workloads (Deployments,
 * ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs) get their spec defaults and their pod
 * templates SetDefaults_PodSpec's; a Job gets its generated selector and labels (its uid is
 * chosen here, so metadata.uid of the result is the one to store); for other types with a status
 * subresource the status a client sends on create is dropped, as upstream.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { apiVersionOf, type DemoObject, type TypeInfo } from '../store';
import { createdFields, statusApart, updateEntry } from './managed-fields';

type Obj = Record<string, unknown>;

/** SetDefaults_PodSpec and its containers' defaults: what a pod template gets too (no admission defaults). */
function podSpecDefaults(given: Obj | undefined, restartPolicy: string | undefined = 'Always'): Obj {
  const spec = { ...(given ?? {}) };
  const defaultContainer = (c: Obj): Obj => {
    const image = String(c.image ?? '');
    const tag = /:[^/]+$/.test(image) ? image.slice(image.lastIndexOf(':') + 1) : 'latest';
    const out: Obj = {
      ...c,
      imagePullPolicy: c.imagePullPolicy ?? (tag === 'latest' && !image.includes('@') ? 'Always' : 'IfNotPresent'),
      resources: c.resources ?? {},
      terminationMessagePath: c.terminationMessagePath ?? '/dev/termination-log',
      terminationMessagePolicy: c.terminationMessagePolicy ?? 'File',
    };
    if (Array.isArray(c.ports)) out.ports = (c.ports as Obj[]).map((p) => ({ ...p, protocol: p.protocol ?? 'TCP' }));
    for (const k of ['livenessProbe', 'readinessProbe', 'startupProbe']) if (c[k] && typeof c[k] === 'object') out[k] = probeDefaults(c[k] as Obj);
    return out;
  };
  if (Array.isArray(spec.containers)) spec.containers = (spec.containers as Obj[]).map(defaultContainer);
  if (Array.isArray(spec.initContainers)) spec.initContainers = (spec.initContainers as Obj[]).map(defaultContainer);
  if (restartPolicy) spec.restartPolicy ??= restartPolicy;
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  return spec;
}

/** SetDefaults_Pod: the pod spec's defaults, as the decoding of a create applies them (before admission). */
function podDecodeDefaults(pod: DemoObject): DemoObject {
  const spec = podSpecDefaults(pod.spec as Obj | undefined);
  spec.enableServiceLinks ??= true;
  return { ...pod, spec };
}

export const SERVICE_ACCOUNT_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The ServiceAccount admission's projected token volume (`kube-api-access-<suffix>`): a bound
 * token, the cluster's CA (ConfigMap kube-root-ca.crt) and the namespace, mode 0644.
 */
export function serviceAccountVolume(suffix: string): Obj {
  return {
    name: `kube-api-access-${suffix}`,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 420,
    },
  };
}

/**
 * What admission adds to a new pod: the ServiceAccount plugin (serviceAccountName, the deprecated
 * serviceAccount, and unless automountServiceAccountToken is false the kube-api-access volume
 * mounted read-only into every container), Priority (priority 0, PreemptLowerPriority) and
 * DefaultTolerationSeconds (not-ready and unreachable, NoExecute, 300 s). `suffix` names the volume.
 */
export function podAdmission(spec: Obj, suffix: string): Obj {
  const out: Obj = { ...spec };
  out.serviceAccountName ??= 'default';
  out.serviceAccount ??= out.serviceAccountName;
  const containersOf = (k: string) => (Array.isArray(out[k]) ? (out[k] as Obj[]) : undefined);
  const mounted = (c: Obj) => ((c.volumeMounts as Obj[] | undefined) ?? []).some((m) => m.mountPath === SERVICE_ACCOUNT_MOUNT_PATH);
  if (out.automountServiceAccountToken !== false && !containersOf('containers')?.every(mounted)) {
    const vol = serviceAccountVolume(suffix);
    out.volumes = [...((out.volumes as Obj[] | undefined) ?? []), vol];
    const mount = { name: vol.name, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH };
    for (const k of ['containers', 'initContainers']) {
      const cs = containersOf(k);
      if (cs) out[k] = cs.map((c) => (mounted(c) ? c : { ...c, volumeMounts: [...((c.volumeMounts as Obj[] | undefined) ?? []), mount] }));
    }
  }
  out.priority ??= 0;
  out.preemptionPolicy ??= 'PreemptLowerPriority';
  out.tolerations ??= [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ];
  return out;
}

function podDefaults(pod: DemoObject, suffix: string): DemoObject {
  const spec = podAdmission(podDecodeDefaults(pod).spec as Obj, suffix);
  return { ...pod, spec, status: { phase: 'Pending', qosClass: qosClass(spec) } };
}

const SUFFIX_CHARS = 'bcdfghjklmnpqrstvwxz2456789';
function randomSuffix(): string {
  return [...randomBytes(5)].map((b) => SUFFIX_CHARS[b % SUFFIX_CHARS.length]).join('');
}

/** SetDefaults_Probe and SetDefaults_HTTPGetAction, as a v1.36 apiserver applies them. */
function probeDefaults(p: Obj): Obj {
  const out: Obj = {
    ...p,
    timeoutSeconds: p.timeoutSeconds ?? 1,
    periodSeconds: p.periodSeconds ?? 10,
    successThreshold: p.successThreshold ?? 1,
    failureThreshold: p.failureThreshold ?? 3,
  };
  const http = p.httpGet as Obj | undefined;
  if (http && typeof http === 'object') out.httpGet = { ...http, path: http.path ?? '/', scheme: http.scheme ?? 'HTTP' };
  return out;
}

function qosClass(spec: Obj): string {
  const containers = [...((spec.containers as Obj[] | undefined) ?? []), ...((spec.initContainers as Obj[] | undefined) ?? [])];
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const r = (c.resources as { requests?: Obj; limits?: Obj } | undefined) ?? {};
    const req = r.requests ?? {};
    const lim = r.limits ?? {};
    if (Object.keys(req).length || Object.keys(lim).length) any = true;
    for (const k of ['cpu', 'memory']) {
      const l = lim[k];
      const q = req[k] ?? l;
      if (l === undefined || String(l) !== String(q)) guaranteed = false;
    }
  }
  return guaranteed ? 'Guaranteed' : any ? 'Burstable' : 'BestEffort';
}

/** A pod template with SetDefaults_PodSpec applied (restartPolicy defaulted where the type does: not for Jobs). */
function templateDefaults(tmpl: unknown, restartPolicy?: string): Obj {
  const t = (tmpl && typeof tmpl === 'object' ? tmpl : {}) as Obj;
  return { ...t, metadata: t.metadata ?? {}, spec: podSpecDefaults(t.spec as Obj | undefined, restartPolicy) };
}

/** SetDefaults_Deployment (apps/v1): replicas 1, RollingUpdate 25%/25%, revisionHistoryLimit 10, progressDeadlineSeconds 600. */
function deploymentSpecDefaults(given: Obj): Obj {
  const spec: Obj = { ...given, replicas: given.replicas ?? 1, template: templateDefaults(given.template, 'Always') };
  const strategy = { ...((given.strategy as Obj | undefined) ?? {}) };
  strategy.type ??= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = { ...((strategy.rollingUpdate as Obj | undefined) ?? {}) };
    ru.maxUnavailable ??= '25%';
    ru.maxSurge ??= '25%';
    strategy.rollingUpdate = ru;
  }
  spec.strategy = strategy;
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  return spec;
}

/** SetDefaults_Service (v1.36): ClusterIP, no session affinity, TCP ports aimed at themselves, cluster-wide internal traffic. */
function serviceSpecDefaults(given: Obj): Obj {
  const spec: Obj = { ...given };
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  if (Array.isArray(spec.ports)) {
    spec.ports = (spec.ports as Obj[]).map((p) => ({ ...p, protocol: p.protocol ?? 'TCP', targetPort: p.targetPort ?? p.port }));
  }
  if (spec.type !== 'ExternalName') spec.internalTrafficPolicy ??= 'Cluster';
  return spec;
}

/**
 * The Service strategy's create: a cluster IP from the service range (10.96.0.0/12, chosen at
 * random here; "None" stays), single-stack IPv4, and an empty load-balancer status.
 */
function serviceCreate(o: DemoObject): DemoObject {
  const spec = { ...(o.spec as Obj) };
  if (spec.type !== 'ExternalName') {
    if (!spec.clusterIP) {
      const [a, b] = randomBytes(2);
      spec.clusterIP = `10.${96 + (a! & 15)}.${b}.${1 + (randomBytes(1)[0]! % 254)}`;
    }
    spec.clusterIPs ??= [spec.clusterIP];
    spec.ipFamilies ??= ['IPv4'];
    spec.ipFamilyPolicy ??= 'SingleStack';
  }
  return { ...o, spec, status: { loadBalancer: {} } };
}

/** SetDefaults_Job: completions and parallelism 1 when neither is set, backoffLimit 6, NonIndexed, not suspended. */
function jobSpecDefaults(given: Obj): Obj {
  const spec: Obj = { ...given, template: templateDefaults(given.template) };
  if (spec.completions === undefined && spec.parallelism === undefined) spec.completions = 1;
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex !== undefined ? 2147483647 : 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed';
  return spec;
}

/** A Job without labels gets its template's (SetDefaults_Job). */
function jobLabels(job: DemoObject): DemoObject {
  if (job.metadata.labels && Object.keys(job.metadata.labels).length) return job;
  const labels = ((((job.spec as Obj).template as Obj).metadata as Obj).labels ?? {}) as Record<string, string>;
  return Object.keys(labels).length ? { ...job, metadata: { ...job.metadata, labels: { ...labels } } } : job;
}

/**
 * The Job strategy's selector generation on create (manualSelector unset or false): the template
 * gets the controller-uid and job-name labels (both spellings) and the selector is the
 * batch.kubernetes.io/controller-uid label. The uid is chosen here, before the Job is stored.
 */
function jobSelector(job: DemoObject): DemoObject {
  const spec = { ...(job.spec as Obj) };
  if (spec.manualSelector) return job;
  const uid = randomUUID();
  const labels = {
    'batch.kubernetes.io/controller-uid': uid,
    'batch.kubernetes.io/job-name': job.metadata.name,
    'controller-uid': uid,
    'job-name': job.metadata.name,
  };
  const tmpl = spec.template as Obj;
  const tm = (tmpl.metadata ?? {}) as Obj;
  spec.template = { ...tmpl, metadata: { ...tm, labels: { ...((tm.labels as Obj | undefined) ?? {}), ...labels } } };
  spec.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
  spec.manualSelector = false;
  return { ...job, metadata: { ...job.metadata, uid }, spec };
}

/**
 * The spec defaults of the workload types, applied on every create and update of their spec as
 * the apiserver's decoding does (so a PUT without the defaulted fields stores them again, and a
 * Deployment's template is still its ReplicaSet's). Other types come back unchanged.
 */
export function applyDefaults(t: TypeInfo, o: DemoObject): DemoObject {
  const spec = ((o.spec as Obj | undefined) ?? {}) as Obj;
  if (t.group === '' && t.resource === 'services') return { ...o, spec: serviceSpecDefaults(spec) };
  if (t.group === '' && t.resource === 'namespaces') {
    // SetDefaults_Namespace: the name label, on every write.
    return { ...o, metadata: { ...o.metadata, labels: { ...(o.metadata.labels ?? {}), 'kubernetes.io/metadata.name': o.metadata.name } } };
  }
  if (t.group === 'apps' && t.resource === 'deployments') return { ...o, spec: deploymentSpecDefaults(spec) };
  if (t.group === 'apps' && (t.resource === 'replicasets' || t.resource === 'statefulsets')) {
    return { ...o, spec: { ...spec, replicas: spec.replicas ?? 1, template: templateDefaults(spec.template, 'Always') } };
  }
  if (t.group === 'apps' && t.resource === 'daemonsets') return { ...o, spec: { ...spec, template: templateDefaults(spec.template, 'Always') } };
  if (t.group === 'batch' && t.resource === 'jobs') return { ...o, spec: jobSpecDefaults(spec) };
  if (t.group === 'batch' && t.resource === 'cronjobs') {
    const jt = ((spec.jobTemplate as Obj | undefined) ?? {}) as Obj;
    const js = ((jt.spec as Obj | undefined) ?? {}) as Obj;
    return { ...o, spec: { ...spec, jobTemplate: { ...jt, spec: { ...js, template: templateDefaults(js.template) } } } };
  }
  return o;
}

/** The object a create's field manager sees: as decoded (defaults applied), before the create strategy and admission. */
function decodedForCreate(t: TypeInfo, o: DemoObject): DemoObject {
  return t.group === '' && t.resource === 'pods' ? podDecodeDefaults(o) : applyDefaults(t, o);
}

/** suffix: of a pod's kube-api-access volume (random unless given: the generator draws its own). */
export function prepareForCreate(t: TypeInfo, o: DemoObject, suffix = randomSuffix()): DemoObject {
  if (t.group === '' && t.resource === 'pods') return podDefaults(o, suffix);
  o = applyDefaults(t, o);
  if (t.group === 'batch' && t.resource === 'jobs') o = jobLabels(jobSelector(o));
  if (t.group === '' && t.resource === 'services') return serviceCreate(o);
  if (t.group === '' && t.resource === 'namespaces') {
    const spec = (o.spec as Obj | undefined) ?? { finalizers: ['kubernetes'] };
    return { ...o, spec, status: { phase: 'Active' } };
  }
  if (t.subresources?.includes('status') && o.status !== undefined) {
    const { status: _s, ...rest } = o;
    return rest as DemoObject;
  }
  return o;
}

/**
 * prepareForCreate (and normalizeStored), with managedFields as kube-apiserver's field manager
 * leaves them: one Update entry of `manager` for what the create sets, as decoded (defaults
 * applied), before the create strategy and admission add theirs.
 */
export function prepareCreate(t: TypeInfo, o: DemoObject, manager: string, time: string, suffix?: string): DemoObject {
  const fields = createdFields(normalizeStored(t, decodedForCreate(t, o)), statusApart(t));
  const prepared = normalizeStored(t, prepareForCreate(t, o, suffix));
  // A create that sets no field leaves no entry.
  if (!Object.keys(fields).length) return prepared;
  return { ...prepared, metadata: { ...prepared.metadata, managedFields: [updateEntry({ manager, apiVersion: apiVersionOf(t), time }, fields)] } };
}

/**
 * What Go's JSON encoding of the stored object adds: struct fields without omitempty come back as
 * zero values (null for an unset metav1.Time, "" for strings, {} for nested structs). A client sees
 * them on every read of a pod status or an Event it wrote without them.
 */
export function normalizeStored(t: TypeInfo, o: DemoObject): DemoObject {
  if (t.group === '' && t.resource === 'secrets' && o.stringData !== undefined) return withStringDataMerged(o);
  if (t.group === '' && t.resource === 'pods' && o.status && typeof o.status === 'object') return { ...o, status: podStatusZeroes(o.status as Obj) };
  if (t.group === '' && t.resource === 'events') {
    return {
      ...o,
      involvedObject: o.involvedObject ?? {},
      source: o.source ?? {},
      firstTimestamp: o.firstTimestamp ?? null,
      lastTimestamp: o.lastTimestamp ?? null,
      eventTime: o.eventTime ?? null,
      reportingComponent: o.reportingComponent ?? '',
      reportingInstance: o.reportingInstance ?? '',
    };
  }
  return o;
}

/**
 * As core/v1's conversion of a Secret: stringData is write-only; each of its keys is written into
 * data (base64 of the UTF-8 value), overriding a data key of the same name, and stringData itself
 * is never stored or returned.
 */
function withStringDataMerged(o: DemoObject): DemoObject {
  const { stringData, ...rest } = o;
  const data: Record<string, unknown> = { ...((o.data as Obj | undefined) ?? {}) };
  if (stringData && typeof stringData === 'object') {
    for (const [k, v] of Object.entries(stringData as Obj)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  }
  return { ...rest, data } as DemoObject;
}

function podStatusZeroes(status: Obj): Obj {
  const out: Obj = { ...status };
  if (Array.isArray(status.conditions)) {
    out.conditions = (status.conditions as Obj[]).map((c) => ({
      ...c,
      lastProbeTime: c.lastProbeTime ?? null,
      lastTransitionTime: c.lastTransitionTime ?? null,
    }));
  }
  for (const k of ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses']) {
    if (Array.isArray(status[k])) out[k] = (status[k] as Obj[]).map(containerStatusZeroes);
  }
  return out;
}

function containerStatusZeroes(c: Obj): Obj {
  const state = (s: unknown): Obj => {
    const st = (s && typeof s === 'object' ? s : {}) as Obj;
    const o: Obj = { ...st };
    if (st.running && typeof st.running === 'object') o.running = { startedAt: null, ...(st.running as Obj) };
    if (st.terminated && typeof st.terminated === 'object') o.terminated = { exitCode: 0, startedAt: null, finishedAt: null, ...(st.terminated as Obj) };
    return o;
  };
  return {
    ...c,
    state: state(c.state),
    lastState: state(c.lastState),
    ready: c.ready ?? false,
    restartCount: c.restartCount ?? 0,
    image: c.image ?? '',
    imageID: c.imageID ?? '',
  };
}

const subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Validation errors of a new or replaced object, as field causes (an empty list when valid). */
export function validate(t: TypeInfo, o: DemoObject): { field: string; reason: string; message: string }[] {
  const errs: { field: string; reason: string; message: string }[] = [];
  const name = o.metadata.name;
  if (t.group === 'rbac.authorization.k8s.io') {
    // RBAC names are path segments (system:controller:... is valid), as upstream's ValidatePathSegmentName.
    if (name === '.' || name === '..' || /[/%]/.test(name)) {
      errs.push({ field: 'metadata.name', reason: 'FieldValueInvalid', message: `Invalid value: "${name}": may not contain '/' or '%'` });
    }
  } else if (!subdomain.test(name) || name.length > 253) {
    errs.push({
      field: 'metadata.name',
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    });
  }
  for (const [field, m] of [
    ['metadata.labels', o.metadata.labels],
    ['metadata.annotations', o.metadata.annotations],
  ] as const) {
    if (m !== undefined && (m === null || typeof m !== 'object' || Object.values(m).some((v) => typeof v !== 'string'))) {
      errs.push({ field, reason: 'FieldValueInvalid', message: 'Invalid value: values must be strings' });
    }
  }
  if (t.group === '' && t.resource === 'pods') {
    const containers = (o.spec as Obj | undefined)?.containers;
    if (!Array.isArray(containers) || containers.length === 0) {
      errs.push({ field: 'spec.containers', reason: 'FieldValueRequired', message: 'Required value' });
    } else {
      containers.forEach((c: Obj, i: number) => {
        if (!c?.name) errs.push({ field: `spec.containers[${i}].name`, reason: 'FieldValueRequired', message: 'Required value' });
        if (!c?.image) errs.push({ field: `spec.containers[${i}].image`, reason: 'FieldValueRequired', message: 'Required value' });
      });
    }
  }
  return errs;
}
