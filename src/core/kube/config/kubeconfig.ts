/**
 * Kubeconfig loading, one KubeConfig per context.
 *
 * client-node takes auth from the *current* context at request time, so a KubeConfig shared by
 * several contexts would authenticate a request with whatever context was current last. We build a
 * KubeConfig that holds exactly one context (its cluster and user), so its auth can never change.
 *
 * Files, as kubectl (client-go's clientcmd loading rules) finds and merges them:
 * - `--kubeconfig FILE` alone when given; else every existing file of $KUBECONFIG, in order (missing
 *   ones skipped); else ~/.kube/config; else in-cluster config when KUBERNETES_SERVICE_HOST is set.
 * - Merging: clusters, users and contexts are maps by name, and the first file that defines a name
 *   wins it whole (an entry is never merged field by field with a later file's); current-context
 *   comes from the first file that sets one; preferences field by field, first setter wins
 *   (extensions by name, likewise).
 * - Relative paths are resolved against the folder of the file that holds them, before merging:
 *   certificate-authority, client-certificate, client-key, token-file, and an exec command that
 *   contains a path separator (a bare command name is looked up on PATH when it runs, as kubectl).
 *
 * client-node's own loading differs (its KUBECONFIG merge, token-file read relative to the working
 * directory, no `as-groups` / `as-uid` / `as-user-extra`), so the files are read here and client-node
 * is handed only the chosen context's entries. Every problem is a KubeConfigError with a message a
 * user can act on, and never a credential.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import { KubeConfig, type Cluster, type Context, type User } from '@kubernetes/client-node';
import { KubeConfigError } from '../errors';
import { redactUrl } from '../redactUrl';

/** Impersonation the context's user asks for (kubeconfig `as`, `as-uid`, `as-groups`, `as-user-extra`). */
export interface Impersonation {
  user: string;
  uid?: string;
  groups: string[];
  extra: Record<string, string[]>;
}

/** A user's `exec` credential plugin (client.authentication.k8s.io), its command already resolved. */
export interface ExecConfig {
  apiVersion: string;
  /** Absolute when the kubeconfig gave a path; a bare name is looked up on PATH. */
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  provideClusterInfo: boolean;
  interactiveMode: 'Never' | 'IfAvailable' | 'Always';
  installHint?: string;
}

export interface KubeContext {
  /** The context name. */
  name: string;
  /** API server URL, without a trailing slash. */
  server: string;
  cluster: Cluster;
  /** Undefined when the context names no user (anonymous); the cluster's TLS settings apply all the same. */
  user?: User;
  /** The context's default namespace, if it sets one. */
  namespace?: string;
  /** Set when the user entry impersonates someone. */
  impersonate?: Impersonation;
  /**
   * The user's token-file (absolute), when it has no token: `user.token` holds what the file said
   * when it was read; ../transport/auth.ts reads it again as it rotates (a projected service-account token does).
   */
  tokenFile?: string;
  /** Set when the user entry runs an exec credential plugin. */
  exec?: ExecConfig;
  /**
   * What an exec plugin with provideClusterInfo learns beyond client-node's Cluster: the cluster's
   * `client.authentication.k8s.io/exec` extension (spec.cluster.config) and disable-compression.
   */
  execClusterExtras?: { config?: unknown; disableCompression?: boolean };
  /** The cluster entry's `disable-compression: true` (client-go's rest.Config.DisableCompression): never ask for gzip. */
  disableCompression?: boolean;
  /** The merged `preferences` (kubectl's; nothing here acts on them). */
  preferences: Record<string, unknown>;
  /** A KubeConfig holding only this context (current-context = name). */
  kc: KubeConfig;
  /** Where it came from: the file(s) read, or 'in-cluster'. */
  source: string;
  /**
   * The context's `kubeloop.dev/kubelet-logs` extension: node name -> the absolute path of that
   * node's kubelet log on this machine. Written by the lab (`npm run lab`) for its hollow nodes; a
   * real cluster's kubelet logs are not on a workstation, so its contexts have none.
   */
  kubeletLogs?: Record<string, string>;
}

