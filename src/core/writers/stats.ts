/**
 * WriterStats: who is writing, how fast, and who is fighting, from watch events that carry
 * metadata.managedFields (entries.ts says how an event's writer is found).
 *
 * Per write it keeps decaying rates (rates.ts) per field manager, kind, namespace, object and
 * object+manager; whether the write was a no-op (the object is the same but for resourceVersion and
 * managedFields) or unseen (something changed, but nothing its tree row shows); fields taken back and
 * forth (fights.ts); and hot loops: one manager writing one object at `hotLoopPerSecond` or more for
 * `hotLoopHoldMs`. Read-only: it never writes to the cluster.
 *
 * Guarantees:
 * - Memory is bounded: per object it keeps two hashes and its last writer (about 100 bytes; never
 *   the object), at most `maxObjects`, least recently written first out; the entries' field-path
 *   hashes (what fights are found from, about 400 bytes an object) only for the `maxFieldObjects`
 *   most recently written, which at 500 writes/s is the last 40 s of writes: a fight is a field
 *   written back and forth, so its object is always among them. Rates and fights are pruned on
 *   every snapshot (see rates.ts, fights.ts). 16 MiB at 100,000 objects (bench/writers.ts).
 * - Every finding (a fight, a hot loop) is reported to `onFinding` once, when found, on the clock's
 *   time; the snapshot lists the ones still going on.
 * - Time is the clock's (FakeClock in tests): nothing here reads wall time.
 */
import type { Clock } from '../clock';
import type { KubeObject, StoredObject } from '../kube/objects/types';
import { objectKey, type ResourceRef } from '../kube/objects/objectKey';
import { computeObjectView } from '../rows/objectView';
import { fnv1a, summarize, writerOf, type EntrySummary } from './entries';
import { FightDetector, type Fight } from './fights';
import { DecayingRates, type Rate } from './rates';

export type { Fight } from './fights';
export type { Rate } from './rates';

export interface HotLoop {
  key: string;
  manager: string;
  perSecond: number;
  since: number;
}

export type WriterFinding = ({ kind: 'fight' } & Fight) | ({ kind: 'hotloop' } & HotLoop);

export interface ManagerRate extends Rate {
  /** Of those, writes that changed nothing but resourceVersion and managedFields. */
  noopPerSecond: number;
  /** Writes that changed the object but nothing its row shows (no-ops included). */
  unseenPerSecond: number;
  /** With snapshot(top, breakdown > 0): the manager's busiest kinds, namespaces and objects, `breakdown` of each. */
  kinds?: Rate[];
  namespaces?: Rate[];
  objects?: Rate[];
}

export interface WritersSnapshot {
  t: number;
  /** All writes per second (deletes included). */
  perSecond: number;
  managers: ManagerRate[];
  kinds: Rate[];
  namespaces: Rate[];
  objects: Rate[];
  /** Objects whose resourceVersion moves with nothing their row shows changing, fastest first. */
  unseenObjects: Rate[];
  fights: Fight[];
  hotLoops: HotLoop[];
  /** Objects whose last version is kept (bounded by maxObjects), and of those with their field paths (maxFieldObjects). */
  keptObjects: number;
  keptFieldObjects: number;
}

export interface WriterStatsOptions {
  clock: Clock;
  /** Time constant of the rates, ms (default 10 s: a rate follows a change within a few seconds). */
  tauMs?: number;
  /** Transfers of one field between two managers that make a fight, and within how long (default 4 in 60 s). */
  fightTransfers?: number;
  fightWindowMs?: number;
  /** A hot loop: one manager writing one object this often (default 2/s) ... */
  hotLoopPerSecond?: number;
  /** ... for this long (default 5 s). */
  hotLoopHoldMs?: number;
  /** Versions kept (default 100,000). */
  maxObjects?: number;
  /** Versions kept with their managedFields' path hashes (default 20,000). */
  maxFieldObjects?: number;
  onFinding?: (f: WriterFinding) => void;
}

interface Kept {
  content: number;
  row: number;
  writer: string;
}

/** The manager a delete is counted under: the API records no manager for a delete. */
export const DELETE_MANAGER = '(delete)';

