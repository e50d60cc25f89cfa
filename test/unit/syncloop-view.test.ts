import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { computeObjectView, podPrintColumns } from '../../src/core/rows/objectView';
import type { Container, ContainerStatus, Pod, PodStatus } from '../../src/core/kube/objects/pod';

function pod(status: PodStatus, opts: { containers?: string[]; init?: Container[]; deleting?: boolean } = {}): Pod {
  return {
    metadata: { name: 'p', namespace: 'default', uid: 'u', resourceVersion: '5', ...(opts.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { containers: (opts.containers ?? ['a']).map((name) => ({ name })), ...(opts.init ? { initContainers: opts.init } : {}) },
    status,
  };
}
const cs = (name: string, s: Partial<ContainerStatus>): ContainerStatus => ({ name, ready: false, restartCount: 0, ...s });

describe("the pod view: kubectl's READY / STATUS / RESTARTS", () => {
  const cases: [string, Pod, { ready: number; total: number; status: string; restarts: number }][] = [
    ['pending, nothing yet', pod({ phase: 'Pending' }), { ready: 0, total: 1, status: 'Pending', restarts: 0 }],
    [
      'creating',
      pod({ phase: 'Pending', containerStatuses: [cs('a', { state: { waiting: { reason: 'ContainerCreating' } } })] }),
      { ready: 0, total: 1, status: 'ContainerCreating', restarts: 0 },
    ],
    [
      'running and ready',
      pod({ phase: 'Running', containerStatuses: [cs('a', { ready: true, state: { running: {} } })] }),
      { ready: 1, total: 1, status: 'Running', restarts: 0 },
    ],
    [
      'crash looping',
      pod({ phase: 'Running', containerStatuses: [cs('a', { restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } })] }),
      { ready: 0, total: 1, status: 'CrashLoopBackOff', restarts: 4 },
    ],
    [
      'completed',
      pod({ phase: 'Succeeded', containerStatuses: [cs('a', { state: { terminated: { exitCode: 0, reason: 'Completed' } } })] }),
      { ready: 0, total: 1, status: 'Completed', restarts: 0 },
    ],
    [
      'error',
      pod({ phase: 'Failed', containerStatuses: [cs('a', { state: { terminated: { exitCode: 1, reason: 'Error' } } })] }),
      { ready: 0, total: 1, status: 'Error', restarts: 0 },
    ],
    [
      'exit code without reason',
      pod({ phase: 'Failed', containerStatuses: [cs('a', { state: { terminated: { exitCode: 3 } } })] }),
      { ready: 0, total: 1, status: 'ExitCode:3', restarts: 0 },
    ],
    [
      'signal without reason',
      pod({ phase: 'Failed', containerStatuses: [cs('a', { state: { terminated: { exitCode: 137, signal: 9 } } })] }),
      { ready: 0, total: 1, status: 'Signal:9', restarts: 0 },
    ],
    [
      'one completed, one running and ready -> Running when the pod is Ready',
      pod(
        {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True' }],
          containerStatuses: [cs('a', { ready: true, state: { running: {} } }), cs('b', { state: { terminated: { exitCode: 0, reason: 'Completed' } } })],
        },
        { containers: ['a', 'b'] },
      ),
      { ready: 1, total: 2, status: 'Running', restarts: 0 },
    ],
    [
      '... and NotReady when it is not',
      pod(
        {
          phase: 'Running',
          containerStatuses: [cs('a', { ready: true, state: { running: {} } }), cs('b', { state: { terminated: { exitCode: 0, reason: 'Completed' } } })],
        },
        { containers: ['a', 'b'] },
      ),
      { ready: 1, total: 2, status: 'NotReady', restarts: 0 },
    ],
    [
      'terminating',
      pod({ phase: 'Running', containerStatuses: [cs('a', { ready: true, state: { running: {} } })] }, { deleting: true }),
      { ready: 1, total: 1, status: 'Terminating', restarts: 0 },
    ],
    [
      'deleted but already terminal is not Terminating',
      pod({ phase: 'Succeeded', containerStatuses: [cs('a', { state: { terminated: { exitCode: 0, reason: 'Completed' } } })] }, { deleting: true }),
      { ready: 0, total: 1, status: 'Completed', restarts: 0 },
    ],
    [
      'init container running -> Init:0/2',
      pod(
        { phase: 'Pending', initContainerStatuses: [cs('i1', { state: { running: {} } }), cs('i2', { state: { waiting: { reason: 'PodInitializing' } } })] },
        { init: [{ name: 'i1' }, { name: 'i2' }] },
      ),
      { ready: 0, total: 1, status: 'Init:0/2', restarts: 0 },
    ],
    [
      'init container crash looping -> Init:CrashLoopBackOff, counting its restarts',
      pod(
        { phase: 'Pending', initContainerStatuses: [cs('i1', { restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } })] },
        { init: [{ name: 'i1' }] },
      ),
      { ready: 0, total: 1, status: 'Init:CrashLoopBackOff', restarts: 2 },
    ],
    [
      'init container failed -> Init:Error',
      pod({ phase: 'Pending', initContainerStatuses: [cs('i1', { state: { terminated: { exitCode: 1, reason: 'Error' } } })] }, { init: [{ name: 'i1' }] }),
      { ready: 0, total: 1, status: 'Init:Error', restarts: 0 },
    ],
    [
      'a started sidecar counts towards READY and RESTARTS',
      pod(
        {
          phase: 'Running',
          conditions: [{ type: 'Initialized', status: 'True' }],
          initContainerStatuses: [cs('side', { ready: true, started: true, restartCount: 1, state: { running: {} } })],
          containerStatuses: [cs('a', { ready: true, restartCount: 2, state: { running: {} } })],
        },
        { init: [{ name: 'side', restartPolicy: 'Always' }] },
      ),
      { ready: 2, total: 2, status: 'Running', restarts: 3 },
    ],
    [
      'scheduling gated',
      pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }),
      { ready: 0, total: 1, status: 'SchedulingGated', restarts: 0 },
    ],
    ['evicted (pod reason wins)', pod({ phase: 'Failed', reason: 'Evicted' }), { ready: 0, total: 1, status: 'Evicted', restarts: 0 }],
  ];
  for (const [name, p, want] of cases) {
    it(name, () => assert.deepEqual(podPrintColumns(p), want));
  }

  it('the view carries key, identity, columns and latest probe results', () => {
    const p = pod({ phase: 'Running', containerStatuses: [cs('a', { ready: true, state: { running: {} } })] });
    const v = computeObjectView('default/p', p, undefined, new Map([['a', { liveness: 'Failure' as const }]]));
    assert.deepEqual(v, {
      key: 'default/p',
      uid: 'u',
      resourceVersion: '5',
      kind: 'Pod',
      namespace: 'default',
      name: 'p',
      phase: 'Running',
      status: 'Running',
      ready: '1/1',
      restarts: 0,
      deleting: false,
      probes: { a: { liveness: 'Failure' } },
    });
  });

  it('other kinds get a generic view (replicas as READY, Terminating when deleted)', () => {
    const d = { kind: 'Deployment', metadata: { name: 'web', namespace: 'ns', uid: 'd' }, spec: { replicas: 3 }, status: { readyReplicas: 2 } };
    assert.equal(computeObjectView('deployments.apps:ns/web', d, { group: 'apps', resource: 'deployments' }).ready, '2/3');
    const gone = { ...d, metadata: { ...d.metadata, deletionTimestamp: 'x' } };
    assert.equal(computeObjectView('k', gone, { group: 'apps', resource: 'deployments' }).status, 'Terminating');
  });
});

