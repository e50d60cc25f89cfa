/**
 * The demo Kubernetes API server: node:http (or node:https with a self-signed certificate) over an
 * ObjectStore. Listening starts in `startApiServer`; `stop()` closes the listener and every open
 * socket (watches and hung requests included) and is idempotent.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { LogStore } from '../kubelet/logs';
import type { DemoObject, ObjectStore } from '../store';
import { Authenticator, Authorizer, type Grant } from './auth';
import type { ReconcileLog } from '../controllers/reconcileLog';
import { Catalog, CRD_GROUP, CRD_RESOURCE } from './catalog';
import type { ServerContext, ServerOptions } from './serverContext';
import { FaultController, type FaultRule } from './faults';
import { createRequestListener } from './router';
import { SnapshotCache } from './snapshots';
import { newStats, type ServerStats } from './stats';
import { selfSignedCert } from './tls';

export interface ApiServerOptions {
  store: ObjectStore;
  host?: string;
  port?: number;
  tls?: boolean;
  token?: string;
  forbidden?: string[];
  /** RBAC-style grants of named users (see Grant in auth.ts). */
  grants?: (Grant | string)[];
  faults?: FaultRule[] | string;
  continueTtlMs?: number;
  bookmarkIntervalMs?: number;
  defaultWatchTimeoutSeconds?: number;
  /** See ServerOptions.gracefulPodDeletion (default false). */
  gracefulPodDeletion?: boolean;
  /** See ServerOptions.garbageCollector (default false). */
  garbageCollector?: boolean;
  now?: () => Date;
  signal?: AbortSignal;
  /** Served at /_demo/reconciles (the controllers' reconciles, for clients in other processes). */
  reconciles?: ReconcileLog;
  /** Containers' logs the kubelet simulation writes (default: an empty store; adopted pods' logs come from their spec). */
  logs?: LogStore;
}

export interface ApiServer {
  url: string;
  host: string;
  port: number;
  /** PEM of the serving certificate (also the CA to trust), when TLS is on. */
  caCert?: string;
  catalog: Catalog;
  faults: FaultController;
  stats: ServerStats;
  authn: Authenticator;
  options: ServerOptions;
  stop(): Promise<void>;
}

export async function startApiServer(o: ApiServerOptions): Promise<ApiServer> {
  const host = o.host ?? '127.0.0.1';
  const store = o.store;
  const catalog = new Catalog(store);
  catalog.registerBuiltins();
  // CRDs written at any time (start-up or through the API) make their types servable.
  const unsubscribe = store.subscribe((e) => {
    if (e.group === CRD_GROUP && e.resource === CRD_RESOURCE && e.type !== 'DELETED') {
      catalog.registerCRD(e.object);
      establishLater(store, e.object);
    }
  });
  for (const crd of store.list(CRD_GROUP, CRD_RESOURCE).items) catalog.registerCRD(crd);

  const options: ServerOptions = {
    continueTtlMs: o.continueTtlMs ?? 5 * 60_000,
    bookmarkIntervalMs: o.bookmarkIntervalMs ?? 10_000,
    defaultWatchTimeoutSeconds: o.defaultWatchTimeoutSeconds ?? 1800,
    gracefulPodDeletion: o.gracefulPodDeletion ?? false,
    garbageCollector: o.garbageCollector ?? false,
    now: o.now ?? (() => new Date()),
  };
  const snapshots = new SnapshotCache(() => options.continueTtlMs);
  let address = '';
  const ctx: ServerContext = { store, catalog, snapshots, options, logs: o.logs ?? new LogStore(), serverAddress: () => address };
  const faults = new FaultController(o.faults ?? []);
  const stats = newStats();
  const authn = new Authenticator(o.token);
  const authz = new Authorizer(o.forbidden, o.grants);
  const cleanups = new Set<() => void>();
  const track = (fn: () => void) => {
    cleanups.add(fn);
    return () => {
      cleanups.delete(fn);
    };
  };
  const listener = createRequestListener({ ctx, authn, authz, faults, stats, track, ...(o.reconciles ? { reconciles: o.reconciles } : {}) });

  let caCert: string | undefined;
  let server: Server;
  if (o.tls) {
    const { cert, key } = await selfSignedCert(host, o.signal);
    caCert = cert;
    server = createHttpsServer({ cert, key }, listener);
  } else {
    server = createHttpServer(listener);
  }
  // Long watches are the point; node's default request timeouts would cut them.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 60_000;

  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    stats.openConnections++;
    stats.totalConnections++;
    s.on('close', () => {
      sockets.delete(s);
      stats.openConnections--;
    });
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  address = `${urlHost}:${port}`;

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= new Promise<void>((resolve) => {
      unsubscribe();
      snapshots.clear();
      for (const fn of [...cleanups]) {
        try {
          fn();
        } catch {
          // stopping: nothing to report to
        }
      }
      cleanups.clear();
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
      server.closeAllConnections?.();
    });
    return stopping;
  };
  if (o.signal) {
    if (o.signal.aborted) await stop();
    else o.signal.addEventListener('abort', () => void stop(), { once: true });
  }
  return { url: `${o.tls ? 'https' : 'http'}://${address}`, host, port, caCert, catalog, faults, stats, authn, options, stop };
}

/** A custom resource type declared at start-up. */
export interface DemoCRD {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  singular?: string;
  shortNames?: string[];
}

/** A CustomResourceDefinition object for a type declared at start-up. */
export function crdObject(c: DemoCRD): DemoObject {
  const singular = c.singular ?? c.kind.toLowerCase();
  const names: Record<string, unknown> = { plural: c.plural, singular, kind: c.kind, listKind: `${c.kind}List` };
  if (c.shortNames?.length) names.shortNames = c.shortNames;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${c.plural}.${c.group}` },
    spec: {
      group: c.group,
      names,
      scope: c.namespaced ? 'Namespaced' : 'Cluster',
      versions: [
        {
          name: c.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          subresources: { status: {} },
        },
      ],
    },
    status: crdEstablishedStatus(names, c.version),
  };
}

/**
 * The status apiextensions-apiserver's controllers give a CRD whose names are free: NamesAccepted
 * and Established, the names accepted as asked, the storage version recorded.
 */
function crdEstablishedStatus(names: unknown, storageVersion: string | undefined): Record<string, unknown> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    acceptedNames: names,
    storedVersions: storageVersion ? [storageVersion] : [],
    conditions: [
      { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: now },
      { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: now },
    ],
  };
}

function isEstablished(crd: DemoObject): boolean {
  const conds = ((crd.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []) as { type?: string; status?: string }[];
  return conds.some((c) => c.type === 'Established' && c.status === 'True');
}

/**
 * As the apiextensions controllers do a moment after a CRD is created through the API (kubectl
 * apply, client-go's dynamic client): mark it Established so clients waiting for that proceed.
 * Runs after the write that created it (a microtask), never inside the store's write.
 */
function establishLater(store: ObjectStore, crd: DemoObject): void {
  if (isEstablished(crd)) return;
  const name = crd.metadata.name;
  queueMicrotask(() => {
    const cur = store.get(CRD_GROUP, CRD_RESOURCE, undefined, name);
    if (!cur || isEstablished(cur) || cur.metadata.deletionTimestamp) return;
    const spec = (cur.spec ?? {}) as { names?: unknown; versions?: { name?: string; storage?: boolean }[] };
    const storage = spec.versions?.find((v) => v.storage)?.name;
    store.update(CRD_GROUP, CRD_RESOURCE, { ...cur, status: crdEstablishedStatus(spec.names, storage) }, { subresource: 'status' });
  });
}