/** The name of the context extension that says where a node's kubelet log is (see KubeContext.kubeletLogs). */
export const KUBELET_LOGS_EXTENSION = 'kubeloop.dev/kubelet-logs';

/** The extension's node -> path map, keeping only node names and absolute paths (anything else is ignored). */
function kubeletLogsOf(contextBody: Obj): Record<string, string> | undefined {
  const exts = Array.isArray(contextBody.extensions) ? contextBody.extensions : [];
  const ext = exts.find((e): e is Obj => isObj(e) && e.name === KUBELET_LOGS_EXTENSION)?.extension;
  if (!isObj(ext)) return undefined;
  const out: Record<string, string> = {};
  for (const [node, p] of Object.entries(ext)) if (/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(node) && typeof p === 'string' && p.startsWith('/')) out[node] = p;
  return Object.keys(out).length ? out : undefined;
}

export interface LoadKubeContextOptions {
  /** Explicit kubeconfig file (like --kubeconfig). */
  kubeconfig?: string;
  /** Context name; default: the config's current-context. */
  context?: string;
  env?: NodeJS.ProcessEnv;
  homeDir?: string;
}

type Obj = Record<string, unknown>;
interface Named {
  name: string;
  /** The entry's body (`cluster:`, `user:`, `context:`), paths already absolute. */
  body: Obj;
  file: string;
}

interface Merged {
  clusters: Map<string, Named>;
  users: Map<string, Named>;
  contexts: Map<string, Named>;
  currentContext: string;
  preferences: Obj;
  source: string;
  /** Set for in-cluster config: already a KubeConfig. */
  inCluster?: KubeConfig;
}

const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

function entries(file: string, doc: Obj, key: 'clusters' | 'users' | 'contexts', body: 'cluster' | 'user' | 'context'): Named[] {
  const list = doc[key];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new KubeConfigError(`kubeconfig ${file}: invalid kubeconfig: ${key} is not a list`);
  return list.map((e, i) => {
    if (!isObj(e) || typeof e.name !== 'string' || e.name === '')
      throw new KubeConfigError(`kubeconfig ${file}: invalid kubeconfig: ${key}[${i}].name is missing`);
    const b = e[body];
    if (b !== undefined && b !== null && !isObj(b)) throw new KubeConfigError(`kubeconfig ${file}: invalid kubeconfig: ${key}[${i}].${body} is not a mapping`);
    if (body === 'cluster' && !b) throw new KubeConfigError(`kubeconfig ${file}: invalid kubeconfig: ${key}[${i}].cluster is missing`);
    if (body === 'cluster' && (typeof b!.server !== 'string' || !b!.server))
      throw new KubeConfigError(`kubeconfig ${file}: invalid kubeconfig: ${key}[${i}].cluster.server is missing`);
    return { name: e.name, body: { ...(b ?? {}) }, file };
  });
}

/** clientcmd's ResolveLocalPaths: a relative path in a file is relative to that file's folder. */
function resolvePaths(dir: string, n: Named, kind: 'cluster' | 'user'): void {
  const abs = (k: string) => {
    const v = n.body[k];
    if (typeof v === 'string' && v !== '' && !isAbsolute(v)) n.body[k] = resolve(dir, v);
  };
  if (kind === 'cluster') abs('certificate-authority');
  else {
    for (const k of ['client-certificate', 'client-key', 'token-file']) abs(k);
    const exec = n.body.exec;
    if (isObj(exec) && typeof exec.command === 'string' && exec.command.includes(sep) && !isAbsolute(exec.command)) {
      n.body.exec = { ...exec, command: resolve(dir, exec.command) };
    }
  }
}

