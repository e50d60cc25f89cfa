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
import { keyOf, splitKey } from './queue';
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
  const { store } = ctx;
  const queue = ctx.queue('job', 'syncJob', reconcile, 'jobs.batch');

  function reconcile(key: string): void {
    const { namespace, name } = splitKey(key);
    const job = store.get('batch', 'jobs', namespace, name);
    // As upstream's syncJob: a finished Job is never synced again (its status is final, its pods may go).
    if (!job || job.metadata.deletionTimestamp || isJobFinished(job)) return;
    const spec = (job.spec ?? {}) as Obj;
    const old = (job.status ?? {}) as Obj;
    const now = ctx.timestamp();
    const pods = ctx.podsOwnedBy(job);
    const succeeded = pods.filter((p) => phaseOf(p) === 'Succeeded').length;
    const failedPods = pods.filter((p) => phaseOf(p) === 'Failed');
    const restarts = spec.template?.spec?.restartPolicy === 'OnFailure' ? pods.reduce((n, p) => n + restartsOf(p), 0) : 0;
    const failed = failedPods.length;
    let active = pods.filter(isPodActive);
    const parallelism = Number(spec.parallelism ?? 1);
    const completions = spec.completions === undefined || spec.completions === null ? undefined : Number(spec.completions);
    const backoffLimit = Number(spec.backoffLimit ?? 6);
    let conds = old.conditions as Obj[] | undefined;
    const status: Obj = { ...old, startTime: old.startTime ?? now };
    if (!isJobFinished(job)) {
      if (failed + restarts > backoffLimit) {
        for (const p of active) ctx.deletePod(p);
        active = [];
        conds = setCondition(
          conds,
          { type: 'FailureTarget', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastProbeTime: now },
          now,
        );
        conds = setCondition(
          conds,
          { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastProbeTime: now },
          now,
        );
        ctx.event(job, 'Warning', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit', JOB_COMPONENT);
      } else if (completions !== undefined ? succeeded >= completions : succeeded > 0 && active.length === 0) {
        conds = setCondition(
          conds,
          {
            type: 'SuccessCriteriaMet',
            status: 'True',
            reason: 'CompletionsReached',
            message: 'Reached expected number of succeeded pods',
            lastProbeTime: now,
          },
          now,
        );
        conds = setCondition(
          conds,
          { type: 'Complete', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: now },
          now,
        );
        status.completionTime = now;
        ctx.event(job, 'Normal', 'Completed', 'Job completed', JOB_COMPONENT);
      } else if (!spec.suspend) {
        const missing = completions !== undefined ? completions - succeeded : succeeded > 0 ? 0 : 1;
        const want = Math.min(parallelism, Math.max(0, missing));
        const toCreate = want - active.length;
        if (toCreate > 0) {
          const wait = backoffWait(failedPods, failed);
          if (wait > 0) queue.addAfter(key, wait);
          else {
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
            active = ctx.podsOwnedBy(job).filter(isPodActive);
          }
        }
      }
    }
    status.active = active.length;
    status.ready = active.filter(isPodReady).length;
    status.succeeded = succeeded;
    status.failed = failed;
    status.terminating = pods.filter((p) => !!p.metadata.deletionTimestamp).length;
    // terminating (JobPodReplacementPolicy) is a pointer upstream: written even when 0, as ready is.
    for (const k of ['active', 'succeeded', 'failed']) if (!status[k]) delete status[k];
    if (conds) status.conditions = conds;
    status.uncountedTerminatedPods = {};
    const current = store.get('batch', 'jobs', namespace, name);
    if (current && current.metadata.uid === job.metadata.uid) ctx.updateStatus('batch', 'jobs', current, status);
  }

  /** ms until a replacement may start: 10 s * 2^(failures-1) after the last failure (0 = now). */
  function backoffWait(failedPods: DemoObject[], failures: number): number {
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

  const unsubscribe = store.subscribe((e) => {
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
