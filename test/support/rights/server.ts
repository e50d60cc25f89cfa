/**
 * What the rights scenarios (loader.ts, sync.ts) run against: a server that has the users and
 * grants below, written once, and answers for them as RBAC does. The integration tier passes the
 * demo cluster (test/integration/rightsServer.ts), the apiserver tier a real kube-apiserver with
 * RBAC Roles and ClusterRoles made from the same grants (test/apiserver/rightsServer.ts), so each
 * scenario checks the same behaviour on both.
 *
 * Every server holds, besides what it has of its own: namespaces team-a, team-b and elsewhere;
 * exactly 40 ConfigMaps and some Secrets in team-a; a pod "other" in team-b (never to be seen by a
 * team-a user).
 */
import type { KubeClient } from '../../../src/core/kube';
import { TimelineStore } from '../../../src/core/timeline/store';
import { runLoad as runExtensionLoad } from '../../../src/app/load/loadRunner';
import type { Logger } from '../../../src/app/logger';
import type { ResourceModel } from '../../../src/app/model/resourceModel';
import { defaultSettings } from '../../../src/app/settings';
import type { Grant } from '../../../src/demo/server/auth';

const READ = ['get', 'list', 'watch'];

export const RIGHTS_GRANTS: Grant[] = [
  // alice: a Role with get/list/watch of everything, bound in team-a only.
  { user: 'alice', namespace: 'team-a', verbs: READ, apiGroups: ['*'], resources: ['*'] },
  // bob: pods across the cluster (a ClusterRoleBinding), configmaps in team-a (a RoleBinding).
  { user: 'bob', verbs: READ, apiGroups: [''], resources: ['pods'] },
  { user: 'bob', namespace: 'team-a', verbs: READ, apiGroups: [''], resources: ['configmaps'] },
  // carol: rights in a namespace that is not her context's, none anywhere else.
  { user: 'carol', namespace: 'elsewhere', verbs: READ, apiGroups: ['*'], resources: ['*'] },
  // dave: may list in team-a, but not watch.
  { user: 'dave', namespace: 'team-a', verbs: ['get', 'list'], apiGroups: ['*'], resources: ['*'] },
  // erin: pods and configmaps in team-a only: Events are forbidden everywhere.
  { user: 'erin', namespace: 'team-a', verbs: READ, apiGroups: [''], resources: ['pods', 'configmaps'] },
];

export const RIGHTS_USERS = [...new Set(RIGHTS_GRANTS.map((g) => g.user))];

export const RIGHTS_NAMESPACES = ['team-a', 'team-b', 'elsewhere'];

/** The demo cluster's request counters; a real kube-apiserver has none the test can read per request. */
export interface RequestCounters {
  /** Requests so far by "verb resource@namespace" (namespace "*": across all). */
  byScope(): Record<string, number>;
  /** 403 answers so far. */
  refused(): number;
  /** List requests so far. */
  lists(): number;
}

export interface RightsServer {
  /** 'demo cluster' or 'kube-apiserver'. */
  readonly name: string;
  /** A kubeconfig file for one of RIGHTS_USERS with its context's namespace team-a, or the admin's without a user. */
  kubeconfig(user?: string): Promise<string>;
  /** The name of the context that kubeconfig(user) makes current. */
  contextName(user: string): string;
  /** Objects of a type in a namespace (all namespaces without one), as the admin lists them. */
  count(group: string, version: string, resource: string, namespace?: string): Promise<number>;
  createConfigMap(namespace: string, name: string): Promise<void>;
  deleteConfigMap(namespace: string, name: string): Promise<void>;
  /** Creates the pod and has a kubelet run its one container (the status says Running once it does). */
  runPod(namespace: string, name: string): Promise<void>;
  readonly counters?: RequestCounters;
  stop(): Promise<void>;
}

/** Requests counted since `before` (counters.byScope()), those that grew only. */
export function requestsSince(c: RequestCounters, before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(c.byScope()).flatMap(([k, n]) => (n - (before[k] ?? 0) > 0 ? [[k, n - (before[k] ?? 0)]] : [])));
}

/** The extension's load (the palette's, default settings) of `user`'s context into `model`. */
export function extensionLoad(s: RightsServer, user: string, client: KubeClient, model: ResourceModel, log: Logger) {
  return runExtensionLoad({
    client,
    contextName: s.contextName(user),
    settings: defaultSettings(),
    model,
    timeline: new TimelineStore(),
    log,
    origin: 0,
    loadId: 't',
    signal: new AbortController().signal,
  });
}
