import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { COMBINED_PREFIX, ProbeInference, probeOfEvent } from '../../src/core/syncloop/prober/infer';
import { ResultsManager } from '../../src/core/syncloop/prober/results';
import { exitCause } from '../../src/core/syncloop/prober/exits';
import type { ContainerStatus, KubeEvent, Pod } from '../../src/core/kube/objects/pod';
import type { ProbeUpdate } from '../../src/core/syncloop/types';

const probe = { httpGet: { path: '/healthz', port: 8081 }, periodSeconds: 5, failureThreshold: 2 };
const T0 = Date.parse('2026-01-01T00:00:00Z');
const ts = (s: number) => new Date(T0 + s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

function probeMe(s: Partial<ContainerStatus>, probes: { liveness?: boolean; readiness?: boolean; startup?: boolean } = { liveness: true }): Pod {
  return {
    metadata: { name: 'probe-me', namespace: 'default', uid: 'pm-uid' },
    spec: {
      containers: [
        {
          name: 'probe-me',
          ...(probes.liveness ? { livenessProbe: probe } : {}),
          ...(probes.readiness ? { readinessProbe: probe } : {}),
          ...(probes.startup ? { startupProbe: probe } : {}),
        },
      ],
    },
    status: {
      phase: 'Running',
      containerStatuses: [{ name: 'probe-me', ready: false, restartCount: 0, containerID: 'containerd://c0', state: { running: { startedAt: ts(0) } }, ...s }],
    },
  };
}

/** The container restarted `n` times; the previous one ended as `last`. */
function restarted(n: number, last: { exitCode: number; reason: string }, startedAt: number): Partial<ContainerStatus> {
  return {
    restartCount: n,
    containerID: `containerd://c${n}`,
    state: { running: { startedAt: ts(startedAt) } },
    lastState: { terminated: { ...last, containerID: `containerd://c${n - 1}` } },
  };
}

function event(uid: string, reason: string, message: string, count = 1, at = 5): KubeEvent {
  return {
    metadata: { name: `probe-me.${uid}`, namespace: 'default', uid },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'probe-me', uid: 'pm-uid', fieldPath: 'spec.containers{probe-me}' },
    reason,
    message,
    type: 'Warning',
    count,
    lastTimestamp: ts(at),
  };
}

const LIVENESS_FAILED = 'Liveness probe failed: Get "http://10.1.1.1:8081/healthz": dial tcp 10.1.1.1:8081: connect: connection refused';
const KILLED_FOR_LIVENESS = 'Container probe-me failed liveness probe, will be restarted';
const brief = (us: ProbeUpdate[]) => us.map((u) => `${u.probe} ${u.result} ${u.containerId}${u.inferred ? ' inferred' : ''}`);

describe('prober results manager', () => {
  it('reports a change only: the same result twice is one update', () => {
    const m = new ResultsManager('liveness');
    assert.equal(m.set('c0', 'Success'), true);
    assert.equal(m.set('c0', 'Success'), false);
    assert.equal(m.set('c0', 'Failure'), true);
    assert.equal(m.set('c0', 'Failure'), false);
    assert.equal(m.set('c1', 'Failure'), true, 'keyed by container ID');
    m.remove('c0');
    assert.equal(m.get('c0'), undefined);
    assert.equal(m.size, 1);
  });
});

