/**
 * The Kubernetes client of core: kubeconfig per context, one keep-alive transport with auth, rate
 * limit and bounded retries, discovery, paged list and watch. Start with KubeClient (client.ts).
 */
export { KubeClient, type ClientOptions } from './client';
export { DiscoveryCache, defaultDiscoveryCacheDir, discoveryCacheLocation, DEFAULT_DISCOVERY_CACHE_TTL_MS, type DiscoveryCacheOptions } from './discoveryCache';
export { prestartIoThread, discardPrestartedIoThread, sharedIoThread } from './ioThread';
export { loadKubeContext, loadKubeContexts, listContextNames, type KubeContext, type LoadKubeContextOptions } from './kubeconfig';
export { KubeTransport, buildUrl, type TransportOptions, type RequestSpec, type RetryInfo, type JsonResponse, type TransportStats } from './transport';
export { KubeApiError, KubeTransportError, KubeConfigError, parseRetryAfter, apiErrorFromResponse, type TransportFailure } from './errors';
export { TokenBucket, createRateLimiter, DEFAULT_QPS, DEFAULT_BURST, type RateLimiter } from './rateLimiter';
export { DEFAULT_RETRY_POLICY, decideRetry, type RetryPolicy } from './retry';
export { discover, AGGREGATED_DISCOVERY_ACCEPT, DEFAULT_DISCOVERY_TIMEOUT_MS, DiscoveryTimeoutError, type DiscoverOptions } from './discovery';
export {
  listableResources,
  parseAggregated,
  parseResourceList,
  parseGroupList,
  parseApiVersions,
  isAggregatedDiscovery,
  groupVersionOf,
  type ApiResource,
  type ApiGroup,
  type ApiGroupVersion,
  type Discovery,
  type DiscoveryFailure,
  type VersionChoice,
} from './discoveryParse';
export { listAll, compactItem, continueFromHead, MAX_LIST_RESTARTS, METADATA_ONLY_ACCEPT, type ListOptions, type ListHooks, type ListResult } from './list';
export { watch, METADATA_ONLY_WATCH_ACCEPT, type WatchOptions, type WatchEvent, type WatchEventType, type WatchEnd } from './watch';
export { resourcePath, gvrName } from './paths';
export { asStoredObject } from './types';
export {
  selfSubjectAccessReview,
  selfSubjectRulesReview,
  whoAmI,
  ruleAllows,
  rulesAllow,
  type ResourceAttributes,
  type ResourceRule,
  type RulesReview,
  type AccessReview,
} from './access';
export type { GroupVersionResource, KubeObject, ObjectMeta, StoredObject, ListMeta } from './types';
