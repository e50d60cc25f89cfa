/**
 * A kubeconfig for the demo cluster: one cluster, one user, one context, all named after the
 * cluster, so that kubectl, @kubernetes/client-node and the extension can use it as it is; or, for
 * several demo clusters in one process, one of each per cluster in one file (the first current).
 * The token (when there is one) is written into the file; the file is created with mode 0600.
 * An http:// server is marked insecure-skip-tls-verify (see below); an https:// one carries its CA.
 */
import { writeFile, rename, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { dump } from 'js-yaml';

export interface KubeconfigInput {
  name: string;
  server: string;
  user: string;
  token?: string;
  /** PEM of the CA to trust (the self-signed serving certificate when TLS is on). */
  caCert?: string;
  namespace?: string;
}

/**
 * One file for one or more clusters. Each context is named after its cluster (`user@cluster` for a
 * user other than the demo's own). With one cluster the user entry is named after the user, as
 * before; with several, after the context, since each server issues its own tokens.
 */
export function renderKubeconfig(input: KubeconfigInput | KubeconfigInput[]): string {
  const all = Array.isArray(input) ? input : [input];
  if (all.length === 0) throw new Error('renderKubeconfig: no cluster');
  const entries = all.map((k) => entry(k, all.length > 1));
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: entries.map((e) => e.cluster),
    users: entries.map((e) => e.user),
    contexts: entries.map((e) => e.context),
    'current-context': entries[0]!.context.name,
  };
  return dump(doc, { lineWidth: -1 });
}

function entry(k: KubeconfigInput, several: boolean) {
  const cluster: Record<string, unknown> = { server: k.server };
  if (k.caCert) cluster['certificate-authority-data'] = Buffer.from(k.caCert, 'utf8').toString('base64');
  // @kubernetes/client-node 1.x refuses plain-HTTP servers unless TLS verification is marked as
  // skipped; for an http:// server the flag changes nothing else (kubectl ignores it there).
  else if (k.server.startsWith('http://')) cluster['insecure-skip-tls-verify'] = true;
  const user: Record<string, unknown> = {};
  if (k.token) user.token = k.token;
  const contextName = k.user === 'kubeloop-demo' ? k.name : `${k.user}@${k.name}`;
  const userName = several ? contextName : k.user;
  return {
    cluster: { name: k.name, cluster },
    user: { name: userName, user },
    context: { name: contextName, context: { cluster: k.name, user: userName, namespace: k.namespace ?? 'default' } },
  };
}

/** Writes atomically (temp file + rename) with mode 0600, creating the folder if needed. */
export async function writeKubeconfigFile(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text, { mode: 0o600 });
  await rename(tmp, path);
}
