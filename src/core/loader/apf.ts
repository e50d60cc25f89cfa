/**
 * The load as a citizen of kube-apiserver's API Priority and Fairness (APF): which priority level
 * the server puts this user's requests in, and an estimate of that level's seats.
 *
 * Facts (k8s.io/apiserver pkg/util/flowcontrol, v1.36):
 * - The server's seats are --max-requests-inflight + --max-mutating-requests-inflight, 400 + 200 =
 *   600 by default. A limited level's nominal seats are ceil(600 * its nominalConcurrencyShares /
 *   the sum of every level's shares); with the bootstrap levels (sum 245) `global-default`, where
 *   an ordinary user's requests land, has ceil(600 * 20 / 245) = 49.
 * - A LIST is charged seats by its work estimate while it executes: about one seat per 100 objects
 *   or per 100 kB of objects (SizeBasedListCostEstimate, on since 1.34), at most the level's max
 *   seats, max(1, min(ceil(0.15 * nominal), nominal / handSize)): 8 for global-default. A page of
 *   500 objects of a large type thus costs ~8 seats. With streamed list encoding a slow reader
 *   keeps them held while the bytes drain.
 * - Each answer names the flow schema and priority level by UID (X-Kubernetes-PF-*-UID); the names
 *   and shares are read from the flowcontrol.apiserver.k8s.io/v1 objects, which an ordinary user
 *   may not read: then the level is guessed to be global-default at the default server size.
 * The server's size is never visible to a client: every seat figure here is an estimate.
 */
import { abortReason } from '../clock';
import { KubeApiError } from '../kube/errors';
import type { FlowControlSeen } from '../kube/transport/transport';

/** --max-requests-inflight + --max-mutating-requests-inflight at their defaults. */
export const DEFAULT_SERVER_SEATS = 600;
/** global-default's bootstrap shares, and the sum over the bootstrap levels (exempt 0, catch-all 5, system 30, node-high 40, leader-election 10, workload-high 40, workload-low 100, global-default 20). */
const GLOBAL_DEFAULT_SHARES = 20;
const BOOTSTRAP_SHARES_SUM = 245;
const GLOBAL_DEFAULT_HAND_SIZE = 6;
/** The work estimator's bound on a LIST's seats (MaximumListSeatsLimit with size-based estimates), and its bytes per seat. */
const MAX_LIST_SEATS = 100;
const BYTES_PER_SEAT = 100_000;
/** A list from the watch cache is charged at most this many bytes of objects (cacheWithStreamingMaxMemoryUsage). */
const MAX_CHARGED_BYTES = 1_000_000;

/** What the load knows of its priority level; `source` says how (read from the server, or guessed). */
export interface FlowControlFacts {
  flowSchema: { uid: string; name?: string };
  priorityLevel: { uid: string; name?: string };
  /** The level is exempt (system:masters): it takes no seats and never queues; nothing to size by. */
  exempt: boolean;
  /** Estimated: the level's nominal seats at a server of DEFAULT_SERVER_SEATS. */
  levelSeats: number;
  /** Estimated: the most seats one LIST of this level is charged. */
  listSeats: number;
  /** 'read': the level's shares came from the server's objects; 'guess': global-default assumed (reading them was refused, or failed). */
  source: 'read' | 'guess';
  /** Why the objects could not be read (e.g. 403 Forbidden), when source is 'guess'. */
  unreadable?: string;
}

interface PriorityLevelObject {
  metadata: { name: string; uid: string };
  spec: {
    type: string;
    limited?: { nominalConcurrencyShares?: number; limitResponse?: { queuing?: { handSize?: number } } };
    exempt?: { nominalConcurrencyShares?: number };
  };
}
interface FlowSchemaObject {
  metadata: { name: string; uid: string };
}

/** Nominal seats and the most seats one LIST takes, for a level of `shares` out of `sum`. */
export function levelEstimate(shares: number, sum: number, handSize: number, serverSeats = DEFAULT_SERVER_SEATS): { levelSeats: number; listSeats: number } {
  const levelSeats = sum > 0 ? Math.ceil((serverSeats * shares) / sum) : 0;
  const listSeats = Math.max(1, Math.min(Math.ceil(levelSeats * 0.15), Math.floor(levelSeats / Math.max(1, handSize)), MAX_LIST_SEATS));
  return { levelSeats, listSeats };
}

/** The guess when the level cannot be read: global-default of a default-sized server (49 seats, 8 per LIST). */
export function guessedFacts(seen: FlowControlSeen, unreadable: string): FlowControlFacts {
  return {
    flowSchema: { uid: seen.flowSchemaUID },
    priorityLevel: { uid: seen.priorityLevelUID },
    exempt: false,
    ...levelEstimate(GLOBAL_DEFAULT_SHARES, BOOTSTRAP_SHARES_SUM, GLOBAL_DEFAULT_HAND_SIZE),
    source: 'guess',
    unreadable,
  };
}

