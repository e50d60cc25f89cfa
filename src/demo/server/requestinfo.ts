/**
 * RequestInfo: what a request addresses, parsed from its method and path the way the apiserver's
 * RequestInfoFactory does (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go), so that
 * authorization, fault rules and handlers all speak of the same verb/group/resource/namespace.
 */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: Verb | string;
  apiPrefix: 'api' | 'apis' | '';
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments after the prefix, for non-resource requests (discovery). */
  parts: string[];
}

/** Namespace subresources: /api/v1/namespaces/{name}/status addresses the namespace itself. */
const namespaceSubresources = new Set(['status', 'finalize']);

export function parseRequestInfo(method: string, url: URL): RequestInfo {
  const path = url.pathname;
  const segs = path
    .split('/')
    .filter((s) => s !== '')
    .map(safeDecode);
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    group: '',
    version: '',
    resource: '',
    subresource: '',
    name: '',
    parts: segs,
  };
  const prefix = segs[0];
  if (prefix !== 'api' && prefix !== 'apis') return info;
  info.apiPrefix = prefix;
  let rest = segs.slice(1);
  if (prefix === 'apis') {
    if (rest.length < 3) return info; // /apis, /apis/{g}, /apis/{g}/{v}: discovery
    info.group = rest[0]!;
    rest = rest.slice(1);
  } else if (rest.length < 2) {
    return info; // /api, /api/v1
  }
  info.version = rest[0]!;
  rest = rest.slice(1);
  info.isResourceRequest = true;

  let watchPath = false;
  if (rest[0] === 'watch') {
    // Deprecated /watch/ paths: the same as ?watch=true.
    watchPath = true;
    rest = rest.slice(1);
  }
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && namespaceSubresources.has(rest[2]!))) {
    info.namespace = rest[1];
    rest = rest.slice(2);
  } else if (rest[0] === 'namespaces' && rest.length >= 2) {
    // /namespaces/{name}[/status]: the namespace object itself; its namespace is its name (for authorization).
    info.namespace = rest[1];
  }
  info.resource = rest[0] ?? '';
  info.name = rest[1] ?? '';
  info.subresource = rest.slice(2).join('/');

  const q = url.searchParams;
  const watch = watchPath || isTrue(q.get('watch'));
  switch (method) {
    case 'GET':
    case 'HEAD':
      info.verb = info.name ? (watch ? 'watch' : 'get') : watch ? 'watch' : 'list';
      break;
    case 'POST':
      info.verb = 'create';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = info.name ? 'delete' : 'deletecollection';
      break;
    default:
      info.verb = method.toLowerCase();
  }
  return info;
}

export function isTrue(v: string | null | undefined): boolean {
  return v === 'true' || v === '1';
}

/** A segment that is not valid percent-encoding stays as it is (and then names nothing that exists). */
function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
