/**
 * What the API server says the user may do, asked before the first list or watch: the access
 * reviews (the requests are in ./selfSubject.ts) and the verdicts read from them. Shared by the loader
 * (core/loader/scope.ts plans a load's namespaces from them) and the sync loop
 * (core/syncloop/sources/watchscope.ts plans where each type is watched).
 *
 * 1. One SelfSubjectAccessReview per verb asks whether the user may do it on every resource in every
 *    group at the cluster scope ("list everything").
 * 2. Otherwise SelfSubjectRulesReviews say what the user may do: one in each candidate namespace, and
 *    one in CLUSTER_RULES_PROBE, a namespace that does not exist, whose rules are the cluster-wide
 *    grants alone (no RoleBinding can exist in a namespace that does not). Any namespace's rules
 *    contain the cluster-wide ones, so the probe can only overstate them, never understate them.
 * 3. A review that fails or times out counts as "unknown", never as "denied"; an authorizer whose
 *    rules are `incomplete` (a webhook) makes a type that its rules do not allow "unknown" too.
 */
import type { ApiResource } from '../discovery/parse';
import type { AccessReview, ResourceAttributes, RulesReview } from './selfSubject';
import { rulesAllow } from './selfSubject';
import { abortReason, realClock, type Clock } from '../../clock';

/** The review requests the reviews ask (KubeClient implements them). */
export interface AccessReviewer {
  accessReview(a: ResourceAttributes, opts: { signal?: AbortSignal }): Promise<AccessReview>;
  rulesReview(namespace: string, opts: { signal?: AbortSignal }): Promise<RulesReview>;
}

/** What the reviews said; `undefined` fields: not asked, or the review failed. */
export interface AccessFacts {
  /**
   * The user may do every verb asked (default: list) on every resource at the cluster scope (one
   * SSAR per verb: list, and for the sync loop watch too).
   */
  listEverything?: boolean;
  /** The verbs the reviews were asked for; a rule allows a type only if it allows all of them. Unset: list. */
  verbs?: string[];
  /** Rules per candidate namespace (only the reviews that answered). */
  rules: RulesReview[];
  /** The cluster-wide rules: the rules review of CLUSTER_RULES_PROBE (see step 2 above). */
  clusterRules?: RulesReview;
  /** Messages of reviews that failed (they count as "unknown", never as "denied"). */
  reviewErrors: string[];
}

export type Verdict = 'allowed' | 'denied' | 'unknown';

export const DEFAULT_NAMESPACE = 'default';

/** A namespace name nobody creates: its rules review holds the cluster-wide grants only. */
export const CLUSTER_RULES_PROBE = 'kubeloop-cluster-rules-probe-0';

/** How long the reviews may take before the load goes on without them (they then prove nothing). */
export const REVIEW_TIMEOUT_MS = 10_000;

/**
 * Asks the reviews (the rules reviews in parallel); never rejects for a review's failure, only for
 * the caller's abort. Reviews that have not answered within `timeoutMs` (on `clock`) are abandoned
 * (their requests aborted) and count as failed: a server slow to answer them cannot stall a load.
 */
export async function reviewAccess(
  reviewer: AccessReviewer | undefined,
  candidates: string[],
  signal?: AbortSignal,
  opts: { clock?: Clock; timeoutMs?: number; verbs?: string[] } = {},
): Promise<AccessFacts> {
  const verbs = opts.verbs?.length ? [...new Set(opts.verbs)] : ['list'];
  const facts: AccessFacts = { rules: [], reviewErrors: [], ...(opts.verbs ? { verbs } : {}) };
  if (!reviewer) return facts;
  const ac = new AbortController();
  const onAbort = () => ac.abort(abortReason(signal!));
  if (signal?.aborted) throw abortReason(signal);
  signal?.addEventListener('abort', onAbort, { once: true });
  const ms = opts.timeoutMs ?? REVIEW_TIMEOUT_MS;
  const timer = (opts.clock ?? realClock).setTimer(ms, () => ac.abort(new Error(`no answer within ${ms} ms`)));
  const note = (what: string, e: unknown) => {
    if (signal?.aborted) throw e;
    facts.reviewErrors.push(`${what}: ${e instanceof Error ? e.message : String(e)}`);
  };
  try {
    try {
      const answers = await Promise.all(verbs.map((verb) => reviewer.accessReview({ verb, group: '*', resource: '*' }, { signal: ac.signal })));
      facts.listEverything = answers.every((a) => a.allowed);
    } catch (e) {
      note(`SelfSubjectAccessReview (${verbs.join('+')} of every resource at the cluster scope)`, e);
    }
    if (facts.listEverything || ac.signal.aborted) return facts;
    const answers = await Promise.all(
      [...candidates, CLUSTER_RULES_PROBE].map((ns) =>
        reviewer.rulesReview(ns, { signal: ac.signal }).catch((e: unknown) => {
          note(`SelfSubjectRulesReview in namespace "${ns}"`, e);
          return undefined;
        }),
      ),
    );
    const probe = answers.pop();
    if (probe) facts.clusterRules = probe;
    for (const a of answers) if (a) facts.rules.push(a);
    return facts;
  } finally {
    timer.cancel();
    signal?.removeEventListener('abort', onAbort);
  }
}

/** Whether the facts say the user may list `r` in `namespace`. */
export function verdictIn(facts: AccessFacts, r: Pick<ApiResource, 'group' | 'resource'>, namespace: string): Verdict {
  if (facts.listEverything) return 'allowed';
  return verdictOf(
    facts.rules.find((x) => x.namespace === namespace),
    r,
    facts.verbs,
  );
}

/** Whether the facts say the user may list `r` across all namespaces (or at the cluster scope). */
export function verdictAcross(facts: AccessFacts, r: Pick<ApiResource, 'group' | 'resource'>): Verdict {
  if (facts.listEverything) return 'allowed';
  return verdictOf(facts.clusterRules, r, facts.verbs);
}

function verdictOf(rules: RulesReview | undefined, r: Pick<ApiResource, 'group' | 'resource'>, verbs: string[] = ['list']): Verdict {
  if (!rules) return 'unknown';
  if (verbs.every((v) => rulesAllow(rules.resourceRules, v, r.group, r.resource))) return 'allowed';
  return rules.incomplete ? 'unknown' : 'denied';
}
