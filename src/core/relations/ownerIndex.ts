/**
 * OwnerIndex: one cluster's ownerReferences, both ways (uid -> owners, uid -> dependents), the
 * client's counterpart of the garbage collector's GraphBuilder (kube-controller-manager's
 * pkg/controller/garbagecollector/graph.go), kept from the objects the loader lists and the watches
 * the sync loop runs.
 *
 * Like the GC's graph, an owner that no observed object is (deleted, not listed, or of a type the
 * user may not list) is still a node: `virtual`, known only by what its dependents' references say
 * of it (apiVersion, kind, name, uid). An owner's namespace is not part of an ownerReference: a
 * virtual owner is shown without one; an observed owner has its own (a cluster-scoped owner of a
 * namespaced object simply has none).
 *
 * Guarantees:
 * - Both directions always agree: X is among Y's owners exactly when Y is among X's dependents.
 * - Queries terminate on any graph, cycles included (a cycle cannot be written through the API's
 *   validation of one object, but two objects can name each other): each node is visited once.
 * - A removed object leaves no node behind unless some object still names it as owner (it stays,
 *   virtual, as the GC's graph keeps an owner its dependents still reference).
 * - Compact: a uid is held once, as its 128 bits (a lowercase UUID, every kube-apiserver's) in
 *   typed arrays and UidTable, not as a string; one small array of owner ids per object that has
 *   owners, one of dependent ids per object that has dependents; ids of forgotten nodes are reused. Measured in test/unit/relations-ownerIndex.test.ts (the 100k figure).
 */
import { sharedInterner } from '../kube/objects/intern';
import { uidOfWords } from '../kube/objects/uidWords';
import { UidTable } from './uidTable';

/** What a node shows: enough to name it and to open it (typeKey, when observed). */
export interface RelationNode {
  uid: string;
  kind: string;
  /** `v1`, `apps/v1`: from the ownerReference of a virtual node, or the observed object's. */
  apiVersion?: string;
  name: string;
  namespace?: string;
  /** kubectl's type name (`replicasets.apps`) of an observed object; unset for a virtual one. */
  typeKey?: string;
  /** Known only from its dependents' ownerReferences (not listed, or gone). */
  virtual: boolean;
}

/** One level of a query's answer: a node and, per edge, whether the owner is the controller. */
export interface RelationTree {
  node: RelationNode;
  /** This edge's owner is the dependent's controller (ownerReference.controller). */
  controller: boolean;
  readonly children: readonly RelationTree[];
  /** This node was already shown (a cycle or a diamond): it is not expanded again. */
  seen?: true;
  /** Relations of this node not shown: the query's limit was reached (the count of them). */
  omitted?: number;
}

/** The identifying part of an object this index reads (metadata only). */
export interface OwnedObject {
  apiVersion?: string;
  kind?: string;
  metadata: { uid: string; name: string; namespace?: string; ownerReferences?: unknown[] };
}

interface Descriptor {
  kind: string;
  apiVersion?: string;
  typeKey?: string;
}

/** A tree as walk() builds it; a leaf shares LEAF until it gets a child (most nodes are leaves). */
type Building = Omit<RelationTree, 'children'> & { children: Building[] };
const LEAF: Building[] = Object.freeze([]) as unknown as Building[];

const NONE = -1;
const OBSERVED = 1;
/** The node's uid is its four words in `uidWords`; else it is in `oddUids`. */
const PACKED_UID = 2;
/** The node was forgotten (its id is free). */
const GONE = 4;

/**
 * Nodes a query returns at most: a Deployment of 10,000 pods is shown whole, and a wider tree is
 * cut (its rest counted) so a query stays within 50 ms on a loaded machine (the 100k test).
 */
export const QUERY_LIMIT = 10_005;

