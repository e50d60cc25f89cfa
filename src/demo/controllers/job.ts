/**
 * The job controller (kube-controller-manager's "job"): runs a Job's pods to completion.
 *
 * Guarantees (level-triggered, from the Job's own pods on every reconcile):
 * - At most spec.parallelism (default 1) pods run at once, and never more than the completions
 *   still missing (spec.completions; unset = one success ends the Job).
 * - succeeded and failed count the Job's finished pods; a failed pod (or container restarts under
 *   restartPolicy OnFailure) counts toward spec.backoffLimit (default 6). Past it the Job gets
 *   FailureTarget then Failed (reason BackoffLimitExceeded), its active pods are deleted.
 *   A replacement after a failure waits the upstream back-off (10 s, doubling, at most 6 min).
 * - Enough successes: SuccessCriteriaMet then Complete (reason CompletionsReached),
 *   completionTime set. A finished Job creates nothing more; spec.suspend creates nothing.
 * - Pods carry the labels upstream gives them (batch.kubernetes.io/job-name, controller-uid, ...).
 */
import type { DemoObject } from '../store';
import { isPodActive, isPodReady, setCondition, type ControllerContext } from './controllerContext';
import { keyOf, splitKey, type WorkQueue } from './queue';
import type { Controller } from './replicaset';
import { controllerRef } from './controllerContext';

export const JOB_COMPONENT = 'job-controller';
const BACKOFF_MS = 10_000;
const MAX_BACKOFF_MS = 6 * 60_000;

type Obj = Record<string, any>;

const phaseOf = (p: DemoObject) => (p.status as Obj | undefined)?.phase as string | undefined;
const restartsOf = (p: DemoObject) => (((p.status as Obj | undefined)?.containerStatuses ?? []) as Obj[]).reduce((n, c) => n + Number(c.restartCount ?? 0), 0);

