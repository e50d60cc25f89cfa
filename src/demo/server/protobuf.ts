/**
 * Decoding of Kubernetes protobuf request bodies, for the kinds kubectl's typed commands create
 * (`kubectl create namespace|configmap|secret|serviceaccount|priorityclass|role|rolebinding|
 * clusterrole|clusterrolebinding|quota|deployment|job|cronjob|service`): client-go's generated
 * clients always send protobuf for built-in types and never fall back to JSON, so without this
 * those commands would fail. Pod specs cover the fields those commands set (containers with
 * name, image, command, args, ports, env values, resources; restart policy; node selection).
 *
 * Wire format: the 4-byte magic "k8s\0", then runtime.Unknown { 1: TypeMeta { 1 apiVersion,
 * 2 kind }, 2: raw (the object), 3: contentEncoding, 4: contentType }. The object is decoded with
 * the field numbers of k8s.io/api's generated.proto for its kind. Guarantee: a field we do not
 * know that carries a non-zero value makes the whole body unsupported (415), so nothing a client
 * sent is silently dropped; zero values of unknown fields (gogo-proto writes every non-pointer
 * field) are ignored.
 */
export class ProtobufUnsupported extends Error {}

type Kind = 'string' | 'bytes' | 'int' | 'bool' | 'time' | 'quantity' | 'intOrString';
interface Field {
  name: string;
  type: Kind | Schema | { map: 'string' | 'bytes' | 'quantity' };
  repeated?: boolean;
}
type Schema = Record<number, Field>;

const time: Field['type'] = 'time';
const ownerReference: Schema = {
  1: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'controller', type: 'bool' },
  7: { name: 'blockOwnerDeletion', type: 'bool' },
};
const objectMeta: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  4: { name: 'selfLink', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'generation', type: 'int' },
  8: { name: 'creationTimestamp', type: time },
  9: { name: 'deletionTimestamp', type: time },
  10: { name: 'deletionGracePeriodSeconds', type: 'int' },
  11: { name: 'labels', type: { map: 'string' } },
  12: { name: 'annotations', type: { map: 'string' } },
  13: { name: 'ownerReferences', type: ownerReference, repeated: true },
  14: { name: 'finalizers', type: 'string', repeated: true },
};
const meta: Field = { name: 'metadata', type: objectMeta };
const objectReference: Schema = {
  1: { name: 'kind', type: 'string' },
  2: { name: 'namespace', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'fieldPath', type: 'string' },
};
const policyRule: Schema = {
  1: { name: 'verbs', type: 'string', repeated: true },
  2: { name: 'apiGroups', type: 'string', repeated: true },
  3: { name: 'resources', type: 'string', repeated: true },
  4: { name: 'resourceNames', type: 'string', repeated: true },
  5: { name: 'nonResourceURLs', type: 'string', repeated: true },
};
const subject: Schema = { 1: { name: 'kind', type: 'string' }, 2: { name: 'apiGroup', type: 'string' }, 3: { name: 'name', type: 'string' }, 4: { name: 'namespace', type: 'string' } };
const roleRef: Schema = { 1: { name: 'apiGroup', type: 'string' }, 2: { name: 'kind', type: 'string' }, 3: { name: 'name', type: 'string' } };
const binding: Schema = { 1: meta, 2: { name: 'subjects', type: subject, repeated: true }, 3: { name: 'roleRef', type: roleRef } };

