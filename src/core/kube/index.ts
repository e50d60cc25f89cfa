/**
 * The Kubernetes client of core: kubeconfig per context, one keep-alive transport with auth, rate
 * limit and bounded retries, discovery, paged list and watch. Start with KubeClient (client.ts).
 */
export { KubeClient, type ClientOptions } from './client';
export { DiscoveryCache } from './discoveryCache';
export { discardPrestartedIoThread, sharedIoThread } from './ioThread';
export { loadKubeContext, loadKubeContexts, listContextNames, type KubeContext } from './kubeconfig';
export { KubeTransport, type TransportStats } from './transport';
export { KubeApiError, KubeTransportError, KubeConfigError, parseRetryAfter } from './errors';
export { TokenBucket, DEFAULT_QPS, DEFAULT_BURST } from './rateLimiter';
export { discover, AGGREGATED_DISCOVERY_ACCEPT, DiscoveryTimeoutError } from './discovery';
export {
  listableResources,
  parseAggregated,
  parseResourceList,
  parseGroupList,
  parseApiVersions,
  type ApiResource,
  type Discovery,
  type DiscoveryFailure,
} from './discoveryParse';
export { continueFromHead, MAX_LIST_RESTARTS, METADATA_ONLY_ACCEPT, type ListOptions, type ListHooks, type ListResult } from './list';
export { type WatchEvent } from './watch';
export { gvrName } from './paths';
export { asStoredObject } from './types';
export { selfSubjectAccessReview, selfSubjectRulesReview, whoAmI, ruleAllows, rulesAllow, type ResourceAttributes, type ResourceRule } from './access';
export type { GroupVersionResource, KubeObject } from './types';
