/**
 * Authentication (bearer tokens) and authorization (a deny list for the default user).
 *
 * - With a token configured, every request must carry `Authorization: Bearer <token>` of a known
 *   user, or it is answered 401 Unauthorized, as a real apiserver with anonymous auth disabled.
 *   Without one, requests without a token act as the default user.
 * - Extra users get their own tokens (`tokenFor(user)`), for kubeconfigs of other identities.
 * - Authorization: the default user may not touch the group/resources in `forbidden`
 *   ('group/resource', core as '/pods', '*' as a wildcard on either side); other users may do
 *   anything. Discovery is never forbidden (upstream's system:discovery role).
 * - Impersonation (Impersonate-User, -Uid, -Group, -Extra-*), as kube-apiserver reads the headers:
 *   the request acts as that identity, which has what `forbidden` leaves (as the default user); any
 *   authenticated user may impersonate (the demo has no impersonate RBAC). Uid, groups or extra
 *   without a user is a 400, as upstream refuses it.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestInfo } from './requestinfo';
import { ApiError } from './status';
import { qualifiedResource } from '../store';

export const DEFAULT_USER = 'kubeloop-demo';

/** user.Info as kube-apiserver's impersonation filter builds it from the headers. */
export interface Identity {
  user: string;
  uid?: string;
  groups: string[];
  extra: Record<string, string[]>;
}

/** The identity the Impersonate-* headers ask for; undefined when there are none. */
export function impersonation(req: IncomingMessage): Identity | undefined {
  const all = req.headersDistinct;
  const user = all['impersonate-user']?.[0];
  const uid = all['impersonate-uid']?.[0];
  const groups = all['impersonate-group'] ?? [];
  const extra: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(all)) {
    if (!k.startsWith('impersonate-extra-') || !v) continue;
    // the key is percent-encoded on the wire (client-go's headerKeyEscape); header names arrive lower-cased
    let key: string;
    try {
      key = decodeURIComponent(k.slice('impersonate-extra-'.length));
    } catch {
      throw new ApiError(400, 'BadRequest', `invalid ${k} header: the key is not valid percent-encoding`);
    }
    extra[key] = v;
  }
  if (!user) {
    if (uid || groups.length || Object.keys(extra).length) throw new ApiError(400, 'BadRequest', 'requested uid, groups or user-extra without impersonating a user');
    return undefined;
  }
  return { user, uid, groups, extra };
}

export class Authenticator {
  private readonly tokens = new Map<string, string>();

  constructor(private readonly requireToken: string | undefined) {
    if (requireToken) this.tokens.set(requireToken, DEFAULT_USER);
  }

  /** The token a kubeconfig for `user` carries (undefined: no token needed for the default user). */
  tokenFor(user: string = DEFAULT_USER): string | undefined {
    if (user === DEFAULT_USER) return this.requireToken;
    for (const [tok, u] of this.tokens) if (u === user) return tok;
    const tok = `${user.replace(/[^A-Za-z0-9]/g, '')}.${randomBytes(16).toString('hex')}`;
    this.tokens.set(tok, user);
    return tok;
  }

  /** The user a request acts as; 401 for a missing or unknown token when one is needed. */
  authenticate(req: IncomingMessage): string {
    const h = req.headers.authorization;
    const m = h ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
    if (m) {
      const user = this.lookup(m[1]!);
      if (user) return user;
      throw unauthorized();
    }
    if (h || this.requireToken) throw unauthorized();
    return DEFAULT_USER;
  }

  private lookup(token: string): string | undefined {
    const want = Buffer.from(token);
    for (const [tok, user] of this.tokens) {
      const have = Buffer.from(tok);
      if (have.length === want.length && timingSafeEqual(have, want)) return user;
    }
    return undefined;
  }
}

function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}

export class Authorizer {
  private readonly rules: { group: string; resource: string }[];

  constructor(forbidden: string[] = []) {
    this.rules = forbidden.map(parseGroupResource);
  }

  /** Throws the apiserver's 403 when the user may not do this. */
  authorize(user: string, info: RequestInfo, impersonated = false): void {
    if (!info.isResourceRequest || (user !== DEFAULT_USER && !impersonated)) return;
    const hit = this.rules.some((r) => (r.group === '*' || r.group === info.group) && (r.resource === '*' || r.resource === info.resource));
    if (!hit) return;
    const res = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
    const what = info.name ? `${qualifiedResource(info.group, info.resource)} "${info.name}"` : qualifiedResource(info.group, info.resource);
    const scope = info.namespace ? `in the namespace "${info.namespace}"` : 'at the cluster scope';
    const details: { name?: string; group?: string; kind: string } = { kind: info.resource };
    if (info.name) details.name = info.name;
    if (info.group) details.group = info.group;
    throw new ApiError(403, 'Forbidden', `${what} is forbidden: User "${user}" cannot ${info.verb} resource "${res}" in API group "${info.group}" ${scope}`, details);
  }
}

export function parseGroupResource(s: string): { group: string; resource: string } {
  const slash = s.indexOf('/');
  if (slash < 0) {
    // 'deployments.apps' or 'pods' (kubectl's group-qualified form)
    const dot = s.indexOf('.');
    return dot < 0 ? { group: '', resource: s } : { group: s.slice(dot + 1), resource: s.slice(0, dot) };
  }
  return { group: s.slice(0, slash), resource: s.slice(slash + 1) };
}