const quantities = { map: 'quantity' } as const;
const labelSelector: Schema = {
  1: { name: 'matchLabels', type: { map: 'string' } },
  2: { name: 'matchExpressions', type: { 1: { name: 'key', type: 'string' }, 2: { name: 'operator', type: 'string' }, 3: { name: 'values', type: 'string', repeated: true } }, repeated: true },
};
const container: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'image', type: 'string' },
  3: { name: 'command', type: 'string', repeated: true },
  4: { name: 'args', type: 'string', repeated: true },
  5: { name: 'workingDir', type: 'string' },
  6: {
    name: 'ports',
    type: { 1: { name: 'name', type: 'string' }, 2: { name: 'hostPort', type: 'int' }, 3: { name: 'containerPort', type: 'int' }, 4: { name: 'protocol', type: 'string' }, 5: { name: 'hostIP', type: 'string' } },
    repeated: true,
  },
  7: { name: 'env', type: { 1: { name: 'name', type: 'string' }, 2: { name: 'value', type: 'string' } }, repeated: true },
  8: { name: 'resources', type: { 1: { name: 'limits', type: quantities }, 2: { name: 'requests', type: quantities } } },
  13: { name: 'terminationMessagePath', type: 'string' },
  14: { name: 'imagePullPolicy', type: 'string' },
  20: { name: 'terminationMessagePolicy', type: 'string' },
};
const podSpec: Schema = {
  2: { name: 'containers', type: container, repeated: true },
  3: { name: 'restartPolicy', type: 'string' },
  4: { name: 'terminationGracePeriodSeconds', type: 'int' },
  5: { name: 'activeDeadlineSeconds', type: 'int' },
  6: { name: 'dnsPolicy', type: 'string' },
  7: { name: 'nodeSelector', type: { map: 'string' } },
  8: { name: 'serviceAccountName', type: 'string' },
  10: { name: 'nodeName', type: 'string' },
  19: { name: 'schedulerName', type: 'string' },
  20: { name: 'initContainers', type: container, repeated: true },
};
const podTemplateSpec: Schema = { 1: meta, 2: { name: 'spec', type: podSpec } };
/** Status on create is dropped by the server; its zero-valued fields only need to be skipped. */
const ignoredStatus: Field = { name: 'status', type: {} };
const jobSpec: Schema = {
  1: { name: 'parallelism', type: 'int' },
  2: { name: 'completions', type: 'int' },
  3: { name: 'activeDeadlineSeconds', type: 'int' },
  4: { name: 'selector', type: labelSelector },
  6: { name: 'template', type: podTemplateSpec },
  7: { name: 'backoffLimit', type: 'int' },
  8: { name: 'ttlSecondsAfterFinished', type: 'int' },
};