function readDoc(file: string): Obj {
  if (!existsSync(file)) throw new KubeConfigError(`kubeconfig ${file}: file not found`);
  if (!statSync(file).isFile()) throw new KubeConfigError(`kubeconfig ${file}: not a regular file`);
  let doc: unknown;
  try {
    doc = loadYaml(readFileSync(file, 'utf8'));
  } catch (e) {
    const msg = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new KubeConfigError(`kubeconfig ${file}: invalid YAML: ${msg}`);
  }
  if (doc === undefined || doc === null) throw new KubeConfigError(`kubeconfig ${file}: no clusters or contexts in it (empty or not a kubeconfig)`);
  if (!isObj(doc)) throw new KubeConfigError(`kubeconfig ${file}: invalid kubeconfig: not a mapping`);
  return doc;
}

function merge(files: string[]): Merged {
  const m: Merged = { clusters: new Map(), users: new Map(), contexts: new Map(), currentContext: '', preferences: {}, source: files.join(delimiter) };
  for (const file of files) {
    const doc = readDoc(file);
    const dir = dirname(resolve(file));
    const clusters = entries(file, doc, 'clusters', 'cluster');
    const users = entries(file, doc, 'users', 'user');
    const contexts = entries(file, doc, 'contexts', 'context');
    if (clusters.length === 0 && contexts.length === 0 && users.length === 0) {
      throw new KubeConfigError(`kubeconfig ${file}: no clusters or contexts in it (empty or not a kubeconfig)`);
    }
    for (const c of clusters) if (!m.clusters.has(c.name)) (resolvePaths(dir, c, 'cluster'), m.clusters.set(c.name, c));
    for (const u of users) if (!m.users.has(u.name)) (resolvePaths(dir, u, 'user'), m.users.set(u.name, u));
    for (const x of contexts) if (!m.contexts.has(x.name)) m.contexts.set(x.name, x);
    const cur = doc['current-context'];
    if (!m.currentContext && typeof cur === 'string' && cur) m.currentContext = cur;
    if (isObj(doc.preferences)) mergePreferences(m.preferences, doc.preferences);
  }
  return m;
}

/** Preferences are a struct in clientcmd: each field from the first file that sets it; extensions by name. */
function mergePreferences(into: Obj, p: Obj): void {
  for (const [k, v] of Object.entries(p)) {
    if (k === 'extensions' && Array.isArray(v)) {
      const have = (into.extensions as { name?: unknown }[] | undefined) ?? [];
      const names = new Set(have.map((e) => e?.name));
      into.extensions = [...have, ...v.filter((e) => isObj(e) && !names.has(e.name))];
    } else if (into[k] === undefined && v !== undefined && v !== null && v !== '' && v !== false) into[k] = v;
  }
}

function resolveSource(opts: LoadKubeContextOptions): Merged {
  const env = opts.env ?? process.env;
  if (opts.kubeconfig) return merge([opts.kubeconfig]);
  const list = (env.KUBECONFIG ?? '').split(delimiter).filter((p) => p.trim() !== '');
  if (list.length > 0) {
    // clientcmd: a file named twice is read once, at its first place
    const present = [...new Set(list)].filter((p) => existsSync(p));
    if (present.length === 0) throw new KubeConfigError(`KUBECONFIG names no existing file: ${list.join(delimiter)}`);
    return merge(present);
  }
  const home = join(opts.homeDir ?? env.HOME ?? homedir(), '.kube', 'config');
  if (existsSync(home)) return merge([home]);
  if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT) {
    const kc = new KubeConfig();
    kc.loadFromCluster();
    const m: Merged = {
      clusters: new Map(),
      users: new Map(),
      contexts: new Map(),
      currentContext: kc.getCurrentContext(),
      preferences: {},
      source: 'in-cluster',
      inCluster: kc,
    };
    for (const x of kc.getContexts()) m.contexts.set(x.name, { name: x.name, body: {}, file: 'in-cluster' });
    return m;
  }
  throw new KubeConfigError(`no kubeconfig: ${home} does not exist and KUBECONFIG is not set (use --kubeconfig FILE)`);
}

