export { WorkerPool, validateConcurrency, MAX_CONCURRENCY, DEFAULT_CONCURRENCY } from './workerPool';
export type { PoolResult } from './workerPool';
export { PoolClosedError, TaskTimeoutError } from './errors';
export { AsyncQueue } from './asyncQueue';
export { SharedLanes, LaneMember } from './sharedLanes';
