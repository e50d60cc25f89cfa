// Peer "naive": what a developer writes first with @kubernetes/client-node: for each type, one after
// another, one un-paged list across all namespaces through KubernetesObjectApi.
// Usage: node naive.js KUBECONFIG TYPES_JSON ; prints {"objects": N} on stdout.
import { KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import type { BenchType } from '../types';

async function main() {
  const [kubeconfig, typesFile] = process.argv.slice(2);
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const api = KubernetesObjectApi.makeApiClient(kc);
  const types: BenchType[] = JSON.parse(readFileSync(typesFile, 'utf8'));
  let objects = 0;
  for (const t of types) {
    const apiVersion = t.group === '' ? t.version : `${t.group}/${t.version}`;
    const list = await api.list(apiVersion, t.kind);
    objects += list.items.length;
  }
  process.stdout.write(JSON.stringify({ objects }) + '\n');
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
