/**
 * The sync loop for a user with rights to one namespace, on a real kube-apiserver with RBAC: a user
 * whose Role allows get/list/watch of everything in team-a only (its kubeconfig context namespace)
 * runs `kubeloop sync --json` with no --namespace. The real server's SelfSubject reviews scope the
 * watches to team-a: the pod the test's kubelet runs there gets its config ADD and PLEG
 * ContainerStarted, and no request is refused (no "Reflector failed" retry loop, no 403 on stderr).
 * A user who may watch pods but not Events in team-a has Events reported once and still syncs pods.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runSync } from '../../src/cli/sync';
import { startControlPlane, type ControlPlane } from '../../lab/controlplane';
import { kubeTimestamp, ScriptedKubelet, type ContainerState } from './kubelet';
import { Api, bindRole, kubeconfigFor } from './support';
import { eventually } from '../support/eventually';

const USERS = [
  { name: 'alice', token: 'alice-token-3f9c1d7e52' },
  { name: 'erin', token: 'erin-token-8a21c4b0d9' },
];
const READ = ['get', 'list', 'watch'];
const NODE = 'team-a-worker';
const IMAGE = 'registry.k8s.io/e2e-test-images/agnhost:2.53';

/** `kubeloop sync --json` in-process until stopped: its iterations (parsed) and its stderr. */
function sync(kubeconfig: string) {
  const out: any[] = [];
  const err: string[] = [];
  const stop = new AbortController();
  const code = runSync(['--kubeconfig', kubeconfig, '--json'], { stdout: (l) => out.push(JSON.parse(l)), stderr: (l) => err.push(l), signal: stop.signal });
  const has = (source: string, op: string, key: string) => out.some((e) => e.source === source && e.op === op && String(e.key).split(',').includes(key));
  return { out, err, has, stop: async () => (stop.abort(), code) };
}

describe('the sync loop with limited rights on a real kube-apiserver (RBAC)', () => {
  let cp: ControlPlane;
  let api: Api;
  let kubelet: ScriptedKubelet;

  before(async () => {
    cp = await startControlPlane({ extraUsers: USERS });
    api = Api.admin(cp);
    for (const ns of ['team-a', 'team-b']) await api.must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, [201]);
    await bindRole(api, 'team-a', 'team-a-reader', 'alice', [{ apiGroups: ['*'], resources: ['*'], verbs: READ }]);
    await bindRole(api, 'team-a', 'pod-reader', 'erin', [{ apiGroups: [''], resources: ['pods'], verbs: READ }]);
    kubelet = new ScriptedKubelet(api, NODE);
    await kubelet.register();
    // A pod elsewhere, which the team-a user must never see.
    await api.must(
      'POST',
      '/api/v1/namespaces/team-b/pods',
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'other' }, spec: { nodeName: NODE, containers: [{ name: 'c', image: IMAGE }] } },
      [201],
    );
  });
  after(async () => {
    api?.close();
    await cp?.stop();
  });

  /** Creates team-a/NAME bound to the node and starts its container, as the kubelet reports it. */
  async function runPod(name: string): Promise<void> {
    await api.must(
      'POST',
      '/api/v1/namespaces/team-a/pods',
      { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: NODE, containers: [{ name: 'c', image: IMAGE }] } },
      [201],
    );
    const startTime = kubeTimestamp();
    const c: ContainerState = {
      name: 'c',
      image: IMAGE,
      state: { running: { startedAt: kubeTimestamp() } },
      ready: true,
      started: true,
      restartCount: 0,
      id: kubelet.newContainerId(),
    };
    await kubelet.writeStatus('team-a', name, [c], startTime);
  }

  it("the team-a user: its pod's config ADD and ContainerStarted, nothing of team-b, no 403 and no retry loop, exit 0", async () => {
    const s = sync(kubeconfigFor(cp, 'alice', 'team-a'));
    try {
      await runPod('web-1');
      await eventually(() => s.has('config', 'ADD', 'team-a/web-1'), { description: 'config ADD of team-a/web-1', timeoutMs: 30_000 });
      await eventually(() => s.has('pleg', 'ContainerStarted', 'team-a/web-1'), { description: 'PLEG ContainerStarted for team-a/web-1', timeoutMs: 30_000 });
      // Several housekeeping periods (2 s each): a 403 retried with backoff would have shown by now.
      const hk = () => s.out.filter((e) => e.source === 'housekeeping').length;
      const at = hk();
      await eventually(() => hk() >= at + 2, { description: 'two more housekeeping iterations', timeoutMs: 30_000 });
    } finally {
      assert.equal(await s.stop(), 0, s.err.join('\n'));
    }
    assert.ok(
      !s.out.some((e) =>
        String(e.key)
          .split(',')
          .some((k: string) => k.startsWith('team-b/')),
      ),
      'a team-b pod was seen',
    );
    assert.ok(!s.out.some((e) => e.outcome === 'error'), JSON.stringify(s.out.filter((e) => e.outcome === 'error')));
    assert.deepEqual(
      s.err.filter((l) => /forbidden|403|Reflector failed/i.test(l)),
      [],
    );
  });

  it('a user who may watch pods but not Events in team-a: Events reported once on stderr and on the timeline; pods still sync', async () => {
    const s = sync(kubeconfigFor(cp, 'erin', 'team-a'));
    try {
      await runPod('erin-1');
      await eventually(() => s.has('pleg', 'ContainerStarted', 'team-a/erin-1'), { description: 'PLEG ContainerStarted for team-a/erin-1', timeoutMs: 30_000 });
      const hk = () => s.out.filter((e) => e.source === 'housekeeping').length;
      const at = hk();
      await eventually(() => hk() >= at + 2, { description: 'two more housekeeping iterations', timeoutMs: 30_000 });
    } finally {
      assert.equal(await s.stop(), 0, s.err.join('\n'));
    }
    const warnings = s.err.filter((l) => l.includes('forbidden'));
    assert.equal(warnings.length, 1, s.err.join('\n'));
    assert.match(warnings[0]!, /^W Reflector forbidden, not watched type="events" namespace="\(all namespaces\)"/);
    const errors = s.out.filter((e) => e.source === 'housekeeping' && e.outcome === 'error');
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.match(errors[0].message, /Not watching events/);
    assert.ok(!s.err.some((l) => l.includes('Reflector failed')), s.err.join('\n'));
  });
});
