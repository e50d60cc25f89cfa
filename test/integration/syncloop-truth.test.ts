/**
 * The sync loop true to the kubelet, on the demo cluster (kubelet simulation at 10x) through real
 * watches and kubectl: an OOMKilled container is not a liveness failure; a completed pod leaves
 * "syncing" (terminating -> terminated) and stays shown; a force delete ends a worker whose
 * containers were never seen stopping (marked inferred); a pod recreated under the same name is a
 * second worker with its own UID; a pod past activeDeadlineSeconds is failed by the kubelet and
 * terminates; a ConfigMap goes through its informer, not the pod handlers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startKubelet, type Kubelet } from '../../src/demo/kubelet';
import { ClusterSync } from '../../src/core/syncloop/sources/cluster';
import { TimelineStore } from '../../src/core/timeline/store';
import type { SyncIterationEvent } from '../../src/core/timeline/events';
import { startTestCluster, type TestCluster } from './demo-support';
import { eventually } from '../support/eventually';
import { startSync } from '../support/syncLoop';

const pod = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec });
const liveness = { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5, failureThreshold: 2 };

describe('the sync loop on the demo cluster: what a kubelet would show', () => {
  let t: TestCluster;
  let kubelet: Kubelet;
  let sync: ClusterSync;
  let stop: () => Promise<void>;
  const timeline = new TimelineStore(50_000);
  let lines: string[] = [];
  const marks = (key: string) => (timeline.toArray() as SyncIterationEvent[]).filter((e) => e.key === key);

  before(async () => {
    t = await startTestCluster({ kubelet: false });
    kubelet = startKubelet(t.cluster.store, { speed: 10 });
    ({ sync, lines, stop } = await startSync(t.kubeconfig, { timeline, types: [{ group: '', version: 'v1', resource: 'configmaps' }] }));
  });
  after(async () => {
    await stop();
    kubelet.stop();
    await t.close();
  });

  it('an OOMKilled container (with a liveness probe) restarts: the PLEG names OOMKilled, no liveness result is made up', async () => {
    await t.kubectlOk(
      ['apply', '-f', '-'],
      pod('memory-demo', {
        containers: [
          {
            name: 'memory-demo-ctr',
            image: 'polinux/stress',
            command: ['stress'],
            args: ['--vm', '1', '--vm-bytes', '250M', '--vm-hang', '1'],
            ports: [{ containerPort: 8080 }],
            livenessProbe: liveness,
            resources: { limits: { memory: '100Mi' } },
          },
        ],
      }),
    );
    await eventually(() => (sync.view('default/memory-demo')?.restarts ?? 0) >= 1, { description: 'a restart in the model', timeoutMs: 60_000 });
    await eventually(() => marks('default/memory-demo').some((e) => e.source === 'pleg' && e.op === 'ContainerDied' && /OOMKilled/.test(e.message ?? '')), {
      description: 'PLEG ContainerDied naming OOMKilled',
      timeoutMs: 30_000,
    });
    // The death that names OOMKilled (a restart may also bring a death the pod's status no longer
    // names by the time it is handled: that one says its exit is not known).
    const deaths = marks('default/memory-demo').filter((e) => e.source === 'pleg' && e.op === 'ContainerDied');
    for (const d of deaths) assert.ok(d.message, 'every ContainerDied says why, or that it cannot know');
    const died = deaths.find((e) => /OOMKilled/.test(e.message ?? ''))!;
    assert.match(died.message!, /exitCode=137 reason="OOMKilled" cause=OOMKilled/);
    const livenessFailures = marks('default/memory-demo').filter((e) => e.source === 'probe' && e.op === 'liveness' && e.handler === 'HandlePodSyncs');
    assert.deepEqual(livenessFailures, [], 'an OOMKill is not a liveness failure');
    await t.kubectlOk(['delete', 'pod', 'memory-demo', '--now']);
  });

  it('a completed pod (restartPolicy Never) leaves syncing: terminating -> terminated, while the API and the model still show it Completed', async () => {
    await t.kubectlOk(
      ['apply', '-f', '-'],
      pod('pi', { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl:5.34', command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)'] }] }),
    );
    await eventually(() => sync.view('default/pi')?.status === 'Completed', { description: 'Completed in the model', timeoutMs: 30_000 });
    const uid = sync.view('default/pi')!.uid;
    await eventually(() => sync.worker(uid)?.state === 'terminated', { description: 'the worker terminated', timeoutMs: 30_000 });
    assert.equal(sync.worker(uid)!.terminal, true);
    assert.equal(sync.worker(uid)!.deleted, false, 'nothing deleted it');
    assert.ok(marks('default/pi').some((e) => e.source === 'podworker' && e.message?.startsWith('syncing -> terminating')));
    // Still there after housekeeping: a finished worker of a desired pod is kept, the pod still shown.
    const hk = timeline.length;
    await eventually(() => (timeline.toArray() as SyncIterationEvent[]).slice(hk).some((e) => e.source === 'housekeeping' && e.outcome !== 'skipped'), {
      description: 'a housekeeping pass',
      timeoutMs: 30_000,
    });
    assert.equal(sync.view('default/pi')?.status, 'Completed');
    await t.kubectlOk(['delete', 'pod', 'pi']);
    await eventually(() => sync.view('default/pi') === undefined, { description: 'gone from the model after the delete', timeoutMs: 30_000 });
  });

  it('a pod past activeDeadlineSeconds: the kubelet fails it (DeadlineExceeded), its worker goes terminating -> terminated, it stays shown', async () => {
    await t.kubectlOk(
      ['apply', '-f', '-'],
      pod('deadline', { activeDeadlineSeconds: 2, terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: 'nginx:1.27' }] }),
    );
    await eventually(() => sync.view('default/deadline')?.status === 'Running', { description: 'Running in the model', timeoutMs: 30_000 });
    const uid = sync.view('default/deadline')!.uid;
    await eventually(() => sync.worker(uid)?.state === 'terminated', { description: 'the worker terminated', timeoutMs: 20_000 });
    const st = JSON.parse(await t.kubectlOk(['get', 'pod', 'deadline', '-o', 'json'])).status;
    assert.deepEqual([st.phase, st.reason], ['Failed', 'DeadlineExceeded']);
    assert.equal(sync.view('default/deadline')?.phase, 'Failed');
    assert.equal(sync.worker(uid)!.terminal, true);
    await t.kubectlOk(['delete', 'pod', 'deadline']);
    await eventually(() => sync.view('default/deadline') === undefined, { description: 'gone after the delete', timeoutMs: 30_000 });
  });

  it('a force delete: the worker terminates without seeing the containers stop, and the timeline says so (inferred)', async () => {
    await t.kubectlOk(['apply', '-f', '-'], pod('forced', { containers: [{ name: 'c', image: 'busybox:1.36', command: ['sh', '-c', 'sleep 3600'] }] }));
    await eventually(() => sync.view('default/forced')?.status === 'Running', { description: 'Running in the model', timeoutMs: 30_000 });
    const uid = sync.view('default/forced')!.uid;
    await t.kubectlOk(['delete', 'pod', 'forced', '--grace-period=0', '--force']);
    await eventually(() => sync.view('default/forced') === undefined, { description: 'gone from the model', timeoutMs: 30_000 });
    await eventually(() => sync.worker(uid)?.finished ?? true, {
      description: 'the worker finished',
      timeoutMs: 30_000,
    });
    const inferred = marks('default/forced').filter((e) => e.source === 'podworker' && e.inferred);
    assert.equal(inferred.length, 1, JSON.stringify(marks('default/forced').filter((e) => e.source === 'podworker')));
    assert.equal(inferred[0]!.uid, uid);
  });

  it('a pod recreated under the same name (a StatefulSet pod): two workers, two UIDs on the timeline', async () => {
    const spec = { containers: [{ name: 'web', image: 'nginx:1.27' }] };
    await t.kubectlOk(['apply', '-f', '-'], pod('web-0', spec));
    await eventually(() => sync.view('default/web-0')?.status === 'Running', { description: 'first incarnation Running', timeoutMs: 30_000 });
    const first = sync.view('default/web-0')!.uid;
    await t.kubectlOk(['delete', 'pod', 'web-0', '--wait=true']);
    await t.kubectlOk(['apply', '-f', '-'], pod('web-0', spec));
    await eventually(
      () => {
        const v = sync.view('default/web-0');
        return !!v && v.uid !== first && v.status === 'Running';
      },
      { description: 'second incarnation Running', timeoutMs: 30_000 },
    );
    const second = sync.view('default/web-0')!.uid;
    const uids = new Set(
      marks('default/web-0')
        .filter((e) => e.source === 'podworker')
        .map((e) => e.uid),
    );
    assert.deepEqual([...uids].sort(), [first, second].sort());
    const adds = marks('default/web-0')
      .filter((e) => e.source === 'config' && e.op === 'ADD')
      .map((e) => e.uid);
    assert.deepEqual(adds, [first, second]);
    assert.equal(sync.worker(second)?.state, 'syncing');
  });

  it('a ConfigMap is kept by its informer (OnAdd / OnUpdate / OnDelete), never by HandlePodAdditions', async () => {
    await t.kubectlOk(['-n', 'default', 'create', 'configmap', 'settings', '--from-literal=a=1']);
    await eventually(() => !!sync.view('configmaps:default/settings'), { description: 'in the model', timeoutMs: 30_000 });
    await t.kubectlOk(['-n', 'default', 'delete', 'configmap', 'settings']);
    await eventually(() => !sync.view('configmaps:default/settings'), { description: 'out of the model', timeoutMs: 30_000 });
    const its = marks('configmaps:default/settings').map((e) => `${e.source} ${e.handler}`);
    assert.deepEqual(its, ['informer OnAdd', 'informer OnDelete']);
    assert.ok(!lines.some((l) => l.includes('configmaps:default/settings') && l.includes('HandlePod')));
    assert.ok(!lines.some((l) => l.startsWith('E ')), lines.filter((l) => l.startsWith('E ')).join('\n'));
  });
});
