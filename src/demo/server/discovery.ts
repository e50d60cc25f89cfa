/**
 * Discovery documents, legacy and aggregated, derived from the Catalog.
 *
 * Legacy: /api (APIVersions), /api/v1 and /apis/{g}/{v} (APIResourceList), /apis (APIGroupList),
 * /apis/{g} (APIGroup). Aggregated: /api and /apis as apidiscovery.k8s.io v2 (or v2beta1)
 * APIGroupDiscoveryList when the Accept header asks for it; the response's Content-Type then names
 * the aggregated type, which is how clients (kubectl, client-go) tell the two forms apart.
 */
import type { Catalog, GroupEntry, ResourceEntry, VersionEntry } from './catalog';

export interface LegacyResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  group?: string;
  version?: string;
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

export function apiVersions(serverAddress: string) {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDoc(g: GroupEntry) {
  const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v.version}`, version: v.version }));
  return { name: g.name, versions, preferredVersion: versions[0]! };
}

export function apiGroupList(catalog: Catalog) {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: catalog
      .groups()
      .filter((g) => g.versions.length)
      .map(groupDoc),
  };
}

export function apiGroup(g: GroupEntry) {
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g) };
}

function legacyResources(e: ResourceEntry): LegacyResource[] {
  const main: LegacyResource = {
    name: e.resource,
    singularName: e.singularResource,
    namespaced: e.scope === 'Namespaced',
    kind: e.responseKind.kind,
    verbs: e.verbs,
  };
  if (e.shortNames) main.shortNames = e.shortNames;
  if (e.categories) main.categories = e.categories;
  if (e.storageVersionHash) main.storageVersionHash = e.storageVersionHash;
  const out = [main];
  for (const s of e.subresources ?? []) {
    const sub: LegacyResource = {
      name: `${e.resource}/${s.subresource}`,
      singularName: '',
      namespaced: main.namespaced,
      kind: s.responseKind.kind,
      verbs: s.verbs,
    };
    if (s.responseKind.group) sub.group = s.responseKind.group;
    if (s.responseKind.version) sub.version = s.responseKind.version;
    out.push(sub);
  }
  return out;
}

export function apiResourceList(groupName: string, v: VersionEntry) {
  const resources = v.resources.flatMap(legacyResources).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupName ? `${groupName}/${v.version}` : v.version, resources };
}

export type AggregatedVersion = 'v2' | 'v2beta1';

export function aggregatedContentType(v: AggregatedVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`;
}

function aggregatedGroup(g: GroupEntry) {
  return {
    metadata: g.name ? { name: g.name, creationTimestamp: null } : { creationTimestamp: null },
    versions: g.versions.map((v) => ({
      version: v.version,
      resources: v.resources.map(stripLegacyOnly),
      freshness: v.freshness ?? 'Current',
    })),
  };
}

function stripLegacyOnly(e: ResourceEntry) {
  const { storageVersionHash: _h, ...rest } = e;
  return rest;
}

export function aggregatedList(groups: GroupEntry[], v: AggregatedVersion) {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${v}`,
    metadata: {},
    items: groups.filter((g) => g.versions.length).map(aggregatedGroup),
  };
}

/** Which aggregated form the Accept header asks for, if any (the first one listed wins). */
export function wantsAggregated(accept: string | undefined): AggregatedVersion | undefined {
  for (const m of parseAccept(accept)) {
    if (m.params.as === 'APIGroupDiscoveryList' && m.params.g === 'apidiscovery.k8s.io' && (m.params.v === 'v2' || m.params.v === 'v2beta1')) {
      return m.params.v;
    }
    if (m.type === 'application/json' && !m.params.as) return undefined;
  }
  return undefined;
}

export interface MediaRange {
  type: string;
  params: Record<string, string>;
}

/** Parses an Accept header into media ranges, in order (q-values are ignored, as order suffices here). */
export function parseAccept(accept: string | undefined): MediaRange[] {
  if (!accept) return [];
  return accept.split(',').map((part) => {
    const [type, ...ps] = part.split(';').map((x) => x.trim());
    const params: Record<string, string> = {};
    for (const p of ps) {
      const eq = p.indexOf('=');
      if (eq > 0) params[p.slice(0, eq).trim()] = p.slice(eq + 1).trim();
    }
    return { type: (type ?? '').toLowerCase(), params };
  });
}

export function versionInfo() {
  return {
    major: '1',
    minor: '34',
    emulationMajor: '1',
    emulationMinor: '34',
    minCompatibilityMajor: '1',
    minCompatibilityMinor: '33',
    gitVersion: 'v1.34.0-kubeloop-demo',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.24.0',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}
