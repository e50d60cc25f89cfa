/**
 * Where the user may list: the namespace scope of a load, planned from what the API server says the
 * user may do, before the first list (the reviews and their verdicts: ../kube/access/review.ts).
 *
 * kubectl lists in the context's `namespace` (or "default") unless told -A; the loader lists every
 * namespace unless told which. Most users are not cluster admins, so with no namespaces chosen:
 * 1. One SelfSubjectAccessReview asks whether the user may list every resource in every group at
 *    the cluster scope. If so, every type gets its one all-namespaces (or cluster) task, as for an admin.
 * 2. Otherwise SelfSubjectRulesReviews say what the user may list: one in each candidate namespace
 *    (the context's, or the chosen ones), and one in CLUSTER_RULES_PROBE, a namespace that does not
 *    exist. A review's rules are the user's cluster-wide grants (ClusterRoleBindings) plus the grants
 *    bound in that namespace (RoleBindings); no RoleBinding can exist in a namespace that does not,
 *    so the probe's rules are the cluster-wide grants alone: what the user may list across all
 *    namespaces and at the cluster scope (kube-apiserver requires a namespace, so "" cannot ask it).
 *    Any namespace's rules contain the cluster-wide ones, so the probe can only overstate them (if
 *    someone made that namespace and bound the user in it), never understate them; an overstatement
 *    costs one 403, after which step 4 applies.
 * 3. Per type: allowed by the cluster-wide rules: one all-namespaces task. Otherwise, a namespaced
 *    type the context namespace's rules allow: one task in that namespace (kubectl's view). Neither:
 *    planned out as forbidden, answered without a request.
 * 4. Where the reviews cannot tell (a review failed; an authorizer whose rules are `incomplete`, such
 *    as a webhook), the type gets its all-namespaces task, and ClusterLoader replaces a task that
 *    answers 403 by one task per namespace in `fallback` (each (type, namespace) at most once).
 * The sync loop asks the same reviews for list AND watch (`verbs`: one SSAR per verb in step 1, and a
 * rule allows a type only if it allows every verb asked); see ../syncloop/sources/watchscope.ts.
 * With namespaces chosen, a namespaced type gets one task per chosen namespace where its rules allow
 * it (or cannot tell), and a forbidden task for each namespace where they do not.
 */
import { gvrName, type ApiResource } from '../kube';
import { DEFAULT_NAMESPACE, verdictAcross, verdictIn, type AccessFacts } from '../kube/access/review';
import type { LoadSummary, LoadTask } from './types';
import { redactUrl } from '../kube/redactUrl';

export interface ScopeInput {
  /** Chosen namespaces (--namespace / kubeloop.namespaces); empty = all the user may see. */
  namespaces: string[];
  /** The kubeconfig context's namespace; 'default' when it names none (as kubectl). */
  contextNamespace?: string;
  labelSelector?: string;
}

export interface ScopePlan {
  /** Every task of the load, ids 0..n-1; a task with `forbidden` set is answered without a request. */
  tasks: LoadTask[];
  /** Namespaces to list a namespaced type in when its all-namespaces list answers 403. */
  fallback: string[];
  /** The candidate namespaces: the chosen ones, or the context's. */
  candidates: string[];
  access: AccessFacts;
}

/** Why a type is forbidden, in the apiserver's words where they fit; says that nothing was requested. */
function forbiddenMessage(r: ApiResource, namespaces: string[], across: boolean, clusterRules: boolean): string {
  const where = namespaces.map((n) => `"${n}"`).join(', ');
  const ns = `namespace${namespaces.length > 1 ? 's' : ''} ${where}`;
  const scope = !r.namespaced ? 'at the cluster scope' : across ? `across all namespaces, nor in the ${ns}` : `in the ${ns}`;
  const basis = !r.namespaced && clusterRules ? 'no cluster-wide grant allows it' : `the rules of the ${ns} do not allow it`;
  return `${gvrName(r)} is forbidden: the user may not list ${gvrName(r)} ${scope} (SelfSubjectRulesReview: ${basis}); not requested`;
}

/** The tasks of a load under the facts (pure). */
export function planScopedTasks(types: ApiResource[], input: ScopeInput, facts: AccessFacts): ScopePlan {
  const chosen = [...new Set(input.namespaces)];
  const candidates = chosen.length > 0 ? chosen : [input.contextNamespace || DEFAULT_NAMESPACE];
  const tasks: LoadTask[] = [];
  const add = (r: ApiResource, namespace: string | undefined, forbidden?: string) => {
    const t: LoadTask = {
      id: tasks.length,
      gvr: { group: r.group, version: r.version, resource: r.resource },
      kind: r.kind,
      namespaced: r.namespaced,
      labelSelector: input.labelSelector,
    };
    if (namespace !== undefined) t.namespace = namespace;
    if (forbidden !== undefined) t.forbidden = forbidden;
    tasks.push(t);
  };
  for (const r of types) {
    const across = verdictAcross(facts, r);
    const verdicts = candidates.map((ns) => verdictIn(facts, r, ns));
    const allDenied = verdicts.every((v) => v === 'denied');
    if (!r.namespaced) {
      // Only cluster-wide grants reach the cluster scope; every namespace's rules contain them.
      if (across === 'denied' || (across === 'unknown' && allDenied)) add(r, undefined, forbiddenMessage(r, candidates, false, across === 'denied'));
      else add(r, undefined);
      continue;
    }
    if (chosen.length > 0) {
      for (let i = 0; i < candidates.length; i++) {
        if (verdicts[i] === 'denied') add(r, candidates[i], forbiddenMessage(r, [candidates[i]!], false, false));
        else add(r, candidates[i]);
      }
      continue;
    }
    if (allDenied) {
      // One result for the type across all namespaces: denied there and in every candidate.
      add(r, undefined, forbiddenMessage(r, candidates, true, false));
    } else if (across === 'denied') {
      // Not across namespaces, but in the context's: list it there, as kubectl does.
      for (let i = 0; i < candidates.length; i++) if (verdicts[i] !== 'denied') add(r, candidates[i]);
    } else {
      add(r, undefined);
    }
  }
  return { tasks, fallback: chosen.length > 0 ? [] : candidates, candidates, access: facts };
}

/**
 * Whether a load that ran to its end found that the user may list nothing: every type it tried was
 * refused (403) and none loaded. A cancelled load says nothing of the kind (its forbidden types may
 * simply be the ones that were decided before the cancel), nor does one that also failed otherwise.
 */
export function nothingPermitted(s: Pick<LoadSummary, 'outcome' | 'ok' | 'failed' | 'forbidden' | 'cancelled'>): boolean {
  return s.outcome !== 'cancelled' && s.cancelled === 0 && s.ok === 0 && s.failed > 0 && s.forbidden === s.failed;
}

/**
 * The one line for a user who may list nothing: who, in which context, what they may not do, and
 * what would help. `namespaces`: where the load looked (the fallback or chosen namespaces).
 */
export function noRightsText(who: { user: string; context: string; server: string }, namespaces: string[]): string {
  const where = namespaces.length
    ? `across all namespaces nor in the namespace${namespaces.length > 1 ? 's' : ''} ${namespaces.map((n) => `"${n}"`).join(', ')}`
    : 'anywhere';
  return `user "${who.user}" (context "${who.context}", server ${redactUrl(who.server)}) may not list any resource type ${where}: every type is forbidden. Ask for a Role (namespace) or ClusterRole with get/list/watch, or choose another context or namespace.`;
}