/** Names of every context the configuration defines (same file resolution as loadKubeContext). */
export function listContextNames(opts: Omit<LoadKubeContextOptions, 'context'> = {}): { names: string[]; current: string } {
  const m = resolveSource(opts);
  return { names: [...m.contexts.keys()], current: m.currentContext };
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : typeof v === 'string' ? [v] : [];
}

/** The user entry's impersonation, or a clear error where kubectl's would be refused by the server. */
function impersonationOf(where: string, u: Obj): Impersonation | undefined {
  const user = typeof u.as === 'string' ? u.as : '';
  const uid = typeof u['as-uid'] === 'string' && u['as-uid'] ? u['as-uid'] : undefined;
  const groups = strings(u['as-groups']);
  const extra: Record<string, string[]> = {};
  if (isObj(u['as-user-extra'])) for (const [k, v] of Object.entries(u['as-user-extra'])) extra[k] = strings(v);
  const asksMore = uid !== undefined || groups.length > 0 || Object.keys(extra).length > 0;
  if (!user) {
    if (asksMore)
      throw new KubeConfigError(`${where}: as-uid, as-groups and as-user-extra impersonate only together with "as" (the user name); set "as" or remove them`);
    return undefined;
  }
  return { user, uid, groups, extra };
}

function execOf(where: string, u: Obj): ExecConfig | undefined {
  const e = u.exec;
  if (e === undefined || e === null) return undefined;
  if (!isObj(e) || typeof e.command !== 'string' || !e.command) throw new KubeConfigError(`${where}: exec.command is missing`);
  const apiVersion = typeof e.apiVersion === 'string' ? e.apiVersion : '';
  if (!/^client\.authentication\.k8s\.io\/(v1|v1beta1)$/.test(apiVersion)) {
    throw new KubeConfigError(`${where}: exec.apiVersion "${apiVersion}" is not supported (use client.authentication.k8s.io/v1 or v1beta1)`);
  }
  const mode = typeof e.interactiveMode === 'string' && e.interactiveMode ? e.interactiveMode : apiVersion.endsWith('/v1') ? '' : 'IfAvailable';
  if (!['Never', 'IfAvailable', 'Always'].includes(mode))
    throw new KubeConfigError(`${where}: exec.interactiveMode must be Never, IfAvailable or Always (v1 requires it)`);
  const env = Array.isArray(e.env) ? e.env.filter(isObj).map((x) => ({ name: String(x.name ?? ''), value: String(x.value ?? '') })) : [];
  return {
    apiVersion,
    command: e.command,
    args: strings(e.args),
    env,
    provideClusterInfo: e.provideClusterInfo === true,
    interactiveMode: mode as ExecConfig['interactiveMode'],
    installHint: typeof e.installHint === 'string' ? e.installHint : undefined,
  };
}

/** Loads one context into its own KubeConfig. Throws KubeConfigError. */
export function loadKubeContext(opts: LoadKubeContextOptions = {}): KubeContext {
  return contextOf(resolveSource(opts), opts.context);
}

/**
 * Several contexts of one configuration, its files read and parsed once (a load of five contexts
 * parsed the same YAML five times, before any of them could connect). One entry per name, in order:
 * the context, or the KubeConfigError loadKubeContext would have thrown for it. Throws only what
 * reading the configuration itself throws (no file, invalid YAML).
 */
export function loadKubeContexts(opts: Omit<LoadKubeContextOptions, 'context'>, names: readonly string[]): (KubeContext | KubeConfigError)[] {
  const m = resolveSource(opts);
  return names.map((name) => {
    try {
      return contextOf(m, name);
    } catch (e) {
      if (e instanceof KubeConfigError) return e;
      throw e;
    }
  });
}

