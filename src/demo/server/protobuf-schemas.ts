/**
 * Protobuf field numbers (from k8s.io/api's generated.proto) of the kinds the demo cluster decodes,
 * and of the nested structs they use. Only fields kubectl's typed commands fill are listed; the
 * decoder refuses any other field that carries a value (see protobuf.ts).
 */
/** 'fieldsV1': metav1.FieldsV1, a message whose field 1 (Raw) holds JSON text; decoded as that JSON, as its JSON form is. */
export type Kind = 'string' | 'bytes' | 'int' | 'bool' | 'time' | 'quantity' | 'intOrString' | 'fieldsV1';
export interface Field {
  name: string;
  type: Kind | Schema | { map: 'string' | 'bytes' | 'quantity' };
  repeated?: boolean;
  /**
   * A pointer field (`*int32`, `*bool`) or one whose zero means something: gogo-proto writes it
   * whenever it is set, so a zero on the wire is kept (replicas: 0, gracePeriodSeconds: 0), where
   * other zero values are left out as JSON's omitempty does.
   */
  keepZero?: boolean;
  /** An embedded struct whose fields JSON writes into the parent's (`json:",inline"`: a Volume's VolumeSource). */
  inline?: boolean;
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
  17: {
    name: 'managedFields',
    type: {
      1: { name: 'manager', type: 'string' },
      2: { name: 'operation', type: 'string' },
      3: { name: 'apiVersion', type: 'string' },
      4: { name: 'time', type: time },
      6: { name: 'fieldsType', type: 'string' },
      7: { name: 'fieldsV1', type: 'fieldsV1' },
      8: { name: 'subresource', type: 'string' },
    },
    repeated: true,
  },
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
const resourceRequirements: Schema = { 1: { name: 'limits', type: quantities }, 2: { name: 'requests', type: quantities } };
const keyToPath: Schema = { 1: { name: 'key', type: 'string' }, 2: { name: 'path', type: 'string' }, 3: { name: 'mode', type: 'int' } };
const localObjectReference: Field = { name: '', type: { 1: { name: 'name', type: 'string' } }, inline: true };
/** The volume sources a pod of the demo carries: admission's projected kube-api-access volume, ConfigMaps, Secrets, emptyDirs. */
const volumeSource: Schema = {
  2: { name: 'emptyDir', type: { 1: { name: 'medium', type: 'string' }, 2: { name: 'sizeLimit', type: 'quantity' } } },
  6: {
    name: 'secret',
    type: {
      1: { name: 'secretName', type: 'string' },
      2: { name: 'items', type: keyToPath, repeated: true },
      3: { name: 'defaultMode', type: 'int' },
      4: { name: 'optional', type: 'bool', keepZero: true },
    },
  },
  19: {
    name: 'configMap',
    type: {
      1: localObjectReference,
      2: { name: 'items', type: keyToPath, repeated: true },
      3: { name: 'defaultMode', type: 'int' },
      4: { name: 'optional', type: 'bool', keepZero: true },
    },
  },
  26: {
    name: 'projected',
    type: {
      1: {
        name: 'sources',
        type: {
          2: {
            name: 'downwardAPI',
            type: {
              1: {
                name: 'items',
                type: {
                  1: { name: 'path', type: 'string' },
                  2: { name: 'fieldRef', type: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'fieldPath', type: 'string' } } },
                  4: { name: 'mode', type: 'int' },
                },
                repeated: true,
              },
            },
          },
          3: {
            name: 'configMap',
            type: { 1: localObjectReference, 2: { name: 'items', type: keyToPath, repeated: true }, 4: { name: 'optional', type: 'bool', keepZero: true } },
          },
          4: {
            name: 'serviceAccountToken',
            type: { 1: { name: 'audience', type: 'string' }, 2: { name: 'expirationSeconds', type: 'int' }, 3: { name: 'path', type: 'string' } },
          },
        },
        repeated: true,
      },
      2: { name: 'defaultMode', type: 'int' },
    },
  },
};
const nodeSelectorRequirement: Schema = {
  1: { name: 'key', type: 'string' },
  2: { name: 'operator', type: 'string' },
  3: { name: 'values', type: 'string', repeated: true },
};
/** Affinity: the required node affinity (the daemonset controller pins its pods with it). */
const affinity: Schema = {
  1: {
    name: 'nodeAffinity',
    type: {
      1: {
        name: 'requiredDuringSchedulingIgnoredDuringExecution',
        type: {
          1: {
            name: 'nodeSelectorTerms',
            type: {
              1: { name: 'matchExpressions', type: nodeSelectorRequirement, repeated: true },
              2: { name: 'matchFields', type: nodeSelectorRequirement, repeated: true },
            },
            repeated: true,
          },
        },
      },
    },
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
  8: { name: 'resources', type: resourceRequirements },
  9: {
    name: 'volumeMounts',
    type: {
      1: { name: 'name', type: 'string' },
      2: { name: 'readOnly', type: 'bool' },
      3: { name: 'mountPath', type: 'string' },
      4: { name: 'subPath', type: 'string' },
      5: { name: 'mountPropagation', type: 'string' },
      6: { name: 'subPathExpr', type: 'string' },
      7: { name: 'recursiveReadOnly', type: 'string' },
    },
    repeated: true,
  },
  13: { name: 'terminationMessagePath', type: 'string' },
  14: { name: 'imagePullPolicy', type: 'string' },
  20: { name: 'terminationMessagePolicy', type: 'string' },
};
const podSpec: Schema = {
  1: { name: 'volumes', type: { 1: { name: 'name', type: 'string' }, 2: { name: '', type: volumeSource, inline: true } }, repeated: true },
  2: { name: 'containers', type: container, repeated: true },
  3: { name: 'restartPolicy', type: 'string' },
  4: { name: 'terminationGracePeriodSeconds', type: 'int' },
  5: { name: 'activeDeadlineSeconds', type: 'int' },
  6: { name: 'dnsPolicy', type: 'string' },
  7: { name: 'nodeSelector', type: { map: 'string' } },
  8: { name: 'serviceAccountName', type: 'string' },
  9: { name: 'serviceAccount', type: 'string' },
  10: { name: 'nodeName', type: 'string' },
  11: { name: 'hostNetwork', type: 'bool' },
  14: { name: 'securityContext', type: {} },
  15: { name: 'imagePullSecrets', type: { 1: { name: 'name', type: 'string' } }, repeated: true },
  16: { name: 'hostname', type: 'string' },
  17: { name: 'subdomain', type: 'string' },
  18: { name: 'affinity', type: affinity },
  19: { name: 'schedulerName', type: 'string' },
  20: { name: 'initContainers', type: container, repeated: true },
  21: { name: 'automountServiceAccountToken', type: 'bool', keepZero: true },
  22: {
    name: 'tolerations',
    type: {
      1: { name: 'key', type: 'string' },
      2: { name: 'operator', type: 'string' },
      3: { name: 'value', type: 'string' },
      4: { name: 'effect', type: 'string' },
      5: { name: 'tolerationSeconds', type: 'int', keepZero: true },
    },
    repeated: true,
  },
  24: { name: 'priorityClassName', type: 'string' },
  25: { name: 'priority', type: 'int', keepZero: true },
  28: { name: 'readinessGates', type: { 1: { name: 'conditionType', type: 'string' } }, repeated: true },
  29: { name: 'runtimeClassName', type: 'string' },
  30: { name: 'enableServiceLinks', type: 'bool', keepZero: true },
  31: { name: 'preemptionPolicy', type: 'string' },
};
/** PodCondition (core/v1 generated.proto). */
const podCondition: Schema = {
  1: { name: 'type', type: 'string' },
  2: { name: 'status', type: 'string' },
  3: { name: 'lastProbeTime', type: time },
  4: { name: 'lastTransitionTime', type: time },
  5: { name: 'reason', type: 'string' },
  6: { name: 'message', type: 'string' },
  7: { name: 'observedGeneration', type: 'int' },
};
const podIP: Schema = { 1: { name: 'ip', type: 'string' } };
const containerState: Schema = {
  1: { name: 'waiting', type: { 1: { name: 'reason', type: 'string' }, 2: { name: 'message', type: 'string' } } },
  2: { name: 'running', type: { 1: { name: 'startedAt', type: time } } },
  3: {
    name: 'terminated',
    type: {
      1: { name: 'exitCode', type: 'int', keepZero: true },
      2: { name: 'signal', type: 'int' },
      3: { name: 'reason', type: 'string' },
      4: { name: 'message', type: 'string' },
      5: { name: 'startedAt', type: time },
      6: { name: 'finishedAt', type: time },
      7: { name: 'containerID', type: 'string' },
    },
  },
};
/** ContainerStatus as a kubelet writes it (ready and restartCount have no omitempty: their zeros are kept). */
const containerStatus: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'state', type: containerState },
  3: { name: 'lastState', type: containerState },
  4: { name: 'ready', type: 'bool', keepZero: true },
  5: { name: 'restartCount', type: 'int', keepZero: true },
  6: { name: 'image', type: 'string' },
  7: { name: 'imageID', type: 'string' },
  8: { name: 'containerID', type: 'string' },
  9: { name: 'started', type: 'bool', keepZero: true },
  10: { name: 'allocatedResources', type: quantities },
  11: { name: 'resources', type: resourceRequirements },
  12: {
    name: 'volumeMounts',
    type: {
      1: { name: 'name', type: 'string' },
      2: { name: 'mountPath', type: 'string' },
      3: { name: 'readOnly', type: 'bool' },
      4: { name: 'recursiveReadOnly', type: 'string' },
    },
    repeated: true,
  },
  15: { name: 'stopSignal', type: 'string' },
};
/** PodStatus as the demo's kubelet fills it (the fields a read-modify-write sends back). */
const podStatus: Schema = {
  1: { name: 'phase', type: 'string' },
  2: { name: 'conditions', type: podCondition, repeated: true },
  3: { name: 'message', type: 'string' },
  4: { name: 'reason', type: 'string' },
  5: { name: 'hostIP', type: 'string' },
  6: { name: 'podIP', type: 'string' },
  7: { name: 'startTime', type: time },
  8: { name: 'containerStatuses', type: containerStatus, repeated: true },
  9: { name: 'qosClass', type: 'string' },
  10: { name: 'initContainerStatuses', type: containerStatus, repeated: true },
  11: { name: 'nominatedNodeName', type: 'string' },
  13: { name: 'ephemeralContainerStatuses', type: containerStatus, repeated: true },
  12: { name: 'podIPs', type: podIP, repeated: true },
  16: { name: 'hostIPs', type: podIP, repeated: true },
  17: { name: 'observedGeneration', type: 'int' },
  19: { name: 'allocatedResources', type: quantities },
  20: { name: 'resources', type: resourceRequirements },
};
const podTemplateSpec: Schema = { 1: meta, 2: { name: 'spec', type: podSpec } };
/** DeploymentStatus (apps/v1 generated.proto): what a deployment controller writes, sent back by a read-modify-write. */
const deploymentStatus: Schema = {
  1: { name: 'observedGeneration', type: 'int' },
  2: { name: 'replicas', type: 'int' },
  3: { name: 'updatedReplicas', type: 'int' },
  4: { name: 'availableReplicas', type: 'int' },
  5: { name: 'unavailableReplicas', type: 'int' },
  6: {
    name: 'conditions',
    type: {
      1: { name: 'type', type: 'string' },
      2: { name: 'status', type: 'string' },
      4: { name: 'reason', type: 'string' },
      5: { name: 'message', type: 'string' },
      6: { name: 'lastUpdateTime', type: time },
      7: { name: 'lastTransitionTime', type: time },
    },
    repeated: true,
  },
  7: { name: 'readyReplicas', type: 'int' },
  8: { name: 'collisionCount', type: 'int', keepZero: true },
  9: { name: 'terminatingReplicas', type: 'int', keepZero: true },
};
/** meta/v1 DeleteOptions: client-go sends it as the body of every delete and deletecollection. */
export const DELETE_OPTIONS: Schema = {
  1: { name: 'gracePeriodSeconds', type: 'int', keepZero: true },
  2: { name: 'preconditions', type: { 1: { name: 'uid', type: 'string' }, 2: { name: 'resourceVersion', type: 'string' } } },
  3: { name: 'orphanDependents', type: 'bool', keepZero: true },
  4: { name: 'propagationPolicy', type: 'string' },
  5: { name: 'dryRun', type: 'string', repeated: true },
  6: { name: 'ignoreStoreReadErrorWithClusterBreakingPotential', type: 'bool', keepZero: true },
};
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
        1: { name: 'replicas', type: 'int', keepZero: true },
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
    3: { name: 'status', type: deploymentStatus },
  },
  'v1/Pod': { 1: meta, 2: { name: 'spec', type: podSpec }, 3: { name: 'status', type: podStatus } },
  // autoscaling/v1 Scale: the body of client-go's UpdateScale (ScaleSpec.replicas is a plain int32: 0 is sent and means 0)
  'autoscaling/v1/Scale': {
    1: meta,
    2: { name: 'spec', type: { 1: { name: 'replicas', type: 'int', keepZero: true } } },
    3: { name: 'status', type: { 1: { name: 'replicas', type: 'int' }, 2: { name: 'selector', type: 'string' } } },
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
        8: { name: 'loadBalancerIP', type: 'string' },
        10: { name: 'externalName', type: 'string' },
        11: { name: 'externalTrafficPolicy', type: 'string' },
        13: { name: 'publishNotReadyAddresses', type: 'bool' },
        17: { name: 'ipFamilyPolicy', type: 'string' },
        18: { name: 'clusterIPs', type: 'string', repeated: true },
        19: { name: 'ipFamilies', type: 'string', repeated: true },
        20: { name: 'allocateLoadBalancerNodePorts', type: 'bool', keepZero: true },
        22: { name: 'internalTrafficPolicy', type: 'string' },
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
