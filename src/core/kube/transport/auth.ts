/**
 * RequestAuth: a context's TLS material and credentials, applied to our own keep-alive transport.
 *
 * What is applied, from the context (../config/kubeconfig.ts):
 * - The cluster's TLS, whatever the user entry holds (none, empty or full): certificate-authority
 *   (file or data), insecure-skip-tls-verify, tls-server-name. client-node's applyToHTTPSOptions
 *   skips all three when the context has no user, so they are applied here.
 * - The user's static credentials: client certificate and key (file or data), bearer token (or
 *   token-file), basic auth. A token-file and certificate/key files are read again as they rotate
 *   (fileCredentials.ts): the token at least once a minute and after a 401, the files' pair when
 *   they change (looked at once a second and after a 401), a new pair giving new connections.
 * - An exec plugin through ExecCredentialProvider (../config/exec.ts): token and/or client certificate; a
 *   rotated certificate gives new connections (`tls`, `tlsVersion`).
 * - A legacy auth-provider (oidc, azure, gcp) through client-node, which still owns those.
 * - Impersonation: Impersonate-User, Impersonate-Uid, one Impersonate-Group line per group and
 *   Impersonate-Extra-<key> (key percent-encoded as client-go does), one line per value. Nothing of
 *   it is dropped: what cannot be sent is a KubeConfigError when the file is read.
 *
 * Credentials only over TLS, as kubectl: clientcmd reads a user's credentials into the client's
 * config only when the server is https:// (DirectClientConfig.ClientConfig, "only try to read the
 * auth information if we are secure": rest.IsConfigTransportTLS). For an http:// server no token,
 * token-file, basic auth, client certificate, auth-provider or exec plugin is used (the plugin is
 * not even run); impersonation headers still go (clientcmd sets them before that check).
 * `credentialsWithheld(ctx)` is the one line that says so, for the caller to log.
 *
 * One keep-alive Agent per transport carries every request.
 * Proxies: the caller resolves the proxy (proxy.ts: the cluster's proxy-url, else HTTPS_PROXY /
 * NO_PROXY as kubectl) and an http(s):// proxy gets our own keep-alive CONNECT-tunnel agent
 * (tunnel.ts). Only a socks proxy-url keeps client-node's own agent, which is not keep-alive.
 */
import { withSharedContext } from './secureContext';
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../clock';
import { KubeConfigError } from '../errors';
import { ExecCredentialProvider, type ExecClusterInfo } from '../config/exec';
import { KeyPairFiles, TokenFile } from './fileCredentials';
import type { KubeContext } from '../config/kubeconfig';
import { makeTunnelAgent } from './tunnel';
import { redactUrl } from '../redactUrl';

/** Whether our tunnel agent can reach the API server through this proxy (else client-node's agent). */
export function tunnels(proxy: URL | undefined): proxy is URL {
  return !!proxy && (proxy.protocol === 'http:' || proxy.protocol === 'https:');
}

/** The credentials of a context, by kind (never their values). */
function credentialKinds(ctx: KubeContext): string[] {
  const u = ctx.user;
  const kinds: string[] = [];
  if (ctx.exec) kinds.push('exec plugin');
  if (u?.token) kinds.push(ctx.tokenFile ? 'token-file' : 'token');
  if (u?.username || u?.password) kinds.push('basic auth');
  if (u?.certFile || u?.certData || u?.keyFile || u?.keyData) kinds.push('client certificate');
  if (u?.authProvider) kinds.push(`auth-provider ${u.authProvider.name}`);
  return kinds;
}

/**
 * The line to log when a context's credentials are not sent because its server is not https://
 * (naming the context and the kinds of credential, never a secret); undefined when nothing is withheld.
 */
export function credentialsWithheld(ctx: KubeContext): string | undefined {
  if (ctx.server.startsWith('https:')) return undefined;
  const kinds = credentialKinds(ctx);
  if (kinds.length === 0) return undefined;
  return `context "${ctx.name}": credentials not sent (${kinds.join(', ')}): the server ${redactUrl(ctx.server)} is not https://, and kubectl sends credentials only over TLS`;
}

