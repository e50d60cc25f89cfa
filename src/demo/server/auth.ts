/**
 * Authentication (bearer tokens) and authorization (a deny list for the default user).
 *
 * - With a token configured, every request must carry `Authorization: Bearer <token>` of a known
 *   user, or it is answered 401 Unauthorized, as a real apiserver with anonymous auth disabled.
 *   Without one, requests without a token act as the default user.
 * - Extra users get their own tokens (`tokenFor(user)`), for kubeconfigs of other identities.
 * - Authorization (Authorizer, below): users with RBAC-style grants, the default user with a deny
 *   list (`forbidden`: 'group/resource', core as '/pods', '*' as a wildcard on either side), and
 *   other users who may do anything. Discovery is never forbidden (upstream's system:discovery role).
 * - Impersonation (Impersonate-User, -Uid, -Group, -Extra-*), as kube-apiserver reads the headers:
 *   the request acts as that identity: its grants when it has some, else what `forbidden` leaves
 *   (as the default user); any authenticated user may impersonate (the demo has no impersonate
 *   RBAC). Uid, groups or extra without a user is a 400, as upstream refuses it.
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
    if (uid || groups.length || Object.keys(extra).length)
      throw new ApiError(400, 'BadRequest', 'requested uid, groups or user-extra without impersonating a user');
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

/**
 * One RBAC grant of a demo user: a Role bound in `namespace` (a RoleBinding), or a ClusterRole bound
 * cluster-wide (a ClusterRoleBinding) when `namespace` is undefined. Written `--grant
 * USER:NAMESPACE:VERBS:GROUPS:RESOURCES` (lists comma-separated, NAMESPACE `*` = cluster-wide, core
 * group as `""` or empty), e.g. `alice:team-a:get,list,watch:*:*`.
 */
export interface Grant {
  user: string;
  namespace?: string;
  verbs: string[];
  apiGroups: string[];
  resources: string[];
}

/** A rule as SelfSubjectRulesReview returns it. */
export interface RuleOut {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
}

/**
 * What every authenticated user may do under default RBAC (system:basic-user): ask about itself.
 * kube-apiserver evaluates these for every user, granted or not.
 */
