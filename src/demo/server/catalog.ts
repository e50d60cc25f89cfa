/**
 * The type catalog: which groups, versions and resources the demo cluster serves.
 *
 * Built-in types come verbatim from the real upstream discovery documents in ../data
 * (aggregated_v2.json for the named groups, api__v1.json for the core group); custom resource
 * types come from the CustomResourceDefinition objects in the store, so a CRD created at start-up
 * or later through the API is served the same way. The internal model is the aggregated (v2)
 * APIResourceDiscovery shape; the legacy documents are derived from it.
 *
 * Each group/resource is stored once, under the first version (in the group's preference order)
 * that serves it; other versions are served from the same objects with apiVersion rewritten.
 */
import aggregatedV2 from '../data/aggregated_v2.json';
import coreV1 from '../data/api__v1.json';
import type { DemoObject, ObjectStore, TypeInfo } from '../store';

export interface Kind {
  group: string;
  version: string;
  kind: string;
}

/** apidiscovery.k8s.io/v2 APIResourceDiscovery, plus what legacy discovery needs besides. */
export interface ResourceEntry {
  resource: string;
  responseKind: Kind;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: { subresource: string; responseKind: Kind; verbs: string[] }[];
  /** Legacy-only field, carried from the upstream document when it has one. */
  storageVersionHash?: string;
}

export interface VersionEntry {
  version: string;
  resources: ResourceEntry[];
  freshness?: string;
}

export interface GroupEntry {
  /** '' for the core group. */
  name: string;
  /** Preferred version first. */
  versions: VersionEntry[];
}

interface RawAggregated {
  items: { metadata: { name: string }; versions: VersionEntry[] }[];
}
interface RawLegacyResource {
  name: string;
  kind: string;
  namespaced: boolean;
  singularName: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  group?: string;
  version?: string;
  storageVersionHash?: string;
}

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_RESOURCE = 'customresourcedefinitions';

function coreGroup(): GroupEntry {
  const raw = (coreV1 as { resources: RawLegacyResource[] }).resources;
  const byName = new Map<string, ResourceEntry>();
  for (const r of raw) {
    if (r.name.includes('/')) continue;
    const e: ResourceEntry = {
      resource: r.name,
      responseKind: { group: '', version: '', kind: r.kind },
      scope: r.namespaced ? 'Namespaced' : 'Cluster',
      singularResource: r.singularName,
      verbs: r.verbs,
    };
    if (r.shortNames) e.shortNames = r.shortNames;
    if (r.categories) e.categories = r.categories;
    if (r.storageVersionHash) e.storageVersionHash = r.storageVersionHash;
    byName.set(r.name, e);
  }
  for (const r of raw) {
    const slash = r.name.indexOf('/');
    if (slash < 0) continue;
    const parent = byName.get(r.name.slice(0, slash));
    if (!parent) continue;
    (parent.subresources ??= []).push({
      subresource: r.name.slice(slash + 1),
      responseKind: { group: r.group ?? '', version: r.version ?? '', kind: r.kind },
      verbs: r.verbs,
    });
  }
  return { name: '', versions: [{ version: 'v1', resources: [...byName.values()], freshness: 'Current' }] };
}

function builtinGroups(): GroupEntry[] {
  return (aggregatedV2 as unknown as RawAggregated).items.map((g) => ({ name: g.metadata.name, versions: g.versions }));
}

interface CRDSpec {
  group?: string;
  names?: { plural?: string; singular?: string; kind?: string; listKind?: string; shortNames?: string[]; categories?: string[] };
  scope?: string;
  versions?: {
    name: string;
    served?: boolean;
    storage?: boolean;
    subresources?: { status?: unknown; scale?: unknown };
    schema?: { openAPIV3Schema?: Record<string, unknown> };
  }[];
}

/** The served versions of one CRD, as catalog entries; undefined when the CRD is incomplete. */
function crdGroupVersions(crd: DemoObject): { group: string; versions: VersionEntry[] } | undefined {
  const spec = crd.spec as CRDSpec | undefined;
  const n = spec?.names;
  if (!spec?.group || !n?.plural || !n.kind || !spec.versions?.length) return undefined;
  const versions: VersionEntry[] = [];
  for (const v of spec.versions) {
    if (v.served === false) continue;
    const e: ResourceEntry = {
      resource: n.plural,
      responseKind: { group: '', version: '', kind: n.kind },
      scope: spec.scope === 'Cluster' ? 'Cluster' : 'Namespaced',
      singularResource: n.singular ?? n.kind.toLowerCase(),
      verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
    };
    if (n.shortNames?.length) e.shortNames = n.shortNames;
    if (n.categories?.length) e.categories = n.categories;
    const subs: ResourceEntry['subresources'] = [];
    if (v.subresources?.status) subs.push({ subresource: 'status', responseKind: { group: '', version: '', kind: n.kind }, verbs: ['get', 'patch', 'update'] });
    if (v.subresources?.scale)
      subs.push({ subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] });
    if (subs.length) e.subresources = subs;
    versions.push({ version: v.name, resources: [e], freshness: 'Current' });
  }
  return versions.length ? { group: spec.group, versions } : undefined;
}

/**
 * Built-in types whose registry strategy sets metadata.generation (PrepareForCreate sets it to 1):
 * the strategies under kubernetes/pkg/registry that do so in v1.36, and CRDs. Every custom
 * resource has one too. The other built-in types never carry a generation.
 */
