/**
 * Counters of one demo API server, for tests that must see what clients did on the wire:
 * requests by verb, connections open now and in total, requests the client abandoned before the
 * answer was complete (a cancelled loader must show up here), and watches open now.
 */
export interface ServerStats {
  /** Requests received, in total. */
  requests: number;
  /** Requests by verb: list, get, watch, create, update, patch, delete, deletecollection, discovery, admin. */
  requestsByVerb: Record<string, number>;
  /** Requests by resource ('pods', 'deployments.apps'). */
  requestsByResource: Record<string, number>;
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
  /** The identity the last impersonating request asked for (Impersonate-* headers), as the server read it. */
  lastImpersonation?: import('./auth').Identity;
}

export function newStats(): ServerStats {
  return {
    requests: 0,
    requestsByVerb: {},
    requestsByResource: {},
    inflight: 0,
    openConnections: 0,
    totalConnections: 0,
    abortedRequests: 0,
    openWatches: 0,
    watchesClosedByClient: 0,
    faultsApplied: 0,
    responsesByCode: {},
  };
}

export function bump(m: Record<string, number>, k: string, by = 1): void {
  m[k] = (m[k] ?? 0) + by;
}
