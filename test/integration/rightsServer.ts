/** The rights scenarios' server on the demo cluster (see test/support/rights/server.ts): its grants, its counters. */
import { join } from 'node:path';
import type { DemoObject } from '../../src/demo/store';
import { startKubelet, type Kubelet } from '../../src/demo/kubelet';
import { RIGHTS_GRANTS, RIGHTS_NAMESPACES, type RightsServer } from '../support/rights/server';
import { demo } from './loader-helpers';

/** `objects`: generated objects elsewhere (the team-a user must see none); `kubelet`: run pods (the sync scenarios). */
export async function demoRightsServer(opts: { objects: number; kubelet: boolean }): Promise<RightsServer> {
  // TLS: kubectl sends a bearer token only over HTTPS.
  const fx = await demo(opts.objects, { grants: RIGHTS_GRANTS, tls: true });
  const store = fx.cluster.store;
  const make = (resource: string, obj: object) => store.create('', resource, obj as DemoObject);
  for (const name of RIGHTS_NAMESPACES) make('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  for (let i = 0; i < 40; i++)
    make('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'team-a' }, data: { i: String(i) } });
  for (let i = 0; i < 3; i++)
    make('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s-${i}`, namespace: 'team-a' }, type: 'Opaque', data: {} });
  const pod = (namespace: string, name: string) =>
    make('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  pod('team-b', 'other');
  const kubelet: Kubelet | undefined = opts.kubelet ? startKubelet(store, { speed: 10 }) : undefined;
  const stats = fx.cluster.stats;
  return {
    name: 'demo cluster',
    async kubeconfig(user?: string) {
      if (user === undefined) return fx.kubeconfig;
      const file = join(fx.dir, `kubeconfig-${user}`);
      await fx.cluster.writeKubeconfig(file, { user, namespace: 'team-a' });
      return file;
    },
    contextName: (user) => `${user}@kubeloop-demo`,
    count: async (group, _version, resource, namespace) =>
      store.list(group, resource).items.filter((o) => namespace === undefined || o.metadata.namespace === namespace).length,
    createConfigMap: async (namespace, name) => void make('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: {} }),
    deleteConfigMap: async (namespace, name) => void store.delete('', 'configmaps', namespace, name),
    runPod: async (namespace, name) => void pod(namespace, name),
    counters: {
      byScope: () => ({ ...stats.requestsByScope }),
      refused: () => stats.responsesByCode['403'] ?? 0,
      lists: () => stats.requestsByVerb.list ?? 0,
    },
    async stop() {
      kubelet?.stop();
      await fx.stop();
    },
  };
}