export function isJobFinished(job: DemoObject): boolean {
  return (((job.status as Obj | undefined)?.conditions ?? []) as Obj[]).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

export function startJobController(ctx: ControllerContext): Controller {
  const queue: WorkQueue = ctx.queue('job', 'syncJob', (key) => syncJob(ctx, queue, key), 'jobs.batch');
  const unsubscribe = ctx.store.subscribe((e) => {
    if (e.group === 'batch' && e.resource === 'jobs' && e.type !== 'DELETED') queue.add(keyOf(e.object.metadata.namespace, e.object.metadata.name));
    else if (e.group === '' && e.resource === 'pods') {
      const ref = controllerRef(e.object);
      if (ref?.kind === 'Job') queue.add(keyOf(e.object.metadata.namespace, ref.name));
    }
  });
  for (const j of ctx.list('batch', 'jobs')) queue.add(keyOf(j.metadata.namespace, j.metadata.name));

  return {
    name: 'job',
    stop() {
      unsubscribe();
      queue.stop();
    },
  };
}

/** The Job's pods as one pass counts them. */
interface JobPods {
  readonly all: DemoObject[];
  readonly succeeded: number;
  readonly failedPods: DemoObject[];
  /** Container restarts under restartPolicy OnFailure (they count toward backoffLimit). */
  readonly restarts: number;
}

function syncJob(ctx: ControllerContext, queue: WorkQueue, key: string): void {
  const { namespace, name } = splitKey(key);
  const job = ctx.store.get('batch', 'jobs', namespace, name);
  // As upstream's syncJob: a finished Job is never synced again (its status is final, its pods may go).
  if (!job || job.metadata.deletionTimestamp || isJobFinished(job)) return;
  const spec = (job.spec ?? {}) as Obj;
  const old = (job.status ?? {}) as Obj;
  const now = ctx.timestamp();
  const all = ctx.podsOwnedBy(job);
  const pods: JobPods = {
    all,
    succeeded: all.filter((p) => phaseOf(p) === 'Succeeded').length,
    failedPods: all.filter((p) => phaseOf(p) === 'Failed'),
    restarts: spec.template?.spec?.restartPolicy === 'OnFailure' ? all.reduce((n, p) => n + restartsOf(p), 0) : 0,
  };
  let active = all.filter(isPodActive);
  const completions = spec.completions === undefined || spec.completions === null ? undefined : Number(spec.completions);
  let conds = old.conditions as Obj[] | undefined;
  const status: Obj = { ...old, startTime: old.startTime ?? now };
  if (pods.failedPods.length + pods.restarts > Number(spec.backoffLimit ?? 6)) {
    for (const p of active) ctx.deletePod(p);
    active = [];
    conds = finishJob(ctx, job, conds, 'Failed', now);
  } else if (completions !== undefined ? pods.succeeded >= completions : pods.succeeded > 0 && active.length === 0) {
    conds = finishJob(ctx, job, conds, 'Complete', now);
    status.completionTime = now;
  } else if (!spec.suspend) {
    active = manageJob(ctx, queue, key, job, pods, active, completions);
  }
  writeJobStatus(ctx, job, status, pods, active, conds);
}

/**
 * manageJob: pods up to parallelism and the completions still missing, after the back-off that
 * follows a failure (the key is re-queued for it). Returns the active pods after.
 */
function manageJob(
  ctx: ControllerContext,
  queue: WorkQueue,
  key: string,
  job: DemoObject,
  pods: JobPods,
  active: DemoObject[],
  completions: number | undefined,
): DemoObject[] {
  const spec = (job.spec ?? {}) as Obj;
  const { succeeded, failedPods } = pods;
  const missing = completions !== undefined ? completions - succeeded : succeeded > 0 ? 0 : 1;
  const want = Math.min(Number(spec.parallelism ?? 1), Math.max(0, missing));
  const toCreate = want - active.length;
  if (toCreate <= 0) return active;
  const wait = backoffWait(ctx, failedPods, failedPods.length);
  if (wait > 0) {
    queue.addAfter(key, wait);
    return active;
  }
  for (let i = 0; i < toCreate; i++) {
    const labels = {
      'batch.kubernetes.io/controller-uid': job.metadata.uid!,
      'batch.kubernetes.io/job-name': job.metadata.name,
      'controller-uid': job.metadata.uid!,
      'job-name': job.metadata.name,
    };
    const pod = ctx.createPod(job, spec.template ?? {}, { labels });
    ctx.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`, JOB_COMPONENT);
  }
  return ctx.podsOwnedBy(job).filter(isPodActive);
}

/** The terminal pair upstream writes: FailureTarget then Failed, or SuccessCriteriaMet then Complete, and its Event. */
function finishJob(ctx: ControllerContext, job: DemoObject, conds: Obj[] | undefined, outcome: 'Complete' | 'Failed', now: string): Obj[] {
  const [target, reason, message] =
    outcome === 'Failed'
      ? ['FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit']
      : ['SuccessCriteriaMet', 'CompletionsReached', 'Reached expected number of succeeded pods'];
  let next = setCondition(conds, { type: target, status: 'True', reason, message, lastProbeTime: now }, now);
  next = setCondition(next, { type: outcome, status: 'True', reason, message, lastProbeTime: now }, now);
  if (outcome === 'Failed') ctx.event(job, 'Warning', 'BackoffLimitExceeded', message, JOB_COMPONENT);
  else ctx.event(job, 'Normal', 'Completed', 'Job completed', JOB_COMPONENT);
  return next;
}

function writeJobStatus(ctx: ControllerContext, job: DemoObject, status: Obj, pods: JobPods, active: DemoObject[], conds: Obj[] | undefined): void {
  status.active = active.length;
  status.ready = active.filter(isPodReady).length;
  status.succeeded = pods.succeeded;
  status.failed = pods.failedPods.length;
  status.terminating = pods.all.filter((p) => !!p.metadata.deletionTimestamp).length;
  // terminating (JobPodReplacementPolicy) is a pointer upstream: written even when 0, as ready is.
  for (const k of ['active', 'succeeded', 'failed']) if (!status[k]) delete status[k];
  if (conds) status.conditions = conds;
  status.uncountedTerminatedPods = {};
  const current = ctx.store.get('batch', 'jobs', job.metadata.namespace, job.metadata.name);
  if (current && current.metadata.uid === job.metadata.uid) ctx.updateStatus('batch', 'jobs', current, status);
}

/** ms until a replacement may start: 10 s * 2^(failures-1) after the last failure (0 = now). */
function backoffWait(ctx: ControllerContext, failedPods: DemoObject[], failures: number): number {
  if (!failures) return 0;
  const last = Math.max(
    ...failedPods.map((p) => {
      const cs = ((p.status as Obj | undefined)?.containerStatuses ?? []) as Obj[];
      const t = cs.map((c) => Date.parse(c.state?.terminated?.finishedAt ?? '')).filter((n) => !Number.isNaN(n));
      return t.length ? Math.max(...t) : Date.parse(p.metadata.creationTimestamp ?? '') || 0;
    }),
  );
  const delay = Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** (failures - 1));
  return Math.max(0, last + delay - ctx.wallNow());
}
