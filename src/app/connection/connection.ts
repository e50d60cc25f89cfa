/**
 * Which cluster the extension talks to, and the one KubeClient it uses for it. No 'vscode' import.
 *
 * A ConnectionTarget is a kubeconfig (a file, or the default resolution: $KUBECONFIG, then
 * ~/.kube/config) plus a context name (or the kubeconfig's current-context). Core's loadKubeContext
 * builds one KubeConfig per context, so credentials can never mix between contexts.
 *
 * Guarantees:
 * - `Connections.get()` opens at most one client per target at a time and hands the same client to
 *   every caller until the target changes or `close()`; the replaced client is closed (no socket
 *   outlives it).
 * - Every failure is a ConnectionProblem value with a message a user can act on; credentials never
 *   appear in it (core's errors carry paths, statuses and the server's Status message only).
 */
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { credentialsWithheld } from '../../core/kube/transport/auth';
import type { Logger } from '../logger';
import { KubeClient } from '../../core/kube/client';
import { KubeApiError, KubeConfigError, KubeTransportError } from '../../core/kube/errors';
import { listContextNames, loadKubeContext, type KubeContext } from '../../core/kube/config/kubeconfig';
import { redactUrl, redactUrlsIn } from '../../core/kube/redactUrl';

export interface ConnectionTarget {
  /** Kubeconfig file; undefined = $KUBECONFIG, then ~/.kube/config. */
  kubeconfig?: string;
  /** Context name; undefined = the kubeconfig's current-context. */
  context?: string;
  /** Set when the target is the embedded demo cluster the extension started. */
  demo?: boolean;
}