/** Request headers; a list is sent as one header line per value (Impersonate-Group, Impersonate-Extra-*). */
export type HeaderMap = Record<string, string | string[]>;

export interface RequestAuth {
  /** The one agent every request of this transport goes through. */
  readonly agent: http.Agent;
  readonly secure: boolean;
  /** The agent's TLS material (CA, client certificate and key...), for the transport's I/O thread. */
  readonly tls: Tls;
  /** Changes whenever `tls` does (an exec plugin rotated the client certificate). */
  readonly tlsVersion: number;
  /** Identifies the credential `headers()` hands out now; a 401 to it is reported with this. */
  readonly generation: number;
  /**
   * Headers to send (Authorization, Impersonate-*). `force`: a request got 401 with the credential
   * of `usedGeneration` (default: the current one): dynamic credentials are fetched anew, once per
   * refused credential, however many requests report it. `signal` ends the wait for a plugin run
   * at once (the run itself goes on for other requests).
   */
  headers(force?: boolean, usedGeneration?: number, signal?: AbortSignal): Promise<HeaderMap>;
  /** Destroys the agent(s): no socket outlives the transport. */
  close(): void;
}

export type Tls = Pick<https.AgentOptions, 'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'rejectUnauthorized' | 'servername'>;

function sameTls(a: Tls, b: Tls): boolean {
  const eq = (x: unknown, y: unknown) => (Buffer.isBuffer(x) && Buffer.isBuffer(y) ? x.equals(y) : x === y);
  return eq(a.cert, b.cert) && eq(a.key, b.key);
}

/** kubeconfig *-data is base64; a file is read as it is. */
function material(where: string, what: string, file: string | undefined | null, data: string | undefined | null): Buffer | undefined {
  if (data) return Buffer.from(data, 'base64');
  if (!file) return undefined;
  try {
    return readFileSync(file);
  } catch (e) {
    throw new KubeConfigError(`${where}: cannot read ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** client-go's headerKeyEscape: Impersonate-Extra-<key> keeps token characters, percent-encodes the rest. */
export function extraHeaderName(key: string): string {
  let out = '';
  for (const b of Buffer.from(key, 'utf8')) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && /[A-Za-z0-9!#$&'*+\-.^_`|~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return `Impersonate-Extra-${out}`;
}

function impersonationHeaders(ctx: KubeContext): HeaderMap {
  const imp = ctx.impersonate;
  if (!imp) return {};
  const h: HeaderMap = { 'Impersonate-User': imp.user };
  if (imp.uid) h['Impersonate-Uid'] = imp.uid;
  if (imp.groups.length) h['Impersonate-Group'] = [...imp.groups];
  for (const [k, v] of Object.entries(imp.extra)) if (v.length) h[extraHeaderName(k)] = [...v];
  return h;
}

function clusterInfo(ctx: KubeContext, ca: Buffer | undefined): ExecClusterInfo {
  const c = ctx.cluster;
  const info: ExecClusterInfo = { server: c.server };
  if (c.tlsServerName) info['tls-server-name'] = c.tlsServerName;
  if (c.skipTLSVerify) info['insecure-skip-tls-verify'] = true;
  if (ca) info['certificate-authority-data'] = ca.toString('base64');
  if (c.proxyUrl) info['proxy-url'] = c.proxyUrl;
  if (ctx.execClusterExtras?.disableCompression) info['disable-compression'] = true;
  // clientcmd passes the cluster's extension of this name to the plugin as spec.cluster.config
  if (ctx.execClusterExtras?.config !== undefined) info.config = ctx.execClusterExtras.config;
  return info;
}

/** client-node's proxy agent for a proxy-url cluster (it needs a user entry to apply anything). */
async function proxyAgent(ctx: KubeContext, user: KubeContext['user']): Promise<http.Agent | undefined> {
  if (!ctx.cluster.proxyUrl) return undefined;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...ctx.cluster, skipTLSVerify: ctx.cluster.skipTLSVerify || ctx.server.startsWith('http:') }],
    users: [user ?? { name: 'proxy' }],
    contexts: [{ name: ctx.name, cluster: ctx.cluster.name, user: user?.name ?? 'proxy' }],
    currentContext: ctx.name,
  });
  const o: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(o);
  return o.agent as http.Agent | undefined;
}

