export { ClusterLoader, PAGE_TRICKLE_ALLOWANCE } from './clusterLoader';
export { resolveLoaderOptions, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type ClusterLoaderOptions } from './options';
export { planTasks, selectTypes } from './plan';
export type { LoadTaskResult, LoadPlan, LoadSummary, LoaderClient } from './types';
export { planScopedTasks, noRightsText, nothingPermitted } from './scope';
export { autoConcurrency, AUTO_BASE_LANES, AUTO_SERVER_MS, AUTO_MAX_LANES } from './autoConcurrency';
