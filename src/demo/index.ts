/**
 * startDemoCluster: the embedded demo cluster in one call. A per-cluster ObjectStore (no globals),
 * the API server over it, the system namespaces, start-up CRDs, generated objects and churn
 * (./generator, ./churn), and the kubelet simulation that makes pods live (./kubelet).
 *
 * Guarantee: stop() (or the signal) stops churn and the kubelet, closes every socket (watches and
 * hung requests included) and resolves once the listener is closed; it is idempotent.
 */
import { startChurn } from './churn';
import { startWriters } from './writers';
import { generateObjects, type GenerateResult } from './generator';
import { PROFILES, profileNamed } from './generate/profiles';
import { startKubelet } from './kubelet';
import { LogStore } from './kubelet/logs';
import { startStory } from './story';
import { ReconcileLog } from './controllers/reconcileLog';
import { startControllers, type ControllerName, type ReconcileRecord } from './controllers';
import { KCM } from './controllers/controllerContext';
import { namespaceDefaults } from './controllers/namespaces';
import { renderKubeconfig, writeKubeconfigFile, type KubeconfigInput } from './kubeconfig';
import { crdObject, startApiServer, type ApiServer, type DemoCRD } from './server';
import { DEFAULT_USER, type Grant } from './server/auth';
import type { FaultController, FaultRule } from './server/faults';
import type { ServerStats } from './server/stats';
import { ObjectStore, StoreError } from './store';
import { DEFAULT_EVENT_TTL_MS, startEventTtl } from './eventTtl';
import { realKubeletClock } from './kubelet/kubeletClock';
import type { ImagePulls } from './kubelet/imagePulls';
import type { Capacity } from './kubelet/capacity';

export type { FaultRule } from './server/faults';
export { FaultController, parseFaultSpec } from './server/faults';
export type { ServerStats } from './server/stats';
export type { ReconcileRecord } from './controllers';
export { ObjectStore } from './store';
export type { DemoCRD } from './server';

export interface DemoClusterOptions {
  /** The cluster's name in its kubeconfig (cluster and context). Default 'kubeloop-demo'. */
  name?: string;
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Serve HTTPS with a self-signed certificate. Default: on when a token or grants are set (see below), else off. */
  tls?: boolean;
  /**
   * Require this bearer token (401 without it). kubectl (client-go's clientcmd) sends credentials
   * only to https:// servers, and so does KubeLoop, so a token turns TLS on unless `tls: false` is
   * given explicitly; so do `grants`, whose users are known by their tokens.
   */
  token?: string;
  /** Objects to generate at start (0 = only the system namespaces and nodes). */
  objects?: number;
  /** A named size (generate/profiles.ts, e.g. 'scale-limit'): its objects, nodes and pods; `objects` is then ignored. */
  profile?: string;
  seed?: number;
  /** Creates/updates/deletes per second after start (0 = none). */
  churnPerSecond?: number;
  /** One more namespace with this many pods, counted in `objects` (see GenerateOptions.bigNamespace). */
  bigNamespace?: { name: string; pods: number };
  faults?: FaultRule[] | string;
  /** Lifetime of continue tokens, ms (default 5 minutes). */
  continueTtlMs?: number;
  /** Interval of watch BOOKMARK events, ms (default 10 s). */
  bookmarkIntervalMs?: number;
  /** Watch event history kept for resuming watches (default 10,000 events). */
  historySize?: number;
  /** group/resource pairs the default user may not use: 'group/resource', core as '/pods'. */
  forbidden?: string[];
  /**
   * RBAC-style grants of named users, `USER:NAMESPACE:VERBS:GROUPS:RESOURCES` (NAMESPACE `*` =
   * cluster-wide), e.g. `alice:team-a:get,list,watch:*:*`: such a user may do only what its grants
   * allow, as under kube-apiserver's RBAC (see Grant in server/auth.ts).
   */
  grants?: (Grant | string)[];
  crds?: DemoCRD[];
  /** Run the kubelet simulation (default true). */
  kubelet?: boolean;
  /** The kubelet simulation's simulated seconds per real second (default 1; tests run it faster). */
  kubeletSpeed?: number;
  /** Image pulls that take time, queue per node and sometimes fail (kubelet/imagePulls.ts); default: 700 ms each, all succeed. */
  imagePulls?: ImagePulls;
  /** Pods per node, and a node added when every node is full (kubelet/capacity.ts); default: no limit. */
  capacity?: Capacity;
  /**
   * Run the controllers (./controllers: deployment, replicaset, statefulset, daemonset, job,
   * cronjob, garbagecollector), or only the ones named. Default OFF: the tests and benchmarks
   * count generated objects exactly, and a controller would add pods and status. The CLI's
   * `kubeloop demo-cluster` (and `npm run demo`) turns them on. With the garbage collector on,
   * DELETE with propagationPolicy Foreground or Orphan is finished by the collector, as upstream.
   */
  controllers?: boolean | ControllerName[];
  /**
   * Called after every reconcile of every controller (with `controllers` on), with its key, handler,
   * duration and writes: the extension puts them on the timeline's controller lanes.
   */
  onControllerReconcile?: (r: ReconcileRecord) => void;
  /**
   * Start the story (./story.ts): namespace `story` with a Deployment that rolls 8 s after start and
   * every 45 s, a Job that completes, a CronJob that runs every minute, and the failing probe-me pod.
   * Needs the kubelet and the controllers. Default off (the tests count objects); `npm run demo` turns it on.
   */
  story?: boolean;
  /** Plant misbehaving writers in namespace `writers` (./writers.ts: a fight and a hot loop). Default off. */
  writers?: boolean;
  /**
   * The generated objects' "now" in ms (their timestamps lie before it); default the generator's
   * fixed instant, for determinism, or with `controllers` on the real time (as theirs). The CLI passes the real time, so a generated Event was last
   * seen minutes ago, not months.
   */
  generatedNow?: number;
  /** Events are deleted this long after their last write, as kube-apiserver's --event-ttl (default 1 h; 0 = never). */
  eventTtlMs?: number;
  signal?: AbortSignal;
}

