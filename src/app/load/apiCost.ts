/**
 * The load's API cost in words, for the log and the status bar's tooltip: what it asked of the
 * server (counted) and the seats it held there (estimated; core/loader/loadCost.ts says how).
 */
import type { ApiCost } from '../../core/loader/loadCost';
import { DEFAULT_SERVER_SEATS } from '../../core/loader/apf';
import { formatCount } from '../../core/formatCount';

/** "512 B", "48.1 KiB", "1.2 MiB". */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

/** "priority level global-default (flow schema global-default), ~49 of 600 seats": what the server's APF said. */
function level(c: ApiCost): string {
  const f = c.flowControl;
  if (!f) return 'priority level: none reported (API Priority and Fairness off, or an older server)';
  const pl = f.priorityLevel.name ?? `uid ${f.priorityLevel.uid}`;
  const fs = f.flowSchema.name ?? `uid ${f.flowSchema.uid}`;
  if (f.exempt) return `priority level ${pl} (flow schema ${fs}): exempt, no seats taken`;
  const seats = `~${f.levelSeats} of ${DEFAULT_SERVER_SEATS} seats, up to ${f.listSeats} per list (estimated)`;
  return f.source === 'read'
    ? `priority level ${pl} (flow schema ${fs}), ${seats}`
    : `priority level ${pl} (flow schema ${fs}; not readable: ${f.unreadable ?? 'unknown'}), taken as global-default: ${seats}`;
}

/** The cost as separate lines: requests and bytes, 429s, seats, the level. */
export function apiCostLines(c: ApiCost): string[] {
  const throttled =
    c.throttled === 0
      ? 'no 429'
      : `${c.throttled} × 429 (Retry-After ${c.retryAfterSeconds} s in all)${c.halvings > 0 ? `, lanes halved ${c.halvings}× to ${c.lanesLowest}` : ''}`;
  return [
    `${formatCount(c.requests)} requests, ${bytes(c.bytes)}, ${throttled}`,
    `seats held (estimated): peak ${c.seatsPeak}, ${c.seatSeconds} seat-seconds`,
    level(c),
  ];
}

/** One line for the log: "API cost: 262 requests, 48.1 MiB, no 429; seats held (estimated): ...". */
export function apiCostLine(c: ApiCost): string {
  return `API cost: ${apiCostLines(c).join('; ')}`;
}

/** The tooltip's lines: a heading, then one line each. */
export function apiCostTooltip(c: ApiCost): string {
  return ['Last load, API cost:', ...apiCostLines(c).map((l) => `  ${l}`)].join('\n');
}
