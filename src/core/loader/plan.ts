/**
 * Planning: which resource types to load, and the LoadTasks that load them.
 *
 * Type names follow kubectl: a type matches `pods`, `pod` (singular), `po` (short name), `Pod`
 * (kind, any case), `pods.` + group (`deployments.apps`), or `resource.version.group`
 * (`deployments.v1.apps`). Matching is case-insensitive; a bare name that several groups define
 * means the first group's (see resolveTypeName).
 * Aliases: some types serve the same stored objects under two names; core v1 `events` and
 * `events.events.k8s.io` are one Event store (kube-apiserver serves both from it). Only the first of
 * such a pair is loaded unless the other is asked for by a qualified name in include (e.g.
 * `--include events.events.k8s.io`); the skipped one is named in the plan, with the reason.
 * Tasks: a namespaced type gets one all-namespaces task, or one task per requested namespace; a
 * cluster-scoped type gets one task whatever the namespaces. Order follows discovery order.
 */
import type { ApiResource } from '../kube';
import type { LoadTask } from './types';

export function typeNames(r: ApiResource): string[] {
  const names = [r.resource, r.singular, r.kind, ...r.shortNames].filter(Boolean).map((s) => s.toLowerCase());
  if (r.group) {
    names.push(`${r.resource}.${r.group}`, `${r.resource}.${r.version}.${r.group}`, `${r.kind}.${r.group}`.toLowerCase());
    if (r.singular) names.push(`${r.singular}.${r.group}`);
  }
  return names;
}

export function matchesType(r: ApiResource, spec: string): boolean {
  return typeNames(r).includes(spec.trim().toLowerCase());
}

/**
 * The types a name means. A qualified name (with a dot) means what it matches. A bare name that
 * matches types in several groups means the first group's, in discovery order (core first), as
 * kubectl resolves `events` to core events and not events.events.k8s.io.
 */
export function resolveTypeName(types: ApiResource[], spec: string): ApiResource[] {
  const hits = types.filter((r) => matchesType(r, spec));
  if (spec.includes('.') || hits.length === 0) return hits;
  return hits.filter((r) => r.group === hits[0].group);
}

/** Pairs of [loaded by default, the same objects under another name] (group/resource). */
export const TYPE_ALIASES: ReadonlyArray<readonly [primary: string, alias: string]> = [['/events', 'events.k8s.io/events']];

/** A type left out because another loaded type serves the same objects. */
export interface SkippedType {
  group: string;
  version: string;
  resource: string;
  /** group/resource of the type loaded instead ('' group for core). */
  sameAs: string;
  reason: string;
}

const gr = (r: ApiResource) => `${r.group}/${r.resource}`;
const label = (r: ApiResource) => (r.group ? `${r.resource}.${r.group}` : r.resource);

export function selectTypes(
  types: ApiResource[],
  include: string[],
  exclude: string[],
): { selected: ApiResource[]; unmatched: string[]; skipped: SkippedType[] } {
  const unmatched = [...include, ...exclude].filter((spec) => resolveTypeName(types, spec).length === 0);
  const inc = new Set(include.flatMap((s) => resolveTypeName(types, s)));
  const exc = new Set(exclude.flatMap((s) => resolveTypeName(types, s)));
  // an alias is loaded only when include names it by a qualified name (a bare name means the primary)
  const asked = new Set(include.filter((s) => s.includes('.')).flatMap((s) => resolveTypeName(types, s)));
  let selected = types.filter((r) => (include.length === 0 || inc.has(r)) && !exc.has(r));
  const skipped: SkippedType[] = [];
  for (const [primary, alias] of TYPE_ALIASES) {
    const p = selected.find((r) => gr(r) === primary);
    const a = selected.find((r) => gr(r) === alias);
    if (!p || !a || asked.has(a)) continue;
    selected = selected.filter((r) => r !== a);
    skipped.push({
      group: a.group,
      version: a.version,
      resource: a.resource,
      sameAs: primary,
      reason: `the same objects as ${label(p)}; add --include ${label(a)} to load it too`,
    });
  }
  return { selected, unmatched, skipped };
}

export function planTasks(types: ApiResource[], opts: { namespaces?: string[]; labelSelector?: string } = {}): LoadTask[] {
  const tasks: LoadTask[] = [];
  const nss = opts.namespaces ?? [];
  for (const r of types) {
    const base = {
      gvr: { group: r.group, version: r.version, resource: r.resource },
      kind: r.kind,
      namespaced: r.namespaced,
      labelSelector: opts.labelSelector,
    };
    if (r.namespaced && nss.length > 0) for (const ns of nss) tasks.push({ id: tasks.length, ...base, namespace: ns });
    else tasks.push({ id: tasks.length, ...base });
  }
  return tasks;
}