function contextOf(m: Merged, wanted: string | undefined): KubeContext {
  const name = wanted || m.currentContext;
  const known = [...m.contexts.keys()];
  if (!name) {
    throw new KubeConfigError(
      `${m.source}: no current-context set; choose one with --context (${known.length ? `known: ${known.join(', ')}` : 'none defined'})`,
    );
  }
  const context = m.contexts.get(name);
  if (!context) {
    throw new KubeConfigError(`${m.source}: unknown context "${name}" (${known.length ? `known: ${known.join(', ')}` : 'no contexts defined'})`);
  }
  if (m.inCluster) return inClusterContext(m, name);
  const clusterName = typeof context.body.cluster === 'string' ? context.body.cluster : '';
  const cluster = m.clusters.get(clusterName);
  if (!cluster) throw new KubeConfigError(`${m.source}: context "${name}" refers to cluster "${clusterName}", which is not defined`);
  // A context without a user (key missing or empty) is anonymous; its cluster's TLS still applies.
  const userName = typeof context.body.user === 'string' ? context.body.user : '';
  const user = userName ? m.users.get(userName) : undefined;
  if (userName && !user) throw new KubeConfigError(`${m.source}: context "${name}" refers to user "${userName}", which is not defined`);
  const server = String(cluster.body.server);
  if (!/^https?:\/\//.test(server))
    throw new KubeConfigError(`${m.source}: cluster "${cluster.name}" has server "${redactUrl(server)}", which is not an http(s) URL`);
  const where = `${user?.file ?? m.source}: user "${userName}"`;
  const impersonate = user ? impersonationOf(where, user.body) : undefined;
  const exec = user ? execOf(where, user.body) : undefined;

  const kc = new KubeConfig();
  const userBody = user ? { ...user.body } : undefined;
  if (userBody && exec) delete userBody.exec; // run by exec.ts, never by client-node
  try {
    kc.loadFromString(
      JSON.stringify({
        clusters: [{ name: cluster.name, cluster: cluster.body }],
        users: user ? [{ name: user.name, user: userBody }] : [],
        contexts: [{ name, context: context.body }],
        'current-context': name,
      }),
    );
  } catch (e) {
    // e.g. an unreadable token-file (the message names the file, never its content)
    const msg = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new KubeConfigError(`${m.source}: context "${name}": ${msg}`);
  }
  const ns = typeof context.body.namespace === 'string' && context.body.namespace ? context.body.namespace : undefined;
  const extensions = Array.isArray(cluster.body.extensions) ? cluster.body.extensions : [];
  const execExt = extensions.find((e): e is Obj => isObj(e) && e.name === 'client.authentication.k8s.io/exec');
  const execClusterExtras = exec ? { config: execExt?.extension, disableCompression: cluster.body['disable-compression'] === true || undefined } : undefined;
  const disableCompression = cluster.body['disable-compression'] === true || undefined;
  const kubeletLogs = kubeletLogsOf(context.body);
  // clientcmd: a token wins over a token-file
  const tokenFile = !user?.body.token && typeof user?.body['token-file'] === 'string' && user.body['token-file'] ? user.body['token-file'] : undefined;
  return {
    name,
    server: server.replace(/\/+$/, ''),
    cluster: kc.getCurrentCluster()!,
    user: kc.getCurrentUser() ?? undefined,
    namespace: ns,
    impersonate,
    ...(tokenFile ? { tokenFile } : {}),
    exec,
    execClusterExtras,
    disableCompression,
    preferences: m.preferences,
    kc,
    source: m.source,
    ...(kubeletLogs ? { kubeletLogs } : {}),
  };
}

function inClusterContext(m: Merged, name: string): KubeContext {
  const kc = m.inCluster!;
  kc.setCurrentContext(name);
  const cluster = kc.getCurrentCluster()!;
  const user = kc.getCurrentUser() ?? undefined;
  const ctx = kc.getContextObject(name) as Context | null;
  return { name, server: cluster.server.replace(/\/+$/, ''), cluster, user, namespace: ctx?.namespace, preferences: {}, kc, source: m.source };
}
