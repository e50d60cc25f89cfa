/**
 * The cronjob controller (kube-controller-manager's "cronjob"): creates Jobs on a schedule.
 *
 * Guarantees (level-triggered: each reconcile reads the CronJob and its Jobs from the store):
 * - For the latest scheduled time after status.lastScheduleTime (or creation) that is not in the
 *   future, one Job `<name>-<minutes since epoch>` is created from spec.jobTemplate, owned by
 *   the CronJob (a SuccessfulCreate Event), unless spec.suspend, or concurrencyPolicy Forbid
 *   with a Job still running; Replace deletes the running Jobs first. Missed earlier times are
 *   skipped, as upstream does past startingDeadlineSeconds.
 * - status.active lists the unfinished Jobs; lastScheduleTime and lastSuccessfulTime are kept.
 * - Finished Jobs beyond successfulJobsHistoryLimit (3) and failedJobsHistoryLimit (1) are deleted, oldest first.
 * - The CronJob is re-queued for its next scheduled time; a bad schedule is a Warning Event
 *   (UnparseableSchedule), never a crash.
 */
import type { DemoObject } from '../store';
import { kubeTimestamp } from '../kubelet/eventRecorder';
import { prepareCreate } from '../server/defaults';
import { controllerRef, controllerRefTo, KCM, type ControllerContext } from './controllerContext';
import { CronError, parseCron } from './cron';
import { isJobFinished } from './job';
import { keyOf, splitKey, type WorkQueue } from './queue';
import type { Controller } from './replicaset';

export const CRONJOB_COMPONENT = 'cronjob-controller';

type Obj = Record<string, any>;

const condTime = (j: DemoObject, type: string) =>
  (((j.status as Obj | undefined)?.conditions ?? []) as Obj[]).find((c) => c.type === type && c.status === 'True');

export function startCronJobController(ctx: ControllerContext): Controller {
  const queue: WorkQueue = ctx.queue('cronjob', 'sync', (key) => syncCronJob(ctx, queue, key), 'cronjobs.batch');
  const unsubscribe = ctx.store.subscribe((e) => {
    if (e.group !== 'batch') return;
    if (e.resource === 'cronjobs' && e.type !== 'DELETED') queue.add(keyOf(e.object.metadata.namespace, e.object.metadata.name));
    else if (e.resource === 'jobs') {
      const ref = controllerRef(e.object);
      if (ref?.kind === 'CronJob') queue.add(keyOf(e.object.metadata.namespace, ref.name));
    }
  });
  for (const cj of ctx.list('batch', 'cronjobs')) queue.add(keyOf(cj.metadata.namespace, cj.metadata.name));

  return {
    name: 'cronjob',
    stop() {
      unsubscribe();
      queue.stop();
    },
  };
}

const jobsOf = (ctx: ControllerContext, cj: DemoObject) =>
  ctx.list('batch', 'jobs', cj.metadata.namespace).filter((j) => controllerRef(j)?.uid === cj.metadata.uid);