export class OwnerIndex {
  private readonly ids = new UidTable();
  /** Ids given so far (the node arrays' length in use). */
  private top = 0;
  /** Four words a node: its uid when PACKED_UID. */
  private uidw = new Uint32Array(4 * 1024);
  /** The uids that are not lowercase UUIDs, by node. */
  private readonly oddUids = new Map<number, string>();
  private names: string[] = [];
  private namespaces: (string | undefined)[] = [];
  private desc = new Int32Array(1024);
  private flags = new Uint8Array(1024);
  /** The controller among a node's owners, NONE when none is. */
  private controllerOf = new Int32Array(1024);
  private owners: (number[] | undefined)[] = [];
  private dependents: (number[] | undefined)[] = [];
  private readonly free: number[] = [];
  /** Index 0: the placeholder of a node whose type is not yet known. */
  private readonly descriptors: Descriptor[] = [{ kind: '' }];
  private readonly descriptorIds = new Map<string, number>();
  /** Per descriptor, the observed objects of it (retain's count of a type). */
  private readonly observedOf: number[] = [0];
  private observedCount = 0;
  /** Per node, the stamp of the last query that reached it. */
  private visit = new Uint32Array(0);
  private stamp = 0;

  /** Objects observed (not virtual owners). */
  get size(): number {
    return this.observedCount;
  }

  /** Nodes held, virtual owners included. */
  get nodes(): number {
    return this.ids.size;
  }

  /**
   * An object as listed or watched (ADDED, MODIFIED): its node becomes observed, and its owner
   * edges become those its ownerReferences name now. `typeKey`/`kind` name its type when the object
   * does not carry its kind (list items do not).
   */
  upsert(obj: OwnedObject, typeKey: string, kind: string): void {
    const m = obj.metadata;
    const id = this.idOf(m.uid, true);
    if (!(this.flags[id]! & OBSERVED)) this.observedCount++;
    else this.observedOf[this.desc[id]!]!--;
    this.flags[id] = this.flags[id]! | OBSERVED;
    this.names[id] = m.name;
    this.namespaces[id] = m.namespace === undefined ? undefined : this.internNamespace(m.namespace);
    const d = this.observedDescriptor(typeKey, obj.kind ?? kind, obj.apiVersion);
    this.desc[id] = d;
    this.observedOf[d]!++;
    const raw = m.ownerReferences;
    // most objects own nothing and are owned by nothing: no edge to read, none to drop
    if (raw === undefined && this.owners[id] === undefined) this.controllerOf[id] = NONE;
    else this.setOwners(id, readRefs(raw));
  }

  /** An object deleted (a watch's DELETED, or gone from a list): see the guarantees. */
  remove(uid: string): void {
    const id = this.ids.get(uid);
    if (id === undefined || !(this.flags[id]! & OBSERVED)) return;
    this.flags[id] = this.flags[id]! & ~OBSERVED;
    this.observedCount--;
    this.observedOf[this.desc[id]!]!--;
    this.setOwners(id, []);
    this.forgetIfUnused(id);
  }

  /**
   * A full list of one type (in one namespace, or all when `namespace` is undefined): every object
   * of that type and scope the list does not hold is removed, the rest upserted. One pass over the
   * nodes: a relist, not a watch event.
   */
  replace(typeKey: string, kind: string, namespace: string | undefined, items: readonly OwnedObject[]): void {
    this.retain(typeKey, namespace, new Set(items.map((o) => o.metadata.uid)));
    for (const o of items) this.upsert(o, typeKey, kind);
  }

  /** Removes the observed objects of `typeKey` (in `namespace`, or all) whose uid `listed` lacks. */
  retain(typeKey: string, namespace: string | undefined, listed: ReadonlySet<string>): void {
    if (namespace === undefined && this.holdsOnly(typeKey, listed, listed.size)) return;
    this.removeUnlisted(typeKey, namespace, listed);
  }

  private removeUnlisted(typeKey: string, namespace: string | undefined, listed: ReadonlySet<string>): void {
    // A walk of the node arrays, the uid looked up only for nodes of this type (a load of 100,000
    // objects in 70 types hashed every uid 70 times: ~0.3 s of the host).
    const gone: string[] = [];
    const n = this.top;
    for (let id = 0; id < n; id++) {
      if (!(this.flags[id]! & OBSERVED)) continue;
      if (this.descriptors[this.desc[id]!]!.typeKey !== typeKey) continue;
      if (namespace !== undefined && this.namespaces[id] !== namespace) continue;
      const uid = this.uidAt(id);
      if (!listed.has(uid)) gone.push(uid);
    }
    for (const uid of gone) this.remove(uid);
  }

