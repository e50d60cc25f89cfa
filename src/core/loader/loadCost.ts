/**
 * The load's API cost: what it asked of the server, and what it is estimated to have held there.
 * Requests, bytes, 429s and Retry-After are counted by the transport; seats are estimated (the
 * server never says what it charged): each list is taken to hold, for the whole time its lane ran
 * it, the seats its largest page is estimated at (apf.ts, pageSeats). That is an upper bound: far
 * away most of a lane's time is the round trip, during which the server holds nothing for it.
 */
import type { FlowControlFacts } from './apf';

export interface ApiCost {
  /** Requests sent during the load (discovery, reviews, lists, retries included). */
  requests: number;
  /** Body bytes received during the load, decoded (as parsed). */
  bytes: number;
  /** 429 answers during the load, and the Retry-After they asked, summed (s). */
  throttled: number;
  retryAfterSeconds: number;
  /** Estimated (see above): the most seats held at once, and seats times seconds over the load. */
  seatsPeak: number;
  seatSeconds: number;
  /** The most seats one list could take (the level's, or the default guess). */
  listSeats: number;
  /** The priority level and flow schema the server reported; undefined when it reported none. */
  flowControl?: FlowControlFacts;
  /** The lanes the throttle held the load to at the least (the pool's size if no 429), and its halvings. */
  lanesLowest: number;
  halvings: number;
}

/** One list's hold on the server, in the Clock's ms. */
export interface SeatSpan {
  start: number;
  end: number;
  seats: number;
}

/** The most seats held at once over the spans, and their seat-seconds (an end frees before a start at the same time). */
export function seatUsage(spans: readonly SeatSpan[]): { peak: number; seatSeconds: number } {
  const edges: [number, number][] = [];
  let seatMs = 0;
  for (const s of spans) {
    if (s.end < s.start || s.seats <= 0) continue;
    edges.push([s.start, s.seats], [s.end, -s.seats]);
    seatMs += (s.end - s.start) * s.seats;
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, d] of edges) peak = Math.max(peak, (now += d));
  return { peak, seatSeconds: Math.round(seatMs / 100) / 10 };
}
