/**
 * Kubeconfig loading, one KubeConfig per context.
 *
 * client-node takes auth from the *current* context at request time, so a KubeConfig shared by
 * several contexts would authenticate a request with whatever context was current last. We build a
 * KubeConfig that holds exactly one context (its cluster and user), so its auth can never change.
 *
 * Files: `--kubeconfig FILE` alone when given; else every existing file of $KUBECONFIG (first
 * definition of a name wins, first current-context wins, as kubectl merges); else ~/.kube/config;
 * else in-cluster config when KUBERNETES_SERVICE_HOST is set. Every problem is a KubeConfigError
 * with a message a user can act on.
 */
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig, type Cluster, type Context, type User } from '@kubernetes/client-node';
import { KubeConfigError } from './errors';

export interface KubeContext {
  /** The context name. */
  name: string;
  /** API server URL, without a trailing slash. */
  server: string;
  cluster: Cluster;
  /** Undefined when the context names no user (anonymous). */
  user?: User;
  /** The context's default namespace, if it sets one. */
  namespace?: string;
  /** A KubeConfig holding only this context (current-context = name). */
  kc: KubeConfig;
  /** Where it came from: the file(s) read, or 'in-cluster'. */
  source: string;
}

export interface LoadKubeContextOptions {
  /** Explicit kubeconfig file (like --kubeconfig). */
  kubeconfig?: string;
  /** Context name; default: the config's current-context. */
  context?: string;
  env?: NodeJS.ProcessEnv;
  homeDir?: string;
}

interface Merged {
  clusters: Cluster[];
  users: User[];
  contexts: Context[];
  currentContext: string;
  source: string;
}

function readFile(file: string): KubeConfig {
  if (!existsSync(file)) throw new KubeConfigError(`kubeconfig ${file}: file not found`);
  if (!statSync(file).isFile()) throw new KubeConfigError(`kubeconfig ${file}: not a regular file`);
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(file);
  } catch (e) {
    const msg = e instanceof Error ? e.message.split('\n')[0] : String(e);
    const what = e instanceof Error && e.name === 'YAMLException' ? 'invalid YAML' : 'invalid kubeconfig';
    throw new KubeConfigError(`kubeconfig ${file}: ${what}: ${msg}`);
  }
  if (kc.getContexts().length === 0 && kc.getClusters().length === 0) {
    throw new KubeConfigError(`kubeconfig ${file}: no clusters or contexts in it (empty or not a kubeconfig)`);
  }
  return kc;
}

function merge(files: string[]): Merged {
  const m: Merged = { clusters: [], users: [], contexts: [], currentContext: '', source: files.join(delimiter) };
  const seen = { c: new Set<string>(), u: new Set<string>(), x: new Set<string>() };
  for (const f of files) {
    const kc = readFile(f);
    for (const c of kc.getClusters()) if (!seen.c.has(c.name)) (seen.c.add(c.name), m.clusters.push(c));
    for (const u of kc.getUsers()) if (!seen.u.has(u.name)) (seen.u.add(u.name), m.users.push(u));
    for (const x of kc.getContexts()) if (!seen.x.has(x.name)) (seen.x.add(x.name), m.contexts.push(x));
    if (!m.currentContext && kc.getCurrentContext()) m.currentContext = kc.getCurrentContext();
  }
  return m;
}

function resolveSource(opts: LoadKubeContextOptions): Merged {
  const env = opts.env ?? process.env;
  if (opts.kubeconfig) return merge([opts.kubeconfig]);
  const list = (env.KUBECONFIG ?? '').split(delimiter).filter((p) => p.trim() !== '');
  if (list.length > 0) {
    const present = list.filter((p) => existsSync(p));
    if (present.length === 0) throw new KubeConfigError(`KUBECONFIG names no existing file: ${list.join(delimiter)}`);
    return merge(present);
  }
  const home = join(opts.homeDir ?? env.HOME ?? homedir(), '.kube', 'config');
  if (existsSync(home)) return merge([home]);
  if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT) {
    const kc = new KubeConfig();
    kc.loadFromCluster();
    return { clusters: kc.getClusters(), users: kc.getUsers(), contexts: kc.getContexts(), currentContext: kc.getCurrentContext(), source: 'in-cluster' };
  }
  throw new KubeConfigError(`no kubeconfig: ${home} does not exist and KUBECONFIG is not set (use --kubeconfig FILE)`);
}

/** Names of every context the configuration defines (same file resolution as loadKubeContext). */
export function listContextNames(opts: Omit<LoadKubeContextOptions, 'context'> = {}): { names: string[]; current: string } {
  const m = resolveSource(opts);
  return { names: m.contexts.map((c) => c.name), current: m.currentContext };
}

/** Loads one context into its own KubeConfig. Throws KubeConfigError. */
export function loadKubeContext(opts: LoadKubeContextOptions = {}): KubeContext {
  const m = resolveSource(opts);
  const name = opts.context || m.currentContext;
  if (!name) {
    const known = m.contexts.map((c) => c.name);
    throw new KubeConfigError(`${m.source}: no current-context set; choose one with --context (${known.length ? `known: ${known.join(', ')}` : 'none defined'})`);
  }
  const context = m.contexts.find((c) => c.name === name);
  if (!context) {
    const known = m.contexts.map((c) => c.name);
    throw new KubeConfigError(`${m.source}: unknown context "${name}" (${known.length ? `known: ${known.join(', ')}` : 'no contexts defined'})`);
  }
  const cluster = m.clusters.find((c) => c.name === context.cluster);
  if (!cluster) throw new KubeConfigError(`${m.source}: context "${name}" refers to cluster "${context.cluster}", which is not defined`);
  const user = context.user ? m.users.find((u) => u.name === context.user) : undefined;
  if (context.user && !user) throw new KubeConfigError(`${m.source}: context "${name}" refers to user "${context.user}", which is not defined`);
  if (!/^https?:\/\//.test(cluster.server)) throw new KubeConfigError(`${m.source}: cluster "${cluster.name}" has server "${cluster.server}", which is not an http(s) URL`);
  const kc = new KubeConfig();
  kc.loadFromOptions({ clusters: [cluster], users: user ? [user] : [], contexts: [context], currentContext: name });
  return { name, server: cluster.server.replace(/\/+$/, ''), cluster, user, namespace: context.namespace, kc, source: m.source };
}
