/**
 * The create-only review APIs kubectl uses to ask about the caller, answered from the demo
 * cluster's own authenticator and authorizer (nothing is stored, as upstream):
 * - authorization.k8s.io/v1 SelfSubjectAccessReview (`kubectl auth can-i`)
 * - authorization.k8s.io/v1 SelfSubjectRulesReview (`kubectl auth can-i --list`): the rules of the
 *   user in spec.namespace, which is required (400 "no namespace on request", as kube-apiserver)
 * - authentication.k8s.io/v1 SelfSubjectReview (`kubectl auth whoami`)
 */
import { DEFAULT_USER, type Authorizer } from './auth';
import type { ServerContext, Target } from './serverContext';
import type { Exchange } from './exchange';
import type { RequestInfo } from './requestinfo';
import { badRequest } from './status';

type Obj = Record<string, unknown>;

export function isReview(t: Target): boolean {
  return (
    (t.group === 'authorization.k8s.io' && (t.resource === 'selfsubjectaccessreviews' || t.resource === 'selfsubjectrulesreviews')) ||
    (t.group === 'authentication.k8s.io' && t.resource === 'selfsubjectreviews')
  );
}

export async function handleReview(t: Target, x: Exchange, authz: Authorizer, ctx?: ServerContext): Promise<void> {
  const body = (await x.readJson(t.type.kind)) as Obj | null;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest(`the object provided is unrecognized (must be of type ${t.type.kind})`);
  const metadata = { ...((body.metadata as Obj | undefined) ?? {}), creationTimestamp: null };
  const groups = x.impersonated
    ? [...x.impersonated.groups, 'system:authenticated']
    : x.user === DEFAULT_USER || x.user.startsWith('system:')
      ? ['system:authenticated']
      : ['system:masters', 'system:authenticated'];
  if (t.resource === 'selfsubjectreviews') {
    const userInfo: Record<string, unknown> = { username: x.user, groups };
    if (x.impersonated?.uid) userInfo.uid = x.impersonated.uid;
    if (x.impersonated && Object.keys(x.impersonated.extra).length) userInfo.extra = x.impersonated.extra;
    x.json(201, { kind: 'SelfSubjectReview', apiVersion: t.apiVersion, metadata, status: { userInfo } });
    return;
  }
  const spec = (body.spec as Obj | undefined) ?? {};
  if (t.resource === 'selfsubjectrulesreviews') {
    const namespace = typeof spec.namespace === 'string' ? spec.namespace : '';
    if (!namespace) throw badRequest('no namespace on request');
    const types = () => {
      const seen = new Map<string, { group: string; resource: string }>();
      for (const g of ctx ? [ctx.catalog.coreGroup(), ...ctx.catalog.groups()] : []) {
        for (const v of g.versions) for (const r of v.resources) seen.set(`${g.name}/${r.resource}`, { group: g.name, resource: r.resource });
      }
      return [...seen.values()];
    };
    const resourceRules = authz.rulesFor(x.user, namespace, types);
    const nonResourceRules = [
      {
        verbs: ['get'],
        nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'],
      },
    ];
    x.json(201, {
      kind: 'SelfSubjectRulesReview',
      apiVersion: t.apiVersion,
      metadata,
      spec: {},
      status: { resourceRules, nonResourceRules, incomplete: false },
    });
    return;
  }
  const ra = spec.resourceAttributes as
    { namespace?: string; verb?: string; group?: string; resource?: string; subresource?: string; name?: string } | undefined;
  let allowed = true;
  if (ra) {
    const info: RequestInfo = {
      isResourceRequest: true,
      path: '',
      verb: ra.verb ?? '',
      apiPrefix: ra.group ? 'apis' : 'api',
      group: ra.group === '*' ? '*' : (ra.group ?? ''),
      version: '',
      namespace: ra.namespace || undefined,
      resource: ra.resource ?? '',
      subresource: ra.subresource ?? '',
      name: ra.name ?? '',
      parts: [],
    };
    // RBAC gives no reason for a denial; kubectl then prints a plain "no".
    allowed = authz.allows(x.user, info, !!x.impersonated);
  }
  x.json(201, { kind: 'SelfSubjectAccessReview', apiVersion: t.apiVersion, metadata, spec, status: { allowed } });
}
