/**
 * Discovery documents -> resource types. Pure functions over parsed JSON, so they are tested
 * against real documents (kubernetes/kubernetes api/discovery/*.json) without a server.
 *
 * Forms:
 * - aggregated (apidiscovery.k8s.io/v2 or v2beta1 `APIGroupDiscoveryList`, from GET /api and /apis):
 *   every group, its versions in preference order (first = preferred), each with its resources and a
 *   `freshness`. A `Stale` version (its aggregated API server did not answer) is a partial failure:
 *   recorded, its resources not loaded, the rest goes on.
 * - legacy: /api -> APIVersions, /api/v1 -> APIResourceList, /apis -> APIGroupList (with
 *   preferredVersion), /apis/{g}/{v} -> APIResourceList.
 * Subresources (names with '/', or the aggregated `subresources` field) are never resource types.
 */

export interface ApiResource {
  group: string; // '' for the core group
  version: string;
  resource: string; // plural
  kind: string;
  singular: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
  categories: string[];
}

export interface ApiGroupVersion {
  version: string;
  /** Aggregated discovery marked it Stale: its resources are not trusted and not loaded. */
  stale: boolean;
  resources: ApiResource[];
}

export interface ApiGroup {
  name: string; // '' for the core group
  /** The version loads use: the server's preferred one (first non-stale in aggregated form). */
  preferredVersion: string;
  versions: ApiGroupVersion[];
}

export interface DiscoveryFailure {
  groupVersion: string;
  status?: number;
  message: string;
}

