/**
 * RequestAuth: client-node's authentication applied to our own keep-alive transport.
 *
 * client-node 1.4.0 offers `kc.applyToHTTPSOptions(opts)` (fills ca/cert/key/rejectUnauthorized/
 * servername and headers — bearer token, exec plugin, auth-provider, impersonation — and sets
 * opts.auth for basic auth) and `applyToFetchOptions` (the same, for node-fetch). Both also create
 * a fresh https.Agent *without keep-alive* on every call. We use applyToHTTPSOptions for the auth
 * material and build one keep-alive Agent per load from it, so every request of a load reuses
 * the same connections (the agent client-node made is dropped unused).
 *
 * Static credentials (token, client certs, basic) are applied once. Exec plugins and auth providers
 * are re-applied at most every `refreshMs` and immediately after a 401 (`headers(true)`); client-node
 * caches exec credentials until their expirationTimestamp, so this costs no extra plugin runs.
 * Proxies: the caller resolves the proxy (proxy.ts: the cluster's proxy-url, else HTTPS_PROXY /
 * NO_PROXY as kubectl) and an http(s):// proxy gets our own keep-alive CONNECT-tunnel agent
 * (tunnel.ts). Only a socks proxy-url keeps client-node's own agent, which is not keep-alive.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../clock';
import { KubeConfigError } from './errors';
import type { KubeContext } from './kubeconfig';
import { makeTunnelAgent } from './tunnel';

/** Whether our tunnel agent can reach the API server through this proxy (else client-node's agent). */
export function tunnels(proxy: URL | undefined): proxy is URL {
  return !!proxy && (proxy.protocol === 'http:' || proxy.protocol === 'https:');
}

export interface RequestAuth {
  /** The one agent every request of this transport goes through. */
  readonly agent: http.Agent;
  readonly secure: boolean;
  /** The agent's TLS material (CA, client certificate and key...), for the transport's I/O thread. */
  readonly tls: Tls;
  /** Changes whenever `tls` does (an exec plugin rotated the client certificate). */
  readonly tlsVersion: number;
  /** Headers to send (Authorization, Impersonate-User). `force` re-applies dynamic credentials. */
  headers(force?: boolean): Promise<Record<string, string>>;
  /** Destroys the agent(s): no socket outlives the transport. */
  close(): void;
}

export type Tls = Pick<https.AgentOptions, 'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'rejectUnauthorized' | 'servername'>;

function tlsOf(o: https.RequestOptions): Tls {
  const t: Tls = { ca: o.ca, cert: o.cert, key: o.key, pfx: o.pfx, passphrase: o.passphrase, servername: o.servername };
  if (o.rejectUnauthorized !== undefined) t.rejectUnauthorized = o.rejectUnauthorized;
  return t;
}

function sameTls(a: Tls, b: Tls): boolean {
  const eq = (x: unknown, y: unknown) => (Buffer.isBuffer(x) && Buffer.isBuffer(y) ? x.equals(y) : x === y);
  return eq(a.cert, b.cert) && eq(a.key, b.key);
}

function headersOf(o: https.RequestOptions): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((o.headers ?? {}) as Record<string, unknown>)) {
    if (typeof v === 'string' || typeof v === 'number') out[k] = String(v);
    else if (Array.isArray(v)) out[k] = v.join(', ');
  }
  if (o.auth) out.Authorization = 'Basic ' + Buffer.from(o.auth).toString('base64');
  return out;
}

/**
 * client-node refuses to build an agent for an http:// server unless insecure-skip-tls-verify is set;
 * plain HTTP has no TLS to skip, so for auth computation we hand it a copy that says so.
 */
function authConfig(ctx: KubeContext): KubeConfig {
  if (!ctx.server.startsWith('http:') || ctx.cluster.skipTLSVerify) return ctx.kc;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...ctx.cluster, skipTLSVerify: true }],
    users: ctx.user ? [ctx.user] : [],
    contexts: ctx.kc.getContexts(),
    currentContext: ctx.name,
  });
  return kc;
}

/** `proxy`: the resolved proxy of the cluster (see proxy.ts), undefined for a direct connection. */
export async function createRequestAuth(ctx: KubeContext, clock: Clock, refreshMs = 30_000, proxy?: URL): Promise<RequestAuth> {
  const kc = authConfig(ctx);
  const secure = ctx.server.startsWith('https:');
  const apply = async (): Promise<https.RequestOptions> => {
    const o: https.RequestOptions = { headers: {} };
    try {
      await kc.applyToHTTPSOptions(o);
    } catch (e) {
      // e.g. an exec plugin that is missing or fails, an unreadable certificate file
      throw new KubeConfigError(`context "${ctx.name}": cannot apply credentials: ${e instanceof Error ? e.message : String(e)}`);
    }
    return o;
  };
  const first = await apply();
  const makeAgent = (tls: Tls): http.Agent =>
    tunnels(proxy)
      ? makeTunnelAgent(secure, tls, proxy.href)
      : first.agent && ctx.cluster.proxyUrl
      ? (first.agent as http.Agent)
      : secure
        ? new https.Agent({ keepAlive: true, ...tls })
        : new http.Agent({ keepAlive: true });
  let tls = tlsOf(first);
  let tlsVersion = 0;
  let agent = makeAgent(tls);
  const retired: http.Agent[] = [];
  let cached = headersOf(first);
  let cachedAt = clock.now();
  const dynamic = !!(ctx.user?.exec || ctx.user?.authProvider);

  return {
    get agent() {
      return agent;
    },
    secure,
    get tls() {
      return tls;
    },
    get tlsVersion() {
      return tlsVersion;
    },
    async headers(force = false) {
      if (!dynamic || (!force && clock.now() - cachedAt < refreshMs)) return cached;
      const o = await apply();
      const nextTls = tlsOf(o);
      if (!sameTls(tls, nextTls)) {
        // An exec plugin rotated the client certificate: new connections must use it.
        retired.push(agent);
        tls = nextTls;
        tlsVersion++;
        agent = makeAgent(tls);
      }
      cached = headersOf(o);
      cachedAt = clock.now();
      return cached;
    },
    close() {
      agent.destroy();
      for (const a of retired.splice(0)) a.destroy();
    },
  };
}
