/**
 * The loader's pool size when the user did not choose one: latency-aware.
 *
 * Rule: lanes = clamp(floor(BASE * (1 + rtt / SERVER_MS)), BASE, MAX_AUTO), BASE = 4 (Kyverno's
 * default), SERVER_MS = 25 ms, MAX_AUTO = 16. No RTT known (no sample yet): BASE. Rounded down: a
 * lane is added only once the waiting adds up to a whole lane's work (SERVER_MS / BASE = 6.25 ms),
 * so a LAN's few milliseconds (and TLS set-up counted in the RTT sample there) stay at 4 lanes.
 *
 * Why: a lane lists one page at a time. On a LAN a page costs the lane about the server's work
 * (SERVER_MS, a 500-object page), so 4 lanes keep ~4 LISTs at the server. Far away, each page
 * also costs a round trip in which the server does nothing for that lane, so the server sees only
 * 4 * SERVER_MS / (SERVER_MS + rtt) requests at once and the load is mostly waiting. Widening the
 * pool by (SERVER_MS + rtt) / SERVER_MS puts the same ~4 requests at the server again: it does not
 * hit the server harder than 4 lanes on a LAN do (API Priority and Fairness charges a LIST seats
 * while it executes, not while its bytes travel), it only hides the distance. The cap keeps a
 * misjudged RTT (a slow server's answer counted as distance) from becoming a burst: 16 lanes is
 * still within one client's fair share of a default APF priority level, and below the pool's max.
 * An explicit concurrency is always honoured exactly; this rule is only the default.
 *
 * The base is lowered when API Priority and Fairness says fewer LISTs at the server are this
 * user's fair part (apf.ts, listsAtServer: half the level's seats over a LIST's seats, 3 at
 * global-default): the rule then keeps that many at the server, near or far.
 */
import { LOOPBACK_TUNNEL_MIN_RTT_MS } from '../kube/transport/rtt';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../pool';

export const AUTO_BASE_LANES = DEFAULT_CONCURRENCY;
export const AUTO_SERVER_MS = 25;
export const AUTO_MAX_LANES = Math.min(16, MAX_CONCURRENCY);

/** What the loader chose and from what (reported in the summary). */
export interface ConcurrencyAuto {
  /** The minimum RTT the transport measured before the pool was sized; null: none measured. */
  rttMs: number | null;
  lanes: number;
  /** Set when API Priority and Fairness lowered the base: the LISTs the load keeps at the server (apf.ts). */
  apfBase?: number;
}

/** A server on this machine's loopback is near unless its RTT is at least this (ms): see rtt.ts. */
export const AUTO_LOOPBACK_FAR_MS = LOOPBACK_TUNNEL_MIN_RTT_MS;

/**
 * The rule above, for a measured RTT in ms (undefined: not known); `loopback`: the server's address
 * is this machine; `apfBase`: the LISTs at the server APF allows (apf.ts), when fewer than the base.
 */
export function autoConcurrency(rttMs: number | undefined, opts: { loopback?: boolean; apfBase?: number } = {}): ConcurrencyAuto {
  const lowered = opts.apfBase !== undefined && opts.apfBase < AUTO_BASE_LANES;
  const base = lowered ? Math.max(1, Math.floor(opts.apfBase!)) : AUTO_BASE_LANES;
  const apf = lowered ? { apfBase: base } : {};
  if (rttMs === undefined || !Number.isFinite(rttMs) || rttMs < 0) return { rttMs: null, lanes: base, ...apf };
  if (opts.loopback && rttMs < AUTO_LOOPBACK_FAR_MS) return { rttMs: Math.round(rttMs * 10) / 10, lanes: base, ...apf };
  const lanes = Math.min(AUTO_MAX_LANES, Math.max(base, Math.floor(base * (1 + rttMs / AUTO_SERVER_MS))));
  return { rttMs: Math.round(rttMs * 10) / 10, lanes, ...apf };
}
