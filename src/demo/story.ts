/**
 * The demo's story (`kubeloop demo-cluster --story`, on in `npm run demo`): a namespace `story`
 * where something happens in the first minute, so the tree, the sync loop and the timeline have
 * something to show at once.
 *
 *   deployment `shop` (3 replicas, maxSurge 1, maxUnavailable 0) rolls to a new image 8 s after
 *     start, then again every 45 s, between two fixed images: a new ReplicaSet scales up pod by pod
 *     while the old one scales down (the deployment and replicaset controllers' lanes, the pods'
 *     ADD/DELETE in the sync loop);
 *   job `report` (2 completions, one at a time, each pod `sleep 4`): Complete after about 10 s;
 *   cronjob `tick` (`* * * * *`): a Job every minute, each done in about 3 s;
 *   pod `probe-me` (the study guide's: agnhost netexec on 8080, liveness on 8081 fails): Unhealthy,
 *     Killing, restarted after about 10 s, then CrashLoopBackOff.
 *
 * Guarantees: deterministic (fixed names, images and times; nothing random but the pods'
 * generated-name suffixes, which the controllers choose); an object that already exists (a restart
 * on a persisted store, a user who made one) is left as it is; it needs the controllers and the
 * kubelet simulation to unfold, and writes nothing else. stop() (or the signal) cancels its timer.
 */
import { prepareCreate } from './server/defaults';
import { kubeTime, type DemoObject, type ObjectStore } from './store';
import { realKubeletClock, type KubeletClock } from './kubelet/kubeletClock';

export const STORY_NAMESPACE = 'story';
export const ROLLOUT_IMAGES = ['nginx:1.27', 'nginx:1.28'] as const;
export const FIRST_ROLLOUT_MS = 8_000;
export const ROLLOUT_EVERY_MS = 45_000;

export interface StoryOptions {
  clock?: KubeletClock;
  signal?: AbortSignal;
  /** Store write failures (e.g. a user deleted the Deployment): default ignored, the next rollout tries again. */
  onError?: (e: unknown) => void;
}

export interface Story {
  /** How many rollouts were started so far. */
  readonly rollouts: number;
  stop(): void;
}

const ns = STORY_NAMESPACE;
const labels = (app: string) => ({ app, 'app.kubernetes.io/part-of': 'kubeloop-story' });

function shop(): DemoObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'shop', namespace: ns, labels: labels('shop') },
    spec: {
      replicas: 3,
      revisionHistoryLimit: 3,
      selector: { matchLabels: { app: 'shop' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: labels('shop') },
        spec: {
          containers: [
            {
              name: 'web',
              image: ROLLOUT_IMAGES[0],
              ports: [{ containerPort: 80 }],
              readinessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 2 },
            },
          ],
        },
      },
    },
  };
}

const jobPodSpec = (script: string) => ({
  restartPolicy: 'Never',
  containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', script] }],
});

function report(): DemoObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'report', namespace: ns, labels: labels('report') },
    spec: {
      completions: 2,
      parallelism: 1,
      backoffLimit: 2,
      template: { metadata: { labels: labels('report') }, spec: jobPodSpec('echo building the report; sleep 4') },
    },
  };
}

function tick(): DemoObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'tick', namespace: ns, labels: labels('tick') },
    spec: {
      schedule: '* * * * *',
      concurrencyPolicy: 'Forbid',
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
      jobTemplate: { metadata: { labels: labels('tick') }, spec: { template: { metadata: { labels: labels('tick') }, spec: jobPodSpec('date; sleep 3') } } },
    },
  };
}

/** The study guide's probe-me, on `node`: its liveness probe asks port 8081, where nothing listens. */
function probeMe(node = 'pair-worker'): DemoObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'probe-me', namespace: ns, labels: labels('probe-me') },
    spec: {
      nodeName: node,
      containers: [
        {
          name: 'probe-me',
          image: 'registry.k8s.io/e2e-test-images/agnhost:2.47',
          args: ['netexec', '--http-port=8080'],
          livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, periodSeconds: 5, failureThreshold: 2 },
        },
      ],
    },
  };
}

/**
 * The story's objects in creation order, as `kubectl apply` would send them (group, plural,
 * object): the lab creates them on a real cluster, with probe-me on one of its nodes, so the same
 * story unfolds under a real kubelet.
 */
export function storyObjects(probeMeNode?: string): { group: string; resource: string; object: DemoObject }[] {
  return [
    {
      group: '',
      resource: 'namespaces',
      object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { 'kubernetes.io/metadata.name': ns } } },
    },
    { group: 'apps', resource: 'deployments', object: shop() },
    { group: 'batch', resource: 'jobs', object: report() },
    { group: 'batch', resource: 'cronjobs', object: tick() },
    { group: '', resource: 'pods', object: probeMe(probeMeNode) },
  ];
}

/** kubectl set image: the shop Deployment's template flips to the other image, with a change-cause. */
export function rolledShop(d: DemoObject, rollouts: number): DemoObject {
  const spec = d.spec as { template: { metadata?: Record<string, unknown>; spec: { containers: { image?: string }[] } } };
  const image = ROLLOUT_IMAGES[(rollouts + 1) % ROLLOUT_IMAGES.length]!;
  const containers = spec.template.spec.containers.map((c, i) => (i === 0 ? { ...c, image } : c));
  const annotations = { ...((d.metadata.annotations as Record<string, string> | undefined) ?? {}), 'kubernetes.io/change-cause': `story: roll to ${image}` };
  return { ...d, metadata: { ...d.metadata, annotations }, spec: { ...spec, template: { ...spec.template, spec: { ...spec.template.spec, containers } } } };
}

function createIfAbsent(store: ObjectStore, group: string, resource: string, o: DemoObject): void {
  if (store.get(group, resource, o.metadata.namespace, o.metadata.name)) return;
  // As `kubectl apply` of the story's manifests leaves them (managedFields of kubectl's client-side apply).
  store.create(group, resource, prepareCreate(store.type(group, resource)!, o, 'kubectl-client-side-apply', kubeTime(new Date())));
}

export function startStory(store: ObjectStore, opts: StoryOptions = {}): Story {
  const clock = opts.clock ?? realKubeletClock;
  const onError = opts.onError ?? (() => {});
  for (const o of storyObjects()) createIfAbsent(store, o.group, o.resource, o.object);

  let rollouts = 0;
  let stopped = false;
  let timer: { cancel(): void } | undefined;
  /** kubectl set image: the template's image flips, with a change-cause as `kubectl rollout history` shows it. */
  const rollout = () => {
    timer = undefined;
    if (stopped) return;
    try {
      const d = store.get('apps', 'deployments', ns, 'shop');
      if (d) {
        store.update('apps', 'deployments', rolledShop(d, rollouts), { manager: 'kubectl-set' });
        rollouts++;
      }
    } catch (e) {
      onError(e);
    }
    timer = clock.setTimer(ROLLOUT_EVERY_MS, rollout);
  };
  timer = clock.setTimer(FIRST_ROLLOUT_MS, rollout);
  const stop = () => {
    stopped = true;
    timer?.cancel();
    opts.signal?.removeEventListener('abort', stop);
  };
  if (opts.signal?.aborted) stop();
  else opts.signal?.addEventListener('abort', stop, { once: true });
  return {
    get rollouts() {
      return rollouts;
    },
    stop,
  };
}
