/**
 * The request pipeline, in the apiserver's order: authentication -> fault injection (where API
 * Priority and Fairness would throttle) -> authorization -> the handler for the path and verb.
 *
 * Guarantee: every request is answered with a Kubernetes `Status` on any failure (handler errors
 * are caught and mapped, unknown errors become 500 InternalError), or deliberately not answered
 * (the reset and hang faults); the server never crashes on a request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReconcileLog } from '../controllers/reconcileLog';
import { handleAdmin } from './admin';
import { impersonation, type Authenticator, type Authorizer } from './auth';
import type { ServerContext } from './serverContext';
import { aggregatedContentType, aggregatedList, apiGroup, apiGroupList, apiResourceList, apiVersions, versionInfo, wantsAggregated } from './discovery';
import { Exchange } from './exchange';
import { gvOfSegments, openAPIV3Document, openAPIV3Root } from './openapi';
import type { FaultController, FaultRuleState } from './faults';
import { resolveTarget } from './serverContext';
import { handleGet, handleList } from './list';
import { handlePodLog } from './podlogs';
import { handleReview, isReview } from './reviews';
import { handleScaleGet, handleScaleWrite } from './scale';
import { parseRequestInfo } from './requestinfo';
import { bump, type ServerStats } from './stats';
import { ApiError, pathNotFound, toApiError } from './status';
import { handleWatch } from './watch';
import { handleDelete, handleDeleteCollection } from './deletes';
import { handleCreate, handlePatch, handleUpdate } from './writes';

export interface RouterDeps {
  ctx: ServerContext;
  authn: Authenticator;
  authz: Authorizer;
  faults: FaultController;
  stats: ServerStats;
  /** Registers a cleanup for server stop (open watches, hung requests). */
  track(cleanup: () => void): () => void;
  /** The controllers' reconciles, served at /_demo/reconciles when they run. */
  reconciles?: ReconcileLog;
}

export function createRequestListener(d: RouterDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(d, req, res).catch((e: unknown) => {
      // Last resort: a failure while answering. Never let it escape into the server.
      if (!res.headersSent && !res.destroyed) {
        const s = toApiError(e).toStatus();
        res.writeHead(s.code, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(s));
      } else if (!res.writableEnded) res.destroy();
    });
  };
}

async function handle(d: RouterDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { stats } = d;
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://demo.invalid');
  } catch {
    url = new URL('http://demo.invalid/');
  }
  const info = parseRequestInfo(req.method ?? 'GET', url);
  const x = new Exchange(req, res, url, info);
  x.stats = stats;
  const admin = url.pathname.startsWith('/_demo/');
  // GET /version is counted apart from the discovery documents: clients send it as an RTT probe or
  // a version check, and a test of discovery (its cache, its requests) must not count those.
  const verbLabel = admin ? 'admin' : info.isResourceRequest ? String(info.verb) : url.pathname === '/version' ? 'version' : 'discovery';
  stats.requests++;
  stats.inflight++;
  bump(stats.requestsByVerb, verbLabel);
  if (info.isResourceRequest) {
    const res = info.group ? `${info.resource}.${info.group}` : info.resource;
    bump(stats.requestsByResource, res);
    bump(stats.requestsByScope, `${info.verb} ${res}@${info.namespace ?? '*'}`);
  }
  const isWatch = info.verb === 'watch';
  res.on('close', () => {
    stats.inflight--;
    if (!res.writableFinished) {
      if (isWatch) stats.watchesClosedByClient++;
      else stats.abortedRequests++;
    }
  });
  res.on('finish', () => bump(stats.responsesByCode, String(res.statusCode)));

  try {
    x.user = d.authn.authenticate(req);
    x.impersonated = impersonation(req);
    if (x.impersonated) {
      x.user = x.impersonated.user;
      stats.lastImpersonation = x.impersonated;
    }
    if (admin) return await handleAdmin(x, d.faults, stats, d.reconciles);
    const fired = d.faults.pick({
      method: req.method ?? 'GET',
      verb: String(info.verb),
      group: info.group,
      resource: info.resource,
      namespace: info.namespace,
      path: url.pathname,
      hasContinue: !!url.searchParams.get('continue'),
    });
    if (fired.length && (await applyFaults(d, x, fired))) return;
    d.authz.authorize(x.user, info, !!x.impersonated);
    await dispatch(d, x);
  } catch (e) {
    x.error(toApiError(e));
  }
}