  /**
   * retain(typeKey, namespace, new Set(uids)), for a loader task's list: the set is made only when
   * some object of the type is not among `uids` (duplicates allowed).
   */
  retainListed(typeKey: string, namespace: string | undefined, uids: readonly string[]): void {
    if (namespace === undefined && this.holdsOnly(typeKey, uids, uids.length)) return;
    this.removeUnlisted(typeKey, namespace, new Set(uids));
  }

  /**
   * Whether every observed object of `typeKey` is among `listed` (then retain over all namespaces
   * removes nothing). Counted, not walked: the nodes of the other types are not visited (a load
   * retains once per task: 89 tasks walked all 100,000 nodes each). Each uid counts once.
   */
  private holdsOnly(typeKey: string, listed: Iterable<string>, count: number): boolean {
    let held = 0;
    for (let d = 1; d < this.descriptors.length; d++) if (this.descriptors[d]!.typeKey === typeKey) held += this.observedOf[d]!;
    if (held === 0) return true;
    if (held > count) return false;
    const stamp = this.nextStamp();
    let found = 0;
    for (const uid of listed) {
      const id = this.ids.get(uid);
      if (id === undefined || !(this.flags[id]! & OBSERVED) || this.visit[id] === stamp) continue;
      this.visit[id] = stamp;
      if (this.descriptors[this.desc[id]!]!.typeKey === typeKey) found++;
    }
    return found === held;
  }

  /** Forgets everything (another cluster). */
  clear(): void {
    this.ids.clear();
    this.top = 0;
    this.oddUids.clear();
    this.names = [];
    this.namespaces = [];
    this.owners = [];
    this.dependents = [];
    this.free.length = 0;
    this.observedCount = 0;
    this.observedOf.fill(0);
    this.flags.fill(0);
  }

  node(uid: string): RelationNode | undefined {
    const id = this.ids.get(uid);
    return id === undefined ? undefined : this.nodeOf(id);
  }

  /** The uid of the observed object of `typeKey` named `name` (in `namespace`); a scan, for the CLI's KIND/NAME. */
  find(typeKey: string, name: string, namespace?: string): string | undefined {
    for (let id = 0; id < this.top; id++) {
      if (this.names[id] !== name || !(this.flags[id]! & OBSERVED)) continue;
      if (this.descriptors[this.desc[id]!]!.typeKey === typeKey && this.namespaces[id] === namespace) return this.uidAt(id);
    }
    return undefined;
  }

  /** Its owners, and theirs, up to the roots (owners first as listed in its ownerReferences). */
  ownersOf(uid: string, limit = QUERY_LIMIT): RelationTree | undefined {
    return this.walk(uid, true, limit);
  }

  /** The objects it owns, and theirs, down to the leaves (dependents in the order they were seen). */
  dependentsOf(uid: string, limit = QUERY_LIMIT): RelationTree | undefined {
    return this.walk(uid, false, limit);
  }

  // ---- internals ----

