/**
 * Which proxy (if any) a request to the API server goes through, decided as kubectl decides it.
 *
 * client-go takes the kubeconfig cluster's `proxy-url` when it is set (for every request, loopback
 * included: rest.Config.Proxy is a fixed http.ProxyURL); else Go's http.ProxyFromEnvironment
 * (golang.org/x/net/http/httpproxy), whose rules this file follows:
 * - HTTPS_PROXY for https:// servers, HTTP_PROXY for http:// ones (the upper-case name first, then
 *   the lower-case; an empty value counts as unset). No fallback from one to the other. Under CGI
 *   (REQUEST_METHOD set) HTTP_PROXY is refused, as Go refuses it.
 * - A proxy value without a scheme (`proxy:3128`) means http://proxy:3128; one with a scheme that
 *   does not parse is an error (Go would retry it with http:// prepended; that never helps).
 * - Never for `localhost` or a loopback IP (127.0.0.0/8, ::1), whatever NO_PROXY says.
 * - NO_PROXY, comma-separated, case-insensitive: `*` (nothing is proxied); an IP (`10.0.0.1`) or an
 *   IP with a port (`10.0.0.1:6443`, `[::1]:6443`); a CIDR (`10.0.0.0/8`, any port); a domain
 *   (`example.com` matches it and every subdomain; `.example.com` and `*.example.com` only the
 *   subdomains), optionally with a port (`example.com:6443`: that port only).
 * Pure functions of their inputs: the environment is passed in, nothing is read here.
 */
import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { redactUrl } from '../redactUrl';

export interface ProxyEnvironment {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
  /** REQUEST_METHOD is set: HTTP_PROXY may be attacker-controlled (a request header), so unused. */
  cgi?: boolean;
}

const anyOf = (env: NodeJS.ProcessEnv, ...names: string[]): string | undefined => {
  for (const n of names) if (env[n]) return env[n];
  return undefined;
};

/** The proxy settings of an environment, read as Go's httpproxy.FromEnvironment reads them. */
export function proxyEnvironment(env: NodeJS.ProcessEnv): ProxyEnvironment {
  return {
    httpProxy: anyOf(env, 'HTTP_PROXY', 'http_proxy'),
    httpsProxy: anyOf(env, 'HTTPS_PROXY', 'https_proxy'),
    noProxy: anyOf(env, 'NO_PROXY', 'no_proxy'),
    cgi: !!env.REQUEST_METHOD,
  };
}

/** A proxy setting as a URL; a bare `host:port` is http://host:port. Throws on garbage (the message never quotes its user info). */
export function parseProxyUrl(value: string): URL {
  const v = value.trim();
  try {
    const u = new URL(v);
    if (u.host && /^(https?|socks5h?):$/.test(u.protocol)) return u;
  } catch {
    // no scheme: try http:// below
  }
  if (!v.includes('://')) {
    try {
      const u = new URL(`http://${v}`);
      if (u.host) return u;
    } catch {
      // fall through
    }
  }
  throw new Error(`invalid proxy address "${redactUrl(value)}"`);
}

type Matcher = (host: string, port: string, ip: boolean) => boolean;

function noProxyMatchers(noProxy: string): { all: boolean; matchers: Matcher[] } {
  const matchers: Matcher[] = [];
  for (const raw of noProxy.split(',')) {
    const p = raw.trim().toLowerCase();
    if (!p) continue;
    if (p === '*') return { all: true, matchers: [] };
    const cidr = /^(.+)\/(\d{1,3})$/.exec(p);
    if (cidr && isIP(cidr[1])) {
      const list = new BlockList();
      const family = isIP(cidr[1]) === 6 ? 'ipv6' : 'ipv4';
      const prefix = Number(cidr[2]);
      if (prefix <= (family === 'ipv6' ? 128 : 32)) {
        list.addSubnet(cidr[1], prefix, family);
        matchers.push((host, _port, ip) => ip && safeCheck(list, host));
      }
      continue;
    }
    // host:port, [v6]:port, or a bare host / IP
    let host = p;
    let port = '';
    const bracketed = /^\[([^\]]*)\](?::(\d*))?$/.exec(p);
    if (bracketed) [host, port] = [bracketed[1], bracketed[2] ?? ''];
    else if (isIP(p) !== 6) {
      const m = /^(.*):(\d*)$/.exec(p);
      if (m) [host, port] = [m[1], m[2]];
    }
    if (!host) continue; // no host part: malformed, ignored (as Go)
    if (isIP(host)) {
      const want = normalizeIp(host);
      matchers.push((h, pt, ip) => ip && normalizeIp(h) === want && (port === '' || port === pt));
      continue;
    }
    if (host.startsWith('*.')) host = host.slice(1);
    const matchHost = !host.startsWith('.');
    const suffix = matchHost ? `.${host}` : host;
    matchers.push((h, pt) => (h.endsWith(suffix) || (matchHost && h === suffix.slice(1))) && (port === '' || port === pt));
  }
  return { all: false, matchers };
}

function safeCheck(list: BlockList, host: string): boolean {
  try {
    return list.check(host, isIP(host) === 6 ? 'ipv6' : 'ipv4');
  } catch {
    return false;
  }
}

function normalizeIp(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  // ::ffff:10.0.0.1 and 10.0.0.1 are the same address to Go's net.IP.Equal
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  try {
    return new URL(`http://[${ip}]/`).hostname;
  } catch {
    return ip;
  }
}

/** localhost or a loopback IP (127.0.0.0/8, ::1; IPv6 in brackets or not). */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || isLoopback(host.replace(/^\[(.*)\]$/, '$1'));
}

function isLoopback(host: string): boolean {
  const v = isIP(host);
  if (v === 4) return host.startsWith('127.');
  if (v === 6) {
    const n = normalizeIp(host);
    return n === '[::1]' || n.startsWith('127.');
  }
  return false;
}

/**
 * The proxy for a request to `target` from the environment's settings, or undefined for a direct
 * connection (Go's httpproxy Config.ProxyFunc). Throws only for a proxy setting that is not an address.
 */
export function proxyFromEnvironment(target: URL, env: ProxyEnvironment): URL | undefined {
  let value: string | undefined;
  if (target.protocol === 'https:') value = env.httpsProxy;
  else if (target.protocol === 'http:') {
    value = env.httpProxy;
    if (value && env.cgi) throw new Error('refusing to use HTTP_PROXY value in CGI environment');
  }
  if (!value) return undefined;
  const rawHost = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const host = isIP(rawHost) ? rawHost : domainToASCII(rawHost) || rawHost;
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  if (host === 'localhost' || isLoopback(host)) return undefined;
  const { all, matchers } = noProxyMatchers(env.noProxy ?? '');
  if (all) return undefined;
  const ip = isIP(host) !== 0;
  if (matchers.some((m) => m(host, port, ip))) return undefined;
  return parseProxyUrl(value);
}

/**
 * The proxy of a cluster: its kubeconfig `proxy-url` when set (always used, as client-go does),
 * else the environment's. Undefined: connect directly.
 */
export function resolveProxy(server: URL, proxyUrl: string | undefined, env: ProxyEnvironment): URL | undefined {
  if (proxyUrl) return parseProxyUrl(proxyUrl);
  return proxyFromEnvironment(server, env);
}
