/**
 * GET of a collection (list) and of one object (get), with the apiserver's list semantics:
 * - limit/continue page over one snapshot (see snapshots.ts); a page may be short; only an empty
 *   continue ends the list; remainingItemCount is given when no selector filtered the list.
 * - resourceVersion: unset = most recent; "0" = any (we serve the latest); N with
 *   resourceVersionMatch=NotOlderThan = at least N (504 when N is in the future); N with Exact, or
 *   N with a limit and no match (legacy rule) = exactly at N, rebuilt from history, 410 when too old.
 * - continue with a resourceVersion other than "0" is a 400, as upstream.
 * - resourceVersion "0" (no continue) is served whole, its limit ignored, as kube-apiserver's watch
 *   cache serves it (checked by the facts in test/apiserver/facts.ts): one answer, no continue.
 */
import type { DemoObject } from '../store';
import { requestNamespace, requireVerb, resolveTarget, served, type ServerContext, type Target } from './serverContext';
import { encodeListItem, encodeStored, PROTOBUF_TYPE, type Exchange } from './exchange';
import { formContentType, metadataListJson, negotiate, parseIncludeObject, partialObject, table, tableJson, type ListMeta, type ProtobufOffer } from './forms';
import { protobufList, protobufMetadataList, protobufObject, servesProtobuf, warmMessages } from './protobuf-forms';
import { both, parseFieldSelector, parseLabelSelector, type Matcher } from './selectors';
import { decodeToken, encodeToken, inconsistentToken, isInconsistentToken } from './snapshots';
import { ApiError, badRequest, continueExpired, invalid, notFound, pathNotFound, resourceVersionTooOld } from './status';

export function selectorFor(t: Target, x: Exchange): Matcher | undefined {
  return both(parseLabelSelector(x.query.get('labelSelector')), parseFieldSelector(x.query.get('fieldSelector'), t.group, t.resource));
}

export function parseRV(v: string, what = 'resource version'): number {
  if (!/^\d+$/.test(v)) throw badRequest(`invalid ${what}: ${v}`);
  return Number(v);
}

function listOptionsInvalid(message: string, value: string, field: string): ApiError {
  return invalid('ListOptions', '', 'meta.k8s.io', [{ field, reason: 'FieldValueInvalid', message: `Invalid value: "${value}": ${message}` }]);
}

