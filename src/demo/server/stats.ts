/**
 * Counters of one demo API server, for tests that must see what clients did on the wire:
 * requests by verb, connections open now and in total, requests the client abandoned before the
 * answer was complete (a cancelled loader must show up here), and watches open now.
 */
export interface ServerStats {
  /** Requests received, in total. */
  requests: number;
  /** Requests by verb: list, get, watch, create, update, patch, delete, deletecollection, discovery, version (GET /version), admin. */
  requestsByVerb: Record<string, number>;
  /** Requests by resource ('pods', 'deployments.apps'). */
  requestsByResource: Record<string, number>;
  /**
   * Resource requests by verb, resource and namespace ('list configmaps@team-a'; '@*' across all
   * namespaces or at the cluster scope), continuations included: how often a client asked for a pair.
   */
  requestsByScope: Record<string, number>;
  /** Requests with a response still in progress. */
  inflight: number;
  /** TCP connections open now. */
  openConnections: number;
  /** TCP connections accepted since start. */
  totalConnections: number;
  /** Non-watch requests whose client went away before the response was complete. */
  abortedRequests: number;
  /** Watches open now. */
  openWatches: number;
  /** Watches the client closed (the normal end of a watch from the client side). */
  watchesClosedByClient: number;
  /** Requests answered with an injected fault. */
  faultsApplied: number;
  /** Responses by HTTP status code. */
  responsesByCode: Record<string, number>;
  /** Response body bytes written, as sent (gzip-compressed where the answer was): JSON answers and watch events. */
  bodyBytesSent: number;
  /** The same bodies before compression (= bodyBytesSent when nothing was compressed). */
  bodyBytesUncompressed: number;
  /** Answers sent gzip-encoded (the client asked, and the body was over the 128 KiB threshold). */
  gzipResponses: number;
  /** The identity the last impersonating request asked for (Impersonate-* headers), as the server read it. */
  lastImpersonation?: import('./auth').Identity;
}

export function newStats(): ServerStats {
  return {
    requests: 0,
    requestsByVerb: {},
    requestsByResource: {},
    requestsByScope: {},
    inflight: 0,
    openConnections: 0,
    totalConnections: 0,
    abortedRequests: 0,
    openWatches: 0,
    watchesClosedByClient: 0,
    faultsApplied: 0,
    responsesByCode: {},
    bodyBytesSent: 0,
    bodyBytesUncompressed: 0,
    gzipResponses: 0,
  };
}

export function bump(m: Record<string, number>, k: string, by = 1): void {
  m[k] = (m[k] ?? 0) + by;
}
