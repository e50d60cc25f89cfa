/**
 * What the apiserver's create strategies and defaulting do to a new object before it is stored
 * (PrepareForCreate + SetDefaults), for the types where clients notice: pods get the defaults
 * `kubectl get -o yaml` shows and start Pending; namespaces start Active; for other types with a
 * status subresource the status a client sends on create is dropped, as upstream.
 */
import type { KubeObject, TypeInfo } from '../store';

type Obj = Record<string, unknown>;

function podDefaults(pod: KubeObject): KubeObject {
  const spec = { ...((pod.spec as Obj | undefined) ?? {}) };
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
  spec.restartPolicy ??= 'Always';
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.schedulerName ??= 'default-scheduler';
  spec.serviceAccountName ??= 'default';
  spec.securityContext ??= {};
  spec.enableServiceLinks ??= true;
  spec.priority ??= 0;
  spec.preemptionPolicy ??= 'PreemptLowerPriority';
  spec.tolerations ??= [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ];
  return { ...pod, spec, status: { phase: 'Pending', qosClass: qosClass(spec) } };
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

export function prepareForCreate(t: TypeInfo, o: KubeObject): KubeObject {
  if (t.group === '' && t.resource === 'pods') return podDefaults(o);
  if (t.group === '' && t.resource === 'namespaces') {
    const spec = (o.spec as Obj | undefined) ?? { finalizers: ['kubernetes'] };
    return { ...o, spec, status: { phase: 'Active' } };
  }
  if (t.subresources?.includes('status') && o.status !== undefined) {
    const { status: _s, ...rest } = o;
    return rest as KubeObject;
  }
  return o;
}

/**
 * What Go's JSON encoding of the stored object adds: struct fields without omitempty come back as
 * zero values (null for an unset metav1.Time, "" for strings, {} for nested structs). A client sees
 * them on every read of a pod status or an Event it wrote without them.
 */
export function normalizeStored(t: TypeInfo, o: KubeObject): KubeObject {
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
function withStringDataMerged(o: KubeObject): KubeObject {
  const { stringData, ...rest } = o;
  const data: Record<string, unknown> = { ...((o.data as Obj | undefined) ?? {}) };
  if (stringData && typeof stringData === 'object') {
    for (const [k, v] of Object.entries(stringData as Obj)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  }
  return { ...rest, data } as KubeObject;
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
export function validate(t: TypeInfo, o: KubeObject): { field: string; reason: string; message: string }[] {
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
