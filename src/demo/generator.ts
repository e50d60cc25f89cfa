/**
 * The demo cluster's deterministic object generator: `--objects N --seed S`.
 *
 * Fills many namespaces (N/500, at most 200) and every listable type the store serves (plus the
 * types of the well-known CRDs it installs) with objects shaped like a real cluster's: a mix led
 * by pods, events, configmaps, replicasets and secrets; workloads that own their ReplicaSets and
 * Pods through ownerReferences; Pods already Running on the nodes with the status a kubelet writes
 * (so the kubelet simulation adopts them without any work, except the few crash-looping ones).
 *
 * Guarantees:
 * - Exactly N objects are created (N counts namespaces, nodes and CRDs too).
 * - Deterministic: the same seed and options give the same objects in the same order, byte for
 *   byte, as generate() hands them to `emit` (a store then adds its own uid, resourceVersion and
 *   creationTimestamp, and ownerReferences carry the uids the store gave the owners).
 * - Streams: objects go to the store as they are built; the generator keeps only small references
 *   (pod names and IPs per app) for Services and Events to point at.
 */
import { applyDefaults } from './server/defaults';
import { crdObject, crdTypeInfo, CLUSTER, genericObject, WELL_KNOWN_CRDS } from './generate/cluster';
import { GenContext, refOf, type GenNode, type Ref } from './generate/genContext';
import { namespaceNames } from './generate/names';
import { NAMESPACED, type Links } from './generate/namespaced';
import { planCounts, typeKey } from './generate/plan';
import {
  controllerRevision,
  cronJob,
  daemonSet,
  deployment,
  job,
  pinnedTo,
  pod,
  replicaSet,
  statefulSet,
  template,
  type Emit,
  type Template,
} from './generate/workloads';
import { nodeObject, podCIDROf } from './kubelet/nodes';
import { kubeTime, type DemoObject, type ObjectStore, type TypeInfo } from './store';
import { withGeneratedFields } from './generate/fields';
import { namespaceDefaults } from './controllers/namespaces';

export interface GenerateOptions {
  objects: number;
  seed: number;
  /** Default: N/500, between 1 and 200. */
  namespaces?: number;
  /** How many well-known CRDs to install (their custom resources are generated too). Default: N/5000, 2..20 (0 below 500 objects). */
  crds?: number;
  /** Exactly this many nodes (default about one per 100 pods, at most 1,000). */
  nodes?: number;
  /** Exactly this many pods (default 10 % of the objects). */
  pods?: number;
  /** Pods with a failing liveness probe (crash-looping under the kubelet simulation). Default: one per 2000 pods. */
  brokenPods?: number;
  /** The generated cluster's "now" (ms), before which every timestamp lies. Default: a fixed instant, for determinism. */
  now?: number;
  /**
   * One more namespace holding `pods` bare Running pods, counted in the N objects (the rest of the
   * cluster is planned from what is left): a kind of 10,000 rows in one namespace, which the spread
   * of N/500 namespaces never makes, for the tree's paging and the extension bench's churn.
   */
  bigNamespace?: { name: string; pods: number };
}

export interface GenerateResult {
  objects: number;
  byType: Record<string, number>;
  namespaces: string[];
  nodes: string[];
  ms: number;
}

export const DEFAULT_NOW = Date.parse('2026-01-15T12:00:00Z');