function syncCronJob(ctx: ControllerContext, queue: WorkQueue, key: string): void {
  const { namespace, name } = splitKey(key);
  const cj = ctx.store.get('batch', 'cronjobs', namespace, name);
  if (!cj || cj.metadata.deletionTimestamp) return;
  const spec = (cj.spec ?? {}) as Obj;
  const old = (cj.status ?? {}) as Obj;
  let schedule;
  try {
    schedule = parseCron(String(spec.schedule ?? ''));
  } catch (e) {
    if (e instanceof CronError) {
      ctx.event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${JSON.stringify(spec.schedule)} : ${e.message}`, CRONJOB_COMPONENT);
      return;
    }
    throw e;
  }
  const now = ctx.wallNow();
  let jobs = jobsOf(ctx, cj);
  const since = Date.parse(old.lastScheduleTime ?? cj.metadata.creationTimestamp ?? '') || now;
  // The latest scheduled time in (since, now]; earlier missed ones are skipped.
  const latest = schedule.prev(now);
  const due = latest !== undefined && latest > since ? latest : undefined;
  const status: Obj = { ...old };
  if (due !== undefined && !spec.suspend) {
    runScheduled(ctx, cj, jobs, due);
    status.lastScheduleTime = kubeTimestamp(due);
    jobs = jobsOf(ctx, cj);
  }
  const prune = updateJobHistory(ctx, cj, jobs, status);
  const active = jobs
    .filter((j) => !isJobFinished(j) && !prune.includes(j))
    .map((j) => ({
      kind: 'Job',
      namespace: j.metadata.namespace,
      name: j.metadata.name,
      uid: j.metadata.uid,
      apiVersion: 'batch/v1',
      resourceVersion: j.metadata.resourceVersion,
    }));
  if (active.length) status.active = active;
  else delete status.active;
  const current = ctx.store.get('batch', 'cronjobs', namespace, name);
  if (current && current.metadata.uid === cj.metadata.uid) ctx.updateStatus('batch', 'cronjobs', current, status);
  const next = schedule.next(Math.max(now, due ?? 0));
  if (next !== undefined) queue.addAfter(key, Math.min(next - now + 100, 2 ** 31 - 1));
}

/** The run due at `due`, as concurrencyPolicy allows: Forbid skips it while a Job runs, Replace deletes the running Jobs first. */
function runScheduled(ctx: ControllerContext, cj: DemoObject, jobs: DemoObject[], due: number): void {
  const spec = (cj.spec ?? {}) as Obj;
  const running = jobs.filter((j) => !isJobFinished(j));
  const policy = spec.concurrencyPolicy ?? 'Allow';
  if (policy === 'Forbid' && running.length) {
    ctx.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid', CRONJOB_COMPONENT);
    return;
  }
  if (policy === 'Replace') {
    for (const j of running) {
      ctx.store.delete('batch', 'jobs', j.metadata.namespace, j.metadata.name);
      ctx.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${j.metadata.name}`, CRONJOB_COMPONENT);
    }
  }
  const jobName = `${cj.metadata.name}-${Math.floor(due / 60_000)}`;
  if (!ctx.store.get('batch', 'jobs', cj.metadata.namespace, jobName)) createJob(ctx, cj, jobName, due);
}

/** The Job from spec.jobTemplate, through the Job's create strategy as the controller's POST is: defaults, selector, labels. */
function createJob(ctx: ControllerContext, cj: DemoObject, jobName: string, due: number): void {
  const tmpl = ((cj.spec as Obj | undefined)?.jobTemplate ?? {}) as Obj;
  const prepared = prepareCreate(
    ctx.store.type('batch', 'jobs')!,
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: jobName,
        namespace: cj.metadata.namespace,
        labels: { ...(tmpl.metadata?.labels ?? {}) },
        annotations: {
          ...(tmpl.metadata?.annotations ?? {}),
          'batch.kubernetes.io/cronjob-scheduled-timestamp': new Date(due).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        },
        ownerReferences: [controllerRefTo(cj)],
      },
      spec: tmpl.spec ?? {},
    },
    KCM,
    ctx.timestamp(),
  );
  ctx.store.create('batch', 'jobs', prepared, { uid: prepared.metadata.uid });
  ctx.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${jobName}`, CRONJOB_COMPONENT);
}

/** lastSuccessfulTime from the newest complete Job; finished Jobs beyond the history limits deleted, oldest first. Returns those deleted. */
function updateJobHistory(ctx: ControllerContext, cj: DemoObject, jobs: DemoObject[], status: Obj): DemoObject[] {
  const spec = (cj.spec ?? {}) as Obj;
  const done = jobs
    .filter((j) => condTime(j, 'Complete'))
    .sort((a, b) => String(condTime(b, 'Complete')!.lastTransitionTime).localeCompare(String(condTime(a, 'Complete')!.lastTransitionTime)));
  if (done[0]) status.lastSuccessfulTime = (done[0].status as Obj).completionTime ?? condTime(done[0], 'Complete')!.lastTransitionTime;
  const failed = jobs.filter((j) => condTime(j, 'Failed'));
  const prune = [
    ...done.slice(Number(spec.successfulJobsHistoryLimit ?? 3)),
    ...failed
      .sort((a, b) => (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''))
      .slice(Number(spec.failedJobsHistoryLimit ?? 1)),
  ];
  for (const j of prune) {
    ctx.store.delete('batch', 'jobs', j.metadata.namespace, j.metadata.name);
    ctx.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${j.metadata.name}`, CRONJOB_COMPONENT);
  }
  return prune;
}
