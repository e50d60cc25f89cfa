import { KubeConfig } from '@kubernetes/client-node';
import * as http from 'node:http';
import * as https from 'node:https';

/** One listable resource type as the peers need it (preferred version of each group). */
export interface BenchType {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
}

/**
 * The types every contender lists: events.events.k8s.io is left out, as KubeLoop leaves it out by
 * default (kube-apiserver serves the same Event objects as core events), so all of them list the
 * same objects once.
 */
export function withoutEventAlias(types: BenchType[]): BenchType[] {
  return types.filter((t) => !(t.group === 'events.k8s.io' && t.resource === 'events'));
}

/** The path that lists a type across all namespaces. */
export function listPath(t: BenchType): string {
  return t.group === '' ? `/api/${t.version}/${t.resource}` : `/apis/${t.group}/${t.version}/${t.resource}`;
}

/** kubectl's name for a type: `pods`, `deployments.apps`, `widgets.v1.example.com` is not needed. */
export function kubectlName(t: BenchType): string {
  return t.group === '' ? t.resource : `${t.resource}.${t.group}`;
}

/** kubectl's arguments for the bench's peer run: every type, all namespaces, JSON, pages of `chunk`. */
export function kubectlGetAllArgs(kubeconfig: string, types: BenchType[], chunk: number): string[] {
  return ['--kubeconfig', kubeconfig, 'get', types.map(kubectlName).join(','), '-A', '-o', 'json', `--chunk-size=${chunk}`];
}

/**
 * Request options (server address, auth headers, TLS material) built by client-node from a kubeconfig,
 * so every peer authenticates exactly as the real clients do.
 */
export async function requestBase(kubeconfigPath: string): Promise<{ server: URL; options: https.RequestOptions }> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`${kubeconfigPath}: no current cluster`);
  const options: https.RequestOptions = { headers: {} };
  await kc.applyToHTTPSOptions(options);
  return { server: new URL(cluster.server), options };
}

export function getJson(base: { server: URL; options: https.RequestOptions }, path: string, agent: http.Agent): Promise<any> {
  const mod = base.server.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      new URL(path, base.server),
      { ...base.options, agent, headers: { ...(base.options.headers as object), accept: 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) >= 300) return reject(new Error(`GET ${path}: ${res.statusCode} ${text.slice(0, 200)}`));
          try {
            resolve(JSON.parse(text));
          } catch (e) {
            reject(e);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * `namespace/name` of every object a list path returns, in pages of `limit`: one
 * unpaged GET of the scale-limit's 150,000 pods was a body the demo could not make a string of
 * (500 "Invalid string length").
 */
export async function namespacedNames(base: { server: URL; options: https.RequestOptions }, path: string, agent: http.Agent, limit = 5000): Promise<string[]> {
  // A continue token can expire mid-walk (410 Gone): the walk starts over, as client-go's pager
  // falls back to a fresh list, at most three times.
  for (let attempt = 0; ; attempt++) {
    const out: string[] = [];
    let token = '';
    try {
      do {
        const q = new URLSearchParams({ limit: String(limit), ...(token ? { continue: token } : {}) });
        const page = (await getJson(base, `${path}?${q}`, agent)) as {
          items: { metadata: { name: string; namespace: string } }[];
          metadata?: { continue?: string };
        };
        for (const o of page.items) out.push(`${o.metadata.namespace}/${o.metadata.name}`);
        token = page.metadata?.continue ?? '';
      } while (token);
      return out;
    } catch (e) {
      if (attempt >= 3 || !token || !/: 410 /.test(String((e as Error).message))) throw e;
    }
  }
}

/** Legacy discovery (all versions of each group), written independently of the loader's so that the peers share none of its code. */
export async function discoverTypes(kubeconfigPath: string): Promise<BenchType[]> {
  const base = await requestBase(kubeconfigPath);
  const agent = new (base.server.protocol === 'https:' ? https.Agent : http.Agent)({ keepAlive: true });
  try {
    const out: BenchType[] = [];
    const take = (group: string, version: string, list: any) => {
      for (const r of list.resources ?? []) {
        if (r.name.includes('/') || !(r.verbs ?? []).includes('list')) continue;
        out.push({ group, version, resource: r.name, kind: r.kind, namespaced: !!r.namespaced });
      }
    };
    take('', 'v1', await getJson(base, '/api/v1', agent));
    // client-go's ServerPreferredResources rule: each resource from the most preferred version
    // that serves it (a resource that exists only in a non-preferred version is still listed).
    const groups = await getJson(base, '/apis', agent);
    for (const g of groups.groups ?? []) {
      const preferred = g.preferredVersion?.version;
      const versions: string[] = (g.versions ?? []).map((v: any) => v.version);
      const ordered = [preferred, ...versions.filter((v) => v !== preferred)].filter(Boolean);
      const seen = new Set<string>();
      for (const v of ordered) {
        const before = out.length;
        take(g.name, v, await getJson(base, `/apis/${g.name}/${v}`, agent));
        const added = out.splice(before).filter((t) => !seen.has(t.resource));
        for (const t of added) seen.add(t.resource);
        out.push(...added);
      }
    }
    return out;
  } finally {
    agent.destroy();
  }
}
