/**
 * One kubeconfig holding several clusters, each under its own context name (the cluster and user
 * entries are named after the context too): from the one-context kubeconfigs the demo cluster
 * writes (`context` picks one of a file of several, e.g. `demo-cluster --clusters N`'s), or, for a
 * server that never answers, just its address. Written with mode 0600.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dump, load as parseYaml } from 'js-yaml';

interface Kubeconfig {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
}

export function mergeKubeconfigs(entries: { name: string; file?: string; context?: string; server?: string }[], out: string): void {
  const doc: Kubeconfig & Record<string, unknown> = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [],
    users: [],
    contexts: [],
    'current-context': entries[0]!.name,
  };
  for (const e of entries) {
    if (e.file) {
      const k = parseYaml(readFileSync(e.file, 'utf8')) as Kubeconfig;
      const ctx = e.context === undefined ? k.contexts[0] : k.contexts.find((c) => c.name === e.context);
      if (!ctx) throw new Error(`${e.file}: no context ${e.context}`);
      doc.clusters.push({ name: e.name, cluster: k.clusters.find((c) => c.name === ctx.context.cluster)!.cluster });
      doc.users.push({ name: e.name, user: k.users.find((u) => u.name === ctx.context.user)!.user });
    } else {
      doc.clusters.push({ name: e.name, cluster: { server: e.server!, 'insecure-skip-tls-verify': true } });
      doc.users.push({ name: e.name, user: { token: 'nobody-checks' } });
    }
    doc.contexts.push({ name: e.name, context: { cluster: e.name, user: e.name, namespace: 'default' } });
  }
  writeFileSync(out, dump(doc), { mode: 0o600 });
}
