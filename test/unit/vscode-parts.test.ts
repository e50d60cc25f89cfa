// The small pure parts of the extension: status texts, progress, log levels, demo options,
// connection messages, settings of the connection.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeApiError, KubeConfigError, KubeTransportError } from '../../src/core/kube/errors';
import type { ObjectView } from '../../src/core/rows/objectView';
import { describeConnectionError, expandHome, kubeconfigFiles } from '../../src/app/connection/connection';
import { demoSettingsFromEnv, describeDemoSettings } from '../../src/app/demo/demoOptions';
import { logTaskEvent, progressMessage } from '../../src/app/load/loadRunner';
import { createLogger } from '../../src/app/logger';
import { objectDescription, statusTone } from '../../src/app/model/objectStatus';
import { readSettings } from '../../src/app/settings';
import { statusBarText } from '../../src/app/statusText';
import { clip } from '../../src/app/sync/syncRunner';

const view = (v: Partial<ObjectView>): ObjectView => ({ key: 'k', uid: 'u', kind: 'Pod', name: 'n', status: 'Running', deleting: false, ...v });

describe('object status', () => {
  const cases: [Partial<ObjectView>, string, string][] = [
    [{ status: 'Running', ready: '1/1' }, 'ok', 'Running · Ready 1/1'],
    [{ status: 'Running', ready: '1/2', restarts: 1 }, 'warning', 'Running · Ready 1/2 · 1 restart'],
    [{ status: 'Pending', ready: '0/1' }, 'warning', 'Pending · Ready 0/1'],
    [{ status: 'Init:0/2', ready: '0/1' }, 'warning', 'Init:0/2 · Ready 0/1'],
    [{ status: 'CrashLoopBackOff', ready: '0/1', restarts: 7 }, 'error', 'CrashLoopBackOff · Ready 0/1 · 7 restarts'],
    [{ status: 'Error', ready: '0/1' }, 'error', 'Error · Ready 0/1'],
    [{ status: 'Init:CrashLoopBackOff', ready: '0/1' }, 'error', 'Init:CrashLoopBackOff · Ready 0/1'],
    [{ status: 'Completed', ready: '0/1' }, 'done', 'Completed · Ready 0/1'],
    [{ status: 'Running', ready: '0/1', probes: { c: { liveness: 'Failure', readiness: 'Success' } } }, 'warning', 'Running · Ready 0/1 · liveness failing'],
    [{ status: '' }, 'none', ''],
    [{ kind: 'Deployment', status: 'Active', ready: '2/3' }, 'warning', 'Ready 2/3'],
    [{ kind: 'Deployment', status: 'Active', ready: '3/3' }, 'ok', 'Ready 3/3'],
    [{ kind: 'ConfigMap', status: 'Active' }, 'none', ''],
    [{ kind: 'PersistentVolumeClaim', status: 'Bound', phase: 'Bound' }, 'ok', 'Bound'],
    [{ kind: 'Namespace', status: 'Terminating', deleting: true }, 'warning', 'Terminating'],
  ];
  for (const [v, tone, text] of cases) {
    it(`${v.kind ?? 'Pod'} ${v.status || '(no status)'} ${v.ready ?? ''}: ${tone}, "${text}"`, () => {
      assert.equal(statusTone(view(v)), tone);
      assert.equal(objectDescription(view(v)), text);
    });
  }
});

