// Fixtures of the vscode-* unit tests: pods and objects as the API sends them, loader results.
import type { LoadTask, LoadTaskResult } from '../../src/core/loader/types';
import type { StoredObject } from '../../src/core/kube/objects/types';
import type { GroupVersionResource } from '../../src/core/timeline/events';

let uid = 0;
export function pod(ns: string, name: string, phase = 'Running', ready = true, restarts = 0): StoredObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, uid: `u${++uid}`, resourceVersion: String(uid) },
    spec: { containers: [{ name: 'c', image: 'x' }] },
    status: {
      phase,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      containerStatuses: [
        { name: 'c', ready, restartCount: restarts, state: phase === 'Running' ? { running: {} } : { waiting: { reason: 'ContainerCreating' } } },
      ],
    },
  };
}

export function obj(kind: string, name: string, ns?: string): StoredObject {
  return { apiVersion: 'v1', kind, metadata: { name, uid: `u${++uid}`, ...(ns ? { namespace: ns } : {}) } };
}

export function task(gvr: GroupVersionResource, kind: string, namespaced: boolean, namespace?: string, id = 0): LoadTask {
  return { id, gvr, kind, namespaced, ...(namespace ? { namespace } : {}) };
}

export function result(t: LoadTask, items: StoredObject[], outcome: LoadTaskResult['outcome'] = 'ok', extra: Partial<LoadTaskResult> = {}): LoadTaskResult {
  return {
    taskId: t.id,
    task: t,
    outcome,
    items: items as LoadTaskResult['items'],
    count: items.length,
    partial: outcome !== 'ok',
    pages: 1,
    retries: 0,
    bytes: 0,
    resourceVersion: '1',
    fellBackToFullList: false,
    worker: 0,
    startedAt: 0,
    endedAt: 1,
    durationMs: 1,
    ...extra,
  };
}
