/**
 * A real kubectl v1.34 against the demo cluster with its controllers and kubelet running: the
 * verbs a new user tries on workloads (create deployment, rollout status, wait, scale, set image,
 * rollout history, Jobs, cascading delete). Every wait is kubectl's own (a watch on the state),
 * bounded by generous timeouts for a loaded machine.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runKubectl } from '../support/kubectl';
import { startTestCluster, type TestCluster } from './demo-support';

const WAIT = '150s';

describe('kubectl v1.34 against the demo cluster controllers', () => {
  let t: TestCluster;
  /** kubectl that must succeed, with room for kubectl's own --timeout. */
  const k = async (...args: string[]) => {
    const r = await runKubectl(args, { kubeconfig: t.kubeconfig, timeoutMs: 200_000 });
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}):\n${r.stderr}`);
    return r.stdout;
  };
  const json = async (...args: string[]) => JSON.parse(await k(...args, '-o', 'json'));
  before(async () => {
    t = await startTestCluster({ kubelet: true, controllers: true });
  });
  after(() => t.close());

  it('create deployment reaches Available: rollout status and wait --for=condition=Available', async () => {
    assert.match(await k('create', 'deployment', 'web', '--image=nginx', '--replicas=2'), /deployment\.apps\/web created/);
    assert.match(await k('rollout', 'status', 'deployment/web', `--timeout=${WAIT}`), /deployment "web" successfully rolled out/);
    assert.match(await k('wait', '--for=condition=Available', 'deployment/web', `--timeout=${WAIT}`), /deployment\.apps\/web condition met/);
    const d = await json('get', 'deployment', 'web');
    assert.equal(d.status.availableReplicas, 2);
    assert.equal(d.status.readyReplicas, 2);
    const pods = await json('get', 'pods', '-l', 'app=web');
    assert.equal(pods.items.length, 2);
    for (const p of pods.items) {
      assert.equal(p.status.phase, 'Running');
      assert.equal(p.metadata.ownerReferences[0].kind, 'ReplicaSet');
      assert.equal(p.metadata.ownerReferences[0].controller, true);
    }
    const events = await k('get', 'events', '--field-selector', 'involvedObject.name=web');
    assert.match(events, /^\d+s\s+Normal\s+ScalingReplicaSet\s+deployment\/web\s+Scaled up replica set web-\w+ from 0 to 2$/m);
  });

  it('scale up and down through the scale subresource', async () => {
    assert.match(await k('scale', 'deployment/web', '--replicas=4'), /deployment\.apps\/web scaled/);
    await k('wait', '--for=jsonpath={.status.availableReplicas}=4', 'deployment/web', `--timeout=${WAIT}`);
    assert.match(await k('scale', 'deployment/web', '--current-replicas=4', '--replicas=1'), /deployment\.apps\/web scaled/);
    await k('rollout', 'status', 'deployment/web', `--timeout=${WAIT}`);
    const d = await json('get', 'deployment', 'web');
    assert.equal(d.spec.replicas, 1);
    assert.equal(d.status.replicas, 1);
    assert.equal(d.status.availableReplicas, 1);
    const wrong = await runKubectl(['scale', 'deployment/web', '--current-replicas=7', '--replicas=2'], { kubeconfig: t.kubeconfig });
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /Expected replicas to be 7, was 1/);
  });

  it('a rolling update with set image, and its rollout history', async () => {
    await k('scale', 'deployment/web', '--replicas=3');
    await k('rollout', 'status', 'deployment/web', `--timeout=${WAIT}`);
    assert.match(await k('set', 'image', 'deployment/web', 'nginx=nginx:1.27'), /deployment\.apps\/web image updated/);
    assert.match(await k('rollout', 'status', 'deployment/web', `--timeout=${WAIT}`), /deployment "web" successfully rolled out/);
    const pods = await json('get', 'pods', '-l', 'app=web');
    const live = pods.items.filter((p: any) => !p.metadata.deletionTimestamp);
    assert.equal(live.length, 3);
    for (const p of live) assert.equal(p.spec.containers[0].image, 'nginx:1.27');
    const history = await k('rollout', 'history', 'deployment/web');
    assert.match(history, /^1\s+<none>$/m);
    assert.match(history, /^2\s+<none>$/m);
    const rs = await json('get', 'rs', '-l', 'app=web');
    const replicas = rs.items.map((r: any) => [r.metadata.annotations['deployment.kubernetes.io/revision'], r.spec.replicas]).sort();
    assert.deepEqual(replicas, [
      ['1', 0],
      ['2', 3],
    ]);
    // Undo: the first template comes back as revision 3 (its ReplicaSet is reused).
    await k('rollout', 'undo', 'deployment/web');
    await k('rollout', 'status', 'deployment/web', `--timeout=${WAIT}`);
    const after = await json('get', 'rs', '-l', 'app=web');
    const revs = after.items
      .map((r: any) => [r.metadata.annotations['deployment.kubernetes.io/revision'], r.spec.template.spec.containers[0].image, r.spec.replicas])
      .sort();
    assert.deepEqual(revs, [
      ['2', 'nginx:1.27', 0],
      ['3', 'nginx', 3],
    ]);
  });

  it('rollout status fails on a Deployment past its progress deadline', async () => {
    const stuck = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'stuck' },
      spec: {
        replicas: 1,
        progressDeadlineSeconds: 3,
        selector: { matchLabels: { app: 'stuck' } },
        template: {
          metadata: { labels: { app: 'stuck' } },
          spec: { containers: [{ name: 'c', image: 'nginx', readinessProbe: { exec: { command: ['false'] }, periodSeconds: 1 } }] },
        },
      },
    };
    const c = await runKubectl(['create', '-f', '-'], { kubeconfig: t.kubeconfig, input: JSON.stringify(stuck) });
    assert.equal(c.code, 0, c.stderr);
    const r = await runKubectl(['rollout', 'status', 'deployment/stuck', `--timeout=${WAIT}`], { kubeconfig: t.kubeconfig, timeoutMs: 200_000 });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /deployment "stuck" exceeded its progress deadline/);
    await k('delete', 'deployment', 'stuck');
  });

  it('a Job that completes, and one that fails past backoffLimit', async () => {
    await k('create', 'job', 'ok', '--image=busybox', '--', 'sh', '-c', 'echo done');
    assert.match(await k('wait', '--for=condition=Complete', 'job/ok', `--timeout=${WAIT}`), /job\.batch\/ok condition met/);
    const ok = await json('get', 'job', 'ok');
    assert.equal(ok.status.succeeded, 1);
    const bad = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'bad' },
      spec: { backoffLimit: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'exit 1'] }] } } },
    };
    const r = await runKubectl(['create', '-f', '-'], { kubeconfig: t.kubeconfig, input: JSON.stringify(bad) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(await k('wait', '--for=condition=Failed', 'job/bad', `--timeout=${WAIT}`), /job\.batch\/bad condition met/);
    const failed = await json('get', 'job', 'bad');
    assert.equal(failed.status.failed, 2);
    assert.equal(failed.status.conditions.find((c: any) => c.type === 'Failed').reason, 'BackoffLimitExceeded');
  });

  it('cascading delete: background, foreground, orphan', async () => {
    for (const n of ['gc-bg', 'gc-fg', 'gc-or']) await k('create', 'deployment', n, '--image=nginx');
    for (const n of ['gc-bg', 'gc-fg', 'gc-or']) await k('rollout', 'status', `deployment/${n}`, `--timeout=${WAIT}`);
    await k('delete', 'deployment', 'gc-bg');
    await k('wait', '--for=delete', 'rs', '-l', 'app=gc-bg', `--timeout=${WAIT}`);
    // Foreground: kubectl waits for the Deployment itself, which goes only after its dependents.
    await k('delete', 'deployment', 'gc-fg', '--cascade=foreground', `--timeout=${WAIT}`);
    assert.equal((await json('get', 'rs', '-l', 'app=gc-fg')).items.length, 0);
    assert.equal((await json('get', 'deployment', '-l', 'app=gc-fg')).items.length, 0);
    await k('delete', 'deployment', 'gc-or', '--cascade=orphan', `--timeout=${WAIT}`);
    const rs = (await json('get', 'rs', '-l', 'app=gc-or')).items;
    assert.equal(rs.length, 1);
    assert.equal(rs[0].metadata.ownerReferences, undefined);
    const pods = (await json('get', 'pods', '-l', 'app=gc-or')).items;
    assert.equal(pods.length, 1);
    assert.equal(pods[0].metadata.ownerReferences[0].name, rs[0].metadata.name);
    await k('wait', '--for=delete', 'pods', '-l', 'app=gc-bg', `--timeout=${WAIT}`);
  });
});
