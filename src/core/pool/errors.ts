/**
 * Typed errors of the WorkerPool. Callers branch on `instanceof` or `name`, never on message text.
 */

/** submit() after close() or abort(), or a submitter still waiting for room when the pool was aborted. */
export class PoolClosedError extends Error {
  override readonly name = 'PoolClosedError';
  constructor(readonly state: 'closed' | 'aborted', message?: string) {
    super(message ?? (state === 'closed' ? 'worker pool is closed: no new tasks are accepted' : 'worker pool was aborted: task not accepted'));
  }
}

/** The reason a task's signal is aborted when its per-task deadline passes. */
export class TaskTimeoutError extends Error {
  override readonly name = 'TaskTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`task timed out after ${timeoutMs} ms`);
  }
}