describe("a pod's view lends its probe results to the next view when they are the same", () => {
  type Results = Map<string, Partial<Record<'liveness' | 'readiness' | 'startup', 'Success' | 'Failure' | 'Unknown'>>>;
  const result = fc.constantFrom<'Success' | 'Failure' | 'Unknown' | undefined>('Success', 'Failure', 'Unknown', undefined);
  const perContainer = fc.record({ liveness: result, readiness: result, startup: result }, { requiredKeys: [] });
  const results: fc.Arbitrary<Results> = fc.dictionary(fc.constantFrom('a', 'b', 'c'), perContainer).map((d) => new Map(Object.entries(d)));

  it('shares them exactly when equal, and the view is always what a fresh one would be', () => {
    fc.assert(
      fc.property(results, results, fc.boolean(), (before, after, same) => {
        const now = same ? new Map([...before].map(([c, r]) => [c, { ...r }])) : after;
        const p = pod({ phase: 'Running' }, { containers: ['a', 'b', 'c'] });
        const previous = computeObjectView('default/p', p, undefined, before);
        const fresh = computeObjectView('default/p', p, undefined, now);
        const lent = computeObjectView('default/p', p, undefined, now, previous);
        assert.deepStrictEqual(lent, fresh);
        if (previous.probes && lent.probes && isDeepStrictEqual(previous.probes, fresh.probes))
          assert.equal(lent.probes, previous.probes, 'equal results: shared');
        else if (previous.probes && lent.probes) assert.notEqual(lent.probes, previous.probes, 'changed results: a copy of their own');
      }),
      { numRuns: 500 },
    );
  });

  it('a probe named without a result is not the same as a probe not named', () => {
    const p = pod({ phase: 'Running' });
    const previous = computeObjectView('default/p', p, undefined, new Map([['a', { liveness: undefined }]]));
    const now = new Map([['a', {}]]);
    const lent = computeObjectView('default/p', p, undefined, now, previous);
    assert.deepStrictEqual(lent, computeObjectView('default/p', p, undefined, now));
    assert.notEqual(lent.probes, previous.probes);
  });
});
