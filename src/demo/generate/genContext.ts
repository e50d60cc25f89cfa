/** What every object builder of the generator shares: the PRNG, time, namespaces, nodes, names. */
import type { DemoObject } from '../store';
import { NameBook } from './names';
import { Rng } from './prng';

export type Obj = Record<string, unknown>;

export interface GenNode {
  name: string;
  ip: string;
  /** Prefix of the node's pod CIDR (`10.244.7`), and the next host number to hand out. */
  podPrefix: string;
  nextHost: number;
}

/** Something a pod can point at: enough to build an ownerReference or an involvedObject. */
export interface Ref {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid: string;
}

export class GenContext {
  readonly rng: Rng;
  readonly names = new NameBook();
  /** Namespace weights are skewed (a few big namespaces, many small ones), as in real clusters. */
  private readonly nsCumulative: number[] = [];
  private nextNode = 0;

  constructor(
    seed: number,
    /** Wall-clock "now" of the generated cluster, in ms: every timestamp is before it. */
    readonly now: number,
    readonly namespaces: string[],
    readonly nodes: GenNode[],
  ) {
    this.rng = new Rng(seed);
    let acc = 0;
    for (let i = 0; i < namespaces.length; i++) this.nsCumulative.push((acc += 1 / Math.sqrt(i + 1)));
  }

  pickNamespace(): string {
    const x = this.rng.next() * this.nsCumulative[this.nsCumulative.length - 1]!;
    let lo = 0;
    let hi = this.nsCumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.nsCumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return this.namespaces[lo]!;
  }

  /** Nodes in turn, so no node carries more than its share of pods. */
  takeNode(): GenNode {
    return this.nodes[this.nextNode++ % this.nodes.length]!;
  }

  podIP(node: GenNode): string {
    const ip = `${node.podPrefix}.${node.nextHost}`;
    node.nextHost = node.nextHost >= 254 ? 2 : node.nextHost + 1;
    return ip;
  }

  /** RFC 3339 time `agoMs` before now (second precision). */
  ts(agoMs: number): string {
    return new Date(this.now - Math.max(0, Math.floor(agoMs / 1000) * 1000)).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  /** An age between an hour and ~200 days, skewed towards recent. */
  age(): number {
    const r = this.rng.next();
    return 3_600_000 + Math.floor(r * r * 200 * 86_400_000);
  }

  name(scope: string, base: string, suffixLen = 5): string {
    return this.names.take(scope, base, this.rng, suffixLen);
  }

  exactName(scope: string, base: string): string {
    return this.names.take(scope, base, this.rng, 0, false);
  }

  meta(
    name: string,
    namespace: string | undefined,
    extra: { labels?: Record<string, string>; annotations?: Record<string, string>; owner?: Ref; controller?: boolean } = {},
  ): DemoObject['metadata'] {
    const m: DemoObject['metadata'] = { name };
    if (namespace !== undefined) m.namespace = namespace;
    m.uid = this.rng.uuid();
    if (extra.labels) m.labels = extra.labels;
    if (extra.annotations) m.annotations = extra.annotations;
    if (extra.owner) {
      m.ownerReferences = [
        {
          apiVersion: extra.owner.apiVersion,
          kind: extra.owner.kind,
          name: extra.owner.name,
          uid: extra.owner.uid,
          controller: extra.controller ?? true,
          blockOwnerDeletion: true,
        },
      ];
    }
    return m;
  }
}

export function refOf(o: DemoObject): Ref {
  return { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace, uid: o.metadata.uid ?? '' };
}
