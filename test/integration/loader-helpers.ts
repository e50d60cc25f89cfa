/**
 * Shared set-up for the loader integration tests: an in-process demo cluster (no kubelet, no churn,
 * so the store is still while we count), filled by the demo's deterministic generator, a kubeconfig
 * file for it, and a KubeClient with fast retry backoff.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoCluster, type DemoCluster, type DemoClusterOptions } from '../../src/demo';
import { generateObjects } from '../../src/demo/generator';
import { KubeClient, loadKubeContext, type ClientOptions } from '../../src/core/kube';

export interface Fixture {
  cluster: DemoCluster;
  kubeconfig: string;
  dir: string;
  client(opts?: ClientOptions): Promise<KubeClient>;
  stop(): Promise<void>;
}

export async function demo(objects: number, opts: DemoClusterOptions = {}): Promise<Fixture> {
  const cluster = await startDemoCluster({ kubelet: false, ...opts });
  if (objects > 0) generateObjects(cluster.store, { objects, seed: 11 });
  const dir = mkdtempSync(join(tmpdir(), 'kubeloop-loader-it-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await cluster.writeKubeconfig(kubeconfig);
  const clients: KubeClient[] = [];
  return {
    cluster,
    kubeconfig,
    dir,
    async client(o: ClientOptions = {}) {
      const c = await KubeClient.connect(loadKubeContext({ kubeconfig }), { retry: { backoffBaseMs: 10, backoffMaxMs: 50 }, ...o });
      clients.push(c);
      return c;
    },
    async stop() {
      clients.forEach((c) => c.close());
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
