// Pods in every state kubectl's STATUS names (and sidecars, deletion, lost nodes), as full objects
// with their status written: the spread the Table-view tests compare across the list forms.
import type { DemoObject } from '../../src/demo/store';

let uid = 0;
/** A pod in namespace `ns` (change it with `meta`), created at a fixed instant. */
export function pod(name: string, spec: Record<string, unknown>, status: Record<string, unknown>, meta: Record<string, unknown> = {}): DemoObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', uid: `u${++uid}`, resourceVersion: String(uid), creationTimestamp: '2026-01-01T00:00:00Z', ...meta },
    spec: { containers: [{ name: 'a', image: 'x' }], ...spec },
    status,
  };
}
const running = (name: string, s: Record<string, unknown> = {}) => ({
  name,
  ready: true,
  restartCount: 0,
  started: true,
  state: { running: { startedAt: '2026-01-01T00:00:00Z' } },
  ...s,
});
export const waiting = (name: string, reason: string, s: Record<string, unknown> = {}) => ({
  name,
  ready: false,
  restartCount: 0,
  state: { waiting: { reason } },
  ...s,
});
const terminated = (name: string, exitCode: number, reason?: string, s: Record<string, unknown> = {}) => ({
  name,
  ready: false,
  restartCount: 0,
  state: { terminated: { exitCode, ...(reason ? { reason } : {}), finishedAt: '2026-01-01T00:10:00Z' } },
  ...s,
});
const lastCrash = { lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: '2026-01-01T00:05:00Z' } } };
const cond = (type: string, s = 'True') => ({ type, status: s });

export const PODS: DemoObject[] = [
  pod('pending', {}, { phase: 'Pending' }),
  pod('gated', {}, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }),
  pod('creating', {}, { phase: 'Pending', containerStatuses: [waiting('a', 'ContainerCreating')] }),
  pod('pulling', {}, { phase: 'Pending', containerStatuses: [waiting('a', 'ImagePullBackOff')] }),
  pod('running', {}, { phase: 'Running', conditions: [cond('Ready')], containerStatuses: [running('a')] }),
  pod('not-ready', {}, { phase: 'Running', containerStatuses: [running('a', { ready: false })] }),
  pod('crashloop', {}, { phase: 'Running', containerStatuses: [waiting('a', 'CrashLoopBackOff', { restartCount: 7, ...lastCrash })] }),
  pod('repulling', {}, { phase: 'Running', containerStatuses: [waiting('a', 'ImagePullBackOff', { restartCount: 2, ...lastCrash })] }),
  pod('error-restarting', {}, { phase: 'Running', containerStatuses: [terminated('a', 1, 'Error', { restartCount: 3, ...lastCrash })] }),
  pod('completed', { restartPolicy: 'Never' }, { phase: 'Succeeded', containerStatuses: [terminated('a', 0, 'Completed')] }),
  pod('failed', { restartPolicy: 'Never' }, { phase: 'Failed', containerStatuses: [terminated('a', 2)] }),
  pod(
    'signal',
    { restartPolicy: 'Never' },
    { phase: 'Failed', containerStatuses: [{ ...terminated('a', 137), state: { terminated: { exitCode: 137, signal: 9 } } }] },
  ),
  pod('evicted', {}, { phase: 'Failed', reason: 'Evicted' }),
  pod(
    'completed-one-running',
    { containers: [{ name: 'a' }, { name: 'b' }] },
    { phase: 'Running', conditions: [cond('Ready', 'False')], containerStatuses: [terminated('a', 0, 'Completed'), running('b')] },
  ),
  pod(
    'init-0-of-1',
    { initContainers: [{ name: 'i' }] },
    {
      phase: 'Pending',
      initContainerStatuses: [{ name: 'i', ready: false, restartCount: 0, state: { running: {} } }],
      containerStatuses: [waiting('a', 'PodInitializing')],
    },
  ),
  pod(
    'init-crashloop',
    { initContainers: [{ name: 'i' }, { name: 'j' }] },
    { phase: 'Pending', initContainerStatuses: [terminated('i', 0, 'Completed'), waiting('j', 'CrashLoopBackOff', { restartCount: 4, ...lastCrash })] },
  ),
  pod('init-error', { initContainers: [{ name: 'i' }] }, { phase: 'Pending', initContainerStatuses: [terminated('i', 3)] }),
  pod(
    'sidecar',
    { initContainers: [{ name: 'side', restartPolicy: 'Always' }] },
    {
      phase: 'Running',
      conditions: [cond('Initialized'), cond('Ready')],
      initContainerStatuses: [running('side', { restartCount: 2, ...lastCrash })],
      containerStatuses: [running('a', { restartCount: 1 })],
    },
  ),
  pod(
    'sidecar-starting',
    { initContainers: [{ name: 'side', restartPolicy: 'Always' }] },
    { phase: 'Pending', initContainerStatuses: [{ name: 'side', ready: false, restartCount: 0, started: false, state: { running: {} } }] },
  ),
  pod('terminating', {}, { phase: 'Running', containerStatuses: [running('a')] }, { deletionTimestamp: '2026-01-01T01:00:00Z' }),
  pod(
    'terminating-done',
    { restartPolicy: 'Never' },
    { phase: 'Succeeded', containerStatuses: [terminated('a', 0, 'Completed')] },
    { deletionTimestamp: '2026-01-01T01:00:00Z' },
  ),
  pod('node-lost', {}, { phase: 'Running', reason: 'NodeLost', containerStatuses: [running('a')] }, { deletionTimestamp: '2026-01-01T01:00:00Z' }),
];
