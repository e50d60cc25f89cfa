/**
 * OpenAPI v3, as kube-apiserver serves it (kube-openapi's handler3), so `kubectl explain` works and
 * kubectl learns that the server validates fields itself (`fieldValidation` on each PATCH).
 *
 *   GET /openapi/v3                 -> { paths: { "api/v1": { serverRelativeURL: "/openapi/v3/api/v1?hash=H" }, ... } }
 *   GET /openapi/v3/api/v1?hash=H   -> the document; ETag "H"; with the right hash also
 *                                      Cache-Control: public, immutable (as upstream); a stale hash is
 *                                      redirected (301) to the current URL; If-None-Match "H" -> 304.
 *
 * Documents, by group-version:
 *  - built-in group-versions kube-apiserver serves by default: its own documents, stored byte for
 *    byte (openapiData.ts; descriptions included, so explain prints them);
 *  - custom resources: generated from each CRD's openAPIV3Schema, shaped as the apiextensions
 *    server shapes them (apiVersion, kind, metadata -> ObjectMeta, x-kubernetes-group-version-kind);
 *  - other built-in group-versions (the alpha and beta ones the demo also serves): the paths only,
 *    no schemas, so kubectl still finds fieldValidation and says it has no schema for explain.
 * H is always the upper-case hex SHA-512 of the document's bytes, as upstream.
 * /openapi/v2 is not served (404), as on servers that disable it.
 */
import { createHash } from 'node:crypto';
import type { Catalog, ResourceEntry, VersionEntry } from './catalog';
import { StoredOpenAPI } from './openapiData';

const stored = new StoredOpenAPI();

export function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** 'api/v1' or 'apis/<group>/<version>' from the path segments after /openapi/v3/; undefined otherwise. */
export function gvOfSegments(segments: string[]): { group: string; version: string } | undefined {
  if (segments[0] === 'api' && segments.length === 2) return { group: '', version: segments[1]! };
  if (segments[0] === 'apis' && segments.length === 3) return { group: segments[1]!, version: segments[2]! };
  return undefined;
}

const sha512 = (b: Buffer | string): string => createHash('sha512').update(b).digest('hex').toUpperCase();

export interface OpenAPIDocument {
  hash: string;
  /** The JSON bytes (a stored document is read on first use). */
  body(): Promise<Buffer>;
}

/** Whether every resource of the group-version is a built-in one (a stored document describes them all). */
function allBuiltin(catalog: Catalog, group: string, v: VersionEntry): boolean {
  return v.resources.every((r) => catalog.isBuiltin(group, r.resource));
}

/** The document for a served group-version, undefined when the demo does not serve it. */
export async function openAPIV3Document(catalog: Catalog, group: string, version: string): Promise<OpenAPIDocument | undefined> {
  const v = catalog.group(group)?.versions.find((x) => x.version === version);
  if (!v) return undefined;
  const gv = gvPath(group, version);
  const hash = allBuiltin(catalog, group, v) ? stored.hash(gv) : undefined;
  if (hash) return { hash, body: () => stored.document(gv)! };
  // Generated: small (the paths, and the schemas of a few custom kinds), built when asked.
  const text = Buffer.from(await buildGenerated(catalog, group, v), 'utf8');
  return { hash: sha512(text), body: () => Promise.resolve(text) };
}

/** The root listing, each document's URL carrying its hash. */
export async function openAPIV3Root(catalog: Catalog): Promise<{ paths: Record<string, { serverRelativeURL: string }> }> {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const g of [catalog.coreGroup(), ...catalog.groups()]) {
    for (const v of g.versions) {
      const d = await openAPIV3Document(catalog, g.name, v.version);
      const p = gvPath(g.name, v.version);
      if (d) paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${d.hash}` };
    }
  }
  return { paths };
}

const queryParam = (name: string, description: string) => ({ name, in: 'query', description, schema: { type: 'string', uniqueItems: true } });

/** kube-openapi's definition name for a custom kind: the group's DNS labels reversed, then version and kind. */
export function crdDefinitionName(group: string, version: string, kind: string): string {
  return [...group.split('.').reverse(), version, kind].join('.');
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** A custom resource's schema as the apiextensions server publishes it. */
function crdSchemaOf(catalog: Catalog, group: string, version: string, r: ResourceEntry): Record<string, unknown> {
  const declared = catalog.crdSchema(group, version, r.resource) ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const props = { ...((declared.properties as Record<string, unknown> | undefined) ?? {}) };
  props.apiVersion = {
    description:
      'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
    type: 'string',
  };
  props.kind = {
    description:
      'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
    type: 'string',
  };
  props.metadata = {
    description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    allOf: [{ $ref: `#/components/schemas/${OBJECT_META}` }],
  };
  return { ...declared, type: 'object', properties: props, 'x-kubernetes-group-version-kind': [{ group, kind: r.responseKind.kind, version }] };
}

async function buildGenerated(catalog: Catalog, group: string, v: VersionEntry): Promise<string> {
  const version = v.version;
  const prefix = `/${gvPath(group, version)}`;
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const r of v.resources) {
    const gvk = { group, version, kind: r.responseKind.kind };
    const custom = !catalog.isBuiltin(group, r.resource);
    const ref = custom ? { $ref: `#/components/schemas/${crdDefinitionName(group, version, r.responseKind.kind)}` } : undefined;
    if (custom) schemas[crdDefinitionName(group, version, r.responseKind.kind)] = crdSchemaOf(catalog, group, version, r);
    const base = r.scope === 'Namespaced' ? `${prefix}/namespaces/{namespace}/${r.resource}` : `${prefix}/${r.resource}`;
    const ops: Record<string, unknown> = {};
    const op = (action: string, params: unknown[]) => ({
      operationId: `${action}${r.responseKind.kind}`,
      parameters: params,
      responses: {
        '200': ref ? { description: 'OK', content: { 'application/json': { schema: ref } } } : { description: 'OK' },
        '401': { description: 'Unauthorized' },
      },
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
  if (Object.keys(schemas).length) Object.assign(schemas, await stored.crdComponents());
  return JSON.stringify({ openapi: '3.0.0', info: { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' }, paths, components: { schemas } });
}
