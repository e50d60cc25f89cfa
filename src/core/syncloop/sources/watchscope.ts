/**
 * Where the sync loop may watch: the scope of each source type, planned from the loader's access
 * review (../../loader/scope.ts) asked for list AND watch (a reflector needs both), once per loop
 * start, before the first watch. Only used with no namespaces chosen.
 *
 * Per type, with `ctx` the context's namespace ('default' when it names none, as kubectl):
 * - the cluster-wide rules allow list+watch (or the SSARs said every resource): watch across all
 *   namespaces; a namespaced type keeps `narrowTo: ctx`, so that a 403 at run time (the review's
 *   probe can overstate, see scope.ts) narrows it to ctx once instead of retrying;
 * - they deny it, and ctx's rules allow it (or cannot tell): watch in ctx;
 * - denied across and in ctx (or denied in ctx and unknown across, as the loader plans it), or a
 *   cluster-scoped type denied at the cluster scope: forbidden; no request is made for it;
 * - the reviews cannot tell (no reviewer, a failed review, `incomplete` rules): watch across, with
 *   `narrowTo: ctx` for a namespaced type.
 */
import { reviewAccess, verdictAcross, verdictIn, DEFAULT_NAMESPACE, type AccessFacts, type AccessReviewer } from '../../kube/access/review';
import type { Clock } from '../../clock';
import type { GroupVersionResource } from '../../kube/objects/types';

/**
 * A watched type; `namespaced` unset means namespaced (every type the loop watches by default is).
 * `metadataOnly`: list and watch it as PartialObjectMetadata (its row shows a name and its state from
 * metadata alone, so its bodies are neither parsed nor kept); `kind` then names its objects, since
 * metadata-only objects carry no kind.
 */
export type WatchedType = GroupVersionResource & { namespaced?: boolean; metadataOnly?: boolean; kind?: string };

export interface WatchScope {
  /** The namespace to watch in; unset: all namespaces (or the cluster scope). */
  namespace?: string;
  /** Where a cluster-wide 403 narrows the watch to (once). */
  narrowTo?: string;
  /** Set: the user may not list+watch the type anywhere the loop looks; nothing is requested. */
  forbidden?: string;
}

export const WATCH_VERBS = ['list', 'watch'];

function typeName(t: GroupVersionResource): string {
  return t.group ? `${t.resource}.${t.group}` : t.resource;
}

/** The scope of each type under the facts (pure). `facts` undefined: no review (every type 'unknown'). */
export function planWatchScopes(types: readonly WatchedType[], contextNamespace: string | undefined, facts: AccessFacts | undefined): WatchScope[] {
  const ctx = contextNamespace || DEFAULT_NAMESPACE;
  const f: AccessFacts = facts ?? { rules: [], reviewErrors: [] };
  return types.map((t) => {
    const across = verdictAcross(f, t);
    const name = typeName(t);
    if (t.namespaced === false) {
      return across === 'denied'
        ? { forbidden: `${name} is forbidden: the user may not list and watch ${name} at the cluster scope (SelfSubjectRulesReview); not watched` }
        : {};
    }
    const inCtx = verdictIn(f, t, ctx);
    if (inCtx === 'denied' && across !== 'allowed') {
      return {
        forbidden: `${name} is forbidden: the user may not list and watch ${name} across all namespaces, nor in the namespace "${ctx}" (SelfSubjectRulesReview); not watched`,
      };
    }
    if (across === 'denied') return { namespace: ctx };
    return { narrowTo: ctx };
  });
}

/** Asks the reviews for list+watch (one SSAR per verb at the cluster scope, else rules reviews); never rejects but for the abort. */
export function reviewWatchAccess(reviewer: AccessReviewer, contextNamespace: string | undefined, signal: AbortSignal, clock?: Clock): Promise<AccessFacts> {
  return reviewAccess(reviewer, [contextNamespace || DEFAULT_NAMESPACE], signal, { verbs: WATCH_VERBS, ...(clock ? { clock } : {}) });
}