/** The cluster's TLS, whatever the user entry holds: its CA, insecure-skip-tls-verify, tls-server-name. */
function clusterTls(ctx: KubeContext, ca: Buffer | undefined): Tls {
  const base: Tls = {};
  if (ca) base.ca = ca;
  if (ctx.cluster.skipTLSVerify) {
    base.rejectUnauthorized = false;
    // Nothing is verified, so no trust store is needed: an empty CA list rather than none. With none,
    // every new TLS connection builds one (Node's root store; in VS Code's extension host, whose
    // proxy support adds every system certificate to each TLS context of a connection that names
    // no CA, 2-5 ms of the host's thread per connection: 139 ms of a 100k-object palette load).
    base.ca ??= [];
  }
  if (ctx.cluster.tlsServerName) base.servername = ctx.cluster.tlsServerName;
  return base;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token.trim()}` });

/** The user's static Authorization: its token, else its basic auth. */
function staticAuthorization(user: KubeContext['user'] | undefined): HeaderMap {
  if (user?.token) return bearer(user.token);
  if (user?.username) return { Authorization: 'Basic ' + Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64') };
  return {};
}

/** What a credential source gives now: headers, and a client certificate and key for new connections. */
type Dynamic = { headers: HeaderMap; cert?: Buffer; key?: Buffer };

/** The dynamic part of the credentials: an exec credential, or an auth-provider's header (else nothing). */
function dynamicCredentials(where: string, exec: ExecCredentialProvider | undefined, authProvider: KubeConfig | undefined) {
  return async (signal?: AbortSignal): Promise<Dynamic> => {
    if (exec) {
      const c = await exec.get(signal);
      return {
        headers: c.token ? { Authorization: `Bearer ${c.token}` } : {},
        cert: c.clientCertificateData ? Buffer.from(c.clientCertificateData) : undefined,
        key: c.clientKeyData ? Buffer.from(c.clientKeyData) : undefined,
      };
    }
    if (authProvider) {
      const r: https.RequestOptions = { headers: {} };
      try {
        await authProvider.applyToHTTPSOptions(r);
      } catch (e) {
        throw new KubeConfigError(`${where}: cannot apply credentials: ${e instanceof Error ? e.message : String(e)}`);
      }
      const a = (r.headers as Record<string, unknown>).Authorization ?? (r.headers as Record<string, unknown>).authorization;
      return { headers: typeof a === 'string' ? { Authorization: a } : {} };
    }
    return { headers: {} };
  };
}

/**
 * The maker of the transport's agent for given TLS material: keep-alive, direct or through an
 * http(s) proxy's CONNECT tunnel; a socks proxy-url gets client-node's agent (one, whatever the TLS).
 */
async function agentMaker(ctx: KubeContext, user: KubeContext['user'], secure: boolean, proxy: URL | undefined): Promise<(tls: Tls) => http.Agent> {
  const proxied = tunnels(proxy) ? undefined : await proxyAgent(ctx, user);
  return (tls) =>
    tunnels(proxy)
      ? makeTunnelAgent(secure, tls, proxy.href)
      : (proxied ?? (secure ? new https.Agent({ keepAlive: true, ...withSharedContext(tls) }) : new http.Agent({ keepAlive: true })));
}

export interface RequestAuthOptions {
  /** Auth-provider credentials (client-node) are re-applied at most this often, and after a 401. Default 30 s. */
  refreshMs?: number;
  /** Exec plugin run timeout. Default 60 s. */
  execTimeoutMs?: number;
  /** The resolved proxy of the cluster (see proxy.ts), undefined for a direct connection. */
  proxy?: URL;
}

export async function createRequestAuth(ctx: KubeContext, clock: Clock, refreshOrOpts: number | RequestAuthOptions = {}): Promise<RequestAuth> {
  const o: RequestAuthOptions = typeof refreshOrOpts === 'number' ? { refreshMs: refreshOrOpts } : refreshOrOpts;
  const refreshMs = o.refreshMs ?? 30_000;
  const proxy = o.proxy;
  const where = `context "${ctx.name}"`;
  const secure = ctx.server.startsWith('https:');
  // Credentials only over TLS (see above): for http:// the context is anonymous (impersonation kept).
  const user = secure ? ctx.user : undefined;
  const ca = material(where, 'certificate-authority', ctx.cluster.caFile, ctx.cluster.caData);
  const base = clusterTls(ctx, ca);
  const staticCert = material(where, 'client-certificate', user?.certFile, user?.certData);
  const staticKey = material(where, 'client-key', user?.keyFile, user?.keyData);
  const exec =
    secure && ctx.exec ? new ExecCredentialProvider(ctx.exec, clusterInfo(ctx, ca), { timeoutMs: o.execTimeoutMs, contextName: ctx.name }) : undefined;
  const authProvider = !exec && user?.authProvider ? ctx.kc : undefined;
  const tokenFile = user?.token && ctx.tokenFile && !exec && !authProvider ? new TokenFile(ctx.tokenFile, clock, user.token) : undefined;
  // client-go reloads the pair only when both come from files (ReloadTLSFiles)
  const keyPair =
    staticCert && staticKey && user?.certFile && user.keyFile && !user.certData && !user.keyData
      ? new KeyPairFiles(user.certFile, user.keyFile, clock, { cert: staticCert, key: staticKey })
      : undefined;

  const fixed: HeaderMap = { ...impersonationHeaders(ctx), ...staticAuthorization(user) };
  const dynamicPart = dynamicCredentials(where, exec, authProvider);
  const tlsWith = (cert?: Buffer, key?: Buffer): Tls => {
    const t: Tls = { ...base };
    const c = cert ?? keyPair?.current.cert ?? staticCert;
    const k = key ?? keyPair?.current.key ?? staticKey;
    if (c) t.cert = c;
    if (k) t.key = k;
    return t;
  };

  const first = await dynamicPart();
  const makeAgent = await agentMaker(ctx, user, secure, proxy);
  let tls = tlsWith(first.cert, first.key);
  let tlsVersion = 0;
  let agent = makeAgent(tls);
  const retired: http.Agent[] = [];
  let cached: HeaderMap = { ...fixed, ...first.headers };
  let cachedAt = clock.now();
  let generation = exec?.currentGeneration ?? 0;
  let dynamic: Dynamic = first;

  /** New connections for a rotated client certificate (the plugin's or the files'). */
  const retls = () => {
    const next = tlsWith(dynamic.cert, dynamic.key);
    if (sameTls(tls, next)) return;
    retired.push(agent);
    tls = next;
    tlsVersion++;
    agent = makeAgent(tls);
  };
  const adopt = (d: Dynamic) => {
    dynamic = d;
    retls();
    cached = { ...fixed, ...d.headers };
    cachedAt = clock.now();
  };
  /** The rotating files' part: a new pair means new connections, a new token new headers. */
  const rotateFiles = (force: boolean, usedGeneration: number) => {
    if (keyPair) {
      const before = keyPair.current;
      if (keyPair.pair(force) !== before) retls();
    }
    if (tokenFile) {
      const token = tokenFile.token(force ? usedGeneration : undefined);
      if (tokenFile.generation !== generation) {
        generation = tokenFile.generation;
        Object.assign(fixed, bearer(token));
        cached = { ...cached, ...bearer(token) };
      }
    }
  };

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
    get generation() {
      return generation;
    },
    async headers(force = false, usedGeneration = generation, signal?: AbortSignal) {
      rotateFiles(force, usedGeneration);
      if (exec) {
        if (force) exec.invalidate(usedGeneration);
        // Cheap when the credential is still valid; one shared run when it is not.
        const d = await dynamicPart(signal);
        if (exec.currentGeneration !== generation) {
          generation = exec.currentGeneration;
          adopt(d);
        }
        return cached;
      }
      if (!authProvider || (!force && clock.now() - cachedAt < refreshMs)) return cached;
      adopt(await dynamicPart());
      generation++;
      return cached;
    },
    close() {
      agent.destroy();
      for (const a of retired.splice(0)) a.destroy();
    },
  };
}
