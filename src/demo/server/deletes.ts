/**
 * DELETE of one object or of a collection, with DeleteOptions (preconditions, dryRun, grace
 * period), graceful deletion of pods bound to a node, and namespace deletion as the namespace
 * controller would finish it. Answers as upstream: the object for pods, namespaces and custom
 * resources, a Success Status for the rest.
 */
import { kubeTime, qualifiedResource, type DemoObject } from '../store';
import { requestNamespace, requireVerb, resolveTarget, served, type ServerContext, type Target } from './serverContext';
import { PROTOBUF_TYPE, requestContentType, type Exchange } from './exchange';
import { getNamed, selectorFor, writeOne } from './list';
import { ApiError, badRequest, success } from './status';
import { dryRun, isCustomResource } from './writes';

type Obj = Record<string, unknown>;

interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
}

/**
 * The request's DeleteOptions, as upstream's delete handler reads them: the body when there is one
 * (and then only the body), else the query's parameters (`?gracePeriodSeconds=0&propagationPolicy=
 * Foreground`, as @kubernetes/client-node and the Python client send them), converted as
 * apimachinery converts them: a gracePeriodSeconds that is not an integer is a 400.
 */
async function readDeleteOptions(x: Exchange): Promise<DeleteOptions> {
  // client-go's typed clients send DeleteOptions as protobuf (every delete and deletecollection)
  if (requestContentType(x) === PROTOBUF_TYPE) return (await x.readJson('DeleteOptions')) as DeleteOptions;
  const body = await x.readBody();
  if (body.length === 0) return deleteOptionsOfQuery(x.query);
  const raw = body.toString('utf8');
  if (!raw.trim()) return {};
  try {
    const v = JSON.parse(raw) as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('expected an object');
    return v as DeleteOptions;
  } catch (e) {
    throw badRequest(
      `the object provided is unrecognized (must be of type DeleteOptions): couldn't get version/kind; json parse error: ${(e as Error).message}`,
    );
  }
}

function deleteOptionsOfQuery(q: URLSearchParams): DeleteOptions {
  const opts: DeleteOptions = {};
  const grace = q.get('gracePeriodSeconds');
  if (grace !== null) {
    // an int64 as Go's strconv.ParseInt reads it: an optional sign and decimal digits
    if (!/^[+-]?\d+$/.test(grace) || !Number.isSafeInteger(Number(grace)))
      throw badRequest(`gracePeriodSeconds: strconv.ParseInt: parsing ${JSON.stringify(grace)}: invalid syntax`);
    opts.gracePeriodSeconds = Number(grace);
  }
  const policy = q.get('propagationPolicy');
  if (policy !== null) opts.propagationPolicy = policy;
  const orphan = q.get('orphanDependents');
  // apimachinery's query conversion of a bool: "0" or "false" in any case is false, anything else true
  if (orphan !== null) opts.orphanDependents = !(orphan === '0' || orphan.toLowerCase() === 'false');
  // dryRun is not read here: handleDelete reads the query's dryRun for every DELETE (writes.ts dryRun)
  return opts;
}

/** Types whose DELETE answers with the object rather than a Status (pods are deleted gracefully upstream). */
function returnsObject(ctx: ServerContext, t: Target): boolean {
  return (t.group === '' && (t.resource === 'pods' || t.resource === 'namespaces')) || isCustomResource(ctx, t);
}