export class WriterStats {
  private readonly clock: Clock;
  private readonly all: DecayingRates;
  private readonly managers: DecayingRates;
  private readonly noops: DecayingRates;
  private readonly unseen: DecayingRates;
  private readonly kinds: DecayingRates;
  private readonly namespaces: DecayingRates;
  private readonly objects: DecayingRates;
  private readonly unseenObjects: DecayingRates;
  private readonly perObjectManager: DecayingRates;
  /** `manager\u0000kind` and `manager\u0000namespace`: a manager's own kinds and namespaces. */
  private readonly managerKinds: DecayingRates;
  private readonly managerNamespaces: DecayingRates;
  private readonly fights: FightDetector;
  private readonly kept = new Map<string, Kept>();
  private readonly fieldsKept = new Map<string, EntrySummary[]>();
  private readonly hot = new Map<string, { since: number; found: boolean }>();
  private readonly strings = new Map<string, string>();
  private readonly o: Required<Omit<WriterStatsOptions, 'onFinding' | 'clock'>>;

  constructor(private readonly opts: WriterStatsOptions) {
    this.clock = opts.clock;
    this.o = {
      tauMs: opts.tauMs ?? 10_000,
      fightTransfers: opts.fightTransfers ?? 4,
      fightWindowMs: opts.fightWindowMs ?? 60_000,
      hotLoopPerSecond: opts.hotLoopPerSecond ?? 2,
      hotLoopHoldMs: opts.hotLoopHoldMs ?? 5_000,
      maxObjects: opts.maxObjects ?? 100_000,
      maxFieldObjects: opts.maxFieldObjects ?? 20_000,
    };
    const tau = this.o.tauMs;
    this.all = new DecayingRates(tau, 1);
    this.managers = new DecayingRates(tau, 10_000);
    this.noops = new DecayingRates(tau, 10_000);
    this.unseen = new DecayingRates(tau, 10_000);
    this.kinds = new DecayingRates(tau, 10_000);
    this.namespaces = new DecayingRates(tau, 50_000);
    this.objects = new DecayingRates(tau);
    this.unseenObjects = new DecayingRates(tau);
    this.perObjectManager = new DecayingRates(tau);
    this.managerKinds = new DecayingRates(tau, 10_000);
    this.managerNamespaces = new DecayingRates(tau, 50_000);
    this.fights = new FightDetector(this.o.fightTransfers, this.o.fightWindowMs);
  }

  /**
   * One watch event of type `resource` (its object with managedFields). BOOKMARKs are not writes: leave them out.
   * Returns the write's manager and kind (undefined for an object without a name: not counted).
   */
  observe(type: 'ADDED' | 'MODIFIED' | 'DELETED', resource: ResourceRef, obj: KubeObject): { manager: string; kind: string } | undefined {
    const o = obj as StoredObject;
    if (!o.metadata?.name) return undefined;
    const now = this.clock.now();
    const key = objectKey(o, resource);
    const kind = this.intern(o.kind ?? resource.resource);
    const ns = this.intern(o.metadata.namespace ?? '');
    this.all.add('', now);
    this.kinds.add(kind, now);
    if (ns) this.namespaces.add(ns, now);
    this.objects.add(key, now);
    if (type === 'DELETED') {
      this.kept.delete(key);
      this.fieldsKept.delete(key);
      this.managers.add(DELETE_MANAGER, now);
      this.byManager(DELETE_MANAGER, kind, ns, now);
      return { manager: DELETE_MANAGER, kind };
    }
    const prev = this.kept.get(key);
    const prevEntries = this.fieldsKept.get(key);
    const entries = summarize(o.metadata.managedFields, (s) => this.intern(s));
    const fields = o.metadata.managedFields as { manager?: string; operation?: string; subresource?: string; fieldsV1?: unknown }[] | undefined;
    const w = writerOf(
      prevEntries,
      entries,
      prev?.writer,
      (e) => fields?.find((m) => m.manager === e.manager && (m.operation ?? '') === e.operation && (m.subresource ?? '') === e.subresource)?.fieldsV1,
    );
    const manager = w?.manager ?? '(unknown)';
    const content = contentHash(o);
    const row = rowHash(key, o, resource);
    lruSet(this.kept, key, { content, row, writer: manager }, this.o.maxObjects);
    lruSet(this.fieldsKept, key, entries, this.o.maxFieldObjects);
    this.managers.add(manager, now);
    this.byManager(manager, kind, ns, now);
    if (prev && type === 'MODIFIED' && prev.row === row) {
      this.unseen.add(manager, now);
      this.unseenObjects.add(key, now);
      if (prev.content === content) this.noops.add(manager, now);
    }
    for (const t of w?.taken ?? []) {
      const f = this.fights.record(key, t.path, t.from, manager, now);
      if (f) this.opts.onFinding?.({ kind: 'fight', ...f });
    }
    this.checkHot(key, manager, now);
    return { manager, kind };
  }