const BUILTIN_GENERATION = new Set([
  '/pods',
  '/podtemplates',
  '/replicationcontrollers',
  'admissionregistration.k8s.io/mutatingadmissionpolicies',
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings',
  'admissionregistration.k8s.io/mutatingwebhookconfigurations',
  'admissionregistration.k8s.io/validatingadmissionpolicies',
  'admissionregistration.k8s.io/validatingadmissionpolicybindings',
  'admissionregistration.k8s.io/validatingwebhookconfigurations',
  'apiextensions.k8s.io/customresourcedefinitions',
  'apps/daemonsets',
  'apps/deployments',
  'apps/replicasets',
  'apps/statefulsets',
  'batch/cronjobs',
  'batch/jobs',
  'discovery.k8s.io/endpointslices',
  'flowcontrol.apiserver.k8s.io/flowschemas',
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
  'networking.k8s.io/ingresses',
  'networking.k8s.io/ingressclasses',
  'networking.k8s.io/networkpolicies',
  'policy/poddisruptionbudgets',
  'resource.k8s.io/deviceclasses',
  'resource.k8s.io/devicetaintrules',
  'resource.k8s.io/resourceslices',
  'scheduling.k8s.io/priorityclasses',
]);

export function typeInfoOf(group: string, version: string, e: ResourceEntry, custom = false): TypeInfo {
  const t: TypeInfo = {
    group,
    version,
    resource: e.resource,
    kind: e.responseKind.kind,
    listKind: `${e.responseKind.kind}List`,
    singular: e.singularResource,
    namespaced: e.scope === 'Namespaced',
    verbs: e.verbs,
  };
  if (e.shortNames) t.shortNames = e.shortNames;
  if (e.categories) t.categories = e.categories;
  if (e.subresources) t.subresources = e.subresources.map((s) => s.subresource);
  t.generation = custom || BUILTIN_GENERATION.has(`${group}/${e.resource}`);
  return t;
}

export class Catalog {
  private readonly core = coreGroup();
  private readonly builtin = builtinGroups();

  constructor(private readonly store: ObjectStore) {}

  /** Registers every built-in type with the store (the storage version of each group/resource). */
  registerBuiltins(): void {
    for (const g of [this.core, ...this.builtin]) this.registerGroup(g);
  }

  /** Registers the types a CRD object declares; called for start-up CRDs and on every CRD write. */
  registerCRD(crd: DemoObject): void {
    const gv = crdGroupVersions(crd);
    if (gv) this.registerGroup({ name: gv.group, versions: gv.versions }, true);
  }

  /** True for types from the upstream documents (not declared by a CRD). */
  isBuiltin(group: string, resource: string): boolean {
    const g = group === '' ? this.core : this.builtin.find((x) => x.name === group);
    return g?.versions.some((v) => v.resources.some((r) => r.resource === resource)) ?? false;
  }

  coreGroup(): GroupEntry {
    return this.core;
  }

  /** Named groups, built-in first (upstream order), then CRD groups in name order. */
  groups(): GroupEntry[] {
    const out = this.builtin.map((g) => ({ name: g.name, versions: [...g.versions] }));
    const byName = new Map(out.map((g) => [g.name, g]));
    let crds: DemoObject[] = [];
    if (this.store.type(CRD_GROUP, CRD_RESOURCE)) crds = this.store.list(CRD_GROUP, CRD_RESOURCE).items;
    for (const crd of crds) {
      const gv = crdGroupVersions(crd);
      if (!gv) continue;
      let g = byName.get(gv.group);
      if (!g) {
        g = { name: gv.group, versions: [] };
        byName.set(gv.group, g);
        out.push(g);
      }
      for (const v of gv.versions) {
        const existing = g.versions.find((x) => x.version === v.version);
        if (existing) existing.resources = [...existing.resources, ...v.resources];
        else g.versions.push(v);
      }
    }
    for (const g of out) g.versions.sort(compareVersions);
    return out;
  }

  group(name: string): GroupEntry | undefined {
    return name === '' ? this.core : this.groups().find((g) => g.name === name);
  }

  /** The openAPIV3Schema a CRD declares for group/version/plural (undefined: no such CRD or none given). */
  crdSchema(group: string, version: string, plural: string): Record<string, unknown> | undefined {
    if (!this.store.type(CRD_GROUP, CRD_RESOURCE)) return undefined;
    for (const crd of this.store.list(CRD_GROUP, CRD_RESOURCE).items) {
      const spec = crd.spec as CRDSpec | undefined;
      if (spec?.group !== group || spec.names?.plural !== plural) continue;
      return spec.versions?.find((v) => v.name === version)?.schema?.openAPIV3Schema;
    }
    return undefined;
  }

  /** The served resource at group/version/resource (without a subresource), if any. */
  resolve(group: string, version: string, resource: string): ResourceEntry | undefined {
    return this.group(group)
      ?.versions.find((v) => v.version === version)
      ?.resources.find((r) => r.resource === resource);
  }

  private registerGroup(g: GroupEntry, custom = false): void {
    const versions = g.name === '' ? g.versions : [...g.versions].sort(compareVersions);
    for (const v of versions) {
      for (const r of v.resources) {
        if (!this.store.type(g.name, r.resource)) this.store.registerType(typeInfoOf(g.name, v.version, r, custom));
      }
    }
  }
}

/**
 * Kubernetes version priority (as in apimachinery's version.CompareKubeAwareVersionStrings):
 * GA before beta before alpha, higher numbers first; non-Kubernetes-like names last, alphabetically.
 * Built-in groups already come in upstream preference order; this keeps it and orders CRD versions.
 */
export function compareVersions(a: VersionEntry, b: VersionEntry): number {
  const rank = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [stage, Number(m[1]), Number(m[3] ?? 0)];
  };
  const ra = rank(a.version);
  const rb = rank(b.version);
  if (!ra || !rb) return ra ? -1 : rb ? 1 : a.version < b.version ? -1 : a.version > b.version ? 1 : 0;
  for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return rb[i]! - ra[i]!;
  return 0;
}
