/**
 * Where the user may list: the namespace scope of a load, planned from what the API server says the
 * user may do, before the first list (see ../kube/access.ts for the review requests).
 *
 * kubectl lists in the context's `namespace` (or "default") unless told -A; the loader lists every
 * namespace unless told which. Most users are not cluster admins, so with no namespaces chosen:
 * 1. One SelfSubjectAccessReview asks whether the user may list everything at the cluster scope
 *    (`list` of every resource in every group). If so, every namespaced type gets one all-namespaces task, as for an admin.
 * 2. Otherwise one SelfSubjectRulesReview per candidate namespace (the context's namespace, or the
 *    chosen namespaces) says what the user may list there. Cluster-wide grants are part of every
 *    namespace's rules, so a type the rules of namespace N do not allow is allowed neither in N nor
 *    across all namespaces: it is planned out as forbidden (no request is made for it).
 * 3. A type allowed in a candidate namespace still gets the all-namespaces task first (a cluster-wide
 *    grant may cover it, and only the list itself can tell): on a 403 the loader replaces it with one
 *    task per namespace in `fallback` (ClusterLoader does; each (type, namespace) at most once).
 * With namespaces chosen, a namespaced type gets one task per chosen namespace where the rules
 * allow it, and a forbidden task for each namespace where they do not.
 * A review that fails (an old server, reviews not allowed, a webhook authorizer whose rules are
 * `incomplete`) proves nothing: the type is planned as if allowed, and a 403 still falls back.
 */
import { gvrName, type ApiResource } from '../kube';
import type { AccessReview, ResourceAttributes, RulesReview } from '../kube/access';
import { rulesAllow } from '../kube/access';
import type { LoadTask } from './types';

/** The review requests the scope planner asks (KubeClient implements them). */
export interface AccessReviewer {
  accessReview(a: ResourceAttributes, opts: { signal?: AbortSignal }): Promise<AccessReview>;
  rulesReview(namespace: string, opts: { signal?: AbortSignal }): Promise<RulesReview>;
}

export interface ScopeInput {
  /** Chosen namespaces (--namespace / kubeloop.namespaces); empty = all the user may see. */
  namespaces: string[];
  /** The kubeconfig context's namespace; 'default' when it names none (as kubectl). */
  contextNamespace?: string;
  labelSelector?: string;
}

/** What the reviews said; `undefined` fields: not asked, or the review failed. */
export interface AccessFacts {
  /** The user may list every resource at the cluster scope (SSAR: list of every resource). */
  listEverything?: boolean;
  /** Rules per candidate namespace (only the reviews that answered). */
  rules: RulesReview[];
  /** Messages of reviews that failed (they count as "unknown", never as "denied"). */
  reviewErrors: string[];
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

type Verdict = 'allowed' | 'denied' | 'unknown';

export const DEFAULT_NAMESPACE = 'default';

/** Asks the reviews (both in parallel where they do not depend on each other); never rejects for a review's failure. */
export async function reviewAccess(reviewer: AccessReviewer | undefined, candidates: string[], signal?: AbortSignal): Promise<AccessFacts> {
  const facts: AccessFacts = { rules: [], reviewErrors: [] };
  if (!reviewer) return facts;
  const note = (what: string, e: unknown) => {
    if (signal?.aborted) throw e;
    facts.reviewErrors.push(`${what}: ${e instanceof Error ? e.message : String(e)}`);
  };
  try {
    facts.listEverything = (await reviewer.accessReview({ verb: 'list', group: '*', resource: '*' }, { signal })).allowed;
  } catch (e) {
    note('SelfSubjectAccessReview (list of every resource at the cluster scope)', e);
  }
  if (facts.listEverything) return facts;
  const answers = await Promise.all(
    candidates.map((ns) =>
      reviewer.rulesReview(ns, { signal }).catch((e: unknown) => {
        note(`SelfSubjectRulesReview in namespace "${ns}"`, e);
        return undefined;
      }),
    ),
  );
  for (const a of answers) if (a) facts.rules.push(a);
  return facts;
}

/** Whether the facts say the user may list `r` in `namespace`. */
export function verdictIn(facts: AccessFacts, r: Pick<ApiResource, 'group' | 'resource'>, namespace: string): Verdict {
  if (facts.listEverything) return 'allowed';
  const rules = facts.rules.find((x) => x.namespace === namespace);
  if (!rules) return 'unknown';
  if (rulesAllow(rules.resourceRules, 'list', r.group, r.resource)) return 'allowed';
  return rules.incomplete ? 'unknown' : 'denied';
}

function forbiddenMessage(r: ApiResource, namespaces: string[], across: boolean): string {
  const where = namespaces.map((n) => `"${n}"`).join(', ');
  const scope = !r.namespaced ? 'at the cluster scope' : across ? `across all namespaces, nor in the namespace ${where}` : `in the namespace ${where}`;
  return `${gvrName(r)} is forbidden: the user may not list ${gvrName(r)} ${scope} (SelfSubjectRulesReview${namespaces.length > 1 ? 's' : ''} of ${where}); not requested`;
}

/** The tasks of a load under the facts (pure). */
export function planScopedTasks(types: ApiResource[], input: ScopeInput, facts: AccessFacts): ScopePlan {
  const chosen = [...new Set(input.namespaces)];
  const candidates = chosen.length > 0 ? chosen : [input.contextNamespace || DEFAULT_NAMESPACE];
  const tasks: LoadTask[] = [];
  const add = (r: ApiResource, namespace: string | undefined, forbidden?: string) => {
    const t: LoadTask = { id: tasks.length, gvr: { group: r.group, version: r.version, resource: r.resource }, kind: r.kind, namespaced: r.namespaced, labelSelector: input.labelSelector };
    if (namespace !== undefined) t.namespace = namespace;
    if (forbidden !== undefined) t.forbidden = forbidden;
    tasks.push(t);
  };
  for (const r of types) {
    const verdicts = candidates.map((ns) => verdictIn(facts, r, ns));
    const denied = candidates.filter((_, i) => verdicts[i] === 'denied');
    if (!r.namespaced) {
      // Cluster-scoped: denied in every candidate's rules means denied at the cluster scope.
      if (denied.length === candidates.length) add(r, undefined, forbiddenMessage(r, candidates, false));
      else add(r, undefined);
      continue;
    }
    if (chosen.length > 0) {
      for (let i = 0; i < candidates.length; i++) {
        if (verdicts[i] === 'denied') add(r, candidates[i], forbiddenMessage(r, [candidates[i]!], false));
        else add(r, candidates[i]);
      }
      continue;
    }
    // One result for the type across all namespaces: denied there and in every candidate.
    if (denied.length === candidates.length) add(r, undefined, forbiddenMessage(r, candidates, true));
    else add(r, undefined);
  }
  return { tasks, fallback: chosen.length > 0 ? [] : candidates, candidates, access: facts };
}
