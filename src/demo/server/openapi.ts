/**
 * A minimal OpenAPI v3 surface: enough for kubectl to learn that the server validates fields
 * itself (the `fieldValidation` query parameter on each type's PATCH operation, found through
 * `x-kubernetes-group-version-kind`), so `kubectl create -f` / `apply` use server-side
 * validation instead of failing to download a schema. No schemas are served: kubectl then
 * computes strategic merge patches from its compiled-in types, as it does for any server whose
 * spec lacks them. /openapi/v2 is not served (404), as on servers that disable it.
 *
 *   GET /openapi/v3                 -> { paths: { "api/v1": { serverRelativeURL }, "apis/g/v": ... } }
 *   GET /openapi/v3/api/v1?hash=... -> an OpenAPI 3.0 document with one path per resource
 */
import { createHash } from 'node:crypto';
import type { Catalog, GroupEntry, VersionEntry } from './catalog';

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function allVersions(catalog: Catalog): { group: GroupEntry; version: VersionEntry }[] {
  return [catalog.coreGroup(), ...catalog.groups()].flatMap((g) => g.versions.map((v) => ({ group: g, version: v })));
}

function hashOf(group: string, v: VersionEntry): string {
  const h = createHash('sha512');
  h.update(`${group}/${v.version}`);
  for (const r of v.resources) h.update(`|${r.resource}:${r.responseKind.kind}:${r.scope}:${r.verbs.join(',')}`);
  return h.digest('hex').slice(0, 128).toUpperCase();
}

export function openAPIV3Root(catalog: Catalog) {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const { group, version } of allVersions(catalog)) {
    const p = gvPath(group.name, version.version);
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hashOf(group.name, version)}` };
  }
  return { paths };
}

const queryParam = (name: string, description: string) => ({ name, in: 'query', description, schema: { type: 'string', uniqueItems: true } });

export function openAPIV3Document(catalog: Catalog, segments: string[]): unknown | undefined {
  // segments: ['api', 'v1'] or ['apis', group, version]
  const group = segments[0] === 'api' && segments.length === 2 ? '' : segments[0] === 'apis' && segments.length === 3 ? segments[1]! : undefined;
  if (group === undefined) return undefined;
  const version = segments[segments.length - 1]!;
  const g = catalog.group(group);
  const v = g?.versions.find((x) => x.version === version);
  if (!v) return undefined;
  const prefix = `/${gvPath(group, version)}`;
  const paths: Record<string, unknown> = {};
  for (const r of v.resources) {
    const gvk = { group, version, kind: r.responseKind.kind };
    const base = r.scope === 'Namespaced' ? `${prefix}/namespaces/{namespace}/${r.resource}` : `${prefix}/${r.resource}`;
    const ops: Record<string, unknown> = {};
    const op = (action: string, params: unknown[]) => ({
      operationId: `${action}${r.responseKind.kind}`,
      parameters: params,
      responses: { '200': { description: 'OK' }, '401': { description: 'Unauthorized' } },
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
    });
    const writeParams = [
      queryParam('dryRun', 'When present, indicates that modifications should not be persisted.'),
      queryParam('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
      queryParam('fieldValidation', 'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields.'),
    ];
    if (r.verbs.includes('get')) ops.get = op('get', []);
    if (r.verbs.includes('update')) ops.put = op('put', writeParams);
    if (r.verbs.includes('patch')) ops.patch = op('patch', [...writeParams, queryParam('force', 'Force is going to "force" Apply requests.')]);
    if (r.verbs.includes('delete')) ops.delete = op('delete', [queryParam('dryRun', 'When present, indicates that modifications should not be persisted.')]);
    if (Object.keys(ops).length) paths[`${base}/{name}`] = ops;
    const coll: Record<string, unknown> = {};
    if (r.verbs.includes('list')) coll.get = op('list', []);
    if (r.verbs.includes('create')) coll.post = op('post', writeParams);
    if (Object.keys(coll).length) paths[base] = coll;
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.34.0' },
    paths,
    components: { schemas: {} },
  };
}
