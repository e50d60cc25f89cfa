/**
 * The rights scenarios' server on a real kube-apiserver (see test/support/rights/server.ts): each
 * grant a Role and RoleBinding in its namespace, or a ClusterRole and ClusterRoleBinding; pods run by
 * the scripted kubelet of one node. No request counters: the scenarios' checks of what was asked
 * hold on the demo cluster, whose answers test/apiserver/rights.test.ts holds to this server's.
 */
import { randomBytes } from 'node:crypto';
import { startControlPlane } from '../../lab/controlplane';
import { RIGHTS_GRANTS, RIGHTS_NAMESPACES, RIGHTS_USERS, type RightsServer } from '../support/rights/server';
import { kubeTimestamp, ScriptedKubelet, type ContainerState } from './kubelet';
import { seed } from './objects';
import { Api, bindClusterRole, bindRole, collectionPath, kubeconfigFor, mapLimit } from './support';

const NODE = 'team-a-worker';
const IMAGE = 'registry.k8s.io/e2e-test-images/agnhost:2.53';

export async function realRightsServer(): Promise<RightsServer> {
  const cp = await startControlPlane({ extraUsers: RIGHTS_USERS.map((name) => ({ name, token: `${name}-token-${randomBytes(8).toString('hex')}` })) });
  const api = Api.admin(cp, 16);
  try {
    // team-a and team-b hold a few objects of every seeded type; team-a 40 ConfigMaps in all.
    await seed(api, { namespaces: ['team-a', 'team-b'], perNamespace: 4, cluster: 3, concurrency: 12 });
    for (const ns of RIGHTS_NAMESPACES.filter((n) => n !== 'team-a' && n !== 'team-b'))
      await api.must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, [201]);
    await mapLimit(
      Array.from({ length: 36 }, (_, i) => i),
      12,
      (i) =>
        api.must('POST', '/api/v1/namespaces/team-a/configmaps', { metadata: { name: `issue-${String(i).padStart(2, '0')}` }, data: { i: String(i) } }, [201]),
    );
    for (const [i, g] of RIGHTS_GRANTS.entries()) {
      const rules = [{ apiGroups: g.apiGroups, resources: g.resources, verbs: g.verbs }];
      if (g.namespace === undefined) await bindClusterRole(api, `rights-${g.user}-${i}`, g.user, rules);
      else await bindRole(api, g.namespace, `rights-${g.user}-${i}`, g.user, rules);
    }
  } catch (e) {
    api.close();
    await cp.stop();
    throw e;
  }
  const kubelet = new ScriptedKubelet(api, NODE);
  await kubelet.register();
  const runPod = async (namespace: string, name: string) => {
    await api.must(
      'POST',
      `/api/v1/namespaces/${namespace}/pods`,
      { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: NODE, containers: [{ name: 'c', image: IMAGE }] } },
      [201],
    );
    const startTime = kubeTimestamp();
    const c: ContainerState = {
      name: 'c',
      image: IMAGE,
      state: { running: { startedAt: kubeTimestamp() } },
      ready: true,
      started: true,
      restartCount: 0,
      id: kubelet.newContainerId(),
    };
    await kubelet.writeStatus(namespace, name, [c], startTime);
  };
  await runPod('team-b', 'other');
  return {
    name: 'kube-apiserver',
    kubeconfig: async (user?: string) => (user === undefined ? cp.kubeconfigPath : kubeconfigFor(cp, user, 'team-a')),
    contextName: (user) => user,
    count: async (group, version, resource, namespace) => (await api.list(collectionPath(group, version, resource, namespace))).items.length,
    createConfigMap: async (namespace, name) =>
      void (await api.must('POST', `/api/v1/namespaces/${namespace}/configmaps`, { metadata: { name }, data: {} }, [201])),
    deleteConfigMap: async (namespace, name) => void (await api.must('DELETE', `/api/v1/namespaces/${namespace}/configmaps/${name}`, undefined, [200])),
    runPod,
    async stop() {
      api.close();
      await cp.stop();
    },
  };
}