/** Top-level schemas by "apiVersion/kind". */
const KINDS: Record<string, Schema> = {
  'v1/Namespace': {
    1: meta,
    2: { name: 'spec', type: { 1: { name: 'finalizers', type: 'string', repeated: true } } },
    3: { name: 'status', type: { 1: { name: 'phase', type: 'string' } } },
  },
  'v1/ConfigMap': { 1: meta, 2: { name: 'data', type: { map: 'string' } }, 3: { name: 'binaryData', type: { map: 'bytes' } }, 4: { name: 'immutable', type: 'bool' } },
  'v1/Secret': { 1: meta, 2: { name: 'data', type: { map: 'bytes' } }, 3: { name: 'type', type: 'string' }, 4: { name: 'stringData', type: { map: 'string' } }, 5: { name: 'immutable', type: 'bool' } },
  'v1/ServiceAccount': {
    1: meta,
    2: { name: 'secrets', type: objectReference, repeated: true },
    3: { name: 'imagePullSecrets', type: { 1: { name: 'name', type: 'string' } }, repeated: true },
    4: { name: 'automountServiceAccountToken', type: 'bool' },
  },
  'v1/ResourceQuota': {
    1: meta,
    2: { name: 'spec', type: { 1: { name: 'hard', type: { map: 'quantity' } }, 2: { name: 'scopes', type: 'string', repeated: true } } },
    3: { name: 'status', type: { 1: { name: 'hard', type: { map: 'quantity' } }, 2: { name: 'used', type: { map: 'quantity' } } } },
  },
  'scheduling.k8s.io/v1/PriorityClass': {
    1: meta,
    2: { name: 'value', type: 'int' },
    3: { name: 'globalDefault', type: 'bool' },
    4: { name: 'description', type: 'string' },
    5: { name: 'preemptionPolicy', type: 'string' },
  },
  'rbac.authorization.k8s.io/v1/Role': { 1: meta, 2: { name: 'rules', type: policyRule, repeated: true } },
  'rbac.authorization.k8s.io/v1/ClusterRole': { 1: meta, 2: { name: 'rules', type: policyRule, repeated: true } },
  'apps/v1/Deployment': {
    1: meta,
    2: {
      name: 'spec',
      type: {
        1: { name: 'replicas', type: 'int' },
        2: { name: 'selector', type: labelSelector },
        3: { name: 'template', type: podTemplateSpec },
        4: { name: 'strategy', type: { 1: { name: 'type', type: 'string' }, 2: { name: 'rollingUpdate', type: { 1: { name: 'maxUnavailable', type: 'intOrString' }, 2: { name: 'maxSurge', type: 'intOrString' } } } } },
        5: { name: 'minReadySeconds', type: 'int' },
        6: { name: 'revisionHistoryLimit', type: 'int' },
        7: { name: 'paused', type: 'bool' },
        9: { name: 'progressDeadlineSeconds', type: 'int' },
      },
    },
    3: ignoredStatus,
  },
  'batch/v1/Job': { 1: meta, 2: { name: 'spec', type: jobSpec }, 3: ignoredStatus },
  'batch/v1/CronJob': {
    1: meta,
    2: {
      name: 'spec',
      type: {
        1: { name: 'schedule', type: 'string' },
        2: { name: 'startingDeadlineSeconds', type: 'int' },
        3: { name: 'concurrencyPolicy', type: 'string' },
        4: { name: 'suspend', type: 'bool' },
        5: { name: 'jobTemplate', type: { 1: meta, 2: { name: 'spec', type: jobSpec } } },
        6: { name: 'successfulJobsHistoryLimit', type: 'int' },
        7: { name: 'failedJobsHistoryLimit', type: 'int' },
        8: { name: 'timeZone', type: 'string' },
      },
    },
    3: ignoredStatus,
  },
  'v1/Service': {
    1: meta,
    2: {
      name: 'spec',
      type: {
        1: {
          name: 'ports',
          type: { 1: { name: 'name', type: 'string' }, 2: { name: 'protocol', type: 'string' }, 3: { name: 'port', type: 'int' }, 4: { name: 'targetPort', type: 'intOrString' }, 5: { name: 'nodePort', type: 'int' }, 6: { name: 'appProtocol', type: 'string' } },
          repeated: true,
        },
        2: { name: 'selector', type: { map: 'string' } },
        3: { name: 'clusterIP', type: 'string' },
        4: { name: 'type', type: 'string' },
        5: { name: 'externalIPs', type: 'string', repeated: true },
        7: { name: 'sessionAffinity', type: 'string' },
        10: { name: 'externalName', type: 'string' },
        11: { name: 'externalTrafficPolicy', type: 'string' },
      },
    },
    3: ignoredStatus,
  },
  'authorization.k8s.io/v1/SelfSubjectAccessReview': {
    1: meta,
    2: {
      name: 'spec',
      type: {
        1: {
          name: 'resourceAttributes',
          type: { 1: { name: 'namespace', type: 'string' }, 2: { name: 'verb', type: 'string' }, 3: { name: 'group', type: 'string' }, 4: { name: 'version', type: 'string' }, 5: { name: 'resource', type: 'string' }, 6: { name: 'subresource', type: 'string' }, 7: { name: 'name', type: 'string' } },
        },
        2: { name: 'nonResourceAttributes', type: { 1: { name: 'path', type: 'string' }, 2: { name: 'verb', type: 'string' } } },
      },
    },
    3: ignoredStatus,
  },
  'authentication.k8s.io/v1/SelfSubjectReview': { 1: meta, 2: ignoredStatus },
  'rbac.authorization.k8s.io/v1/RoleBinding': binding,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': binding,
};

