import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ProbeInference, probeOfEvent } from '../../src/core/syncloop/prober/infer';
import type { ContainerStatus, KubeEvent, Pod } from '../../src/core/syncloop/types';

const probe = { httpGet: { path: '/healthz', port: 8081 } };

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
    status: { phase: 'Running', containerStatuses: [{ name: 'probe-me', ready: false, restartCount: 0, containerID: 'containerd://c0', state: { running: {} }, ...s }] },
  };
}

function event(uid: string, reason: string, message: string, count = 1): KubeEvent {
  return {
    metadata: { name: `probe-me.${uid}`, namespace: 'default', uid },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'probe-me', uid: 'pm-uid', fieldPath: 'spec.containers{probe-me}' },
    reason,
    message,
    type: 'Warning',
    count,
  };
}

describe('probe inference from Events', () => {
  it('maps Unhealthy and Killing messages to the probe they name', () => {
    const cases: [string, string, string | undefined][] = [
      ['Unhealthy', 'Liveness probe failed: Get "http://10.1.1.1:8081/healthz": dial tcp 10.1.1.1:8081: connect: connection refused', 'liveness'],
      ['Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503', 'readiness'],
      ['Unhealthy', 'Startup probe failed: command timed out', 'startup'],
      ['Unhealthy', 'Liveness probe errored: rpc error', 'liveness'],
      ['Killing', 'Container probe-me failed liveness probe, will be restarted', 'liveness'],
      ['Killing', 'Container probe-me failed startup probe, will be restarted', 'startup'],
      ['Killing', 'Stopping container probe-me', undefined],
      ['BackOff', 'Back-off restarting failed container', undefined],
    ];
    for (const [reason, message, want] of cases) assert.equal(probeOfEvent(event('e', reason, message)), want, message);
  });

  it('each new occurrence (new event, or count rising) is one Failure; repeats and baseline events are not', () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({}));
    inf.baselineEvent(event('old', 'Unhealthy', 'Liveness probe failed: x', 7));
    assert.deepEqual(inf.observeEvent(event('old', 'Unhealthy', 'Liveness probe failed: x', 7)), []);
    const u = inf.observeEvent(event('e1', 'Unhealthy', 'Liveness probe failed: x', 1));
    assert.deepEqual(u, [{ probe: 'liveness', result: 'Failure', podUID: 'pm-uid', containerId: 'c0', message: 'Liveness probe failed: x' }]);
    assert.equal(inf.observeEvent(event('e1', 'Unhealthy', 'Liveness probe failed: x', 1)).length, 0);
    assert.equal(inf.observeEvent(event('e1', 'Unhealthy', 'Liveness probe failed: x', 2)).length, 1);
    assert.equal(inf.observeEvent(event('e2', 'Normal', 'Pulled')).length, 0);
  });

  it('keeps at most maxEvents counts', () => {
    const inf = new ProbeInference(3);
    for (let i = 0; i < 10; i++) inf.observeEvent(event(`e${i}`, 'Unhealthy', 'Readiness probe failed: x'));
    assert.equal(inf.eventCount, 3);
  });
});

describe('probe inference from pods', () => {
  it('the first observation is a baseline', () => {
    const inf = new ProbeInference();
    assert.deepEqual(inf.observePod(probeMe({ ready: true, restartCount: 3 }, { liveness: true, readiness: true })), []);
  });

  it('readiness: ready -> Success; a running container turning unready -> Failure; unready because it stopped -> nothing', () => {
    const inf = new ProbeInference();
    const p = { readiness: true };
    inf.observePod(probeMe({}, p));
    assert.deepEqual(inf.observePod(probeMe({ ready: true }, p)).map((u) => [u.probe, u.result]), [['readiness', 'Success']]);
    assert.deepEqual(inf.observePod(probeMe({ ready: false }, p)).map((u) => [u.probe, u.result]), [['readiness', 'Failure']]);
    inf.observePod(probeMe({ ready: true }, p));
    assert.deepEqual(inf.observePod(probeMe({ ready: false, state: { terminated: { exitCode: 0 } } }, p)), []);
  });

  it('readiness flags of containers without a readiness probe are not probe results', () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({}, {}));
    assert.deepEqual(inf.observePod(probeMe({ ready: true }, {})), []);
  });

  it('startup: started -> Success', () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({ started: false }, { startup: true }));
    assert.deepEqual(inf.observePod(probeMe({ started: true }, { startup: true })).map((u) => [u.probe, u.result]), [['startup', 'Success']]);
  });

  it('liveness: a restart of a container with a liveness probe is a Failure, unless an Event already reported one since the last restart', () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({ restartCount: 0 }));
    assert.deepEqual(inf.observePod(probeMe({ restartCount: 1, containerID: 'containerd://c1' })).map((u) => [u.probe, u.result, u.containerId]), [['liveness', 'Failure', 'c1']]);
    inf.observeEvent(event('k', 'Killing', 'Container probe-me failed liveness probe, will be restarted'));
    assert.deepEqual(inf.observePod(probeMe({ restartCount: 2, containerID: 'containerd://c2' })), []);
    assert.equal(inf.observePod(probeMe({ restartCount: 3, containerID: 'containerd://c3' })).length, 1);
    const noProbe = new ProbeInference();
    noProbe.observePod(probeMe({ restartCount: 0 }, {}));
    assert.deepEqual(noProbe.observePod(probeMe({ restartCount: 1 }, {})), []);
  });

  it('forgetPod drops its record', () => {
    const inf = new ProbeInference();
    inf.observePod(probeMe({}));
    inf.forgetPod('pm-uid');
    assert.equal(inf.podCount, 0);
  });
});