export async function handleDelete(ctx: ServerContext, x: Exchange): Promise<void> {
  const t = resolveTarget(ctx, x);
  if (x.info.subresource) throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
  requireVerb(t, 'delete');
  const opts = await readDeleteOptions(x);
  const isDry = dryRun(x) || (opts.dryRun?.length ? opts.dryRun.every((v) => v === 'All') : false);
  const existing = getNamed(ctx, t, x);
  const pre = opts.preconditions;
  const conflict = (what: string, want: string, have: string | undefined) =>
    new ApiError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualifiedResource(t.group, t.resource)} "${existing.metadata.name}": Precondition failed: ${what} in precondition: ${want}, ${what} in object meta: ${have ?? ''}`,
      { name: existing.metadata.name, kind: t.resource },
    );
  if (pre?.uid && pre.uid !== existing.metadata.uid) throw conflict('UID', pre.uid, existing.metadata.uid);
  if (pre?.resourceVersion && pre.resourceVersion !== existing.metadata.resourceVersion)
    throw conflict('ResourceVersion', pre.resourceVersion, existing.metadata.resourceVersion);
  if (isDry) return writeDeleted(ctx, t, x, existing);
  if (t.group === '' && t.resource === 'namespaces') return deleteNamespace(ctx, t, x, existing);
  if (t.group === '' && t.resource === 'pods' && deletePodGracefully(ctx, t, x, existing, opts)) return;
  if (ctx.options.garbageCollector && markForCollector(ctx, t, x, existing, opts)) return;
  const gone = ctx.store.delete(t.group, t.resource, existing.metadata.namespace, existing.metadata.name);
  writeDeleted(ctx, t, x, gone);
}

function writeDeleted(ctx: ServerContext, t: Target, x: Exchange, o: DemoObject): void {
  if (returnsObject(ctx, t)) return writeOne(ctx, t, x, o, 200);
  const details: Obj = { name: o.metadata.name, kind: t.resource, uid: o.metadata.uid };
  if (t.group) details.group = t.group;
  x.status(success(details));
}

/**
 * Graceful pod deletion, as upstream's pod strategy and the registry's BeforeDelete: a pod bound
 * to a node and not yet terminal gets deletionTimestamp = now + grace and stays (Terminating) until
 * its kubelet has stopped its containers and deletes it. A grace period of 0 (`--grace-period=0
 * --force`, an unscheduled or finished pod, the kubelet's own final delete) is still written first
 * (deletionTimestamp, deletionGracePeriodSeconds 0: a MODIFIED event watchers see, as a kubelet
 * does), then the pod is deleted at once. A second delete may only shorten the grace period.
 * Returns false when the caller is to delete the pod now.
 */
function deletePodGracefully(ctx: ServerContext, t: Target, x: Exchange, pod: DemoObject, opts: DeleteOptions): boolean {
  if (!ctx.options.gracefulPodDeletion) return false;
  const spec = (pod.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  const current = pod.metadata.deletionGracePeriodSeconds as number | undefined;
  if (pod.metadata.deletionTimestamp) {
    // Being deleted already: only a shorter grace period changes anything; a 0 already set deletes.
    if (current === undefined || current === 0) return false;
    if (opts.gracePeriodSeconds === undefined || opts.gracePeriodSeconds >= current) {
      writeOne(ctx, t, x, pod, 200);
      return true;
    }
  }
  // upstream podStrategy.CheckGracefulDelete: unscheduled or finished pods go at once
  let grace = opts.gracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? 30;
  if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') grace = 0;
  grace = Math.max(0, grace);
  const at = new Date(ctx.options.now().getTime() + grace * 1000);
  const updated = ctx.store.update('', 'pods', {
    ...pod,
    metadata: { ...pod.metadata, deletionTimestamp: grace === 0 ? kubeTime(ctx.options.now()) : kubeTime(at), deletionGracePeriodSeconds: grace },
  });
  if (grace === 0) return false;
  writeOne(ctx, t, x, updated, 200);
  return true;
}

/**
 * Foreground and orphan propagation, as the apiserver's deletion strategy: the object gets
 * deletionTimestamp and the `foregroundDeletion` (or `orphan`) finalizer and is answered as it
 * now is; the garbage collector deletes (or orphans) its dependents, then the object. Returns
 * false for background propagation (the default here), which deletes at once.
 */
function markForCollector(ctx: ServerContext, t: Target, x: Exchange, o: DemoObject, opts: DeleteOptions): boolean {
  const policy = opts.propagationPolicy ?? (opts.orphanDependents === true ? 'Orphan' : undefined);
  if (policy !== undefined && policy !== 'Foreground' && policy !== 'Background' && policy !== 'Orphan') {
    throw new ApiError(
      422,
      'Invalid',
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
    );
  }
  if (policy !== 'Foreground' && policy !== 'Orphan') return false;
  const finalizer = policy === 'Foreground' ? 'foregroundDeletion' : 'orphan';
  const finalizers = (o.metadata.finalizers as string[] | undefined) ?? [];
  let current = o;
  if (!o.metadata.deletionTimestamp || !finalizers.includes(finalizer)) {
    current = ctx.store.update(t.group, t.resource, {
      ...o,
      metadata: {
        ...o.metadata,
        deletionTimestamp: o.metadata.deletionTimestamp ?? kubeTime(ctx.options.now()),
        deletionGracePeriodSeconds: 0,
        finalizers: [...finalizers.filter((f) => f !== 'foregroundDeletion' && f !== 'orphan'), finalizer],
      },
    });
  }
  writeOne(ctx, t, x, current, 200);
  return true;
}

/**
 * Namespace deletion as the namespace controller finishes it: the namespace turns Terminating at
 * once (the answer shows it), then everything in it is deleted, then the namespace itself.
 */
function deleteNamespace(ctx: ServerContext, t: Target, x: Exchange, ns: DemoObject): void {
  const name = ns.metadata.name;
  let current = ns;
  if (!ns.metadata.deletionTimestamp) {
    current = ctx.store.update('', 'namespaces', { ...ns, metadata: { ...ns.metadata, deletionTimestamp: kubeTime(ctx.options.now()) } });
    current = ctx.store.update('', 'namespaces', { ...current, status: { phase: 'Terminating' } }, { subresource: 'status' });
  }
  writeOne(ctx, t, x, current, 200);
  setImmediate(() => {
    for (const type of ctx.store.types()) {
      if (!type.namespaced) continue;
      for (const o of ctx.store.list(type.group, type.resource, name).items) {
        try {
          ctx.store.delete(type.group, type.resource, name, o.metadata.name);
        } catch {
          // already gone: a concurrent delete won
        }
      }
    }
    try {
      ctx.store.delete('', 'namespaces', undefined, name);
    } catch {
      // already gone
    }
  });
}

export async function handleDeleteCollection(ctx: ServerContext, x: Exchange): Promise<void> {
  const t = resolveTarget(ctx, x);
  requireVerb(t, 'deletecollection');
  const opts = await readDeleteOptions(x);
  const isDry = dryRun(x) || (opts.dryRun?.length ? opts.dryRun.every((v) => v === 'All') : false);
  const ns = requestNamespace(t, x);
  const match = selectorFor(t, x);
  const victims = ctx.store.list(t.group, t.resource, ns).items.filter((o) => !match || match(o));
  const deleted: DemoObject[] = [];
  for (const o of victims) {
    if (isDry) deleted.push(o);
    else {
      try {
        deleted.push(ctx.store.delete(t.group, t.resource, o.metadata.namespace, o.metadata.name));
      } catch {
        // deleted concurrently
      }
    }
  }
  // A typed list for built-in types: its items carry no apiVersion and kind (see list.ts).
  const builtin = ctx.catalog.isBuiltin(t.group, t.resource);
  const item = (o: DemoObject) => {
    if (!builtin) return served(t, o);
    const { apiVersion: _a, kind: _k, ...rest } = o;
    return rest;
  };
  x.json(200, { kind: t.type.listKind, apiVersion: t.apiVersion, metadata: { resourceVersion: String(ctx.store.currentRV) }, items: deleted.map(item) });
}