export function expandHome(path: string, home = homedir()): string {
  return path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

export function sameTarget(a: ConnectionTarget | undefined, b: ConnectionTarget | undefined): boolean {
  return !!a && !!b && a.kubeconfig === b.kubeconfig && a.context === b.context && !!a.demo === !!b.demo;
}

/** The kubeconfig files a target reads (what "Open kubeconfig" offers), existing or not. */
export function kubeconfigFiles(target: ConnectionTarget, env: NodeJS.ProcessEnv = process.env, home = homedir()): string[] {
  if (target.kubeconfig) return [target.kubeconfig];
  const list = (env.KUBECONFIG ?? '').split(delimiter).filter((p) => p.trim() !== '');
  return list.length > 0 ? list : [join(home, '.kube', 'config')];
}

export function loadContext(target: ConnectionTarget): KubeContext {
  return loadKubeContext({ ...(target.kubeconfig ? { kubeconfig: target.kubeconfig } : {}), ...(target.context ? { context: target.context } : {}) });
}

export function listContexts(target: ConnectionTarget): { names: string[]; current: string } {
  return listContextNames(target.kubeconfig ? { kubeconfig: target.kubeconfig } : {});
}

export type ProblemKind = 'kubeconfig' | 'unreachable' | 'unauthorized' | 'other';

export interface ConnectionProblem {
  kind: ProblemKind;
  message: string;
}

/** A failure to connect (or to discover) in words a user can act on; no URL in it keeps its user info (redactUrl.ts). */
export function describeConnectionError(e: unknown, where?: { context?: string; server?: string }): ConnectionProblem {
  const p = connectionProblem(e, where);
  return { kind: p.kind, message: redactUrlsIn(p.message) };
}

function connectionProblem(e: unknown, where?: { context?: string; server?: string }): ConnectionProblem {
  const at = where?.server
    ? ` at ${redactUrl(where.server)}${where.context ? ` (context "${where.context}")` : ''}`
    : where?.context
      ? ` of context "${where.context}"`
      : '';
  if (e instanceof KubeConfigError) return { kind: 'kubeconfig', message: `Kubeconfig problem: ${e.message}` };
  if (e instanceof KubeTransportError) {
    const what =
      e.kind === 'timeout'
        ? 'did not answer in time'
        : e.kind === 'tls'
          ? 'failed the TLS handshake'
          : e.kind === 'connect'
            ? 'cannot be reached'
            : 'broke the connection';
    return { kind: 'unreachable', message: `The API server${at} ${what}: ${e.message}` };
  }
  if (e instanceof KubeApiError) {
    if (e.status === 401 || e.status === 403)
      return { kind: 'unauthorized', message: `The API server${at} refused the request: ${e.status} ${e.reason}: ${e.message}` };
    return { kind: 'other', message: `The API server${at} answered ${e.status} ${e.reason}: ${e.message}` };
  }
  const text = e instanceof Error ? e.message : String(e);
  return { kind: 'other', message: `Cannot talk to the cluster${at}: ${text}` };
}

export interface OpenConnection {
  target: ConnectionTarget;
  context: KubeContext;
  client: KubeClient;
}

/** Holds the one client of the current target. */
export class Connections {
  private current: { target: ConnectionTarget; opening: Promise<OpenConnection> } | undefined;
  /** The withheld-credentials lines said already: each once, however often its context is reopened. */
  private readonly warned = new Set<string>();

  constructor(
    private readonly options: () => { requestTimeoutMs: number; discoveryCache?: boolean },
    /** Told once per context whose credentials are not sent (an http:// server: auth.ts). */
    private readonly log?: Pick<Logger, 'warn'>,
  ) {}

  /** The open connection for `target` (opening it, or replacing another target's). Throws KubeConfigError. */
  get(target: ConnectionTarget): Promise<OpenConnection> {
    if (this.current && sameTarget(this.current.target, target)) return this.current.opening;
    this.close();
    const opening = (async (): Promise<OpenConnection> => {
      const context = loadContext(target);
      const withheld = credentialsWithheld(context);
      if (withheld && !this.warned.has(withheld)) {
        this.warned.add(withheld);
        this.log?.warn(withheld);
      }
      const o = this.options();
      const client = await KubeClient.connect(context, { requestTimeoutMs: o.requestTimeoutMs, discoveryCache: o.discoveryCache ?? false });
      return { target, context, client };
    })();
    const entry = { target, opening };
    this.current = entry;
    // A failed open is not cached: the next get() tries again (the user may have fixed the file).
    opening.catch(() => {
      if (this.current === entry) this.current = undefined;
    });
    return opening;
  }

  /** The open connection if it is for `target` and already open. */
  async peek(target: ConnectionTarget): Promise<OpenConnection | undefined> {
    if (!this.current || !sameTarget(this.current.target, target)) return undefined;
    return this.current.opening.catch(() => undefined);
  }

  close(): void {
    const c = this.current;
    this.current = undefined;
    c?.opening.then(
      (o) => o.client.close(),
      () => undefined,
    );
  }
}

/** Names of the cluster's namespaces (one paged, metadata-only list). */
/** The cluster's node names, sorted (one metadata-only list: the quick pick of Sync Loop: Choose Node). */
export async function listNodes(client: KubeClient, signal: AbortSignal): Promise<string[]> {
  const l = await client.list({ group: '', version: 'v1', resource: 'nodes' }, { limit: 500, metadataOnly: true }, { signal });
  return l.items
    .map((o) => o.metadata.name ?? '')
    .filter(Boolean)
    .sort();
}

export async function listNamespaces(client: KubeClient, signal: AbortSignal): Promise<string[]> {
  const l = await client.list({ group: '', version: 'v1', resource: 'namespaces' }, { limit: 500, metadataOnly: true }, { signal });
  return l.items
    .map((o) => o.metadata.name ?? '')
    .filter(Boolean)
    .sort();
}

export interface NamespaceChoices {
  names: string[];
  /** 'cluster': the cluster's namespaces; 'known': the user may not list them (403), these are the ones known. */
  source: 'cluster' | 'known';
  /** Why the list is what it is, for the picker's title (set when source is 'known'). */
  note?: string;
}

/**
 * The namespaces to offer in Select Namespaces. A user who may not list namespaces (403; common for
 * a namespace-scoped Role) is offered what is known without listing: the context's namespace (or
 * "default", as kubectl), the chosen ones, and those the loaded tree holds objects in; the picker
 * then lets them type others. Other failures throw, as listNamespaces does.
 */
export async function namespaceChoices(client: KubeClient, context: KubeContext, known: string[], signal: AbortSignal): Promise<NamespaceChoices> {
  try {
    return { names: await listNamespaces(client, signal), source: 'cluster' };
  } catch (e) {
    if (!(e instanceof KubeApiError) || e.status !== 403) throw e;
    const names = [...new Set([context.namespace || 'default', ...known])].filter(Boolean).sort();
    return { names, source: 'known', note: `you may not list namespaces in "${context.name}" (403 Forbidden): pick a known one, or type a namespace name` };
  }
}