/** The store-free core: builds the objects for `types` and hands each to emit, in a fixed order. */
export function generate(
  types: TypeInfo[],
  opts: GenerateOptions,
  emit: Emit,
  hooks: { register?: (t: TypeInfo) => void; takenNamespace?: (name: string) => boolean; existingNodes?: { name: string; index: number }[] } = {},
): GenerateResult {
  const started = performance.now();
  const total = Math.max(0, Math.floor(opts.objects));
  const hasNs = types.some((t) => typeKey(t) === '/namespaces') && types.some((t) => typeKey(t) === '/pods');
  // The big namespace's objects (its Namespace and its pods) come off the top; the plan shares the
  // rest, which keeps room for one namespace and one node (the pods' node) at least.
  const bigPods = opts.bigNamespace && hasNs && total > 3 ? Math.min(Math.max(0, Math.floor(opts.bigNamespace.pods)), total - 3) : 0;
  const n = bigPods > 0 ? total - bigPods - 1 : total;
  const byType: Record<string, number> = {};
  const counted: Emit = (g, r, o) => {
    const stored = emit(g, r, o);
    const k = typeKey({ group: g, resource: r });
    byType[k] = (byType[k] ?? 0) + 1;
    return stored;
  };
  const hasType = (k: string) => types.some((t) => typeKey(t) === k);

  // CRDs first: their types take part in the plan like any other.
  const crdWanted = hasType('apiextensions.k8s.io/customresourcedefinitions')
    ? Math.min(WELL_KNOWN_CRDS.length, Math.floor(n / 10), opts.crds ?? (n >= 500 ? Math.max(2, Math.min(20, Math.floor(n / 5000))) : 0))
    : 0;
  const crdDefs = WELL_KNOWN_CRDS.slice(0, crdWanted);
  const customKeys = new Set<string>();
  const allTypes = [...types];
  for (const d of crdDefs) {
    const t = crdTypeInfo(d);
    customKeys.add(typeKey(t));
    if (!allTypes.some((x) => typeKey(x) === typeKey(t))) {
      allTypes.push(t);
      hooks.register?.(t);
    }
  }
  const plan = planCounts(allTypes, n, {
    namespaces: opts.namespaces,
    crds: crdWanted,
    ...(opts.nodes !== undefined ? { nodes: opts.nodes } : {}),
    ...(opts.pods !== undefined ? { pods: opts.pods } : {}),
    isCustom: (t) => customKeys.has(typeKey(t)),
  });

  const nsNames = namespaceNames(plan.namespaces + 64)
    .filter((x) => !hooks.takenNamespace?.(x) && x !== opts.bigNamespace?.name)
    .slice(0, plan.namespaces);
  const existing = hooks.existingNodes ?? [];
  let nodeIndex = existing.reduce((m, x) => Math.max(m, x.index), 0);
  const nodes: GenNode[] = [];
  for (let k = 1; nodes.length < plan.nodes; k++) {
    const name = `demo-node-${k}`;
    if (existing.some((x) => x.name === name)) continue;
    const index = ++nodeIndex;
    nodes.push({ name, ip: `172.18.${Math.floor(index / 250)}.${(index % 250) + 2}`, podPrefix: podCIDROf(index).replace(/\.0\/24$/, ''), nextHost: 2 });
  }
  const ctx = new GenContext(opts.seed, opts.now ?? DEFAULT_NOW, nsNames, nodes);

  for (const name of nsNames) {
    const [team, env] = name.split('-');
    counted('', 'namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: ctx.meta(name, undefined, { labels: { 'kubernetes.io/metadata.name': name, team: team!, env: env ?? 'prod' } }),
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  }
  // What kube-controller-manager puts in every namespace (a default ServiceAccount, the CA bundle), out of the plan's share of their types.
  for (const name of nsNames) {
    for (const d of namespaceDefaults(name)) {
      const left = plan.counts.get(typeKey(d)) ?? 0;
      if (left === 0) continue;
      plan.counts.set(typeKey(d), left - 1);
      counted(d.group, d.resource, d.object);
    }
  }
  nodes.forEach((nd, i) => {
    const o = nodeObject(nd.name, nodeIndex - nodes.length + i + 1, ctx.ts(ctx.age()));
    counted('', 'nodes', { ...o, metadata: { ...o.metadata, uid: ctx.rng.uuid() } });
  });
  for (const d of crdDefs.slice(0, plan.crds)) counted('apiextensions.k8s.io', 'customresourcedefinitions', crdObject(ctx, d));

  const links: Links = { templates: new Map() };
  if (nsNames.length) generateWorkloads(ctx, counted, links, plan.counts, nodes, opts.brokenPods);

  const done = new Set([
    '/pods',
    'apps/deployments',
    'apps/replicasets',
    'apps/statefulsets',
    'apps/daemonsets',
    'batch/jobs',
    'batch/cronjobs',
    'apps/controllerrevisions',
  ]);
  if (bigPods > 0) generateBigNamespace(ctx, counted, opts.bigNamespace!.name, bigPods, nodes.length > 0);
  for (const [k, c] of plan.counts) {
    if (done.has(k) || c === 0) continue;
    const t = allTypes.find((x) => typeKey(x) === k)!;
    for (let i = 0; i < c; i++) {
      const ns = t.namespaced ? ctx.pickNamespace() : undefined;
      const b = NAMESPACED[k];
      const cb = CLUSTER[k];
      const obj = t.namespaced && b ? b(ctx, ns!, links) : !t.namespaced && cb ? cb(ctx) : genericObject(ctx, t, ns);
      counted(t.group, t.resource, obj);
    }
  }
  return {
    objects: Object.values(byType).reduce((a, b) => a + b, 0),
    byType,
    namespaces: nsNames,
    nodes: nodes.map((x) => x.name),
    ms: performance.now() - started,
  };
}

/** The big namespace: its Namespace object, then `pods` bare Running pods of one app (names `<app>-<suffix>`). */
function generateBigNamespace(ctx: GenContext, emit: Emit, name: string, pods: number, haveNodes: boolean): void {
  emit('', 'namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: ctx.meta(name, undefined, { labels: { 'kubernetes.io/metadata.name': name } }),
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
  if (!haveNodes) throw new Error('bigNamespace: no node to schedule its pods on'); // the plan always keeps one
  const t = template(ctx, name);
  for (let k = 0; k < pods; k++) pod(ctx, emit, t, ctx.name(`pod/${name}`, t.app), undefined, t.labels, 'running');
}

/** Deployments -> ReplicaSets -> Pods, StatefulSets, DaemonSets, CronJobs -> Jobs -> Pods, ControllerRevisions. */
function generateWorkloads(ctx: GenContext, emit: Emit, links: Links, counts: Map<string, number>, nodes: GenNode[], brokenOpt: number | undefined): void {
  const r = ctx.rng;
  const c = (k: string) => counts.get(k) ?? 0;
  const track = (t: Template) => {
    const list = links.templates.get(t.namespace);
    if (list) list.push(t);
    else links.templates.set(t.namespace, [t]);
    return t;
  };
  const D = c('apps/deployments');
  const R = c('apps/replicasets');
  const activeRS = D > 0 ? Math.min(D, R) : R;
  const apps = Array.from({ length: Math.max(D, activeRS) }, () => track(template(ctx, ctx.pickNamespace())));
  const stsT = Array.from({ length: c('apps/statefulsets') }, () => track(template(ctx, ctx.pickNamespace())));
  const dsT = Array.from({ length: c('apps/daemonsets') }, () => track(template(ctx, ctx.pickNamespace())));
  const cjT = Array.from({ length: c('batch/cronjobs') }, () => track(template(ctx, ctx.pickNamespace(), 'job')));
  const jobT = Array.from({ length: c('batch/jobs') }, (_, i) =>
    cjT.length && i < cjT.length * 3 ? cjT[i % cjT.length]! : track(template(ctx, ctx.pickNamespace(), 'job')),
  );

  // Who owns each pod: mostly ReplicaSets, then StatefulSets, Jobs, a few bare pods. DaemonSets
  // run one pod on every node (as a real cluster's few node agents do, about 5 % of its pods);
  // the other DaemonSets select GPU nodes, which the generated cluster has none of.
  const P = c('/pods');
  const broken = Math.min(P, brokenOpt ?? Math.floor(P / 2000));
  const N = nodes.length;
  const fullDs = N ? Math.min(dsT.length, Math.floor((P - broken) / N), Math.max(dsT.length ? 1 : 0, Math.floor((0.05 * P) / N))) : 0;
  const cats = [
    { n: activeRS, w: 0.82 },
    { n: stsT.length, w: 0.07 },
    { n: 0, w: 0 },
    { n: jobT.length, w: 0.04 },
    { n: 1, w: 0.02 },
  ];
  const perOwner = cats.map((x) => new Array<number>(x.n).fill(0));
  const wsum = cats.reduce((s, x) => s + (x.n ? x.w : 0), 0);
  for (let k = 0; k < P - broken - fullDs * N; k++) {
    let x = r.next() * wsum;
    let ci = cats.findIndex((cat) => cat.n > 0 && (x -= cat.w) < 0);
    if (ci < 0) ci = cats.length - 1;
    perOwner[ci]![r.int(cats[ci]!.n)]!++;
  }

  // Deployment i owns ReplicaSets i, i+D, i+2D, ...: the first is its newest revision.
  const revisions = (i: number) => (R > i ? Math.floor((R - 1 - i) / D) + 1 : 0);
  const deployRefs: (Ref | undefined)[] = apps.slice(0, D).map((t, i) => refOf(deployment(ctx, emit, t, perOwner[0]![i] ?? 0, revisions(i)).deploy));
  const rsOwners: { ref: Ref; hash: string; t: Template }[] = [];
  for (let i = 0; i < R; i++) {
    const t = D > 0 ? apps[i % D]! : apps[i]!;
    const active = i < activeRS;
    const k = D > 0 ? revisions(i % D) : 1;
    const revision = D > 0 ? k - Math.floor(i / D) : 1;
    const { rs, hash } = replicaSet(ctx, emit, t, D > 0 ? deployRefs[i % D] : undefined, active ? perOwner[0]![i]! : 0, revision, k);
    if (active) rsOwners.push({ ref: refOf(rs), hash, t });
  }
  const stsOwners = stsT.map((t, i) => ({ ...statefulSet(ctx, emit, t, perOwner[1]![i]!), t }));
  const dsOwners = dsT.map((t, i) => {
    const { ds, hash } = daemonSet(ctx, emit, t, N, i >= fullDs);
    return { ref: refOf(ds), hash, t, full: i < fullDs };
  });
  // CronJob j's runs are Jobs j, j+C, j+2C (at most 3, its successfulJobsHistoryLimit), newest first.
  const C = cjT.length;
  const cronRuns = cjT.map((t, j) => cronJob(ctx, emit, t, C ? Math.max(0, Math.min(3, Math.floor((jobT.length - 1 - j) / C) + 1)) : 0));
  const jobOwners = jobT.map((t, i) => {
    const run = C && i < C * 3 ? cronRuns[i % C] : undefined;
    const at = run?.times[Math.floor(i / C)];
    return { ref: refOf(job(ctx, emit, t, run ? refOf(run.cj) : undefined, perOwner[3]![i]!, at)), t };
  });

  rsOwners.forEach((o, i) => {
    const labels = { ...o.t.labels, 'pod-template-hash': o.hash };
    for (let k = perOwner[0]![i]!; k > 0; k--) pod(ctx, emit, o.t, ctx.name(`pod/${o.t.namespace}`, o.ref.name), o.ref, labels, 'running');
  });
  stsOwners.forEach((o, i) => {
    for (let k = 0; k < perOwner[1]![i]!; k++) {
      const name = ctx.exactName(`pod/${o.t.namespace}`, `${o.t.app}-${k}`);
      const labels = {
        ...o.t.labels,
        'apps.kubernetes.io/pod-index': String(k),
        'controller-revision-hash': o.revision,
        'statefulset.kubernetes.io/pod-name': name,
      };
      pod(ctx, emit, o.t, name, refOf(o.sts), labels, 'running', { spec: { hostname: name, subdomain: o.t.app } });
    }
  });
  for (const o of dsOwners) {
    if (!o.full) continue;
    const labels = { ...o.t.labels, 'controller-revision-hash': o.hash, 'pod-template-generation': '1' };
    for (const node of nodes) pod(ctx, emit, o.t, ctx.name(`pod/${o.t.namespace}`, o.t.app), o.ref, labels, 'running', { node, spec: pinnedTo(node.name) });
  }
  jobOwners.forEach((o, i) => {
    const labels = { ...o.t.labels, 'batch.kubernetes.io/job-name': o.ref.name, 'job-name': o.ref.name };
    for (let k = perOwner[3]![i]!; k > 0; k--) pod(ctx, emit, o.t, ctx.name(`pod/${o.t.namespace}`, o.ref.name), o.ref, labels, 'succeeded');
  });
  const bare = perOwner[4]![0] ?? 0;
  for (let k = 0; k < bare + broken; k++) {
    const isBroken = k >= bare;
    const t = track(template(ctx, ctx.pickNamespace(), isBroken ? 'broken' : 'app'));
    pod(ctx, emit, t, ctx.exactName(`pod/${t.namespace}`, isBroken ? `${t.app}-canary` : t.app), undefined, t.labels, isBroken ? 'crashloop' : 'running');
  }

  const revOwners = [
    ...stsOwners.map((o) => ({ ref: refOf(o.sts), t: o.t, name: o.revision })),
    ...dsOwners.map((o) => ({ ref: o.ref, t: o.t, name: `${o.t.app}-${o.hash}` })),
  ];
  for (let i = 0; i < c('apps/controllerrevisions'); i++) {
    const o = revOwners.length ? revOwners[i % revOwners.length] : undefined;
    const first = o && i < revOwners.length;
    controllerRevision(ctx, emit, o?.t ?? track(template(ctx, ctx.pickNamespace())), o?.ref, first ? o!.name : undefined);
  }
}

/** Generates into a store: registers the CRD types it installs, skips namespace and node names already taken. */
export function generateObjects(store: ObjectStore, opts: GenerateOptions): GenerateResult {
  const existingNodes = store.type('', 'nodes')
    ? store.list('', 'nodes').items.map((o) => {
        const m = /^10\.(\d+)\.(\d+)\.0\/24$/.exec(String((o.spec as { podCIDR?: string } | undefined)?.podCIDR ?? ''));
        return { name: o.metadata.name, index: m ? (Number(m[1]) - 244) * 256 + Number(m[2]) : 0 };
      })
    : [];
  // Stored as the apiserver stores a created workload: spec defaults applied, so a later update
  // (defaulted again on the way in) changes neither the generation nor the template.
  // With the managedFields its writers would have left (generate/fields.ts), stamped at the generated now.
  const time = kubeTime(new Date(opts.now ?? DEFAULT_NOW));
  const emit = (g: string, r: string, o: DemoObject) => {
    const t = store.type(g, r)!;
    return store.create(g, r, withGeneratedFields(t, applyDefaults(t, o), time));
  };
  return generate(store.types(), opts, emit, {
    register: (t) => {
      if (!store.type(t.group, t.resource)) store.registerType(t);
    },
    takenNamespace: (name) => store.type('', 'namespaces') !== undefined && store.get('', 'namespaces', undefined, name) !== undefined,
    existingNodes,
  });
}
