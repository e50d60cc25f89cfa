/**
 * What the user may do, asked of the API server itself (authorization.k8s.io/v1), as
 * `kubectl auth can-i` and `kubectl auth can-i --list` ask it:
 * - SelfSubjectAccessReview: one verb on one resource, in one namespace or at the cluster scope
 *   (namespace ''); `*` stands for every group / resource.
 * - SelfSubjectRulesReview: every rule that applies to the user in one namespace (the namespace is
 *   required: kube-apiserver answers 400 "no namespace on request" without one). The rules of
 *   cluster-wide grants (ClusterRoleBindings) are in every namespace's answer, so a verb the rules of
 *   namespace N do not allow is allowed neither in N nor across all namespaces. `incomplete` means
 *   an authorizer could not list its rules (a webhook): then a missing rule proves nothing.
 * - SelfSubjectReview (authentication.k8s.io/v1): who the server thinks the user is (`auth whoami`).
 * Default RBAC lets every authenticated user create all three (system:basic-user), and they are
 * create-only: nothing is stored, so asking keeps the client read-only towards the cluster.
 */
import type { KubeTransport } from '../transport/transport';

export interface ResourceAttributes {
  verb: string;
  /** '' = core; '*' = every group. */
  group: string;
  /** '*' = every resource. */
  resource: string;
  /** Unset or '' = the cluster scope (for a namespaced resource: across all namespaces). */
  namespace?: string;
}

export interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
}

export interface RulesReview {
  namespace: string;
  resourceRules: ResourceRule[];
  incomplete: boolean;
  evaluationError: string;
}

export interface AccessReview {
  allowed: boolean;
  denied: boolean;
  reason: string;
}

const AUTHZ = '/apis/authorization.k8s.io/v1';

export async function selfSubjectAccessReview(t: KubeTransport, a: ResourceAttributes, signal?: AbortSignal): Promise<AccessReview> {
  const resourceAttributes: Record<string, string> = { verb: a.verb, group: a.group, resource: a.resource };
  if (a.namespace) resourceAttributes.namespace = a.namespace;
  const r = await t.postJson<{ status?: { allowed?: boolean; denied?: boolean; reason?: string } }>({
    path: `${AUTHZ}/selfsubjectaccessreviews`,
    body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } },
    signal,
  });
  const s = r.body?.status ?? {};
  return { allowed: s.allowed === true, denied: s.denied === true, reason: typeof s.reason === 'string' ? s.reason : '' };
}

export async function selfSubjectRulesReview(t: KubeTransport, namespace: string, signal?: AbortSignal): Promise<RulesReview> {
  const r = await t.postJson<{ status?: { resourceRules?: Partial<ResourceRule>[] | null; incomplete?: boolean; evaluationError?: string } }>({
    path: `${AUTHZ}/selfsubjectrulesreviews`,
    body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace } },
    signal,
  });
  const s = r.body?.status ?? {};
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return {
    namespace,
    resourceRules: (s.resourceRules ?? []).map((x) => ({
      verbs: strings(x.verbs),
      apiGroups: strings(x.apiGroups),
      resources: strings(x.resources),
      resourceNames: strings(x.resourceNames),
    })),
    incomplete: s.incomplete === true,
    evaluationError: typeof s.evaluationError === 'string' ? s.evaluationError : '',
  };
}

/** The user name the server authenticated (SelfSubjectReview); undefined if it cannot say. */
export async function whoAmI(t: KubeTransport, signal?: AbortSignal): Promise<string | undefined> {
  try {
    const r = await t.postJson<{ status?: { userInfo?: { username?: string } } }>({
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      signal,
    });
    const u = r.body?.status?.userInfo?.username;
    return typeof u === 'string' && u ? u : undefined;
  } catch (e) {
    if (signal?.aborted) throw e;
    return undefined;
  }
}

/**
 * Whether one rule allows `verb` on the whole collection `group`/`resource` (a list or watch),
 * matched as RBAC's rbac.RuleAllows does: `*` matches every verb, group and resource; a rule that
 * names resourceNames allows only requests that name one of them, so never a list of the collection.
 */
export function ruleAllows(rule: ResourceRule, verb: string, group: string, resource: string): boolean {
  if (rule.resourceNames.length > 0) return false;
  const has = (list: string[], v: string) => list.includes('*') || list.includes(v);
  return has(rule.verbs, verb) && has(rule.apiGroups, group) && has(rule.resources, resource);
}

export function rulesAllow(rules: readonly ResourceRule[], verb: string, group: string, resource: string): boolean {
  return rules.some((r) => ruleAllows(r, verb, group, resource));
}