  /**
   * Breadth first, so a limit cuts the deepest level, never the first; each node expanded once.
   * At most `limit` nodes are made (a node already shown counts too): past it, a node's remaining
   * relations are counted in `omitted`, not built, so a query costs O(limit) whatever the graph.
   * `controller` is per edge: the dependent's controller is this owner.
   */
  private walk(uid: string, upward: boolean, limit: number): RelationTree | undefined {
    const next = upward ? this.owners : this.dependents;
    const start = this.ids.get(uid);
    if (start === undefined) return undefined;
    const root: Building = { node: this.nodeOf(start), controller: false, children: LEAF };
    // seen: visit[id] === stamp (no set to build per query)
    const stamp = this.nextStamp();
    this.visit[start] = stamp;
    let queue: number[] = [start];
    let trees: Building[] = [root];
    let count = 1;
    while (queue.length) {
      const level: number[] = [];
      const levelTrees: Building[] = [];
      for (let q = 0; q < queue.length; q++) {
        const id = queue[q]!;
        const tree = trees[q]!;
        const ids = next[id] ?? [];
        for (let i = 0; i < ids.length; i++) {
          if (count >= limit) {
            tree.omitted = ids.length - i;
            break;
          }
          const n = ids[i]!;
          const controller = upward ? this.controllerOf[id] === n : this.controllerOf[n] === id;
          const child: Building = { node: this.nodeOf(n), controller, children: LEAF };
          if (tree.children === LEAF) tree.children = [];
          tree.children.push(child);
          count++;
          if (this.visit[n] === stamp) child.seen = true;
          else {
            this.visit[n] = stamp;
            level.push(n);
            levelTrees.push(child);
          }
        }
      }
      queue = level;
      trees = levelTrees;
    }
    return root;
  }

  private nextStamp(): number {
    if (this.visit.length < this.desc.length) this.visit = new Uint32Array(this.desc.length);
    if (++this.stamp === 0xffffffff) {
      this.visit.fill(0);
      this.stamp = 1;
    }
    return this.stamp;
  }

  private nodeOf(id: number): RelationNode {
    const d = this.descriptors[this.desc[id]!]!;
    // one shape for every node (no spreads): cheaper to build by the thousand
    const n: RelationNode = { uid: this.uidAt(id), kind: d.kind, name: this.names[id]!, virtual: !(this.flags[id]! & OBSERVED) };
    if (d.apiVersion) n.apiVersion = d.apiVersion;
    const ns = this.namespaces[id];
    if (ns !== undefined) n.namespace = ns;
    if (d.typeKey) n.typeKey = d.typeKey;
    return n;
  }

  private setOwners(id: number, refs: readonly Ref[]): void {
    const old = this.owners[id];
    const next: number[] = [];
    let controller = NONE;
    for (const r of refs) {
      const o = this.idOf(r.uid, false);
      if (!(this.flags[o]! & OBSERVED)) {
        // What the reference says of a virtual owner is all that is known of it.
        this.names[o] = r.name;
        this.desc[o] = this.virtualDescriptor(r.kind, r.apiVersion);
      }
      if (next.includes(o)) continue;
      next.push(o);
      if (r.controller && controller === NONE) controller = o;
    }
    this.controllerOf[id] = controller;
    for (const o of old ?? []) if (!next.includes(o)) this.unlink(o, id);
    for (const o of next) if (!old?.includes(o)) (this.dependents[o] ??= []).push(id);
    this.owners[id] = next.length ? next : undefined;
    for (const o of old ?? []) if (!next.includes(o)) this.forgetIfUnused(o);
  }

  private unlink(owner: number, dependent: number): void {
    const deps = this.dependents[owner];
    if (!deps) return;
    const i = deps.indexOf(dependent);
    if (i >= 0) {
      deps[i] = deps[deps.length - 1]!;
      deps.pop();
    }
    if (!deps.length) this.dependents[owner] = undefined;
  }

  /** Drops a node no object is and none names (its id is reused). */
  private forgetIfUnused(id: number): void {
    // GONE: already forgotten (an object that owned itself was just dropped as its own owner)
    if (this.flags[id]! & (OBSERVED | GONE) || this.dependents[id]?.length) return;
    this.ids.delete(this.uidAt(id));
    this.oddUids.delete(id);
    this.flags[id] = GONE;
    this.names[id] = '';
    this.namespaces[id] = undefined;
    this.owners[id] = undefined;
    this.dependents[id] = undefined;
    this.free.push(id);
  }

  private idOf(uid: string, observed: boolean): number {
    let id = this.ids.get(uid);
    if (id !== undefined) return id;
    id = this.free.pop() ?? this.top++;
    this.grow(id + 1);
    this.ids.addLast(id);
    this.names[id] = '';
    this.namespaces[id] = undefined;
    if (this.ids.lastWordsInto(this.uidw, id * 4)) this.flags[id] = PACKED_UID;
    else {
      this.flags[id] = 0;
      this.oddUids.set(id, uid);
    }
    this.controllerOf[id] = NONE;
    this.desc[id] = 0;
    if (!observed) this.owners[id] = undefined;
    return id;
  }