describe('probe inference from Events', () => {
  it('maps Unhealthy and Killing messages (plain or aggregated by client-go) to the probe they name', () => {
    const cases: [string, string, string | undefined][] = [
      ['Unhealthy', LIVENESS_FAILED, 'liveness'],
      ['Unhealthy', `${COMBINED_PREFIX}${LIVENESS_FAILED}`, 'liveness'],
      ['Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503', 'readiness'],
      ['Unhealthy', 'Startup probe failed: command timed out', 'startup'],
      ['Unhealthy', 'Liveness probe errored: rpc error', 'liveness'],
      ['Killing', KILLED_FOR_LIVENESS, 'liveness'],
      ['Killing', 'Container probe-me failed startup probe, will be restarted', 'startup'],
      ['Killing', 'Stopping container probe-me', undefined],
      ['BackOff', 'Back-off restarting failed container', undefined],
    ];
    for (const [reason, message, want] of cases) assert.equal(probeOfEvent(event('e', reason, message)), want, message);
  });

  it('probe-me (failureThreshold 2): one liveness Failure per threshold crossing, not one per Unhealthy Event; Killing adds none', () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({}));
    assert.deepEqual(inf.observeEvent(event('u', 'Unhealthy', LIVENESS_FAILED, 1, 5)), [], 'failure 1 of 2 is an attempt, not a result');
    assert.deepEqual(
      inf.progress('pm-uid').map((p) => `${p.probe} ${p.failures}/${p.failureThreshold}`),
      ['liveness 1/2'],
    );
    const crossed = inf.observeEvent(event('u', 'Unhealthy', LIVENESS_FAILED, 2, 10));
    assert.deepEqual(brief(crossed), ['liveness Failure c0 inferred']);
    assert.match(crossed[0]!.message!, /failure 2 of failureThreshold 2/);
    assert.deepEqual(inf.observeEvent(event('k', 'Killing', KILLED_FOR_LIVENESS, 1, 10)), [], 'the result is already Failure');
    assert.deepEqual(inf.observeEvent(event('u', 'Unhealthy', LIVENESS_FAILED, 3, 11)), [], 'on hold until a new container');
    // The kubelet restarts it (exit 137 after its kill): the new container starts with liveness Success.
    const up = inf.observePod(probeMe(restarted(1, { exitCode: 137, reason: 'Error' }, 12)));
    assert.deepEqual(brief(up), ['liveness Success c1 inferred'], 'no second Failure for the restart: the Killing Event explained it');
    // The new container fails again: two more attempts, one more result.
    assert.deepEqual(inf.observeEvent(event('u', 'Unhealthy', LIVENESS_FAILED, 4, 17)), []);
    assert.deepEqual(brief(inf.observeEvent(event('u', 'Unhealthy', LIVENESS_FAILED, 5, 22))), ['liveness Failure c1 inferred']);
  });

  it('a count that rose by n is n attempts (a watch gap or a slow reader)', () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({}));
    assert.deepEqual(brief(inf.observeEvent(event('u', 'Unhealthy', LIVENESS_FAILED, 2, 10))), ['liveness Failure c0 inferred']);
  });

  it('failures more than two periods apart are not consecutive: a success in between restarted the run', () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({}));
    assert.deepEqual(inf.observeEvent(event('u', 'Unhealthy', LIVENESS_FAILED, 1, 5)), []);
    assert.deepEqual(inf.observeEvent(event('u', 'Unhealthy', LIVENESS_FAILED, 2, 60)), [], 'one failure at 5 s, one at 60 s: run of 1');
    assert.equal(inf.observeEvent(event('u', 'Unhealthy', LIVENESS_FAILED, 3, 65)).length, 1);
  });

  it('Unhealthy Events dropped by the spam filter: the Killing Event alone gives the Failure, not inferred', () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({}));
    assert.deepEqual(brief(inf.observeEvent(event('k', 'Killing', `${COMBINED_PREFIX}${KILLED_FOR_LIVENESS}`, 1, 10))), ['liveness Failure c0']);
  });

  it('an Event about the previous container (older than the current one) is not counted for it', () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({}));
    inf.observePod(probeMe(restarted(1, { exitCode: 2, reason: 'Error' }, 30)));
    assert.deepEqual(inf.observeEvent(event('u', 'Unhealthy', LIVENESS_FAILED, 2, 10)), []);
  });

  it('each new occurrence counts once; repeats and baseline events do not; at most maxEvents counts are kept', () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({}));
    inf.baselineEvent(event('old', 'Unhealthy', LIVENESS_FAILED, 7));
    assert.deepEqual(inf.observeEvent(event('old', 'Unhealthy', LIVENESS_FAILED, 7)), []);
    assert.deepEqual(inf.progress('pm-uid')[0]!.failures, 0);
    inf.observeEvent(event('e1', 'Unhealthy', LIVENESS_FAILED, 1));
    inf.observeEvent(event('e1', 'Unhealthy', LIVENESS_FAILED, 1));
    assert.deepEqual(inf.progress('pm-uid')[0]!.failures, 1);
    const small = new ProbeInference(3);
    for (let i = 0; i < 10; i++) small.observeEvent(event(`e${i}`, 'Unhealthy', 'Readiness probe failed: x'));
    assert.equal(small.eventCount, 3);
  });
});