describe('status bar and progress texts', () => {
  it('says what is loaded, loading and syncing', () => {
    assert.equal(statusBarText({ demo: false, objects: 0, sync: 'off' }).text, '$(server-environment) KubeLoop');
    assert.equal(
      statusBarText({ context: 'kubeloop-demo', demo: true, objects: 2345, sync: 'running' }).text,
      '$(server-environment) kubeloop-demo (demo) · 2,345 objects · $(sync) syncing',
    );
    const loading = { typesDone: 12, typesTotal: 64, tasksDone: 12, tasksTotal: 64, objects: 3456, failed: 0 };
    assert.equal(statusBarText({ context: 'prod', demo: false, objects: 10, sync: 'off', loading }).text, '$(cloud-download) prod · 12/64 types');
    // Still icons only: a spinning one is redrawn ~20 times a second while it shows (statusText.ts).
    assert.equal(
      statusBarText({ context: 'prod', demo: false, objects: 1, sync: 'starting', loading }).text,
      '$(cloud-download) prod · 12/64 types · $(sync) sync starting',
    );
    assert.match(
      statusBarText({ context: 'prod', server: 'https://x', demo: false, objects: 1, sync: 'starting' }).tooltip,
      /Server: https:\/\/x\n.*\nSync loop: starting/,
    );
    // node scope and PLEG health (issue 10)
    const scoped = statusBarText({ context: 'prod', demo: false, objects: 1, sync: 'running', syncNode: 'worker-2' });
    assert.equal(scoped.text, '$(server-environment) prod · 1 objects · $(sync) syncing worker-2');
    assert.match(scoped.tooltip, /Sync loop: running, pods of node worker-2/);
    const sick = statusBarText({
      context: 'prod',
      demo: false,
      objects: 1,
      sync: 'running',
      plegProblem: 'PLEG is not healthy: pleg was last seen active 3m5s ago; threshold is 3m0s',
    });
    assert.equal(sick.text, '$(server-environment) prod · 1 objects · $(warning) syncing, PLEG unhealthy');
    assert.match(sick.tooltip, /\nPLEG is not healthy: pleg was last seen active 3m5s ago; threshold is 3m0s\n/);
    assert.doesNotMatch(statusBarText({ context: 'prod', demo: false, objects: 1, sync: 'off', plegProblem: 'PLEG is not healthy: x' }).tooltip, /PLEG/);
    assert.equal(progressMessage(loading), '12/64 types, 3,456 objects');
    assert.equal(progressMessage({ ...loading, failed: 2 }), '12/64 types, 3,456 objects, 2 failed');
    assert.equal(progressMessage({ ...loading, typesTotal: 0 }), 'discovering resource types…');
  });
});

describe('log lines', () => {
  it('cuts a long line, saying how much it left out', () => {
    assert.equal(clip('x'.repeat(10), 4), 'xxxx… (6 more characters)');
  });

  it('logs a finished task at info and a failed one at warning, naming type and namespace', () => {
    const lines: string[] = [];
    const log = createLogger(
      { trace: () => undefined, debug: () => undefined, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: () => undefined },
      () => 'info',
    );
    const base = { kind: 'task' as const, loadId: 'l', taskId: 1, worker: 2, t: 0, gvr: { group: 'apps', version: 'v1', resource: 'deployments' } };
    logTaskEvent(log, { ...base, phase: 'start' });
    logTaskEvent(log, { ...base, phase: 'finish', outcome: 'ok', count: 1234, pages: 3, durationMs: 45.6 });
    logTaskEvent(log, {
      ...base,
      namespace: 'default',
      phase: 'finish',
      outcome: 'error',
      status: 403,
      message: 'deployments.apps is forbidden',
      durationMs: 2,
    });
    assert.deepEqual(lines, [
      'info loader: deployments.apps (all namespaces / cluster): 1,234 objects in 3 page(s), 46 ms on worker 2',
      'warn loader: deployments.apps in default: FAILED 403: deployments.apps is forbidden (2 ms on worker 2)',
    ]);
  });
});