/** Picks the list's source snapshot according to resourceVersion / resourceVersionMatch. */
function sourceList(ctx: ServerContext, t: Target, ns: string | undefined, x: Exchange): { items: readonly DemoObject[]; resourceVersion: string } {
  const rv = x.query.get('resourceVersion') ?? '';
  const match = x.query.get('resourceVersionMatch') ?? '';
  const limit = Number(x.query.get('limit') ?? 0);
  if (match && !['Exact', 'NotOlderThan'].includes(match)) {
    throw listOptionsInvalid('supported values: "Exact", "NotOlderThan"', match, 'resourceVersionMatch');
  }
  if (match && !rv) throw listOptionsInvalid('resourceVersionMatch is forbidden unless resourceVersion is provided', match, 'resourceVersionMatch');
  if (match === 'Exact' && rv === '0')
    throw listOptionsInvalid('resourceVersionMatch "exact" is forbidden for resourceVersion "0"', match, 'resourceVersionMatch');
  if (!rv || rv === '0') return ctx.store.list(t.group, t.resource, ns);
  const n = parseRV(rv);
  const current = ctx.store.currentRV;
  if (n > current) {
    throw new ApiError(504, 'Timeout', `Too large resource version: ${n}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    });
  }
  const exact = match === 'Exact' || (!match && limit > 0);
  if (!exact) return ctx.store.list(t.group, t.resource, ns);
  const at = ctx.store.listAt(t.group, t.resource, ns, n);
  if (at === 'expired') throw resourceVersionTooOld(n, ctx.store.oldestRV);
  return at;
}

export function handleList(ctx: ServerContext, x: Exchange): void | Promise<void> {
  const t = resolveTarget(ctx, x);
  requireVerb(t, 'list');
  const ns = requestNamespace(t, x);
  const match = selectorFor(t, x);
  const limitRaw = x.query.get('limit');
  const asked = limitRaw ? Number(limitRaw) : 0;
  if (limitRaw && (!Number.isInteger(asked) || asked < 0)) throw badRequest(`invalid limit: ${limitRaw}`);
  const cont = x.query.get('continue') ?? '';
  const limit = !cont && x.query.get('resourceVersion') === '0' ? 0 : asked;
  const listKey = `${t.group}/${t.resource}/${ns ?? ''}`;

  let items: readonly DemoObject[];
  let resourceVersion: string;
  let off = 0;
  let snapId: string | undefined;
  let filtered = match !== undefined;
  if (cont) {
    const rv = x.query.get('resourceVersion');
    if (rv && rv !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    if (x.query.get('resourceVersionMatch')) {
      throw listOptionsInvalid('resourceVersionMatch is forbidden when continue is provided', x.query.get('resourceVersionMatch')!, 'resourceVersionMatch');
    }
    const tok = decodeToken(cont);
    if (isInconsistentToken(tok, listKey)) {
      // The token a 410 hands out: the rest of the list, from the current state (inconsistent by design).
      const src = sourceList(ctx, t, ns, x);
      items = match ? src.items.filter(match) : src.items;
      resourceVersion = src.resourceVersion;
      off = items.findIndex((o) => nameKey(o) > tok.key);
      if (off < 0) off = items.length;
    } else {
      if (x.expireContinue) throw continueExpired(inconsistentToken(tok.key, listKey));
      const r = ctx.snapshots.resolve(cont, listKey);
      items = r.snap.items;
      resourceVersion = r.snap.resourceVersion;
      off = r.off;
      snapId = r.tok.snap;
      filtered = r.snap.filtered;
    }
  } else {
    const src = sourceList(ctx, t, ns, x);
    items = match ? src.items.filter(match) : src.items;
    resourceVersion = src.resourceVersion;
  }

  let page: readonly DemoObject[] = items;
  const meta: ListMeta = { resourceVersion };
  if (limit > 0) {
    page = items.slice(off, off + limit);
    const next = off + page.length;
    if (next < items.length) {
      snapId ??= ctx.snapshots.put(items, resourceVersion, filtered, listKey);
      meta.continue = encodeToken({
        v: 'meta.k8s.io/v1',
        rv: Number(resourceVersion),
        snap: snapId,
        off: next,
        key: page.length ? nameKey(page[page.length - 1]!) : '',
      });
      if (!filtered) meta.remainingItemCount = items.length - next;
    } else if (snapId) {
      ctx.snapshots.release(snapId);
    }
  } else if (off > 0 || cont) {
    page = items.slice(off);
    if (snapId) ctx.snapshots.release(snapId);
  }

  return writeList(ctx, t, x, page, meta);
}

/** What a client that can read protobuf may have it in: full objects of built-in kinds the demo encodes. */
export function protobufOffer(ctx: ServerContext, t: Target): ProtobufOffer {
  return { object: ctx.catalog.isBuiltin(t.group, t.resource) && servesProtobuf(t.apiVersion, t.type.kind) };
}

/**
 * Writes a list's page in the form the Accept header asks for. JSON at once (its items' text is
 * cached per object); protobuf once its items' messages are encoded, a slice at a time
 * (warmMessages): a first protobuf list of a big type does not hold the event loop.
 */
function writeList(ctx: ServerContext, t: Target, x: Exchange, page: readonly DemoObject[], meta: ListMeta): void | Promise<void> {
  const form = negotiate(x.accept, 'list', protobufOffer(ctx, t));
  const ct = formContentType(form, 'list');
  if (form.kind !== 'table' && form.protobuf) {
    const metadata = form.kind === 'metadata';
    return warmMessages(t.apiVersion, metadata ? undefined : t.type.kind, page).then(() => {
      if (metadata) x.protobuf(200, protobufMetadataList(page, meta), PROTOBUF_TYPE);
      else x.protobuf(200, protobufList(t.apiVersion, t.type.kind, page, meta), PROTOBUF_TYPE);
    });
  }
  if (form.kind === 'table') {
    x.jsonText(
      200,
      tableJson(t.resource, t.group, page, meta, {
        version: form.version,
        includeObject: parseIncludeObject(x.query.get('includeObject')),
        now: ctx.options.now(),
      }),
      ct,
    );
  } else if (form.kind === 'metadata') {
    x.jsonText(200, metadataListJson(page, meta, form.version), ct);
  } else {
    // Items come from per-object JSON caches. Built-in types' items carry no apiVersion and kind (a
    // typed list, as upstream encodes it); custom resources' carry both, in the version served.
    // The list's own keys are in kube-apiserver's order: a typed list (built-in types) writes kind,
    // apiVersion, metadata, items; an unstructured list (custom resources) is a Go map encoded with
    // sorted keys: apiVersion, items, kind, metadata, so its continue token comes after the items.
    const builtin = ctx.catalog.isBuiltin(t.group, t.resource);
    const items = page.map((o) => (builtin ? encodeListItem(o) : o.apiVersion === t.apiVersion ? encodeStored(o) : JSON.stringify(served(t, o))));
    if (builtin) {
      const head = JSON.stringify({ kind: t.type.listKind, apiVersion: t.apiVersion, metadata: meta });
      x.jsonText(200, `${head.slice(0, -1)},"items":[${items.join(',')}]}`, ct);
    } else {
      x.jsonText(
        200,
        `{"apiVersion":${JSON.stringify(t.apiVersion)},"items":[${items.join(',')}],"kind":${JSON.stringify(t.type.listKind)},"metadata":${JSON.stringify(sortedKeys(meta))}}`,
        ct,
      );
    }
  }
}

/** ListMeta as a Go map encodes it (keys sorted: continue, remainingItemCount, resourceVersion). */
function sortedKeys(m: ListMeta): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(m).sort()) out[k] = (m as unknown as Record<string, unknown>)[k];
  return out;
}

function nameKey(o: DemoObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

/** Looks up the object a request names, or throws the apiserver's 404. */
export function getNamed(ctx: ServerContext, t: Target, x: Exchange): DemoObject {
  const ns = requestNamespace(t, x);
  if (t.namespaced && !ns) throw pathNotFound();
  const o = ctx.store.get(t.group, t.resource, ns, x.info.name);
  if (!o) throw notFound(t.group, t.resource, x.info.name);
  return o;
}

export function handleGet(ctx: ServerContext, x: Exchange): void {
  const t = resolveTarget(ctx, x);
  requireVerb(t, 'get');
  writeOne(ctx, t, x, getNamed(ctx, t, x), 200, protobufOffer(ctx, t));
}

/** Writes one object in the form the Accept header asks for; in protobuf only with an offer (gets: writes answer JSON). */
export function writeOne(ctx: ServerContext, t: Target, x: Exchange, o: DemoObject, code: number, offer?: ProtobufOffer): void {
  const form = negotiate(x.accept, 'one', offer);
  const ct = formContentType(form, 'one');
  if (form.kind !== 'table' && form.protobuf) {
    x.protobuf(code, protobufObject(t.apiVersion, t.type.kind, o, form.kind === 'metadata'), PROTOBUF_TYPE);
  } else if (form.kind === 'table') {
    x.json(
      code,
      table(
        t.resource,
        t.group,
        [o],
        { resourceVersion: o.metadata.resourceVersion },
        { version: form.version, includeObject: parseIncludeObject(x.query.get('includeObject')), now: ctx.options.now() },
      ),
      ct,
    );
  } else if (form.kind === 'metadata') {
    x.json(code, partialObject(o, form.version), ct);
  } else {
    x.json(code, served(t, o), ct);
  }
}
