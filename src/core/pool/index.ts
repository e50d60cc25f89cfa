export { WorkerPool, validateConcurrency, MIN_CONCURRENCY, MAX_CONCURRENCY, DEFAULT_CONCURRENCY } from './workerPool';
export type { PoolResult, PoolSummary, TaskContext, WorkerPoolOptions } from './workerPool';
export { PoolClosedError, TaskTimeoutError } from './errors';
export { AsyncQueue } from './asyncQueue';
export { Fifo } from './fifo';
export { SharedLanes, LaneMember } from './sharedLanes';