describe('demo cluster options from the environment', () => {
  it('has defaults, and reads objects, faults and forbidden types', () => {
    assert.deepEqual(demoSettingsFromEnv({}), { objects: 2000, seed: 1, churnPerSecond: 1, faults: [], forbidden: [], controllers: true });
    const off = demoSettingsFromEnv({ KUBELOOP_DEMO_CONTROLLERS: '0' });
    assert.equal(off.controllers, false);
    assert.equal(describeDemoSettings(off), '2,000 objects, 1 change(s)/s, controllers off');
    const s = demoSettingsFromEnv({
      KUBELOOP_DEMO_OBJECTS: '500',
      KUBELOOP_DEMO_FAULTS: 'latency,verb=list,ms=30000,times=4',
      KUBELOOP_DEMO_FORBID: '/secrets, apps/deployments',
      KUBELOOP_DEMO_CHURN: '0',
    });
    assert.equal(s.objects, 500);
    assert.deepEqual(s.faults, [{ kind: 'latency', verb: 'list', latencyMs: 30000, times: 4 }]);
    assert.deepEqual(s.forbidden, ['/secrets', 'apps/deployments']);
    assert.equal(describeDemoSettings(s), '500 objects, 1 fault rule(s) from KUBELOOP_DEMO_FAULTS, forbidden: /secrets, apps/deployments');
  });

  it('names the variable that is wrong', () => {
    assert.throws(() => demoSettingsFromEnv({ KUBELOOP_DEMO_OBJECTS: 'many' }), /KUBELOOP_DEMO_OBJECTS must be a whole number/);
    assert.throws(() => demoSettingsFromEnv({ KUBELOOP_DEMO_FAULTS: 'explode' }), /KUBELOOP_DEMO_FAULTS: unknown fault kind/);
    assert.throws(() => demoSettingsFromEnv({ KUBELOOP_DEMO_FORBID: 'secrets' }), /KUBELOOP_DEMO_FORBID: "secrets" is not group\/resource/);
    assert.throws(() => demoSettingsFromEnv({ KUBELOOP_DEMO_CONTROLLERS: 'yes' }), /KUBELOOP_DEMO_CONTROLLERS must be a whole number from 0 to 1/);
  });
});

describe('connection', () => {
  it('describes failures in words a user can act on, by kind', () => {
    const where = { context: 'prod', server: 'https://10.0.0.1:6443' };
    assert.deepEqual(describeConnectionError(new KubeConfigError('kubeconfig /x: file not found'), where), {
      kind: 'kubeconfig',
      message: 'Kubeconfig problem: kubeconfig /x: file not found',
    });
    assert.deepEqual(describeConnectionError(new KubeTransportError('connect', 'GET /api: cannot connect: ECONNREFUSED'), where), {
      kind: 'unreachable',
      message: 'The API server at https://10.0.0.1:6443 (context "prod") cannot be reached: GET /api: cannot connect: ECONNREFUSED',
    });
    assert.equal(
      describeConnectionError(new KubeTransportError('timeout', 'no complete response within 30000 ms'), where).message,
      'The API server at https://10.0.0.1:6443 (context "prod") did not answer in time: no complete response within 30000 ms',
    );
    assert.equal(describeConnectionError(new KubeApiError(401, 'Unauthorized', 'Unauthorized'), where).kind, 'unauthorized');
  });

  it('opens the kubeconfig the target reads: the setting, else $KUBECONFIG, else ~/.kube/config', () => {
    assert.deepEqual(kubeconfigFiles({ kubeconfig: '/etc/kc' }, { KUBECONFIG: '/a' }, '/home/u'), ['/etc/kc']);
    assert.deepEqual(kubeconfigFiles({}, { KUBECONFIG: '/a:/b' }, '/home/u'), ['/a', '/b']);
    assert.deepEqual(kubeconfigFiles({}, {}, '/home/u'), ['/home/u/.kube/config']);
    assert.equal(expandHome('~/.kube/x', '/home/u'), '/home/u/.kube/x');
  });

  it('accepts an absolute or ~/ kubeconfig path and rejects a relative one', () => {
    assert.deepEqual(readSettings((k) => (k === 'kubeconfig' ? '~/.kube/other' : undefined)).problems, []);
    const r = readSettings((k) => (k === 'kubeconfig' ? 'kube/config' : k === 'context' ? 42 : undefined));
    assert.equal(r.settings.kubeconfig, '');
    assert.deepEqual(r.problems, [
      'kubeloop.kubeconfig must be an absolute path (or start with ~/), or empty for $KUBECONFIG / ~/.kube/config; got "kube/config". Using "".',
      'kubeloop.context must be a string; got 42. Using "".',
    ]);
  });
});