export interface Discovery {
  mode: 'aggregated' | 'legacy';
  groups: ApiGroup[];
  failures: DiscoveryFailure[];
  /** Set when this came from the disk cache (discoveryCache.ts): how old the entry is, ms. */
  cachedAgeMs?: number;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
export const groupVersionOf = (group: string, version: string) => (group ? `${group}/${version}` : version);

export function isAggregatedDiscovery(doc: unknown): boolean {
  return !!doc && typeof doc === 'object' && (doc as { kind?: unknown }).kind === 'APIGroupDiscoveryList';
}

/** Parses an APIGroupDiscoveryList (v2 or v2beta1). */
export function parseAggregated(doc: unknown): { groups: ApiGroup[]; failures: DiscoveryFailure[] } {
  if (!isAggregatedDiscovery(doc)) throw new Error('not an APIGroupDiscoveryList');
  const groups: ApiGroup[] = [];
  const failures: DiscoveryFailure[] = [];
  for (const item of (doc as { items?: unknown[] }).items ?? []) {
    const g = item as { metadata?: { name?: unknown }; versions?: unknown[] };
    const name = str(g.metadata?.name);
    const versions: ApiGroupVersion[] = [];
    for (const v of g.versions ?? []) {
      const gv = v as { version?: unknown; freshness?: unknown; resources?: unknown[] };
      const version = str(gv.version);
      if (!version) continue;
      const stale = gv.freshness === 'Stale';
      if (stale) {
        failures.push({
          groupVersion: groupVersionOf(name, version),
          message: 'discovery for this group version is stale (its aggregated API server did not answer)',
        });
      }
      const resources: ApiResource[] = [];
      for (const r of gv.resources ?? []) {
        const res = r as {
          resource?: unknown;
          responseKind?: { kind?: unknown };
          scope?: unknown;
          singularResource?: unknown;
          verbs?: unknown;
          shortNames?: unknown;
          categories?: unknown;
        };
        const resource = str(res.resource);
        if (!resource || resource.includes('/')) continue;
        resources.push({
          group: name,
          version,
          resource,
          kind: str(res.responseKind?.kind),
          singular: str(res.singularResource),
          namespaced: res.scope === 'Namespaced',
          verbs: strs(res.verbs),
          shortNames: strs(res.shortNames),
          categories: strs(res.categories),
        });
      }
      versions.push({ version, stale, resources });
    }
    if (versions.length === 0) continue;
    groups.push({ name, preferredVersion: (versions.find((v) => !v.stale) ?? versions[0]).version, versions });
  }
  return { groups, failures };
}

/** Parses an APIResourceList (legacy /api/v1 or /apis/{g}/{v}). */
export function parseResourceList(doc: unknown, group: string, version: string): ApiResource[] {
  const list = doc as { kind?: unknown; resources?: unknown[] };
  if (!list || typeof list !== 'object' || !Array.isArray(list.resources)) {
    throw new Error(`${groupVersionOf(group, version)}: not an APIResourceList`);
  }
  const out: ApiResource[] = [];
  for (const r of list.resources) {
    const res = r as {
      name?: unknown;
      kind?: unknown;
      singularName?: unknown;
      namespaced?: unknown;
      verbs?: unknown;
      shortNames?: unknown;
      categories?: unknown;
    };
    const resource = str(res.name);
    if (!resource || resource.includes('/')) continue;
    out.push({
      group,
      version,
      resource,
      kind: str(res.kind),
      singular: str(res.singularName),
      namespaced: res.namespaced === true,
      verbs: strs(res.verbs),
      shortNames: strs(res.shortNames),
      categories: strs(res.categories),
    });
  }
  return out;
}

/** Parses an APIGroupList (legacy /apis): each group's versions in order and its preferred version. */
export function parseGroupList(doc: unknown): { name: string; preferredVersion: string; versions: string[] }[] {
  const list = doc as { groups?: unknown[] };
  if (!list || typeof list !== 'object' || !Array.isArray(list.groups)) throw new Error('not an APIGroupList');
  return list.groups.map((x) => {
    const g = x as { name?: unknown; preferredVersion?: { version?: unknown }; versions?: { version?: unknown }[] };
    const versions = (g.versions ?? []).map((v) => str(v.version)).filter(Boolean);
    return { name: str(g.name), preferredVersion: str(g.preferredVersion?.version) || versions[0] || '', versions };
  });
}

/** Parses APIVersions (legacy /api): the core group's versions. */
export function parseApiVersions(doc: unknown): string[] {
  const v = doc as { versions?: unknown };
  if (!v || typeof v !== 'object' || !Array.isArray(v.versions)) throw new Error('not an APIVersions document');
  return strs(v.versions);
}

/**
 * Which versions of a group's resources a load lists:
 * - 'per-resource' (default): each resource once, from the most preferred version that serves it,
 *   as client-go's ServerPreferredResources (and so kubectl) chooses. A resource that only exists
 *   in a non-preferred version (clustertrustbundles in certificates.k8s.io/v1beta1 while the group
 *   prefers v1) is still loaded; nothing is loaded twice.
 * - 'group-preferred': only the resources of each group's preferred version.
 * - 'all': every version of every resource (the same objects several times over).
 */
export type VersionChoice = 'per-resource' | 'group-preferred' | 'all';

/** The resource types a load lists: those with the `list` verb, in the chosen versions, stale versions skipped. */
export function listableResources(d: Pick<Discovery, 'groups'>, opts: { versions?: VersionChoice } = {}): ApiResource[] {
  const choice = opts.versions ?? 'per-resource';
  const out: ApiResource[] = [];
  for (const g of d.groups) {
    const seen = new Set<string>();
    // Preferred version first, then the others in server order.
    const ordered = [...g.versions.filter((v) => v.version === g.preferredVersion), ...g.versions.filter((v) => v.version !== g.preferredVersion)];
    for (const v of ordered) {
      if (v.stale) continue;
      if (choice === 'group-preferred' && v.version !== g.preferredVersion) continue;
      for (const r of v.resources) {
        if (choice === 'per-resource') {
          if (seen.has(r.resource)) continue;
          seen.add(r.resource);
        }
        if (r.verbs.includes('list')) out.push(r);
      }
    }
  }
  return out;
}