export interface DemoCluster {
  url: string;
  store: ObjectStore;
  faults: FaultController;
  stats: ServerStats;
  /**
   * The kubeconfig (YAML) for the default user, or another user (not subject to `forbidden`; a user
   * with grants may do what they allow); its context's namespace is `namespace` (default "default").
   */
  kubeconfig(opts?: KubeconfigFor): string;
  /** What `kubeconfig` renders, to write several clusters into one file (renderKubeconfig). */
  kubeconfigInput(opts?: KubeconfigFor): KubeconfigInput;
  writeKubeconfig(path: string, opts?: KubeconfigFor): Promise<void>;
  stop(): Promise<void>;
}

export interface KubeconfigFor {
  user?: string;
  namespace?: string;
}

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function ensureNamespace(store: ObjectStore, name: string): void {
  if (store.get('', 'namespaces', undefined, name)) return;
  try {
    store.create(
      '',
      'namespaces',
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { 'kubernetes.io/metadata.name': name } },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      },
      { manager: 'kube-apiserver' },
    );
  } catch (e) {
    if (!(e instanceof StoreError && e.code === 409)) throw e;
  }
}

export async function startDemoCluster(opts: DemoClusterOptions = {}): Promise<DemoCluster> {
  const store = new ObjectStore({ historySize: opts.historySize });
  // The controllers' reconciles, for clients in other processes (GET /_demo/reconciles).
  const reconciles = opts.controllers ? new ReconcileLog() : undefined;
  // The kubelet writes containers' logs here; the API server's pods/log reads them.
  const logs = new LogStore();
  const server = await startApiServer({
    logs,
    ...(reconciles ? { reconciles } : {}),
    store,
    host: opts.host,
    port: opts.port,
    tls: opts.tls ?? (opts.token !== undefined || (opts.grants?.length ?? 0) > 0),
    token: opts.token,
    forbidden: opts.forbidden,
    grants: opts.grants,
    faults: opts.faults,
    continueTtlMs: opts.continueTtlMs,
    bookmarkIntervalMs: opts.bookmarkIntervalMs,
    // As a real apiserver, which cannot know whether a kubelet runs: without the simulation a
    // deleted pod bound to a node stays Terminating until someone deletes it with grace 0.
    gracefulPodDeletion: true,
    garbageCollector: opts.controllers === true || (Array.isArray(opts.controllers) && opts.controllers.includes('garbagecollector')),
    signal: opts.signal,
  });
  const life = new AbortController();
  let stops: (() => void)[];
  try {
    const generated = seedStore(store, opts);
    stops = startLoops(store, opts, { signal: life.signal, logs, reconciles, generatedNodes: generated?.nodes.length ?? 0 });
  } catch (e) {
    life.abort();
    await server.stop();
    throw e;
  }

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      life.abort();
      for (const s of stops) {
        try {
          s();
        } catch {
          // stopping: keep going
        }
      }
      await server.stop();
    })();
    return stopped;
  };
  if (opts.signal) {
    if (opts.signal.aborted) await stop();
    else opts.signal.addEventListener('abort', () => void stop(), { once: true });
  }

  return clusterHandle(opts, server, store, stop);
}

/**
 * What exists before startDemoCluster resolves: the system namespaces and what the serviceaccount and
 * root-ca-cert-publisher controllers' first sync makes of them (a fresh cluster is at rest from its
 * first list on), the start-up CRDs and the generated objects.
 */