describe('probe inference from pods: which restarts are liveness kills', () => {
  it('exit codes name the cause: OOMKilled, Completed, Killed (137/143), Error', () => {
    assert.equal(exitCause({ exitCode: 137, reason: 'OOMKilled' }), 'OOMKilled');
    assert.equal(exitCause({ exitCode: 0, reason: 'Completed' }), 'Completed');
    assert.equal(exitCause({ exitCode: 137, reason: 'Error' }), 'Killed');
    assert.equal(exitCause({ exitCode: 143, reason: 'Error' }), 'Killed');
    assert.equal(exitCause({ exitCode: 1, reason: 'Error' }), 'Error');
  });

  it('a restart with exit 137 and no Killing Event seen is an inferred liveness Failure of the old container', () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({}));
    const us = inf.observePod(probeMe(restarted(1, { exitCode: 137, reason: 'Error' }, 12)));
    assert.deepEqual(brief(us), ['liveness Failure c0 inferred', 'liveness Success c1 inferred']);
    assert.match(us[0]!.message!, /exitCode=137 .*cause=Killed/);
  });

  it('an OOMKill, a crash with exit code 1, or a completed run is not a liveness failure', () => {
    for (const last of [
      { exitCode: 137, reason: 'OOMKilled' },
      { exitCode: 1, reason: 'Error' },
      { exitCode: 0, reason: 'Completed' },
    ]) {
      const inf = new ProbeInference();
      inf.observePod(probeMe({}));
      assert.deepEqual(brief(inf.observePod(probeMe(restarted(1, last, 12)))), ['liveness Success c1 inferred'], JSON.stringify(last));
    }
  });

  it('a container without a liveness probe has no liveness results at all', () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({}, {}));
    assert.deepEqual(inf.observePod(probeMe(restarted(1, { exitCode: 137, reason: 'Error' }, 12), {})), []);
  });

  it("readiness is the ready flag: one update per change, a new container starts not ready (Failure), a stopped one is PLEG's business", () => {
    const inf = new ProbeInference();
    const p = { readiness: true };
    assert.deepEqual(inf.observePod(probeMe({}, p)), [], 'the first observation is a baseline');
    assert.deepEqual(brief(inf.observePod(probeMe({ ready: true }, p))), ['readiness Success c0']);
    assert.deepEqual(inf.observePod(probeMe({ ready: true }, p)), []);
    assert.deepEqual(brief(inf.observePod(probeMe({ ready: false }, p))), ['readiness Failure c0']);
    inf.observePod(probeMe({ ready: true }, p));
    assert.deepEqual(inf.observePod(probeMe({ ready: false, state: { terminated: { exitCode: 0 } } }, p)), []);
    assert.deepEqual(brief(inf.observePod(probeMe({ ...restarted(1, { exitCode: 0, reason: 'Completed' }, 20) }, p))), ['readiness Failure c1 inferred']);
  });

  it('readiness Unhealthy Events count attempts (the lane\'s "failure n of failureThreshold") and a ready flag ends the run', () => {
    const inf = new ProbeInference();
    const p = { readiness: true };
    inf.observePod(probeMe({}, p));
    const failed = (count: number, at: number) => event('r', 'Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503', count, at);
    assert.deepEqual(inf.observeEvent(failed(1, 5)), [], 'the flag, not the Events, is the result');
    inf.observeEvent(failed(2, 10));
    assert.equal(inf.progress('pm-uid')[0]!.failures, 2);
    inf.observePod(probeMe({ ready: true }, p));
    assert.equal(inf.progress('pm-uid')[0]!.failures, 0);
  });

  it('startup: started -> Success once; a container that never started and was killed is a startup failure', () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({ started: false }, { startup: true }));
    assert.deepEqual(brief(inf.observePod(probeMe({ started: true }, { startup: true }))), ['startup Success c0']);
    assert.deepEqual(inf.observePod(probeMe({ started: true }, { startup: true })), []);
    const k = new ProbeInference();
    k.observePod(probeMe({ started: false }, { startup: true, liveness: true }));
    assert.deepEqual(
      brief(k.observePod(probeMe({ ...restarted(1, { exitCode: 137, reason: 'Error' }, 12), started: false }, { startup: true, liveness: true }))),
      ['startup Failure c0 inferred', 'liveness Success c1 inferred', 'startup Unknown c1 inferred'],
    );
  });

  it("forgetPod drops its record and its containers' results", () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({}));
    inf.forgetPod('pm-uid');
    assert.equal(inf.podCount, 0);
    assert.equal(inf.managers.liveness.size, 0);
  });
});
