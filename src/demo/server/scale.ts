/**
 * The scale subresource (GET, PUT, PATCH .../scale) of Deployments, ReplicaSets and StatefulSets,
 * answered as autoscaling/v1 Scale, as kube-apiserver's apps registry does.
 *
 * Guarantees:
 * - GET answers the parent's name, namespace, uid, resourceVersion and creationTimestamp,
 *   spec.replicas, status.replicas and status.selector (the label selector in string form).
 * - PUT and PATCH change only the parent's spec.replicas (a Conflict when a given
 *   resourceVersion is not the parent's); the answer is the Scale after the write.
 * - A type that does not declare the subresource answers 404; replicas below 0 answer 422.
 */
import { load as loadYaml } from 'js-yaml';
import type { DemoObject } from '../store';
import { resolveTarget, type ServerContext, type Target } from './serverContext';
import { PROTOBUF_TYPE, requestContentType, type Exchange } from './exchange';
import { getNamed } from './list';
import { jsonPatch, mergePatch } from './patch';
import { ApiError, badRequest, invalid, pathNotFound } from './status';
import { dryRun, fieldManager } from './writes';
import { selectorString } from '../controllers/controllerContext';

type Obj = Record<string, any>;

export function scaleOf(o: DemoObject): Obj {
  const spec = (o.spec ?? {}) as Obj;
  const m = o.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: spec.replicas ?? 1 },
    status: { replicas: Number((o.status as Obj | undefined)?.replicas ?? 0), selector: selectorString(spec.selector) },
  };
}

function target(ctx: ServerContext, x: Exchange): Target {
  const t = resolveTarget(ctx, x);
  if (!t.entry.subresources?.some((s) => s.subresource === 'scale')) throw pathNotFound();
  return t;
}

export function handleScaleGet(ctx: ServerContext, x: Exchange): void {
  const t = target(ctx, x);
  x.json(200, scaleOf(getNamed(ctx, t, x)));
}

export async function handleScaleWrite(ctx: ServerContext, x: Exchange, verb: 'update' | 'patch'): Promise<void> {
  const t = target(ctx, x);
  const existing = getNamed(ctx, t, x);
  const current = scaleOf(existing);
  // client-go's UpdateScale sends an autoscaling/v1 Scale as protobuf
  const pb = verb === 'update' && requestContentType(x) === PROTOBUF_TYPE ? await x.readJson('Scale') : undefined;
  const raw = pb === undefined ? (await x.readBody()).toString('utf8') : '';
  let next: unknown = pb;
  try {
    if (pb !== undefined) {
      // decoded already
    } else if (verb === 'update') next = JSON.parse(raw);
    else {
      const ct = (x.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const patch = ct === 'application/apply-patch+yaml' ? loadYaml(raw) : JSON.parse(raw);
      if (ct === 'application/json-patch+json') next = jsonPatch(current, patch);
      else if (ct === 'application/merge-patch+json' || ct === 'application/strategic-merge-patch+json' || ct === 'application/apply-patch+yaml')
        next = mergePatch(current, patch);
      else
        throw new ApiError(
          415,
          'UnsupportedMediaType',
          `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml`,
        );
    }
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw badRequest(`the object provided is unrecognized (must be of type Scale): ${(e as Error).message}`);
  }
  if (next === null || typeof next !== 'object' || Array.isArray(next))
    throw badRequest('the object provided is unrecognized (must be of type Scale): expected an object');
  const s = next as Obj;
  const replicas = s.spec?.replicas ?? 0;
  if (!Number.isInteger(replicas) || replicas < 0) {
    throw invalid('Scale', existing.metadata.name, 'autoscaling', [
      { field: 'spec.replicas', reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0` },
    ]);
  }
  const rv = s.metadata?.resourceVersion;
  if (rv && rv !== existing.metadata.resourceVersion) {
    throw new ApiError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${t.resource}.${t.group} "${existing.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
      { name: existing.metadata.name, group: t.group, kind: t.resource },
    );
  }
  if (dryRun(x)) return x.json(200, { ...current, spec: { replicas } });
  const stored = ctx.store.update(t.group, t.resource, { ...existing, spec: { ...(existing.spec as Obj), replicas } }, { manager: fieldManager(x) });
  x.json(200, scaleOf(stored));
}
