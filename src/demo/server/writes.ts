/**
 * Writes: create (POST), replace (PUT), patch (PATCH) and the status subresource (deletes are in
 * deletes.ts), with the apiserver's checks and Status answers: 400 for malformed bodies
 * and mismatched names, 404 for a missing object or namespace, 405 for verbs a type lacks, 409 for
 * AlreadyExists and Conflict, 415 for an unknown patch type, 422 Invalid for a missing name.
 * dryRun=All runs every check and answers what would be stored, without storing it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { load as loadYaml } from 'js-yaml';
import { kubeTime, qualifiedResource, type DemoObject } from '../store';
import { requestNamespace, requireVerb, resolveTarget, served, type ServerContext, type Target } from './serverContext';
import { applyDefaults, normalizeStored, prepareCreate, prepareForCreate, validate } from './defaults';
import type { Exchange } from './exchange';
import { getNamed, writeOne } from './list';
import { jsonPatch, mergePatch, strategicMergePatch } from './patch';
import { managerOf, withApplyEntry } from './managed-fields';
import { ApiError, badRequest, invalid, notFound, pathNotFound, success } from './status';

type Obj = Record<string, unknown>;

export function dryRun(x: Exchange): boolean {
  const all = x.query.getAll('dryRun');
  if (all.length === 0) return false;
  if (all.every((v) => v === 'All')) return true;
  throw badRequest(`dryRun: Unsupported value: ${JSON.stringify(all)}: supported values: "All"`);
}

/** Subresources handled here: '' (the object) and 'status'; anything else the type lists is 405, the rest 404. */
function checkSubresource(t: Target, x: Exchange, verb: string): 'status' | undefined {
  const sub = x.info.subresource;
  if (!sub) {
    requireVerb(t, verb);
    return undefined;
  }
  const declared = t.entry.subresources?.find((s) => s.subresource === sub);
  if (!declared) throw pathNotFound();
  if (sub !== 'status' || !declared.verbs.includes(verb)) {
    throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
  }
  return 'status';
}

async function readObject(t: Target, x: Exchange): Promise<DemoObject> {
  const body = await x.readJson(t.type.kind);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest(`the object provided is unrecognized (must be of type ${t.type.kind}): couldn't get version/kind; json parse error: expected an object`);
  }
  const o = body as DemoObject;
  if (o.apiVersion !== undefined && o.apiVersion !== t.apiVersion) {
    throw badRequest(`the API version in the data (${String(o.apiVersion)}) does not match the expected API version (${t.apiVersion})`);
  }
  if (o.kind !== undefined && o.kind !== t.type.kind) {
    throw badRequest(`${String(o.kind)} in version "${t.version}" cannot be handled as a ${t.type.kind}: the object kind does not match`);
  }
  if (o.metadata !== undefined && (o.metadata === null || typeof o.metadata !== 'object')) {
    throw badRequest(`${t.type.kind} in version "${t.version}" cannot be handled as a ${t.type.kind}: metadata must be an object`);
  }
  return {
    ...o,
    apiVersion: t.type.group ? `${t.type.group}/${t.type.version}` : t.type.version,
    kind: t.type.kind,
    metadata: { ...(o.metadata ?? {}) } as DemoObject['metadata'],
  };
}

/** Namespace on the object must agree with the URL; the URL wins when the object has none. */
function placeInNamespace(t: Target, x: Exchange, o: DemoObject): void {
  const ns = requestNamespace(t, x);
  if (!t.namespaced) {
    delete o.metadata.namespace;
    return;
  }
  if (!ns) throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
  if (o.metadata.namespace && o.metadata.namespace !== ns) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  o.metadata.namespace = ns;
}

function requireNamespaceExists(ctx: ServerContext, t: Target, ns: string | undefined): void {
  if (!t.namespaced || !ns) return;
  if (!ctx.store.get('', 'namespaces', undefined, ns)) throw notFound('', 'namespaces', ns);
}

const nameChars = 'bcdfghjklmnpqrstvwxz2456789';
function generateSuffix(): string {
  const bytes = randomBytes(5);
  return [...bytes].map((b) => nameChars[b % nameChars.length]).join('');
}

function throwIfInvalid(t: Target, o: DemoObject): void {
  const errs = validate(t.type, o);
  if (errs.length) throw invalid(t.type.kind, o.metadata.name, t.group, errs);
}

