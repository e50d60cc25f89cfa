/**
 * The Kubernetes client of core: kubeconfig per context, one keep-alive transport with auth, rate
 * limit and bounded retries, discovery, paged list and watch. Start with KubeClient (client.ts).
 */
export { KubeClient, type ClientOptions } from './client';
export { DiscoveryCache } from './discovery/cache';
export { discardPrestartedIoThread, sharedIoThread } from './transport/ioThread';
export { loadKubeContext, loadKubeContexts, listContextNames, type KubeContext } from './config/kubeconfig';
export { KubeTransport, type TransportStats } from './transport/transport';
export { KubeApiError, KubeTransportError, KubeConfigError, parseRetryAfter } from './errors';
export { TokenBucket, DEFAULT_QPS, DEFAULT_BURST } from './transport/rateLimiter';
export { discover, AGGREGATED_DISCOVERY_ACCEPT, DiscoveryTimeoutError } from './discovery/discover';
export {
  listableResources,
  parseAggregated,
  parseResourceList,
  parseGroupList,
  parseApiVersions,
  type ApiResource,
  type Discovery,
  type DiscoveryFailure,
} from './discovery/parse';
export { continueFromHead, MAX_LIST_RESTARTS, METADATA_ONLY_ACCEPT, type ListOptions, type ListHooks, type ListResult } from './listwatch/list';
export { type WatchEvent } from './listwatch/watch';
export { type PodLogFailure, type PodLogOptions } from './listwatch/podLog';
export { type LogOwner } from './listwatch/ownerLogs';
export { type MergedLine } from './listwatch/logMerge';
export { gvrName } from './listwatch/paths';
export { asStoredObject } from './objects/types';
export {
  selfSubjectAccessReview,
  selfSubjectRulesReview,
  whoAmI,
  ruleAllows,
  rulesAllow,
  type ResourceAttributes,
  type ResourceRule,
} from './access/selfSubject';
export type { GroupVersionResource, KubeObject } from './objects/types';
