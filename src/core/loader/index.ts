export { ClusterLoader, describeError, PAGE_TRICKLE_ALLOWANCE, type LoadRun, type StartOptions } from './clusterLoader';
export { resolveLoaderOptions, DEFAULT_PAGE_SIZE, MIN_PAGE_SIZE, MAX_PAGE_SIZE, DEFAULT_TASK_TIMEOUT_MS, type ClusterLoaderOptions } from './options';
export { planTasks, selectTypes, matchesType, typeNames, resolveTypeName } from './plan';
export type { LoadTask, LoadTaskResult, LoadOutcome, LoadPlan, LoadSummary, LoaderClient } from './types';
export {
  planScopedTasks,
  reviewAccess,
  noRightsText,
  nothingPermitted,
  REVIEW_TIMEOUT_MS,
  verdictIn,
  verdictAcross,
  DEFAULT_NAMESPACE,
  CLUSTER_RULES_PROBE,
  type AccessReviewer,
  type AccessFacts,
  type ScopePlan,
  type ScopeInput,
} from './scope';
export { autoConcurrency, AUTO_BASE_LANES, AUTO_SERVER_MS, AUTO_MAX_LANES, type ConcurrencyAuto } from './autoConcurrency';
