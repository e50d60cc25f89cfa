/**
 * What the real-control-plane tests share: a plain JSON client over node:https (the test's own
 * eyes on the server, independent of the loader's transport), bounded-concurrency creation,
 * per-user kubeconfigs, RBAC and CRD set-up, and a poll helper.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ControlPlane } from '../../lab/controlplane';
import { eventually } from '../support/eventually';

import { Api } from '../../lab/api';

export { Api };

/** Runs fn over items with at most n at once; rejects with the first failure after all settle. */
export async function mapLimit<T, R>(items: readonly T[], n: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!, i);
      } catch (e) {
        failure ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  if (failure !== undefined) throw failure;
  return out;
}

/**
 * A kubeconfig for another user of the same control plane (same server and CA, that user's token);
 * its context names `namespace` when given (as `kubectl config set-context --namespace`).
 */
export function kubeconfigFor(cp: ControlPlane, user: string, namespace?: string): string {
  const token = cp.tokens[user];
  if (!token) throw new Error(`no token for user ${user}`);
  const file = path.join(cp.dir, `kubeconfig-${user}`);
  const q = JSON.stringify;
  fs.writeFileSync(
    file,
    `apiVersion: v1
kind: Config
clusters:
- name: kubeloop
  cluster:
    server: ${q(cp.server)}
    certificate-authority: ${q(cp.caFile)}
users:
- name: ${q(user)}
  user:
    token: ${q(token)}
contexts:
- name: ${q(user)}
  context:
    cluster: kubeloop
    user: ${q(user)}${namespace ? `\n    namespace: ${q(namespace)}` : ''}
current-context: ${q(user)}
`,
    { mode: 0o600 },
  );
  return file;
}

/** A ClusterRole with these rules, bound to one user (RBAC is what makes 403s and limits real). */
export async function bindClusterRole(api: Api, name: string, user: string, rules: unknown[]): Promise<void> {
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  await api.must('POST', `${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules });
  await api.must('POST', `${rbac}/clusterrolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  });
}

/** A Role with these rules in one namespace, bound to one user there (a RoleBinding). */
export async function bindRole(api: Api, namespace: string, name: string, user: string, rules: unknown[]): Promise<void> {
  const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}`;
  await api.must('POST', `${rbac}/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules });
  await api.must('POST', `${rbac}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  });
}

export interface CrdSpec {
  group: string;
  kind: string;
  plural: string;
  scope: 'Namespaced' | 'Cluster';
  /** Served versions, storage first; default ['v1']. */
  versions?: string[];
}

export const AGGREGATED_ACCEPT = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/**
 * Creates a CustomResourceDefinition through apiextensions and waits until it is Established and
 * the aggregated discovery document lists it (discovery is updated asynchronously, a moment later).
 */
export async function createCrd(api: Api, c: CrdSpec): Promise<void> {
  const versions = c.versions ?? ['v1'];
  const name = `${c.plural}.${c.group}`;
  await api.must('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group: c.group,
      scope: c.scope,
      names: { kind: c.kind, plural: c.plural, singular: c.kind.toLowerCase(), listKind: `${c.kind}List` },
      versions: versions.map((v, i) => ({
        name: v,
        served: true,
        storage: i === 0,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
      })),
    },
  });
  await eventually(
    async () => {
      const crd = await api.must('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
      return (crd.status?.conditions ?? []).some((x: { type: string; status: string }) => x.type === 'Established' && x.status === 'True');
    },
    { description: `CRD ${name} Established`, timeoutMs: 20_000 },
  );
  await eventually(
    async () => {
      const d = await api.must('GET', '/apis', undefined, [200], { Accept: AGGREGATED_ACCEPT });
      const g = (d.items ?? []).find((x: { metadata: { name: string } }) => x.metadata.name === c.group);
      return g?.versions?.some((v: { resources?: { resource: string }[] }) => v.resources?.some((r) => r.resource === c.plural));
    },
    { description: `CRD ${name} in aggregated discovery`, timeoutMs: 20_000 },
  );
}

/** /api/v1[/namespaces/ns]/resource or /apis/group/version[/namespaces/ns]/resource. */
export function collectionPath(group: string, version: string, resource: string, namespace?: string): string {
  const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
  return namespace ? `${base}/namespaces/${namespace}/${resource}` : `${base}/${resource}`;
}