/** The facts from the server's objects; the guess when the UIDs seen are not among them. */
export function factsFrom(seen: FlowControlSeen, levels: PriorityLevelObject[], schemas: FlowSchemaObject[]): FlowControlFacts {
  const pl = levels.find((l) => l.metadata.uid === seen.priorityLevelUID);
  const fs = schemas.find((s) => s.metadata.uid === seen.flowSchemaUID);
  if (!pl) return guessedFacts(seen, 'the priority level is not among those listed');
  const shares = (l: PriorityLevelObject) => l.spec.limited?.nominalConcurrencyShares ?? l.spec.exempt?.nominalConcurrencyShares ?? 0;
  const sum = levels.reduce((a, l) => a + shares(l), 0);
  const exempt = pl.spec.type === 'Exempt';
  return {
    flowSchema: { uid: seen.flowSchemaUID, ...(fs ? { name: fs.metadata.name } : {}) },
    priorityLevel: { uid: seen.priorityLevelUID, name: pl.metadata.name },
    exempt,
    ...(exempt ? { levelSeats: 0, listSeats: 0 } : levelEstimate(shares(pl), sum, pl.spec.limited?.limitResponse?.queuing?.handSize ?? 1)),
    source: 'read',
  };
}

/** What readFlowControl needs: the transport's JSON GET and what it saw. */
export interface FlowControlReader {
  stats: { flowControl?: FlowControlSeen };
  getJson<T>(spec: { path: string; signal?: AbortSignal; timeoutMs?: number }): Promise<{ body: T }>;
}

const FLOWCONTROL = '/apis/flowcontrol.apiserver.k8s.io/v1';
/** How long the two reads may take: they only refine an estimate, the load does not wait longer. */
const READ_TIMEOUT_MS = 5_000;
/** One read per transport (a cluster, for the user it authenticates as): the levels change rarely; a refusal stays one. */
const catalogs = new WeakMap<object, Promise<{ levels: PriorityLevelObject[]; schemas: FlowSchemaObject[] } | string>>();

/**
 * The facts for the level the transport last saw named; undefined when no answer carried the APF
 * headers (APF off, or an older server: nothing to size by). Reads the level and schema objects
 * once per transport (two small GETs, bounded by READ_TIMEOUT_MS, shared by the loads that ask
 * meanwhile, so no one load's cancel ends them); a refusal (403) or failure gives the guess, never
 * an error. Rejects only on the caller's abort.
 */
export async function readFlowControl(t: FlowControlReader, signal: AbortSignal): Promise<FlowControlFacts | undefined> {
  const seen = t.stats.flowControl;
  if (!seen) return undefined;
  let catalog = catalogs.get(t);
  if (!catalog) {
    catalog = (async () => {
      try {
        const get = <T>(r: string) => t.getJson<{ items: T[] }>({ path: `${FLOWCONTROL}/${r}`, timeoutMs: READ_TIMEOUT_MS });
        const [levels, schemas] = await Promise.all([get<PriorityLevelObject>('prioritylevelconfigurations'), get<FlowSchemaObject>('flowschemas')]);
        return { levels: levels.body.items ?? [], schemas: schemas.body.items ?? [] };
      } catch (e) {
        return e instanceof KubeApiError ? `${e.status} ${e.reason}` : e instanceof Error ? e.message : String(e);
      }
    })();
    catalogs.set(t, catalog);
  }
  const c = await untilAborted(catalog, signal);
  return typeof c === 'string' ? guessedFacts(seen, c) : factsFrom(seen, c.levels, c.schemas);
}

/** `p`, or the signal's reason once it aborts first. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The share of its level's seats a load may take at once: half. The level is shared with the
 * person's own kubectl calls (the same flow: global-default tells flows apart by user) and with
 * every other user of the level; a load that held all of it would make them queue, and past the
 * queues answer 429. Half leaves the rest free while still letting a load use the level well.
 */
export const APF_SEAT_SHARE = 0.5;

/**
 * How many LISTs the load may have executing at the server at once: APF_SEAT_SHARE of the level's
 * seats over the seats a LIST may be charged, at least 1. Undefined: no bound (exempt, or unknown).
 */
export function listsAtServer(f: FlowControlFacts | undefined): number | undefined {
  if (!f || f.exempt || f.listSeats <= 0) return undefined;
  return Math.max(1, Math.floor((APF_SEAT_SHARE * f.levelSeats) / f.listSeats));
}

/**
 * The seats one page of `bytes` is estimated to cost (the size-based estimate: one per 100 kB, at
 * most 1 MB charged), between 1 and `maxSeats`. The bytes are JSON as received, larger than the
 * storage's size the server estimates from: an estimate from above.
 */
export function pageSeats(bytes: number, maxSeats: number): number {
  return Math.max(1, Math.min(maxSeats, Math.ceil(Math.min(bytes, MAX_CHARGED_BYTES) / BYTES_PER_SEAT)));
}

/** The seats a list may take when nothing is known of its level (MaximumListSeatsLimit before 1.34, the default global-default's 8 after). */
export const DEFAULT_LIST_SEATS = levelEstimate(GLOBAL_DEFAULT_SHARES, BOOTSTRAP_SHARES_SUM, GLOBAL_DEFAULT_HAND_SIZE).listSeats;
