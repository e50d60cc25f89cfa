/**
 * Round-trip time to the API server, measured on the transport's own requests (no extra request).
 *
 * Guarantee: every sample is at least one round trip, so `stats.rttMs` (the minimum seen) is never
 * below the true RTT; it comes down to it as cheap requests are answered. Samples:
 * - A request on a new socket: its TCP 'connect' (SYN .. SYN-ACK, before TLS) is one round trip to
 *   a server reached directly. A TLS socket is ready ('secureConnect') after at least 1 (TCP) + 1 or 2
 *   (TLS: 1.3 or a resumed session 1, a full 1.2 handshake 2) round trips; that time divided by those
 *   rounds is also a bound from below, and one that a local hop in front of the server (an SSH
 *   forward, a relay: its 'connect' is loopback-fast) cannot bring down. It leaves out the server's
 *   work on the request, which is what makes it small on a LAN. The sample is the larger of the two.
 *   (Plain HTTP: the first answer, after 1 (TCP) + 1 (the request) round trips, stands in for the TLS time.)
 * - A request on a reused keep-alive socket: the time from sending to the answer's headers is one
 *   round trip plus the server's work (and any wait for a free socket): from above, so only its
 *   minimum over cheap requests (discovery, reviews) says much; it can never undercut the RTT.
 * A request that fails gives no sample. Times are real (performance.now), whatever the Clock.
 */
import type * as http from 'node:http';
import type * as net from 'node:net';
import * as tls from 'node:tls';

export interface RttStats {
  /** The minimum of every sample. */
  rttMs?: number;
  /**
   * The minimum of the request samples alone (an answer on a kept-alive socket): no handshake's CPU
   * in them, which on a busy machine is most of a loopback handshake sample (21-25 ms seen at a
   * load average of 8, against ~1 ms for a request). What says whether a loopback address is a
   * tunnel to somewhere far.
   */
  requestRttMs?: number;
}

/** Keeps the smaller of the current minimum and `ms` (for a request sample, of requestRttMs too). */
export function noteRtt(stats: RttStats, ms: number, kind: 'handshake' | 'request' = 'handshake'): void {
  if (!Number.isFinite(ms) || ms < 0) return;
  if (stats.rttMs === undefined || ms < stats.rttMs) stats.rttMs = ms;
  if (kind === 'request' && (stats.requestRttMs === undefined || ms < stats.requestRttMs)) stats.requestRttMs = ms;
}

/**
 * A loopback address (this machine) whose request RTT is at least this (ms) is a tunnel to somewhere
 * far (an SSH or port forward, a relay); below it, what a loopback sample measures beyond ~1 ms is a
 * busy machine (seen: 7 ms at a load average of 5), not distance. Used for gzip and for the lanes.
 */
export const LOOPBACK_TUNNEL_MIN_RTT_MS = 20;

/** The RTT to judge a server's distance by: for a loopback address only request samples count (see requestRttMs). */
export function distanceRttMs(stats: RttStats, loopback: boolean): number | undefined {
  return loopback ? stats.requestRttMs : stats.rttMs;
}

/** Round trips of the TLS handshake that just completed on `s`. */
function tlsRounds(s: tls.TLSSocket): number {
  return s.getProtocol() === 'TLSv1.3' || s.isSessionReused() ? 1 : 2;
}

/** Samples the RTT from `req` (call right after creating it, before it is sent). */
export function observeRtt(req: http.ClientRequest, stats: RttStats, now: () => number = () => performance.now(), onSample?: () => void): void {
  const note = (ms: number, kind?: 'request') => {
    noteRtt(stats, ms, kind);
    onSample?.();
  };
  const t0 = now();
  req.once('socket', (socket: net.Socket) => {
    if (!socket.connecting) {
      req.once('response', () => note(now() - t0, 'request'));
      return;
    }
    let connectMs = 0;
    socket.once('connect', () => (connectMs = now() - t0));
    if (socket instanceof tls.TLSSocket) {
      socket.once('secureConnect', () => note(Math.max(connectMs, (now() - t0) / (1 + tlsRounds(socket)))));
    } else {
      req.once('response', () => note(Math.max(connectMs, (now() - t0) / 2)));
    }
  });
}
