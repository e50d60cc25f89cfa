/**
 * An HTTP(S) request that goes through the agent it is given, and nothing else.
 *
 * `http.request` and `https.request` are module functions a host process may replace, and VS Code's
 * extension host does: its proxy support (`http.proxySupport`, "override" by default) wraps every
 * request in a proxy-resolving agent of its own, made per request and without keep-alive, so each
 * request asks the server to close its connection after the answer. Measured in code-server
 * 4.100.3: one tree load of the 100,000-object demo cluster made 260 requests on 232 new TLS
 * connections (6 connections for the same load in plain Node), and the handshakes took about
 * 0.5 s of the host's thread. Kubernetes clients take their proxy from the kubeconfig's
 * `proxy-url` and the HTTPS_PROXY / NO_PROXY environment (as kubectl and client-go do), which the
 * transport applies itself through the agent (tunnel.ts); so the request is built with
 * `http.ClientRequest`, the constructor both module functions call, which no host replaces.
 *
 * Guarantees: the request uses `options.agent` (required: its protocol, http: or https:, decides
 * the connection's, as it does for https.request given an agent); keep-alive is the agent's.
 */
import { ClientRequest, type Agent, type RequestOptions } from 'node:http';
import { urlToHttpOptions } from 'node:url';

export function agentRequest(url: URL, options: RequestOptions & { agent: Agent }): ClientRequest {
  // What https.request does with a URL and options, less the default agent (one is always given).
  return new ClientRequest({ ...urlToHttpOptions(url), ...options });
}
