/**
 * The differential's scenarios: each a pod story on one node, in its own namespace, driven through
 * the API (and, on the lab, the hollow kubelet's control endpoint), ending in a state it waits for.
 * A scenario is the same on the lab and on the demo cluster where the demo can play it: its pods'
 * behaviour comes from their specs (scripts that end, `exit N`, stress over its memory limit, a shell
 * that ignores SIGTERM), which the lab's fake runtime and the demo's kubelet simulation read alike.
 *
 * Guarantees: every wait is for a state (a pod's status, its absence), bounded; a scenario leaves
 * nothing behind (its namespace's pods are deleted at its end and it waits for them to go); a
 * failure names the scenario and what it waited for.
 */
import { eventually } from '../test/support/eventually';
import type { Api } from './api';
import type { HollowKubelet } from './hollowkubelet';

export interface ScenarioContext {
  api: Api;
  /** The node the scenario's pods are pinned to. */
  node: string;
  /** The scenario's own namespace (created before it runs). */
  ns: string;
  /** The node's hollow kubelet (its control endpoint), on the lab; undefined elsewhere. */
  kubelet?: HollowKubelet;
  /** Scales every wait's deadline (a loaded machine). */
  slow?: number;
}

export interface Scenario {
  name: string;
  /** What it shows, in a line. */
  about: string;
  /** Needs the lab's control endpoint (not played on the demo cluster). */
  labOnly?: boolean;
  /** Wants a node of its own (its faults are per node). */
  ownNode?: boolean;
  run(ctx: ScenarioContext): Promise<void>;
}

const AGNHOST = 'registry.k8s.io/e2e-test-images/agnhost:2.47';
const BUSYBOX = 'registry.k8s.io/busybox:1.36';

type Obj = Record<string, any>;

function podOf(ctx: ScenarioContext, name: string, containers: Obj[], spec: Obj = {}, metadata: Obj = {}): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ctx.ns, ...metadata },
    spec: { nodeName: ctx.node, terminationGracePeriodSeconds: 2, containers, ...spec },
  };
}

const podsPath = (ctx: ScenarioContext) => `/api/v1/namespaces/${ctx.ns}/pods`;

async function create(ctx: ScenarioContext, pod: Obj): Promise<Obj> {
  return ctx.api.must('POST', podsPath(ctx), pod, [201]);
}

async function get(ctx: ScenarioContext, name: string): Promise<Obj | undefined> {
  const r = await ctx.api.request('GET', `${podsPath(ctx)}/${name}`);
  return r.status === 404 ? undefined : (r.body as Obj);
}

/** Waits until the pod's state satisfies `check` (its value), or throws naming what was awaited. */
async function until<T>(ctx: ScenarioContext, name: string, what: string, check: (pod: Obj) => T, timeoutMs = 60_000): Promise<NonNullable<T>> {
  return eventually(
    async () => {
      const p = await get(ctx, name);
      if (!p) throw new Error('no such pod');
      const v = check(p);
      if (!v) throw new Error(`status: ${JSON.stringify(p.status).slice(0, 600)}`);
      return v as NonNullable<T>;
    },
    { description: `${ctx.ns}/${name}: ${what}`, timeoutMs: timeoutMs * (ctx.slow ?? 1), maxIntervalMs: 200 },
  );
}

async function deleted(ctx: ScenarioContext, name: string, timeoutMs = 60_000): Promise<void> {
  await eventually(async () => (await get(ctx, name)) === undefined, {
    description: `${ctx.ns}/${name} gone`,
    timeoutMs: timeoutMs * (ctx.slow ?? 1),
    maxIntervalMs: 200,
  });
}

async function remove(ctx: ScenarioContext, name: string, gracePeriodSeconds?: number): Promise<void> {
  const body = gracePeriodSeconds === undefined ? undefined : { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds };
  await ctx.api.must('DELETE', `${podsPath(ctx)}/${name}`, body, [200, 202, 404]);
}

const cs = (p: Obj, i = 0): Obj | undefined => p.status?.containerStatuses?.[i];
const running = (p: Obj) => p.status?.phase === 'Running' && cs(p)?.state?.running;
const ready = (p: Obj) => p.status?.conditions?.some((c: Obj) => c.type === 'Ready' && c.status === 'True');

