/**
 * Typed errors of the WorkerPool. Callers branch on `instanceof` or `name`, never on message text.
 */

/** submit() after close() or abort(), or a submitter still waiting for room when the pool was aborted. */
export class PoolClosedError extends Error {
  override readonly name = 'PoolClosedError';
  constructor(
    readonly state: 'closed' | 'aborted',
    message?: string,
  ) {
    super(message ?? (state === 'closed' ? 'worker pool is closed: no new tasks are accepted' : 'worker pool was aborted: task not accepted'));
  }
}

/**
 * The reason a task's signal is aborted when its per-task deadline passes: taskTimeoutMs without
 * progress (`madeProgress`: it had reported some before it stalled).
 */
export class TaskTimeoutError extends Error {
  override readonly name = 'TaskTimeoutError';
  constructor(
    readonly timeoutMs: number,
    readonly madeProgress = false,
  ) {
    super(madeProgress ? `task made no progress for ${timeoutMs} ms` : `task timed out after ${timeoutMs} ms`);
  }
}
