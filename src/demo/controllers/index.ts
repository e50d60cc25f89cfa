/**
 * The demo cluster's kube-controller-manager: the controllers that turn workloads into pods,
 * each its own level-triggered reconciler over the store (a work queue keyed by namespace/name),
 * named as upstream's: deployment, replicaset, statefulset, daemonset, job, cronjob,
 * garbagecollector, serviceaccount and root-ca-cert-publisher (every namespace's `default`
 * ServiceAccount and `kube-root-ca.crt` ConfigMap). Pods they create are bound to nodes by the kubelet simulation's scheduler
 * (kubelet/index.ts) and run there.
 *
 * Each controller writes its Events with its upstream component name (deployment-controller,
 * replicaset-controller, job-controller, ...) as source.component and reportingComponent, so
 * anything that groups Events by source (the timeline) shows each controller as its own source.
 *
 * Guarantees: nothing runs inside a store write (work queues drain in later macrotasks); stop()
 * (or the signal) unsubscribes every controller and cancels every timer.
 */
import type { ObjectStore } from '../store';
import { realKubeletClock, type KubeletClock } from '../kubelet/kubeletClock';
import { EventRecorder } from '../kubelet/eventRecorder';
import { ControllerContext } from './controllerContext';
import { ReconcileObserver, type ReconcileRecord } from './observe';
import { startCronJobController } from './cronjob';
import { startDaemonSetController } from './daemonset';
import { startDeploymentController } from './deployment';
import { startGarbageCollector } from './garbagecollector';
import { startJobController } from './job';
import { startReplicaSetController, type Controller } from './replicaset';
import { startNamespaceDefaults } from './namespaces';
import { startStatefulSetController } from './statefulset';

export const CONTROLLER_NAMES = [
  'deployment',
  'replicaset',
  'statefulset',
  'daemonset',
  'job',
  'cronjob',
  'garbagecollector',
  'serviceaccount',
  'root-ca-cert-publisher',
] as const;
export type ControllerName = (typeof CONTROLLER_NAMES)[number];

export interface ControllerManagerOptions {
  signal?: AbortSignal;
  clock?: KubeletClock;
  /** Wall-clock ms (default Date.now): timestamps, minReadySeconds, back-offs, cron schedules. */
  wallNow?: () => number;
  /** Which controllers run (default all), as kube-controller-manager's --controllers. */
  controllers?: readonly ControllerName[];
  /** Errors of store writes that raced another writer; default: ignored (the next reconcile retries). */
  onError?: (e: unknown) => void;
  /** Called after every reconcile of every controller with what it did (the timeline's controller lanes; see observe.ts). */
  onReconcile?: (r: ReconcileRecord) => void;
}

export type { ReconcileRecord };

export interface ControllerManager {
  readonly running: string[];
  stop(): void;
}

export function startControllers(store: ObjectStore, opts: ControllerManagerOptions = {}): ControllerManager {
  const clock = opts.clock ?? realKubeletClock;
  const wallNow = opts.wallNow ?? (() => Date.now());
  const onError = opts.onError ?? (() => {});
  const recorder = new EventRecorder(store, wallNow, onError);
  const observer = opts.onReconcile ? new ReconcileObserver(store, clock, opts.onReconcile) : undefined;
  const ctx = new ControllerContext(store, clock, recorder, wallNow, onError, observer);
  const want = new Set(opts.controllers ?? CONTROLLER_NAMES);
  const starters: Record<ControllerName, (c: ControllerContext) => Controller> = {
    deployment: startDeploymentController,
    replicaset: startReplicaSetController,
    statefulset: startStatefulSetController,
    daemonset: startDaemonSetController,
    job: startJobController,
    cronjob: startCronJobController,
    garbagecollector: startGarbageCollector,
    serviceaccount: (c) => startNamespaceDefaults(c, 'serviceaccount'),
    'root-ca-cert-publisher': (c) => startNamespaceDefaults(c, 'root-ca-cert-publisher'),
  };
  const running: Controller[] = [];
  for (const n of CONTROLLER_NAMES) if (want.has(n)) running.push(starters[n](ctx));
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    for (const c of running) c.stop();
    ctx.stop();
    opts.signal?.removeEventListener('abort', stop);
  };
  if (opts.signal?.aborted) stop();
  else opts.signal?.addEventListener('abort', stop, { once: true });
  return { running: running.map((c) => c.name), stop };
}