export const SCENARIOS: Scenario[] = [
  {
    name: 'probe-me',
    about: "the study guide's probe-me: liveness fails twice (failureThreshold 2), the kubelet kills it, restarts, twice",
    async run(ctx) {
      await create(
        ctx,
        podOf(ctx, 'probe-me', [
          {
            name: 'probe-me',
            image: AGNHOST,
            args: ['netexec', '--http-port=8080'],
            livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, periodSeconds: 5, failureThreshold: 2 },
          },
        ]),
      );
      await until(ctx, 'probe-me', 'restarted twice', (p) => (cs(p)?.restartCount ?? 0) >= 2 && cs(p)?.state?.running, 90_000);
      await remove(ctx, 'probe-me');
      await deleted(ctx, 'probe-me');
    },
  },
  {
    name: 'crash-loop',
    about: 'a container that exits 1 after a second, restartPolicy Always: restarts, then CrashLoopBackOff',
    async run(ctx) {
      await create(ctx, podOf(ctx, 'crasher', [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', 'sleep 1; exit 1'] }]));
      await until(ctx, 'crasher', 'two restarts', (p) => (cs(p)?.restartCount ?? 0) >= 2, 90_000);
      await remove(ctx, 'crasher');
      await deleted(ctx, 'crasher');
    },
  },
  {
    name: 'oom',
    about: 'stress over its memory limit, restartPolicy Never: OOMKilled (137), the pod Failed',
    async run(ctx) {
      await create(
        ctx,
        podOf(
          ctx,
          'memory-hog',
          [
            {
              name: 'hog',
              image: 'polinux/stress',
              command: ['stress'],
              args: ['--vm', '1', '--vm-bytes', '250M', '--vm-hang', '1'],
              resources: { limits: { memory: '100Mi' }, requests: { memory: '50Mi' } },
            },
          ],
          { restartPolicy: 'Never' },
        ),
      );
      await until(ctx, 'memory-hog', 'Failed, OOMKilled', (p) => p.status?.phase === 'Failed' && cs(p)?.state?.terminated?.reason === 'OOMKilled');
      await remove(ctx, 'memory-hog');
      await deleted(ctx, 'memory-hog');
    },
  },
  {
    name: 'job',
    about: "a Job's pod: its script ends, exit 0, the pod Succeeded; the Job and its pod deleted",
    async run(ctx) {
      await ctx.api.must(
        'POST',
        `/apis/batch/v1/namespaces/${ctx.ns}/jobs`,
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name: 'report', namespace: ctx.ns },
          spec: {
            backoffLimit: 0,
            template: {
              spec: {
                nodeName: ctx.node,
                restartPolicy: 'Never',
                terminationGracePeriodSeconds: 2,
                containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', 'echo building the report; sleep 2'] }],
              },
            },
          },
        },
        [201],
      );
      await eventually(
        async () => {
          const j = await ctx.api.must('GET', `/apis/batch/v1/namespaces/${ctx.ns}/jobs/report`);
          return j.status?.succeeded === 1;
        },
        { description: `${ctx.ns}/report: Complete`, timeoutMs: 60_000 * (ctx.slow ?? 1), maxIntervalMs: 200 },
      );
      await ctx.api.must(
        'DELETE',
        `/apis/batch/v1/namespaces/${ctx.ns}/jobs/report`,
        { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' },
        [200, 202],
      );
      await eventually(async () => ((await ctx.api.must('GET', podsPath(ctx))).items as Obj[]).length === 0, {
        description: `${ctx.ns}: the Job's pod gone`,
        timeoutMs: 60_000 * (ctx.slow ?? 1),
        maxIntervalMs: 200,
      });
    },
  },
  {
    name: 'graceful-delete',
    about: "a shell that ignores SIGTERM, deleted with a 10 s grace period: killPod blocks until the grace period's SIGKILL",
    async run(ctx) {
      await create(
        ctx,
        podOf(ctx, 'slow-stop', [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', 'sleep 3600'] }], { terminationGracePeriodSeconds: 10 }),
      );
      await until(ctx, 'slow-stop', 'Running', running);
      await remove(ctx, 'slow-stop', 10);
      await deleted(ctx, 'slow-stop');
    },
  },
  {
    name: 'force-delete',
    about: 'a running pod force-deleted (grace period 0): gone from the API at once, the kubelet kills it after the REMOVE',
    async run(ctx) {
      await create(ctx, podOf(ctx, 'gone', [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', 'sleep 3600'] }]));
      await until(ctx, 'gone', 'Running', running);
      await remove(ctx, 'gone', 0);
      await deleted(ctx, 'gone');
    },
  },
  {
    name: 'recreated',
    about: 'a pod deleted and created again under the same name: two incarnations, two workers',
    async run(ctx) {
      const twin = () => podOf(ctx, 'twin', [{ name: 'web', image: AGNHOST, args: ['netexec', '--http-port=8080'] }]);
      await create(ctx, twin());
      await until(ctx, 'twin', 'Running', running);
      await remove(ctx, 'twin');
      await deleted(ctx, 'twin');
      await create(ctx, twin());
      await until(ctx, 'twin', 'Running again', running);
      await remove(ctx, 'twin');
      await deleted(ctx, 'twin');
    },
  },
  {
    name: 'readiness-gate',
    about: "a pod with a readiness gate: Ready only once someone sets the gate's condition (its RECONCILE syncs)",
    async run(ctx) {
      const gate = 'kubeloop.dev/load-balancer';
      await create(
        ctx,
        podOf(ctx, 'gated', [{ name: 'web', image: AGNHOST, args: ['netexec', '--http-port=8080'] }], { readinessGates: [{ conditionType: gate }] }),
      );
      await until(ctx, 'gated', 'Running, not Ready (the gate)', (p) => running(p) && !ready(p));
      await ctx.api.must(
        'PATCH',
        `${podsPath(ctx)}/gated/status`,
        { status: { conditions: [{ type: gate, status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] } },
        [200],
        { 'Content-Type': 'application/strategic-merge-patch+json' },
      );
      await until(ctx, 'gated', 'Ready', ready);
      await remove(ctx, 'gated');
      await deleted(ctx, 'gated');
    },
  },
  {
    name: 'pull-failure',
    about: 'the image pull fails twice (ErrImagePull, ImagePullBackOff), then succeeds',
    labOnly: true,
    ownNode: true,
    async run(ctx) {
      await ctx.kubelet!.fault('PullImage', 2, 'rpc error: code = NotFound desc = failed to pull and unpack image: not found');
      await create(ctx, podOf(ctx, 'puller', [{ name: 'web', image: AGNHOST, imagePullPolicy: 'Always', args: ['netexec', '--http-port=8080'] }]));
      await until(ctx, 'puller', 'Running after its pulls failed', running, 90_000);
      await remove(ctx, 'puller');
      await deleted(ctx, 'puller');
    },
  },
  {
    name: 'startup-probe',
    about: 'a startup probe that fails until the script creates its file, then succeeds; readiness after it',
    async run(ctx) {
      await create(
        ctx,
        podOf(ctx, 'slow-start', [
          {
            name: 'main',
            image: BUSYBOX,
            command: ['sh', '-c', 'sleep 4; touch /tmp/started; sleep 3600'],
            startupProbe: { exec: { command: ['cat', '/tmp/started'] }, periodSeconds: 2, failureThreshold: 10 },
            readinessProbe: { exec: { command: ['cat', '/tmp/started'] }, periodSeconds: 2 },
          },
        ]),
      );
      await until(ctx, 'slow-start', 'started and Ready', (p) => cs(p)?.started && ready(p));
      await remove(ctx, 'slow-start');
      await deleted(ctx, 'slow-start');
    },
  },
  {
    name: 'admission',
    about: "a pod bound to a node its nodeSelector does not match: the kubelet's admission rejects it (NodeAffinity)",
    async run(ctx) {
      await create(
        ctx,
        podOf(ctx, 'misplaced', [{ name: 'main', image: AGNHOST, args: ['netexec', '--http-port=8080'] }], { nodeSelector: { 'kubeloop.dev/absent': 'yes' } }),
      );
      await until(ctx, 'misplaced', 'Failed by admission', (p) => p.status?.phase === 'Failed' && p.status?.reason);
      await remove(ctx, 'misplaced');
      await deleted(ctx, 'misplaced');
    },
  },
];