  private grow(n: number): void {
    if (n <= this.desc.length) return;
    const size = Math.max(n, this.desc.length * 2);
    const d = new Int32Array(size);
    d.set(this.desc);
    this.desc = d;
    const f = new Uint8Array(size);
    f.set(this.flags);
    this.flags = f;
    const c = new Int32Array(size);
    c.set(this.controllerOf);
    this.controllerOf = c;
    const u = new Uint32Array(size * 4);
    u.set(this.uidw);
    this.uidw = u;
  }

  /**
   * descriptorId of an observed object's type, remembered for the last type asked: a list's
   * objects come one type at a time, and this skips building the key string and its lookup.
   */
  private observedDescriptor(typeKey: string, kind: string, apiVersion: string | undefined): number {
    const last = this.lastObserved;
    if (last.id >= 0 && last.typeKey === typeKey && last.kind === kind && last.apiVersion === apiVersion) return last.id;
    const id = this.descriptorId({ kind, ...(apiVersion ? { apiVersion } : {}), typeKey });
    this.lastObserved = { typeKey, kind, apiVersion, id };
    return id;
  }
  private lastObserved: { typeKey: string; kind: string; apiVersion: string | undefined; id: number } = {
    typeKey: '',
    kind: '',
    apiVersion: undefined,
    id: -1,
  };

  /** descriptorId of a virtual owner's reference, remembered for the last asked (pods listed before their ReplicaSets name a few owner types, each thousands of times). */
  private virtualDescriptor(kind: string, apiVersion: string | undefined): number {
    const last = this.lastVirtual;
    if (last.id >= 0 && last.kind === kind && last.apiVersion === apiVersion) return last.id;
    const id = this.descriptorId({ kind, apiVersion });
    this.lastVirtual = { kind, apiVersion, id };
    return id;
  }
  private lastVirtual: { kind: string; apiVersion: string | undefined; id: number } = { kind: '', apiVersion: undefined, id: -1 };

  /** The shared copy of a namespace, remembered for the last one asked (a list comes namespace by namespace). */
  private internNamespace(ns: string): string {
    if (ns === this.lastNamespace) return this.lastInterned;
    this.lastNamespace = ns;
    return (this.lastInterned = sharedInterner.intern(ns));
  }
  private lastNamespace: string | undefined;
  private lastInterned = '';

  private uidAt(id: number): string {
    return this.flags[id]! & PACKED_UID ? uidOfWords(this.uidw, id * 4) : this.oddUids.get(id)!;
  }

  private descriptorId(d: Descriptor): number {
    const key = `${d.typeKey ?? ''}\n${d.apiVersion ?? ''}\n${d.kind}`;
    let id = this.descriptorIds.get(key);
    if (id === undefined) {
      id = this.descriptors.length;
      this.descriptors.push(d);
      this.observedOf.push(0);
      this.descriptorIds.set(key, id);
    }
    return id;
  }
}

interface Ref {
  uid: string;
  kind: string;
  name: string;
  apiVersion?: string;
  controller: boolean;
}

/** The well-formed ownerReferences (a uid, a kind and a name); others are skipped, as the GC's graph cannot place them either. */
function readRefs(raw: unknown[] | undefined): Ref[] {
  if (!Array.isArray(raw)) return [];
  const out: Ref[] = [];
  for (const r of raw) {
    if (typeof r !== 'object' || r === null) continue;
    const { uid, kind, name, apiVersion, controller } = r as Record<string, unknown>;
    if (typeof uid !== 'string' || !uid || typeof kind !== 'string' || typeof name !== 'string') continue;
    out.push({ uid, kind, name, ...(typeof apiVersion === 'string' ? { apiVersion } : {}), controller: controller === true });
  }
  return out;
}
