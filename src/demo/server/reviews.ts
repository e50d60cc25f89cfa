/**
 * The create-only review APIs kubectl uses to ask about the caller, answered from the demo
 * cluster's own authenticator and authorizer (nothing is stored, as upstream):
 * - authorization.k8s.io/v1 SelfSubjectAccessReview (`kubectl auth can-i`)
 * - authentication.k8s.io/v1 SelfSubjectReview (`kubectl auth whoami`)
 */
import { DEFAULT_USER, type Authorizer } from './auth';
import type { Target } from './context';
import type { Exchange } from './exchange';
import type { RequestInfo } from './requestinfo';
import { badRequest } from './status';

type Obj = Record<string, unknown>;

export function isReview(t: Target): boolean {
  return (t.group === 'authorization.k8s.io' && t.resource === 'selfsubjectaccessreviews') || (t.group === 'authentication.k8s.io' && t.resource === 'selfsubjectreviews');
}

export async function handleReview(t: Target, x: Exchange, authz: Authorizer): Promise<void> {
  const body = (await x.readJson(t.type.kind)) as Obj | null;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest(`the object provided is unrecognized (must be of type ${t.type.kind})`);
  const metadata = { ...((body.metadata as Obj | undefined) ?? {}), creationTimestamp: null };
  const groups = x.impersonated ? [...x.impersonated.groups, 'system:authenticated'] : x.user === DEFAULT_USER || x.user.startsWith('system:') ? ['system:authenticated'] : ['system:masters', 'system:authenticated'];
  if (t.resource === 'selfsubjectreviews') {
    const userInfo: Record<string, unknown> = { username: x.user, groups };
    if (x.impersonated?.uid) userInfo.uid = x.impersonated.uid;
    if (x.impersonated && Object.keys(x.impersonated.extra).length) userInfo.extra = x.impersonated.extra;
    x.json(201, { kind: 'SelfSubjectReview', apiVersion: t.apiVersion, metadata, status: { userInfo } });
    return;
  }
  const spec = (body.spec as Obj | undefined) ?? {};
  const ra = spec.resourceAttributes as { namespace?: string; verb?: string; group?: string; resource?: string; subresource?: string; name?: string } | undefined;
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
    try {
      authz.authorize(x.user, info, !!x.impersonated);
    } catch {
      // RBAC gives no reason for a denial; kubectl then prints a plain "no".
      allowed = false;
    }
  }
  x.json(201, { kind: 'SelfSubjectAccessReview', apiVersion: t.apiVersion, metadata, spec, status: { allowed } });
}
