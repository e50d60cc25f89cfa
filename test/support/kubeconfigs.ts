/**
 * One kubeconfig holding several clusters, each under its own context name (the cluster and user
 * entries are named after the context too): from the one-context kubeconfigs the demo cluster
 * writes, or, for a server that never answers, just its address. Written with mode 0600.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dump, load as parseYaml } from 'js-yaml';

interface Kubeconfig {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
}

export function mergeKubeconfigs(entries: { name: string; file?: string; server?: string }[], out: string): void {
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
      doc.clusters.push({ name: e.name, cluster: k.clusters[0]!.cluster });
      doc.users.push({ name: e.name, user: k.users[0]!.user });
    } else {
      doc.clusters.push({ name: e.name, cluster: { server: e.server!, 'insecure-skip-tls-verify': true } });
      doc.users.push({ name: e.name, user: { token: 'nobody-checks' } });
    }
    doc.contexts.push({ name: e.name, context: { cluster: e.name, user: e.name, namespace: 'default' } });
  }
  writeFileSync(out, dump(doc), { mode: 0o600 });
}