export async function handleCreate(ctx: ServerContext, x: Exchange): Promise<void> {
  const t = resolveTarget(ctx, x);
  if (x.info.subresource) return handleSubresourceCreate(ctx, t, x);
  requireVerb(t, 'create');
  const isDry = dryRun(x);
  const o = await readObject(t, x);
  delete o.metadata.uid; // the apiserver chooses every new object's uid
  placeInNamespace(t, x, o);
  if (!o.metadata.name && typeof o.metadata.generateName === 'string' && o.metadata.generateName) {
    o.metadata.name = `${o.metadata.generateName}${generateSuffix()}`;
  }
  if (!o.metadata.name) {
    throw invalid(t.type.kind, '', t.group, [
      { field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value: name or generateName is required' },
    ]);
  }
  throwIfInvalid(t, o);
  requireNamespaceExists(ctx, t, o.metadata.namespace);
  const prepared = prepareCreate(t.type, o, fieldManager(x), kubeTime(ctx.options.now()));
  if (isDry) {
    if (ctx.store.get(t.group, t.resource, prepared.metadata.namespace, prepared.metadata.name)) {
      throw new ApiError(409, 'AlreadyExists', `${qualifiedResource(t.group, t.resource)} "${prepared.metadata.name}" already exists`, {
        name: prepared.metadata.name,
        kind: t.resource,
        ...(t.group ? { group: t.group } : {}),
      });
    }
    const { resourceVersion: _rv, ...meta } = prepared.metadata;
    const shown = {
      ...prepared,
      metadata: {
        ...meta,
        uid: prepared.metadata.uid ?? randomUUID(),
        ...(t.type.generation === false ? {} : { generation: 1 }),
        creationTimestamp: kubeTime(ctx.options.now()),
      },
    } as DemoObject;
    return writeOne(ctx, t, x, shown, 201);
  }
  const { resourceVersion: _ignored, ...meta } = prepared.metadata;
  const stored = ctx.store.create(t.group, t.resource, { ...prepared, metadata: meta as DemoObject['metadata'] }, { uid: prepared.metadata.uid });
  writeOne(ctx, t, x, stored, 201);
}

/** POST on a subresource: pods/eviction deletes the pod (as the eviction API does when no PDB blocks it). */
async function handleSubresourceCreate(ctx: ServerContext, t: Target, x: Exchange): Promise<void> {
  const declared = t.entry.subresources?.find((s) => s.subresource === x.info.subresource);
  if (!declared) throw pathNotFound();
  if (t.group === '' && t.resource === 'pods' && x.info.subresource === 'eviction') {
    await x.readBody();
    const pod = getNamed(ctx, t, x);
    if (!dryRun(x)) ctx.store.delete('', 'pods', pod.metadata.namespace, pod.metadata.name);
    x.status({ ...success(), code: 201 });
    return;
  }
  throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export async function handleUpdate(ctx: ServerContext, x: Exchange): Promise<void> {
  const t = resolveTarget(ctx, x);
  const sub = checkSubresource(t, x, 'update');
  const isDry = dryRun(x);
  const o = await readObject(t, x);
  placeInNamespace(t, x, o);
  if (!o.metadata.name) {
    throw invalid(t.type.kind, '', t.group, [{ field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value: name is required' }]);
  }
  if (o.metadata.name !== x.info.name) {
    throw badRequest(`the name of the object (${o.metadata.name}) does not match the name on the URL (${x.info.name})`);
  }
  throwIfInvalid(t, o);
  commitUpdate(ctx, t, x, o, sub, isDry, fieldManager(x));
}

/** The request's field manager, as kube-apiserver's managerOrUserAgent names it. */
export function fieldManager(x: Exchange): string {
  return managerOf(x.query.get('fieldManager'), x.req.headers['user-agent']);
}

/** manager: the Update entry's field manager; undefined for an apply (its Apply entry is already on the object). */
function commitUpdate(
  ctx: ServerContext,
  t: Target,
  x: Exchange,
  given: DemoObject,
  sub: 'status' | undefined,
  isDry: boolean,
  manager: string | undefined,
): void {
  // Defaulting runs on every decode of an object, so an update's spec is defaulted as a create's.
  const o = normalizeStored(t.type, sub ? given : applyDefaults(t.type, given));
  const existing = getNamed(ctx, t, x);
  if (isDry) {
    const rv = o.metadata.resourceVersion;
    if (rv && rv !== existing.metadata.resourceVersion) {
      throw new ApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${qualifiedResource(t.group, t.resource)} "${o.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
        { name: o.metadata.name, kind: t.resource },
      );
    }
    const shown =
      sub === 'status'
        ? { ...existing, status: o.status }
        : {
            ...o,
            metadata: {
              ...o.metadata,
              uid: existing.metadata.uid,
              resourceVersion: existing.metadata.resourceVersion,
              creationTimestamp: existing.metadata.creationTimestamp,
            },
          };
    return writeOne(ctx, t, x, shown as DemoObject, 200);
  }
  const stored = ctx.store.update(t.group, t.resource, o, { ...(sub ? { subresource: sub } : {}), ...(manager !== undefined ? { manager } : {}) });
  writeOne(ctx, t, x, stored, 200);
}

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

export async function handlePatch(ctx: ServerContext, x: Exchange): Promise<void> {
  const t = resolveTarget(ctx, x);
  const sub = checkSubresource(t, x, 'patch');
  const isDry = dryRun(x);
  const ct = (x.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const builtin = !isCustomResource(ctx, t);
  const accepted = builtin ? PATCH_TYPES : PATCH_TYPES.filter((p) => !p.includes('strategic'));
  if (!accepted.includes(ct)) {
    throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
  }
  const raw = (await x.readBody()).toString('utf8');
  let patch: unknown;
  try {
    patch = ct === 'application/apply-patch+yaml' ? loadYaml(raw) : JSON.parse(raw);
  } catch (e) {
    throw badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  const ns = requestNamespace(t, x);
  if (t.namespaced && !ns) throw pathNotFound();
  const existing = ctx.store.get(t.group, t.resource, ns, x.info.name);
  if (!existing) {
    if (ct === 'application/apply-patch+yaml' && !sub) return applyCreate(ctx, t, x, patch, isDry);
    throw notFound(t.group, t.resource, x.info.name);
  }
  const base = served(t, existing);
  let next: unknown;
  if (ct === 'application/json-patch+json') next = jsonPatch(base, patch);
  else if (ct === 'application/strategic-merge-patch+json') next = strategicMergePatch(base, patch);
  else next = mergePatch(base, patch);
  if (next === null || typeof next !== 'object' || Array.isArray(next)) throw badRequest('the patched object is not an object');
  const o = next as DemoObject;
  const meta = (o.metadata ?? {}) as DemoObject['metadata'];
  if (meta.name !== x.info.name) throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${x.info.name})`);
  let patched: DemoObject = { ...o, apiVersion: existing.apiVersion, kind: existing.kind, metadata: { ...meta, namespace: existing.metadata.namespace } };
  if (!t.namespaced) delete patched.metadata.namespace;
  const applying = ct === 'application/apply-patch+yaml';
  if (applying) patched = recordApply(t, x, patched, patch as Obj, sub);
  throwIfInvalid(t, patched);
  commitUpdate(ctx, t, x, patched, sub, isDry, applying ? undefined : fieldManager(x));
}

async function applyCreate(ctx: ServerContext, t: Target, x: Exchange, patch: unknown, isDry: boolean): Promise<void> {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) throw badRequest('the apply patch is not an object');
  const o = { ...(patch as Obj), metadata: { ...(((patch as Obj).metadata as Obj | undefined) ?? {}) } } as DemoObject;
  if (!o.metadata.name) o.metadata.name = x.info.name;
  delete o.metadata.uid;
  placeInNamespace(t, x, o);
  throwIfInvalid(t, o);
  requireNamespaceExists(ctx, t, o.metadata.namespace);
  const prepared = recordApply(t, x, normalizeStored(t.type, prepareForCreate(t.type, { ...o, apiVersion: t.apiVersion, kind: t.type.kind })), patch as Obj);
  if (isDry) return writeOne(ctx, t, x, prepared, 201);
  writeOne(ctx, t, x, ctx.store.create(t.group, t.resource, prepared, { uid: prepared.metadata.uid }), 201);
}

/** The apply request's managedFields entry, for its ?fieldManager= (see managed-fields.ts). */
function recordApply(t: Target, x: Exchange, o: DemoObject, applied: Obj, sub?: string): DemoObject {
  const manager = x.query.get('fieldManager') ?? '';
  return withApplyEntry(o, applied, { manager, apiVersion: t.apiVersion, subresource: sub, time: kubeTime(new Date()) });
}

export function isCustomResource(ctx: ServerContext, t: Target): boolean {
  return ctx.catalog.resolve(t.group, t.version, t.resource) !== undefined && !ctx.catalog.isBuiltin(t.group, t.resource);
}