function seedStore(store: ObjectStore, opts: DemoClusterOptions): GenerateResult | undefined {
  for (const ns of SYSTEM_NAMESPACES) ensureNamespace(store, ns);
  const perNamespace = (name: ControllerName) => opts.controllers === true || (Array.isArray(opts.controllers) && opts.controllers.includes(name));
  for (const ns of perNamespace('serviceaccount') || perNamespace('root-ca-cert-publisher') ? SYSTEM_NAMESPACES : []) {
    for (const d of namespaceDefaults(ns)) {
      const by = d.resource === 'serviceaccounts' ? 'serviceaccount' : 'root-ca-cert-publisher';
      if (perNamespace(by) && !store.get(d.group, d.resource, ns, d.object.metadata.name)) store.create(d.group, d.resource, d.object, { manager: KCM });
    }
  }
  for (const c of opts.crds ?? []) {
    const crd = crdObject(c);
    if (!store.get('apiextensions.k8s.io', 'customresourcedefinitions', undefined, crd.metadata.name)) {
      store.create('apiextensions.k8s.io', 'customresourcedefinitions', crd);
    }
  }
  // Generate before the kubelet starts: generated pods already carry a kubelet's status, so the
  // kubelet adopts them without work, and its own nodes reuse the generated ones.
  const profile = opts.profile !== undefined ? profileNamed(opts.profile) : undefined;
  if (opts.profile !== undefined && !profile)
    throw new Error(`unknown demo profile ${JSON.stringify(opts.profile)} (known: ${Object.keys(PROFILES).join(', ')})`);
  const objects = profile?.objects ?? opts.objects ?? 0;
  if (objects <= 0) return undefined;
  return generateObjects(store, {
    objects,
    ...(profile ? { nodes: profile.nodes, pods: profile.pods } : {}),
    seed: opts.seed ?? 1,
    // With controllers running, the generated cluster's now is theirs: their schedules and deadlines agree with it.
    ...(opts.generatedNow !== undefined ? { now: opts.generatedNow } : opts.controllers ? { now: Date.now() } : {}),
    ...(opts.bigNamespace ? { bigNamespace: opts.bigNamespace } : {}),
  });
}

interface LoopDeps {
  signal: AbortSignal;
  logs: LogStore;
  reconciles: ReconcileLog | undefined;
  /** Nodes the generator made (0: none). */
  generatedNodes: number;
}

/** Churn, the kubelet, the controllers, the story and the event TTL, as the options ask; returns their stops, in start order. */
function startLoops(store: ObjectStore, opts: DemoClusterOptions, deps: LoopDeps): (() => void)[] {
  const { signal } = deps;
  const stops: (() => void)[] = [];
  if ((opts.churnPerSecond ?? 0) > 0) {
    const churn = startChurn(store, { perSecond: opts.churnPerSecond!, seed: opts.seed ?? 1, signal });
    stops.push(() => churn.stop());
  }
  if (opts.kubelet !== false) {
    // The generated nodes are the kubelet's (no node more: a DaemonSet would have one more pod to run).
    const nodes = deps.generatedNodes ? { nodes: deps.generatedNodes } : {};
    const kubelet = startKubelet(store, {
      signal,
      logs: deps.logs,
      ...nodes,
      ...(opts.kubeletSpeed ? { speed: opts.kubeletSpeed } : {}),
      ...(opts.imagePulls ? { imagePulls: opts.imagePulls } : {}),
      ...(opts.capacity ? { capacity: opts.capacity } : {}),
    });
    stops.push(() => kubelet.stop());
  }
  if (opts.controllers) {
    const cm = startControllers(store, {
      signal,
      ...(Array.isArray(opts.controllers) ? { controllers: opts.controllers } : {}),
      onReconcile: (r) => {
        deps.reconciles!.push(r);
        opts.onControllerReconcile?.(r);
      },
    });
    stops.push(() => cm.stop());
  }
  if (opts.story) {
    const story = startStory(store, { signal });
    stops.push(() => story.stop());
  }
  if (opts.writers) {
    const writers = startWriters(store, { signal });
    stops.push(() => writers.stop());
  }
  if (opts.eventTtlMs !== 0) {
    const ttl = startEventTtl(store, realKubeletClock, opts.eventTtlMs ?? DEFAULT_EVENT_TTL_MS);
    stops.push(() => ttl.stop());
  }
  return stops;
}

function clusterHandle(opts: DemoClusterOptions, server: ApiServer, store: ObjectStore, stop: () => Promise<void>): DemoCluster {
  const kubeconfigInput = (o: KubeconfigFor = {}): KubeconfigInput => ({
    name: opts.name ?? 'kubeloop-demo',
    server: server.url,
    user: o.user ?? DEFAULT_USER,
    token: server.authn.tokenFor(o.user ?? DEFAULT_USER),
    caCert: server.caCert,
    ...(o.namespace ? { namespace: o.namespace } : {}),
  });
  const kubeconfig = (o: KubeconfigFor = {}) => renderKubeconfig(kubeconfigInput(o));
  return {
    url: server.url,
    store,
    faults: server.faults,
    stats: server.stats,
    kubeconfig,
    kubeconfigInput,
    writeKubeconfig: (path, o) => writeKubeconfigFile(path, kubeconfig(o)),
    stop,
  };
}