const BASIC_USER_RULES: RuleOut[] = [
  { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
  { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
];

const matches = (list: string[], v: string) => list.includes('*') || list.includes(v);

/**
 * Authorization, in three kinds of users:
 * - a user with grants (`--grant`): RBAC's evaluation of them, as kube-apiserver's RBAC
 *   authorizer: a namespaced grant covers requests in its namespace only, so a list across all
 *   namespaces ("at the cluster scope") is denied; a cluster-wide grant covers every namespace;
 *   nothing else is allowed but system:basic-user's self reviews.
 * - the default user (and an impersonated identity without grants): everything but the
 *   `forbidden` group/resources.
 * - any other user: everything (as system:masters).
 */
export class Authorizer {
  private readonly rules: { group: string; resource: string }[];
  private readonly grants = new Map<string, Grant[]>();

  constructor(forbidden: string[] = [], grants: (Grant | string)[] = []) {
    this.rules = forbidden.map(parseGroupResource);
    for (const g of grants.map((x) => (typeof x === 'string' ? parseGrant(x) : x))) {
      const list = this.grants.get(g.user) ?? [];
      list.push(g);
      this.grants.set(g.user, list);
    }
  }

  /** The users that have grants (their tokens are made by the Authenticator). */
  grantedUsers(): string[] {
    return [...this.grants.keys()];
  }

  /** Whether the user may do this (a SelfSubjectAccessReview's answer). `*` matches as RBAC's wildcard. */
  allows(user: string, info: Pick<RequestInfo, 'verb' | 'group' | 'resource' | 'subresource' | 'namespace'>, impersonated = false): boolean {
    const res = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
    const grants = this.grants.get(user);
    if (grants) {
      if (BASIC_USER_RULES.some((r) => ruleCovers(r, info.verb, info.group, res))) return true;
      return grants.some((g) => (g.namespace === undefined || g.namespace === info.namespace) && ruleCovers(g, info.verb, info.group, res));
    }
    // An impersonated identity without grants is restricted as the default user is.
    if (user !== DEFAULT_USER && !impersonated) return true;
    const wild = (a: string, b: string) => a === '*' || b === '*' || a === b;
    return !this.rules.some((r) => wild(r.group, info.group) && wild(r.resource, info.resource));
  }

  /** Throws the apiserver's 403 when the user may not do this. */
  authorize(user: string, info: RequestInfo, impersonated = false): void {
    if (!info.isResourceRequest || this.allows(user, info, impersonated)) return;
    const res = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
    const what = info.name ? `${qualifiedResource(info.group, info.resource)} "${info.name}"` : qualifiedResource(info.group, info.resource);
    const scope = info.namespace ? `in the namespace "${info.namespace}"` : 'at the cluster scope';
    const details: { name?: string; group?: string; kind: string } = { kind: info.resource };
    if (info.name) details.name = info.name;
    if (info.group) details.group = info.group;
    throw new ApiError(
      403,
      'Forbidden',
      `${what} is forbidden: User "${user}" cannot ${info.verb} resource "${res}" in API group "${info.group}" ${scope}`,
      details,
    );
  }

  /**
   * The rules that apply to the user in `namespace` (a SelfSubjectRulesReview's answer): its
   * cluster-wide grants and the grants of that namespace, then system:basic-user's. For the default
   * user, every served type but the forbidden ones (`types`); for any other user, everything.
   */
  rulesFor(user: string, namespace: string, types: () => { group: string; resource: string }[]): RuleOut[] {
    const grants = this.grants.get(user);
    if (grants) {
      const own = grants
        .filter((g) => g.namespace === undefined || g.namespace === namespace)
        .map((g) => ({ verbs: [...g.verbs], apiGroups: [...g.apiGroups], resources: [...g.resources] }));
      return [...own, ...BASIC_USER_RULES.map((r) => ({ verbs: [...r.verbs], apiGroups: [...r.apiGroups], resources: [...r.resources] }))];
    }
    if (user !== DEFAULT_USER || this.rules.length === 0) return [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }];
    return types()
      .filter((t) => this.allows(user, { verb: 'list', group: t.group, resource: t.resource, subresource: '', namespace }))
      .map((t) => ({ verbs: ['*'], apiGroups: [t.group], resources: [t.resource] }));
  }
}

/** RBAC's rule match (rbac.RuleAllows without resourceNames, which the demo's grants never set). */
function ruleCovers(r: RuleOut, verb: string, group: string, resource: string): boolean {
  return (
    matches(r.verbs, verb) &&
    matches(r.apiGroups, group) &&
    (matches(r.resources, resource) || (resource.includes('/') && r.resources.includes(`*/${resource.split('/')[1]}`)))
  );
}

/** `USER:NAMESPACE:VERBS:GROUPS:RESOURCES`; throws a message naming the part that is wrong. */
export function parseGrant(spec: string): Grant {
  const parts = spec.split(':');
  if (parts.length !== 5) throw new Error(`--grant ${spec}: expected USER:NAMESPACE:VERBS:GROUPS:RESOURCES (e.g. alice:team-a:get,list,watch:*:*)`);
  const [user, ns, verbs, groups, resources] = parts as [string, string, string, string, string];
  const list = (v: string) => v.split(',').map((x) => (x === '""' ? '' : x.trim()));
  if (!user) throw new Error(`--grant ${spec}: empty user`);
  if (!ns) throw new Error(`--grant ${spec}: empty namespace (use * for a cluster-wide grant)`);
  if (!verbs || !resources) throw new Error(`--grant ${spec}: empty verbs or resources`);
  return { user, ...(ns === '*' ? {} : { namespace: ns }), verbs: list(verbs), apiGroups: list(groups), resources: list(resources) };
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