  /**
   * The rates now. `breakdown` > 0: each of the top managers also carries its `breakdown` busiest
   * kinds, namespaces and objects (three more passes over the kept keys; the Top Writers view asks
   * while it is shown, the CLI does not).
   */
  snapshot(top = 10, breakdown = 0): WritersSnapshot {
    const now = this.clock.now();
    for (const r of [
      this.all,
      this.managers,
      this.noops,
      this.unseen,
      this.kinds,
      this.namespaces,
      this.objects,
      this.unseenObjects,
      this.perObjectManager,
      this.managerKinds,
      this.managerNamespaces,
    ])
      r.prune(now);
    this.fights.prune(now);
    const hotLoops: HotLoop[] = [];
    for (const [id, h] of this.hot) {
      const perSecond = this.perObjectManager.rate(id, now);
      if (perSecond < this.o.hotLoopPerSecond) this.hot.delete(id);
      else if (h.found) hotLoops.push({ ...splitId(id), perSecond, since: h.since });
    }
    const managers: ManagerRate[] = this.managers
      .top(top, now)
      .map((r) => ({ ...r, noopPerSecond: this.noops.rate(r.key, now), unseenPerSecond: this.unseen.rate(r.key, now) }));
    if (breakdown > 0) {
      const wanted = new Set(managers.map((m) => m.key));
      const managerFirst = (key: string) => {
        const cut = key.indexOf('\u0000');
        const group = key.slice(0, cut);
        return wanted.has(group) ? { group, sub: key.slice(cut + 1) } : undefined;
      };
      const kinds = this.managerKinds.topPerGroup(breakdown, now, managerFirst);
      const namespaces = this.managerNamespaces.topPerGroup(breakdown, now, managerFirst);
      const objects = this.perObjectManager.topPerGroup(breakdown, now, (id) => {
        const { key, manager } = splitId(id);
        return wanted.has(manager) ? { group: manager, sub: key } : undefined;
      });
      for (const m of managers) {
        m.kinds = kinds.get(m.key) ?? [];
        m.namespaces = namespaces.get(m.key) ?? [];
        m.objects = objects.get(m.key) ?? [];
      }
    }
    return {
      t: now,
      perSecond: this.all.rate('', now),
      managers,
      kinds: this.kinds.top(top, now),
      namespaces: this.namespaces.top(top, now),
      objects: this.objects.top(top, now),
      unseenObjects: this.unseenObjects.top(top, now),
      fights: this.fights.active(now),
      hotLoops: hotLoops.sort((a, b) => b.perSecond - a.perSecond),
      keptObjects: this.kept.size,
      keptFieldObjects: this.fieldsKept.size,
    };
  }

  private byManager(manager: string, kind: string, ns: string, now: number): void {
    this.managerKinds.add(`${manager}\u0000${kind}`, now);
    if (ns) this.managerNamespaces.add(`${manager}\u0000${ns}`, now);
  }

  private checkHot(key: string, manager: string, now: number): void {
    const id = `${key}\u0000${manager}`;
    this.perObjectManager.add(id, now);
    const perSecond = this.perObjectManager.rate(id, now);
    let h = this.hot.get(id);
    if (perSecond < this.o.hotLoopPerSecond) {
      if (h) this.hot.delete(id);
      return;
    }
    if (!h) this.hot.set(id, (h = { since: now, found: false }));
    if (h.found || now - h.since < this.o.hotLoopHoldMs) return;
    h.found = true;
    this.opts.onFinding?.({ kind: 'hotloop', key, manager, perSecond, since: h.since });
  }

  /** Managers, kinds and namespaces repeat in every event: one string each. */
  private intern(s: string): string {
    const got = this.strings.get(s);
    if (got !== undefined) return got;
    if (this.strings.size < 100_000) this.strings.set(s, s);
    return s;
  }
}

/** Sets `key` as the most recent entry of `m`, dropping the least recent past `max`. */
function lruSet<V>(m: Map<string, V>, key: string, v: V, max: number): void {
  m.delete(key);
  m.set(key, v);
  if (m.size > max) m.delete(m.keys().next().value!);
}

function splitId(id: string): { key: string; manager: string } {
  const cut = id.indexOf('\u0000');
  return { key: id.slice(0, cut), manager: id.slice(cut + 1) };
}

/** The object but for resourceVersion and managedFields: equal hashes mean the write changed nothing else. */
function contentHash(o: StoredObject): number {
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = o.metadata;
  return fnv1a(JSON.stringify({ ...o, metadata: meta }));
}

/** What the object's tree row shows (core/rows). */
function rowHash(key: string, o: StoredObject, resource: ResourceRef): number {
  const v = computeObjectView(key, o, resource);
  return fnv1a(`${v.kind}|${v.status}|${v.phase ?? ''}|${v.ready ?? ''}|${v.restarts ?? ''}|${v.deleting}`);
}