/** Applies the fired faults; true when the request has been dealt with (answered, reset or hung). */
async function applyFaults(d: RouterDeps, x: Exchange, fired: FaultRuleState[]): Promise<boolean> {
  d.stats.faultsApplied++;
  for (const f of fired) {
    switch (f.kind) {
      case 'latency':
        await delay(f.latencyMs ?? 1000, x);
        if (x.closed) return true;
        break;
      case 'throttle': {
        const after = f.retryAfterSeconds ?? 1;
        x.error(
          new ApiError(
            429,
            'TooManyRequests',
            'Too many requests, please try again later.',
            { causes: [{ reason: 'TooManyRequests', message: 'injected by the demo cluster' }], retryAfterSeconds: after },
            { 'Retry-After': String(after) },
          ),
        );
        return true;
      }
      case 'error': {
        const code = f.status ?? 500;
        const [reason, message] =
          code === 503
            ? ['ServiceUnavailable', 'the server is currently unable to handle the request']
            : code === 504
              ? ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request']
              : ['InternalError', 'Internal error occurred: injected by the demo cluster'];
        x.error(new ApiError(code, reason, message));
        return true;
      }
      case 'reset':
        x.req.socket.destroy();
        return true;
      case 'hang': {
        // Never answer; the request ends when the client goes away or the server stops.
        const untrack = d.track(() => x.res.destroy());
        x.res.on('close', untrack);
        return true;
      }
      case 'malformed':
        x.malformBody = true;
        break;
      case 'expire-continue':
        x.expireContinue = true;
        break;
      case 'drop-events':
        x.dropEvents = { count: f.dropCount, fraction: f.dropFraction, everyNth: f.dropEveryNth };
        if (f.dropCount === undefined && f.dropFraction === undefined && f.dropEveryNth === undefined) x.dropEvents.count = 1;
        break;
    }
  }
  return false;
}

function delay(ms: number, x: Exchange): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      x.res.off('close', done);
      resolve();
    }
    x.res.on('close', done);
  });
}

async function dispatch(d: RouterDeps, x: Exchange): Promise<void> {
  const { ctx } = d;
  const info = x.info;
  if (!info.isResourceRequest) return discovery(ctx, x);
  switch (info.verb) {
    case 'list':
      return handleList(ctx, x);
    case 'get':
      if (info.group === '' && info.resource === 'pods' && info.subresource === 'log') return handlePodLog(ctx, resolveTarget(ctx, x), x, d.track);
      if (info.subresource === 'scale') return handleScaleGet(ctx, x);
      if (info.subresource && info.subresource !== 'status') throw unsupportedSubresource(ctx, x);
      return handleGet(ctx, x);
    case 'watch': {
      d.stats.openWatches++;
      x.res.on('close', () => d.stats.openWatches--);
      return handleWatch(ctx, x, (end) => {
        const untrack = d.track(end);
        x.res.on('close', untrack);
      });
    }
    case 'create': {
      const t = resolveTarget(ctx, x);
      if (isReview(t) && !info.subresource) return handleReview(t, x, d.authz, d.ctx);
      return handleCreate(ctx, x);
    }
    case 'update':
      if (info.subresource === 'scale') return handleScaleWrite(ctx, x, 'update');
      return handleUpdate(ctx, x);
    case 'patch':
      if (info.subresource === 'scale') return handleScaleWrite(ctx, x, 'patch');
      return handlePatch(ctx, x);
    case 'delete':
      return handleDelete(ctx, x);
    case 'deletecollection':
      return handleDeleteCollection(ctx, x);
    default:
      throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
  }
}

