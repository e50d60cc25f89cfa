import { readFileSync, writeFileSync } from 'node:fs';
import { dump, load } from 'js-yaml';
import type { Netem } from './netem';

type Kubeconfig = { clusters: { cluster: { server: string } }[] };

/** The first cluster's server address in a kubeconfig file. */
export function serverOf(kubeconfig: string): URL {
  return new URL((load(readFileSync(kubeconfig, 'utf8')) as Kubeconfig).clusters[0]!.cluster.server);
}

/**
 * Writes to `out` a copy of `kubeconfig` whose clusters point at `relay`. The relay listens on the
 * server's own loopback address, so only the port changes and the serving certificate (issued for
 * IP 127.0.0.1 by both the demo cluster and kube-apiserver) still matches: no tls-server-name is
 * needed. A server on any other address is refused with an error. The copy is mode 0600 (it holds
 * the credentials of the original).
 */
export function kubeconfigViaRelay(kubeconfig: string, relay: Pick<Netem, 'host' | 'port'>, out: string): void {
  const doc = load(readFileSync(kubeconfig, 'utf8')) as Kubeconfig;
  for (const c of doc.clusters) {
    const u = new URL(c.cluster.server);
    if (u.hostname !== relay.host && u.hostname !== `[${relay.host}]`)
      throw new Error(`${kubeconfig}: server ${u.origin} is not on the relay's address ${relay.host}`);
    u.port = String(relay.port);
    c.cluster.server = u.origin + (u.pathname === '/' ? '' : u.pathname);
  }
  writeFileSync(out, dump(doc, { lineWidth: -1 }), { mode: 0o600 });
}
