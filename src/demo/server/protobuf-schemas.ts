/**
 * Protobuf field numbers (from k8s.io/api's generated.proto) of the kinds the demo cluster decodes,
 * and of the nested structs they use. Only fields kubectl's typed commands fill are listed; the
 * decoder refuses any other field that carries a value (see protobuf.ts).
 */
export type Kind = 'string' | 'bytes' | 'int' | 'bool' | 'time' | 'quantity' | 'intOrString';
export interface Field {
  name: string;
  type: Kind | Schema | { map: 'string' | 'bytes' | 'quantity' };
  repeated?: boolean;
}
export type Schema = Record<number, Field>;

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
const subject: Schema = {
  1: { name: 'kind', type: 'string' },
  2: { name: 'apiGroup', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'namespace', type: 'string' },
};
const roleRef: Schema = { 1: { name: 'apiGroup', type: 'string' }, 2: { name: 'kind', type: 'string' }, 3: { name: 'name', type: 'string' } };
const binding: Schema = { 1: meta, 2: { name: 'subjects', type: subject, repeated: true }, 3: { name: 'roleRef', type: roleRef } };

const quantities = { map: 'quantity' } as const;
const labelSelector: Schema = {
  1: { name: 'matchLabels', type: { map: 'string' } },
  2: {
    name: 'matchExpressions',
    type: { 1: { name: 'key', type: 'string' }, 2: { name: 'operator', type: 'string' }, 3: { name: 'values', type: 'string', repeated: true } },
    repeated: true,
  },
};
const container: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'image', type: 'string' },
  3: { name: 'command', type: 'string', repeated: true },
  4: { name: 'args', type: 'string', repeated: true },
  5: { name: 'workingDir', type: 'string' },
  6: {
    name: 'ports',
    type: {
      1: { name: 'name', type: 'string' },
      2: { name: 'hostPort', type: 'int' },
      3: { name: 'containerPort', type: 'int' },
      4: { name: 'protocol', type: 'string' },
      5: { name: 'hostIP', type: 'string' },
    },
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
export const KINDS: Record<string, Schema> = {
  'v1/Namespace': {
    1: meta,
    2: { name: 'spec', type: { 1: { name: 'finalizers', type: 'string', repeated: true } } },
    3: { name: 'status', type: { 1: { name: 'phase', type: 'string' } } },
  },
  'v1/ConfigMap': {
    1: meta,
    2: { name: 'data', type: { map: 'string' } },
    3: { name: 'binaryData', type: { map: 'bytes' } },
    4: { name: 'immutable', type: 'bool' },
  },
  'v1/Secret': {
    1: meta,
    2: { name: 'data', type: { map: 'bytes' } },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: { map: 'string' } },
    5: { name: 'immutable', type: 'bool' },
  },
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
        4: {
          name: 'strategy',
          type: {
            1: { name: 'type', type: 'string' },
            2: { name: 'rollingUpdate', type: { 1: { name: 'maxUnavailable', type: 'intOrString' }, 2: { name: 'maxSurge', type: 'intOrString' } } },
          },
        },
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
          type: {
            1: { name: 'name', type: 'string' },
            2: { name: 'protocol', type: 'string' },
            3: { name: 'port', type: 'int' },
            4: { name: 'targetPort', type: 'intOrString' },
            5: { name: 'nodePort', type: 'int' },
            6: { name: 'appProtocol', type: 'string' },
          },
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
          type: {
            1: { name: 'namespace', type: 'string' },
            2: { name: 'verb', type: 'string' },
            3: { name: 'group', type: 'string' },
            4: { name: 'version', type: 'string' },
            5: { name: 'resource', type: 'string' },
            6: { name: 'subresource', type: 'string' },
            7: { name: 'name', type: 'string' },
          },
        },
        2: { name: 'nonResourceAttributes', type: { 1: { name: 'path', type: 'string' }, 2: { name: 'verb', type: 'string' } } },
      },
    },
    3: ignoredStatus,
  },
  // SelfSubjectRulesReviewSpec { optional string namespace = 1; } (`kubectl auth can-i --list`)
  'authorization.k8s.io/v1/SelfSubjectRulesReview': { 1: meta, 2: { name: 'spec', type: { 1: { name: 'namespace', type: 'string' } } }, 3: ignoredStatus },
  'authentication.k8s.io/v1/SelfSubjectReview': { 1: meta, 2: ignoredStatus },
  'rbac.authorization.k8s.io/v1/RoleBinding': binding,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': binding,
};