/** /openapi/v3 and its documents, with kube-openapi handler3's caching headers (see openapi.ts). */
async function openAPIV3(ctx: ServerContext, x: Exchange, segments: string[]): Promise<void> {
  if (segments.length === 0) return x.json(200, await openAPIV3Root(ctx.catalog));
  const gv = gvOfSegments(segments);
  const doc = gv && (await openAPIV3Document(ctx.catalog, gv.group, gv.version));
  if (!doc) throw pathNotFound();
  const asked = x.url.searchParams.get('hash');
  const etag = `"${doc.hash}"`;
  if (asked && asked !== doc.hash) {
    if (!x.closed) {
      x.res.writeHead(301, { Location: `/openapi/v3/${segments.join('/')}?hash=${doc.hash}`, 'Cache-Control': 'no-cache, private' });
      x.res.end();
    }
    return;
  }
  const headers: Record<string, string> = { ETag: etag };
  if (asked) Object.assign(headers, { 'Cache-Control': 'public, immutable', Expires: new Date(Date.now() + 365 * 86_400_000).toUTCString(), Vary: 'Accept' });
  if (x.req.headers['if-none-match'] === etag) {
    if (!x.closed) {
      x.res.writeHead(304, { 'Cache-Control': 'no-cache, private', ...headers });
      x.res.end();
    }
    return;
  }
  x.jsonBytes(200, await doc.body(), 'application/json', headers);
}

function unsupportedSubresource(ctx: ServerContext, x: Exchange): ApiError {
  const entry = ctx.catalog.resolve(x.info.group, x.info.version, x.info.resource);
  const declared = entry?.subresources?.some((s) => s.subresource === x.info.subresource);
  return declared ? new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}) : pathNotFound();
}

function discovery(ctx: ServerContext, x: Exchange): void | Promise<void> {
  const method = x.req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') {
    throw new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
  }
  const p = x.info.parts;
  const path = `/${p.join('/')}`;
  if (path === '/version') return x.json(200, versionInfo());
  if (p[0] === 'openapi' && p[1] === 'v3') return openAPIV3(ctx, x, p.slice(2));
  if (path === '/healthz' || path === '/livez' || path === '/readyz') {
    if (!x.closed) {
      x.res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      x.res.end('ok');
    }
    return;
  }
  if (path === '/') {
    return x.json(200, {
      paths: [
        '/api',
        '/api/v1',
        '/apis',
        ...ctx.catalog.groups().flatMap((g) => [`/apis/${g.name}`, ...g.versions.map((v) => `/apis/${g.name}/${v.version}`)]),
        '/healthz',
        '/livez',
        '/readyz',
        '/version',
      ],
    });
  }
  if (p[0] === 'api') {
    if (p.length === 1) {
      const agg = wantsAggregated(x.accept);
      if (agg) return x.json(200, aggregatedList([ctx.catalog.coreGroup()], agg), aggregatedContentType(agg));
      return x.json(200, apiVersions(ctx.serverAddress()));
    }
    if (p.length === 2 && p[1] === 'v1') return x.json(200, apiResourceList('', ctx.catalog.coreGroup().versions[0]!));
    throw pathNotFound();
  }
  if (p[0] === 'apis') {
    if (p.length === 1) {
      const agg = wantsAggregated(x.accept);
      if (agg) return x.json(200, aggregatedList(ctx.catalog.groups(), agg), aggregatedContentType(agg));
      return x.json(200, apiGroupList(ctx.catalog));
    }
    const g = ctx.catalog.group(p[1]!);
    if (!g || !p[1]) throw pathNotFound();
    if (p.length === 2) return x.json(200, apiGroup(g));
    const v = g.versions.find((e) => e.version === p[2]);
    if (p.length === 3 && v) return x.json(200, apiResourceList(g.name, v));
  }
  throw pathNotFound();
}