export const PROTOBUF_KINDS = Object.keys(KINDS);

class Reader {
  i = 0;
  constructor(readonly b: Uint8Array) {}
  get done(): boolean {
    return this.i >= this.b.length;
  }
  varint(): bigint {
    let r = 0n;
    let s = 0n;
    for (;;) {
      if (this.i >= this.b.length) throw new ProtobufUnsupported('truncated varint');
      const x = this.b[this.i++]!;
      r |= BigInt(x & 0x7f) << s;
      if (x < 0x80) return r;
      s += 7n;
      if (s > 70n) throw new ProtobufUnsupported('varint too long');
    }
  }
  bytes(): Uint8Array {
    const n = Number(this.varint());
    if (this.i + n > this.b.length) throw new ProtobufUnsupported('truncated field');
    const v = this.b.subarray(this.i, this.i + n);
    this.i += n;
    return v;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

function decodeMessage(buf: Uint8Array, schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const r = new Reader(buf);
  while (!r.done) {
    const key = Number(r.varint());
    const num = key >>> 3;
    const wire = key & 7;
    const f = schema[num];
    if (wire === 0) {
      const v = r.varint();
      if (!f) {
        if (v !== 0n) throw new ProtobufUnsupported(`unknown field ${num}`);
        continue;
      }
      if (f.type === 'bool') setValue(out, f, v !== 0n);
      else if (f.type === 'int') setValue(out, f, Number(BigInt.asIntN(64, v)));
      else throw new ProtobufUnsupported(`field ${num}: unexpected varint`);
    } else if (wire === 2) {
      const v = r.bytes();
      if (!f) {
        if (!isZero(v, 0)) throw new ProtobufUnsupported(`unknown field ${num}`);
        continue;
      }
      const t = f.type;
      if (t === 'string') setValue(out, f, utf8.decode(v));
      else if (t === 'bytes') setValue(out, f, Buffer.from(v).toString('base64'));
      else if (t === 'time') setValue(out, f, decodeTime(v));
      else if (t === 'quantity') setValue(out, f, decodeQuantity(v));
      else if (t === 'intOrString') setValue(out, f, decodeIntOrString(v));
      else if (typeof t === 'object' && 'map' in t) {
        const [k, val] = decodeMapEntry(v, t.map as 'string' | 'bytes' | 'quantity');
        const m = (out[f.name] ??= {}) as Record<string, unknown>;
        m[k] = val;
      } else if (typeof t === 'object') setValue(out, f, decodeMessage(v, t as Schema));
      else throw new ProtobufUnsupported(`field ${num}: unexpected bytes`);
    } else {
      throw new ProtobufUnsupported(`field ${num}: unsupported wire type ${wire}`);
    }
  }
  return out;
}

/**
 * True when bytes are empty or a message whose fields are all zero values, recursively: gogo-proto
 * writes empty strings and zero numbers of every non-pointer field, so an unset nested struct
 * (a status, a userInfo) arrives as a message of zeros.
 */
function isZero(b: Uint8Array, depth: number): boolean {
  if (b.length === 0) return true;
  if (depth > 8) return false;
  try {
    const r = new Reader(b);
    while (!r.done) {
      const key = Number(r.varint());
      if (key >>> 3 === 0) return false;
      const wire = key & 7;
      if (wire === 0) {
        if (r.varint() !== 0n) return false;
      } else if (wire === 2) {
        if (!isZero(r.bytes(), depth + 1)) return false;
      } else return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** Repeated fields keep every element (an empty string in apiGroups means the core group); singular zero values are left out, as JSON's omitempty does. */
function setValue(out: Record<string, unknown>, f: Field, v: unknown): void {
  if (f.repeated) {
    ((out[f.name] ??= []) as unknown[]).push(v);
    return;
  }
  const empty = v === '' || v === 0 || v === false || v === undefined || (typeof v === 'object' && v !== null && Object.keys(v).length === 0);
  if (!empty) out[f.name] = v;
}

function decodeMapEntry(buf: Uint8Array, valueType: 'string' | 'bytes' | 'quantity'): [string, unknown] {
  const r = new Reader(buf);
  let k = '';
  let v: unknown = valueType === 'bytes' ? '' : '';
  while (!r.done) {
    const key = Number(r.varint());
    if ((key & 7) !== 2) throw new ProtobufUnsupported('map entry: unexpected wire type');
    const b = r.bytes();
    if (key >>> 3 === 1) k = utf8.decode(b);
    else if (key >>> 3 === 2) v = valueType === 'bytes' ? Buffer.from(b).toString('base64') : valueType === 'quantity' ? decodeQuantity(b) : utf8.decode(b);
  }
  return [k, v];
}

function decodeQuantity(buf: Uint8Array): string {
  const r = new Reader(buf);
  let s = '';
  while (!r.done) {
    const key = Number(r.varint());
    if ((key & 7) !== 2) throw new ProtobufUnsupported('quantity: unexpected wire type');
    const b = r.bytes();
    if (key >>> 3 === 1) s = utf8.decode(b);
  }
  return s;
}

/** intstr.IntOrString { 1 type (0 int, 1 string), 2 intVal, 3 strVal }. */
function decodeIntOrString(buf: Uint8Array): number | string {
  const r = new Reader(buf);
  let type = 0n;
  let intVal = 0n;
  let strVal = '';
  while (!r.done) {
    const key = Number(r.varint());
    if ((key & 7) === 0) {
      const v = r.varint();
      if (key >>> 3 === 1) type = v;
      else if (key >>> 3 === 2) intVal = BigInt.asIntN(32, v);
    } else if ((key & 7) === 2) {
      const b = r.bytes();
      if (key >>> 3 === 3) strVal = utf8.decode(b);
    } else throw new ProtobufUnsupported('intstr: unexpected wire type');
  }
  return type === 1n ? strVal : Number(intVal);
}

function decodeTime(buf: Uint8Array): string | undefined {
  const r = new Reader(buf);
  let seconds = 0n;
  while (!r.done) {
    const key = Number(r.varint());
    if ((key & 7) === 0) {
      const v = r.varint();
      if (key >>> 3 === 1) seconds = BigInt.asIntN(64, v);
    } else if ((key & 7) === 2) r.bytes();
    else throw new ProtobufUnsupported('time: unexpected wire type');
  }
  if (seconds === 0n) return undefined;
  return new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Decodes a protobuf request body into the JSON object it stands for. */
export function decodeProtobufObject(body: Uint8Array): Record<string, unknown> {
  if (body.length < 4 || body[0] !== 0x6b || body[1] !== 0x38 || body[2] !== 0x73 || body[3] !== 0) {
    throw new ProtobufUnsupported('missing the k8s protobuf magic prefix');
  }
  const envelope = decodeMessage(body.subarray(4), {
    1: { name: 'typeMeta', type: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } } },
    2: { name: 'raw', type: 'bytes' },
    3: { name: 'contentEncoding', type: 'string' },
    4: { name: 'contentType', type: 'string' },
  });
  const tm = (envelope.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  if (envelope.contentEncoding) throw new ProtobufUnsupported(`content encoding ${String(envelope.contentEncoding)}`);
  const schema = KINDS[`${tm.apiVersion}/${tm.kind}`];
  if (!schema) throw new ProtobufUnsupported(`no protobuf schema for ${tm.apiVersion}/${tm.kind}`);
  const raw = Buffer.from(String(envelope.raw ?? ''), 'base64');
  return { apiVersion: tm.apiVersion, kind: tm.kind, ...decodeMessage(raw, schema) };
}
