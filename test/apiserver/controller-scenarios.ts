/**
 * What a client sees of the workload controllers, written once as scenarios that run against any
 * target: test/apiserver/controllers.test.ts runs them against a real kube-apiserver with a real
 * kube-controller-manager and kube-scheduler (a test kubelet stand-in runs the pods),
 * test/integration/demo-controllers-parity.test.ts against the demo cluster with its controllers
 * and kubelet simulation on. Each scenario gets a fresh namespace and waits only for states (a
 * GET per check, or a watch that sees every state); no assertion is about time.
 * Where the demo cannot do what a real cluster does, docs/demo-cluster.md's "Differences from a real cluster"
 * says so with its reason; a scenario never special-cases a target.
 */
import assert from 'node:assert/strict';
import { runKubectl } from '../support/kubectl';
import {
  apps,
  available,
  batch,
  cond,
  conditionTypes,
  type ControllerScenario,
  core,
  deployment,
  eventAbout,
  job,
  jobCondition,
  kubectl,
  KUBECTL_WAIT,
  livePods,
  MERGE,
  must,
  type Obj,
  said,
  sel,
  TEMPLATE_SPEC,
  until,
} from './controller-target';

export type { ControllerTarget } from './controller-target';
export { prepareNamespace } from './controller-target';

export const CONTROLLER_SCENARIOS: ControllerScenario[] = [
  {
    name: 'a Deployment reaches Available: its ReplicaSet, pods bound by the scheduler, status and conditions',
    async run(t, ns) {
      await must(t, 'POST', apps(ns, 'deployments'), deployment('web', 2));
      const d = await available(t, ns, 'web', 2);
      assert.equal(d.metadata.annotations['deployment.kubernetes.io/revision'], '1');
      // What the apiserver's defaulting wrote into the spec, template included.
      assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
      assert.equal(d.spec.revisionHistoryLimit, 10);
      assert.equal(d.spec.progressDeadlineSeconds, 600);
      assert.deepEqual(d.spec.template.spec, TEMPLATE_SPEC('web', 'nginx:1.27'));
      assert.deepEqual(d.status, {
        observedGeneration: 1,
        replicas: 2,
        updatedReplicas: 2,
        readyReplicas: 2,
        availableReplicas: 2,
        terminatingReplicas: 0,
        conditions: d.status.conditions,
      });
      const a = cond(d, 'Available')!;
      assert.deepEqual([a.status, a.reason, a.message], ['True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.']);
      const rss = (await must(t, 'GET', `${apps(ns, 'replicasets')}?${sel('web')}`)).items;
      assert.equal(rss.length, 1);
      const rs = rss[0];
      const hash = rs.metadata.labels['pod-template-hash'];
      assert.equal(rs.metadata.name, `web-${hash}`);
      assert.equal(rs.metadata.annotations['deployment.kubernetes.io/revision'], '1');
      assert.equal(rs.metadata.annotations['deployment.kubernetes.io/desired-replicas'], '2');
      assert.equal(rs.metadata.annotations['deployment.kubernetes.io/max-replicas'], '3'); // 25% surge of 2, rounded up
      assert.deepEqual(rs.spec.selector.matchLabels, { app: 'web', 'pod-template-hash': hash });
      assert.deepEqual(Object.keys(rs.spec).sort(), ['replicas', 'selector', 'template'], 'minReadySeconds 0 is not written');
      assert.deepEqual(rs.spec.template.spec, TEMPLATE_SPEC('web', 'nginx:1.27'));
      assert.deepEqual(rs.status, {
        replicas: 2,
        fullyLabeledReplicas: 2,
        readyReplicas: 2,
        availableReplicas: 2,
        terminatingReplicas: 0,
        observedGeneration: 1,
      });
      assert.deepEqual(
        rs.metadata.ownerReferences.map((r: Obj) => [r.kind, r.name, r.uid, r.controller, r.blockOwnerDeletion]),
        [['Deployment', 'web', d.metadata.uid, true, true]],
      );
      const p = cond(d, 'Progressing')!;
      assert.deepEqual([p.status, p.reason, p.message], ['True', 'NewReplicaSetAvailable', `ReplicaSet "${rs.metadata.name}" has successfully progressed.`]);
      assert.deepEqual(conditionTypes(d), ['Available', 'Progressing']);
      const pods = await livePods(t, ns, 'web');
      assert.equal(pods.length, 2);
      for (const pod of pods) {
        assert.ok(pod.spec.nodeName, `${pod.metadata.name} bound to a node`);
        assert.equal(cond(pod, 'PodScheduled')?.status, 'True');
        assert.equal(cond(pod, 'Ready')?.status, 'True');
        assert.equal(pod.status.phase, 'Running');
        assert.match(pod.metadata.name, new RegExp(`^web-${hash}-[a-z0-9]{5}$`));
        assert.equal(pod.metadata.generateName, `web-${hash}-`);
        assert.equal(pod.metadata.generation, 1, 'binding does not bump the generation');
        assert.deepEqual(
          pod.metadata.ownerReferences.map((r: Obj) => [r.kind, r.name, r.controller, r.blockOwnerDeletion]),
          [['ReplicaSet', rs.metadata.name, true, true]],
        );
      }
      assert.deepEqual(said(await eventAbout(t, ns, 'Deployment', 'web', 'ScalingReplicaSet')), [
        'Normal',
        'ScalingReplicaSet',
        `Scaled up replica set ${rs.metadata.name} from 0 to 2`,
        'deployment-controller',
        'deployment-controller',
      ]);
      const created = await eventAbout(t, ns, 'ReplicaSet', rs.metadata.name, 'SuccessfulCreate');
      assert.match(created.message, new RegExp(`^Created pod: web-${hash}-[a-z0-9]{5}$`));
      assert.deepEqual([created.type, created.source.component, created.reportingComponent], ['Normal', 'replicaset-controller', 'replicaset-controller']);
      // kubectl's own waits: a watch on the same state.
      assert.match(await kubectl(t, ns, 'rollout', 'status', 'deployment/web', `--timeout=${KUBECTL_WAIT}`), /deployment "web" successfully rolled out/);
      assert.match(
        await kubectl(t, ns, 'wait', '--for=condition=Available', 'deployment/web', `--timeout=${KUBECTL_WAIT}`),
        /deployment\.apps\/web condition met/,
      );
    },
  },
  {
    name: 'a bare pod is bound by the scheduler: spec.nodeName, PodScheduled, a Scheduled event',
    async run(t, ns) {
      await must(t, 'POST', core(ns, 'pods'), {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'solo' },
        spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
      });
      const pod = await until('pod solo Running', async () => {
        const p = await must(t, 'GET', `${core(ns, 'pods')}/solo`);
        return p.status?.phase === 'Running' && p;
      });
      const s = cond(pod, 'PodScheduled')!;
      assert.equal(s.status, 'True');
      assert.equal(pod.metadata.generation, 1, 'binding does not bump the generation');
      const events = await until('a Scheduled event for solo', async () => {
        const list = (await must(t, 'GET', `${core(ns, 'events')}?fieldSelector=${encodeURIComponent('involvedObject.name=solo')}`)).items;
        return list.some((e: Obj) => e.reason === 'Scheduled') && list;
      });
      const ev = events.find((e: Obj) => e.reason === 'Scheduled');
      assert.equal(ev.type, 'Normal');
      assert.equal(ev.message, `Successfully assigned ${ns}/solo to ${pod.spec.nodeName}`);
      assert.equal(ev.reportingComponent, 'default-scheduler');
      assert.equal(ev.action, 'Binding');
    },
  },
  {
    name: 'scale up and down: the scale subresource and kubectl scale',
    async run(t, ns) {
      await must(t, 'POST', apps(ns, 'deployments'), deployment('web', 1));
      await available(t, ns, 'web', 1);
      const scale = await must(t, 'GET', `${apps(ns, 'deployments')}/web/scale`);
      assert.equal(scale.kind, 'Scale');
      assert.equal(scale.apiVersion, 'autoscaling/v1');
      assert.deepEqual(scale.spec, { replicas: 1 });
      assert.deepEqual(scale.status, { replicas: 1, selector: 'app=web' });
      const patched = await must(t, 'PATCH', `${apps(ns, 'deployments')}/web/scale`, { spec: { replicas: 3 } }, MERGE);
      assert.equal(patched.spec.replicas, 3);
      await available(t, ns, 'web', 3);
      assert.equal((await livePods(t, ns, 'web')).length, 3);
      assert.match(await kubectl(t, ns, 'scale', 'deployment/web', '--current-replicas=3', '--replicas=1'), /deployment\.apps\/web scaled/);
      const d = await available(t, ns, 'web', 1);
      assert.equal(d.spec.replicas, 1);
      await until('one pod of web left', async () => (await livePods(t, ns, 'web')).length === 1);
      const rs = (await must(t, 'GET', `${apps(ns, 'replicasets')}?${sel('web')}`)).items;
      assert.equal(rs.length, 1, 'scaling makes no new ReplicaSet');
      assert.equal(rs[0].metadata.annotations['deployment.kubernetes.io/revision'], '1');
      assert.equal(rs[0].metadata.annotations['deployment.kubernetes.io/desired-replicas'], '1');
      const wrong = await runKubectl(['-n', ns, 'scale', 'deployment/web', '--current-replicas=7', '--replicas=2'], { kubeconfig: t.kubeconfig });
      assert.notEqual(wrong.code, 0);
      assert.match(wrong.stderr, /Expected replicas to be 7, was 1/);
    },
  },
  {
    name: 'a rolling update: a new ReplicaSet, the old one scaled to 0, revisions, maxSurge and maxUnavailable held',
    async run(t, ns) {
      const replicas = 4;
      const maxSurge = 1;
      const maxUnavailable = 1;
      await must(t, 'POST', apps(ns, 'deployments'), deployment('roll', replicas, { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } }));
      await available(t, ns, 'roll', replicas);
      // Watch pods and ReplicaSets through the rollout: every state a client can see is checked.
      const pods = new Map<string, Obj>();
      const rss = new Map<string, Obj>();
      const seen = { maxPods: 0, minReady: Infinity, maxSpecSum: 0, owedExcess: 0 };
      const violations: string[] = [];
      const check = () => {
        const live = [...pods.values()].filter((p) => !p.metadata.deletionTimestamp && !['Succeeded', 'Failed'].includes(p.status?.phase));
        const ready = live.filter((p) => cond(p, 'Ready')?.status === 'True').length;
        const specSum = [...rss.values()].reduce((n, r) => n + (r.spec.replicas ?? 0), 0);
        seen.maxPods = Math.max(seen.maxPods, live.length);
        seen.minReady = Math.min(seen.minReady, ready);
        seen.maxSpecSum = Math.max(seen.maxSpecSum, specSum);
        if (specSum > replicas + maxSurge) violations.push(`ReplicaSets want ${specSum} pods`);
        // maxSurge bounds the ReplicaSets' replicas (upstream counts spec.replicas, not pods), and each
        // ReplicaSet's own worker creates and deletes its pods: the new one's pod can come before the
        // old one's deletion. A pod above the bound is allowed only while some ReplicaSet has more
        // live pods than it wants, i.e. while a deletion is owed.
        if (live.length > replicas + maxSurge) {
          const owed = [...rss.values()].some(
            (r) => live.filter((p) => p.metadata.ownerReferences?.some((o: Obj) => o.uid === r.metadata.uid)).length > (r.spec.replicas ?? 0),
          );
          if (owed) seen.owedExcess++;
          else violations.push(`${live.length} pods and no ReplicaSet above its replicas`);
        }
        if (ready < replicas - maxUnavailable) violations.push(`only ${ready} ready`);
      };
      const stop = new AbortController();
      const watchAll = async (resource: string, into: Map<string, Obj>) => {
        const list = await must(t, 'GET', `${resource}?${sel('roll')}`);
        for (const o of list.items) into.set(o.metadata.uid, o);
        return t.watch(`${resource}?${sel('roll')}&watch=1&resourceVersion=${list.metadata.resourceVersion}`, stop.signal, (type, o) => {
          if (type === 'BOOKMARK' || type === 'ERROR') return;
          if (type === 'DELETED') into.delete(o.metadata.uid);
          else into.set(o.metadata.uid, o);
          check();
        });
      };
      const watches = [watchAll(core(ns, 'pods'), pods), watchAll(apps(ns, 'replicasets'), rss)];
      try {
        const patch = { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } };
        await must(t, 'PATCH', `${apps(ns, 'deployments')}/roll`, patch, { 'Content-Type': 'application/strategic-merge-patch+json' });
        assert.match(await kubectl(t, ns, 'rollout', 'status', 'deployment/roll', `--timeout=${KUBECTL_WAIT}`), /deployment "roll" successfully rolled out/);
        const d = await available(t, ns, 'roll', replicas);
        assert.equal(d.metadata.annotations['deployment.kubernetes.io/revision'], '2');
        await until('only new pods left', async () => {
          const live = await livePods(t, ns, 'roll');
          return live.length === replicas && live.every((p) => p.spec.containers[0].image === 'nginx:1.28');
        });
      } finally {
        stop.abort();
        await Promise.all(watches);
      }
      assert.deepEqual(violations, [], `seen ${JSON.stringify(seen)}`);
      assert.ok(seen.maxSpecSum > replicas, `the rollout surged (seen ${JSON.stringify(seen)})`);
      const list = (await must(t, 'GET', `${apps(ns, 'replicasets')}?${sel('roll')}`)).items;
      const byRev = list
        .map((r: Obj) => [r.metadata.annotations['deployment.kubernetes.io/revision'], r.spec.template.spec.containers[0].image, r.spec.replicas])
        .sort();
      assert.deepEqual(byRev, [
        ['1', 'nginx:1.27', 0],
        ['2', 'nginx:1.28', replicas],
      ]);
      const history = await kubectl(t, ns, 'rollout', 'history', 'deployment/roll');
      assert.match(history, /^1\s+<none>$/m);
      assert.match(history, /^2\s+<none>$/m);
    },
  },
  {
    name: 'a Job that completes: completions 2, succeeded 2, SuccessCriteriaMet then Complete',
    async run(t, ns) {
      await must(t, 'POST', batch(ns), job('ok', 'echo done', { completions: 2, parallelism: 1 }));
      const j = await jobCondition(t, ns, 'ok', 'Complete');
      // Defaults, and the selector and labels the Job strategy generates from the Job's uid.
      const uid = j.metadata.uid;
      const generated = { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'ok', 'controller-uid': uid, 'job-name': 'ok' };
      assert.deepEqual(j.metadata.labels, generated, 'a Job without labels gets its template labels');
      assert.deepEqual(j.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
      assert.deepEqual(j.spec.template.metadata.labels, generated);
      const { template, selector: _s, ...rest } = j.spec;
      assert.deepEqual(rest, {
        parallelism: 1,
        completions: 2,
        backoffLimit: 6,
        manualSelector: false,
        completionMode: 'NonIndexed',
        suspend: false,
        podReplacementPolicy: 'TerminatingOrFailed',
      });
      assert.deepEqual(template.spec, { ...TEMPLATE_SPEC('main', 'busybox:1.36', ['sh', '-c', 'echo done']), restartPolicy: 'Never' });
      assert.equal(j.status.terminating, 0);
      assert.equal(j.status.ready, 0);
      assert.deepEqual(j.status.uncountedTerminatedPods, {});
      assert.equal(j.status.succeeded, 2);
      assert.equal(j.status.failed ?? 0, 0);
      assert.equal(j.status.active ?? 0, 0);
      assert.ok(j.status.completionTime, 'completionTime set');
      assert.ok(j.status.startTime, 'startTime set');
      assert.deepEqual(conditionTypes(j), ['SuccessCriteriaMet', 'Complete']);
      assert.equal(cond(j, 'SuccessCriteriaMet')!.reason, 'CompletionsReached');
      assert.equal(cond(j, 'Complete')!.reason, 'CompletionsReached');
      const pods = (await must(t, 'GET', `${core(ns, 'pods')}?labelSelector=${encodeURIComponent('job-name=ok')}`)).items;
      assert.equal(pods.length, 2);
      for (const p of pods) {
        assert.equal(p.status.phase, 'Succeeded');
        assert.deepEqual(p.metadata.finalizers ?? [], [], 'the job-tracking finalizer is removed once counted');
        assert.equal(p.metadata.labels['batch.kubernetes.io/job-name'], 'ok');
        assert.equal(p.metadata.ownerReferences[0].kind, 'Job');
      }
      assert.match(await kubectl(t, ns, 'wait', '--for=condition=Complete', 'job/ok', `--timeout=${KUBECTL_WAIT}`), /job\.batch\/ok condition met/);
      assert.deepEqual(said(await eventAbout(t, ns, 'Job', 'ok', 'Completed')), ['Normal', 'Completed', 'Job completed', 'job-controller', 'job-controller']);
      const created = await eventAbout(t, ns, 'Job', 'ok', 'SuccessfulCreate');
      assert.match(created.message, /^Created pod: ok-[a-z0-9]{5}$/);
    },
  },
  {
    name: 'a Job that fails past backoffLimit: FailureTarget then Failed, reason BackoffLimitExceeded',
    async run(t, ns) {
      await must(t, 'POST', batch(ns), job('bad', 'exit 1', { backoffLimit: 1 }));
      const j = await jobCondition(t, ns, 'bad', 'Failed');
      assert.equal(j.spec.completions, 1, 'neither completions nor parallelism given: both 1');
      assert.equal(j.spec.parallelism, 1);
      assert.equal(j.spec.backoffLimit, 1);
      assert.equal(j.status.terminating, 0);
      assert.equal(j.status.failed, 2);
      assert.equal(j.status.succeeded ?? 0, 0);
      assert.equal(j.status.active ?? 0, 0);
      assert.deepEqual(conditionTypes(j), ['FailureTarget', 'Failed']);
      for (const type of ['FailureTarget', 'Failed']) {
        const c = cond(j, type)!;
        assert.deepEqual([c.status, c.reason, c.message], ['True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit']);
      }
      const pods = (await must(t, 'GET', `${core(ns, 'pods')}?labelSelector=${encodeURIComponent('job-name=bad')}`)).items;
      assert.equal(pods.length, 2);
      for (const p of pods) assert.equal(p.status.phase, 'Failed');
      assert.match(await kubectl(t, ns, 'wait', '--for=condition=Failed', 'job/bad', `--timeout=${KUBECTL_WAIT}`), /job\.batch\/bad condition met/);
      assert.deepEqual(said(await eventAbout(t, ns, 'Job', 'bad', 'BackoffLimitExceeded')), [
        'Warning',
        'BackoffLimitExceeded',
        'Job has reached the specified backoff limit',
        'job-controller',
        'job-controller',
      ]);
    },
  },
  {
    name: 'cascading delete: background, foreground (the foregroundDeletion finalizer), orphan',
    async run(t, ns) {
      for (const n of ['gc-bg', 'gc-fg', 'gc-or']) await must(t, 'POST', apps(ns, 'deployments'), deployment(n, 1));
      for (const n of ['gc-bg', 'gc-fg', 'gc-or']) await available(t, ns, n, 1);
      const gone = (what: string, path: string) => until(what, async () => (await must(t, 'GET', path)).items.length === 0);

      const bgUid = (await must(t, 'GET', `${apps(ns, 'deployments')}/gc-bg`)).metadata.uid;
      const bg = await must(t, 'DELETE', `${apps(ns, 'deployments')}/gc-bg`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
      // Gone at once (no finalizer to wait for): the answer is a Success Status naming it.
      assert.deepEqual([bg.kind, bg.status, bg.details], ['Status', 'Success', { name: 'gc-bg', group: 'apps', kind: 'deployments', uid: bgUid }]);
      await gone('gc-bg ReplicaSets gone', `${apps(ns, 'replicasets')}?${sel('gc-bg')}`);
      await gone('gc-bg pods gone', `${core(ns, 'pods')}?${sel('gc-bg')}`);

      // Foreground: the owner stays, with the finalizer and a deletionTimestamp, until its dependents are gone.
      const fg = await must(t, 'DELETE', `${apps(ns, 'deployments')}/gc-fg`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' });
      assert.deepEqual(fg.metadata.finalizers, ['foregroundDeletion']);
      assert.ok(fg.metadata.deletionTimestamp);
      await until('gc-fg Deployment gone', async () => (await t.request('GET', `${apps(ns, 'deployments')}/gc-fg`)).status === 404);
      assert.equal((await must(t, 'GET', `${apps(ns, 'replicasets')}?${sel('gc-fg')}`)).items.length, 0);
      await gone('gc-fg pods gone', `${core(ns, 'pods')}?${sel('gc-fg')}`);

      // Orphan: the ReplicaSet stays, without its ownerReference; its pods keep theirs (to the RS).
      const rsBefore = (await must(t, 'GET', `${apps(ns, 'replicasets')}?${sel('gc-or')}`)).items[0];
      const or = await must(t, 'DELETE', `${apps(ns, 'deployments')}/gc-or`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' });
      assert.deepEqual(or.metadata.finalizers, ['orphan'], 'the garbage collector orphans the dependents before the owner goes');
      assert.ok(or.metadata.deletionTimestamp);
      await until('gc-or Deployment gone', async () => (await t.request('GET', `${apps(ns, 'deployments')}/gc-or`)).status === 404);
      const rs = (await must(t, 'GET', `${apps(ns, 'replicasets')}?${sel('gc-or')}`)).items;
      assert.equal(rs.length, 1);
      assert.equal(rs[0].metadata.uid, rsBefore.metadata.uid);
      assert.equal(rs[0].metadata.ownerReferences, undefined);
      const pods = await livePods(t, ns, 'gc-or');
      assert.equal(pods.length, 1);
      assert.equal(pods[0].metadata.ownerReferences[0].uid, rs[0].metadata.uid);
    },
  },
  {
    name: 'kubectl logs of a Deployment pod (through the node for a real apiserver)',
    async run(t, ns) {
      await must(t, 'POST', apps(ns, 'deployments'), deployment('logs', 1));
      await available(t, ns, 'logs', 1);
      const r = await runKubectl(['-n', ns, 'logs', 'deployment/logs'], { kubeconfig: t.kubeconfig });
      assert.equal(r.code, 0, r.stderr);
      // nginx:1.27's entry point and start-up notices: the demo's kubelet writes them, the
      // stand-in kubelet of a real apiserver serves the same (nodekubelet.ts).
      assert.match(r.stdout, /^\/docker-entrypoint\.sh: \/docker-entrypoint\.d\/ is not empty, will attempt to perform configuration\n/);
      assert.match(r.stdout, /\/docker-entrypoint\.sh: Configuration complete; ready for start up\n/);
      assert.match(r.stdout, /\[notice\] 1#1: nginx\/1\.27\.0\n/);
      const missing = await runKubectl(['-n', ns, 'logs', 'deployment/logs', '-c', 'nope'], { kubeconfig: t.kubeconfig });
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /container nope is not valid for pod logs-/);
    },
  },
  {
    name: 'kubectl explain deployment.spec.strategy',
    async run(t, ns) {
      const out = await kubectl(t, ns, 'explain', 'deployment.spec.strategy');
      assert.match(out, /KIND:\s+Deployment/);
      assert.match(out, /rollingUpdate/);
    },
  },
];
