/**
 * The controller lanes for a demo cluster in another process (`npm run demo`, `kubeloop
 * demo-cluster`): its reconciles read from its `GET /_demo/reconciles?after=SEQ` (a read; nothing
 * else) about once a second, and appended to the timeline. No 'vscode' import.
 *
 * Guarantees:
 * - Asked only of a cluster the caller knows is a KubeLoop demo cluster (the glue: its context is
 *   `kubeloop-demo`); a 404 (a server without the endpoint, or without controllers) ends the polling
 *   at once, for good; other failures are retried at the next poll, never thrown.
 * - Each record is appended once (the seq after which to ask moves past every record seen) and only
 *   when it has the shape of one; anything else is skipped.
 * - A record's wall-clock start is placed on the timeline's clock, so it lines up with the sync
 *   loop's iterations (both processes share the machine's clock; `npm run demo` runs on it).
 * - `signal` ends the polling: no request or timer outlives it.
 */
import type { Clock } from '../../core/clock';
import type { ControllerReconcileEvent } from '../../core/timeline/events';
import type { TimelineStore } from '../../core/timeline/store';

export const POLL_MS = 1000;

export interface RemoteReconcilesOptions {
  /** GET of /_demo/reconciles with the query, the parsed JSON body; rejects with an error carrying `status` on a non-2xx. */
  get: (query: { after: number }, signal: AbortSignal) => Promise<unknown>;
  timeline: TimelineStore;
  /** The timeline's origin on `clock`. */
  origin: number;
  clock: Clock;
  /** Wall-clock ms now (default Date.now). */
  wallNow?: () => number;
  signal: AbortSignal;
  everyMs?: number;
}

const str = (v: unknown): v is string => typeof v === 'string';
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every(str) ? v : undefined);

/** A record of the endpoint as a timeline event, or undefined when it is not one. */
export function remoteReconcileEvent(raw: unknown, toTimeline: (wallMs: number) => number): ControllerReconcileEvent | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  if (!num(r.at) || !str(r.controller) || !str(r.key) || !str(r.handler) || !num(r.durationMs) || (r.outcome !== 'ok' && r.outcome !== 'error'))
    return undefined;
  const e: ControllerReconcileEvent = {
    kind: 'reconcile',
    t: toTimeline(r.at),
    controller: r.controller,
    key: r.key,
    handler: r.handler,
    durationMs: r.durationMs,
    outcome: r.outcome,
  };
  const created = strings(r.created);
  const deleted = strings(r.deleted);
  const updated = strings(r.updated);
  if (created?.length) e.created = created;
  if (deleted?.length) e.deleted = deleted;
  if (updated?.length) e.updated = updated;
  if (num(r.statusUpdates) && r.statusUpdates > 0) e.statusUpdates = r.statusUpdates;
  if (num(r.events) && r.events > 0) e.events = r.events;
  if (str(r.message)) e.message = r.message;
  return e;
}

/** Polls until the signal aborts or the cluster says it has no such endpoint; resolves then. */
export async function pollRemoteReconciles(o: RemoteReconcilesOptions): Promise<void> {
  const wallNow = o.wallNow ?? (() => Date.now());
  let after = 0;
  const toTimeline = (wallMs: number) => o.clock.now() - (wallNow() - wallMs) - o.origin;
  while (!o.signal.aborted) {
    try {
      const body = (await o.get({ after }, o.signal)) as { last?: unknown; records?: unknown };
      const records = Array.isArray(body?.records) ? body.records : [];
      for (const raw of records) {
        const seq = (raw as { seq?: unknown } | null)?.seq;
        if (num(seq) && seq > after) after = seq;
        const e = remoteReconcileEvent(raw, toTimeline);
        if (e) o.timeline.append(e);
      }
      // the log dropped what we had not read yet, or the server restarted with fresh numbers
      if (num(body?.last) && body.last < after) after = 0;
    } catch (e) {
      if (o.signal.aborted) return;
      if ((e as { status?: unknown }).status === 404) return;
    }
    try {
      await o.clock.sleep(o.everyMs ?? POLL_MS, o.signal);
    } catch {
      return;
    }
  }
}
