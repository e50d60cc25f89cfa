/**
 * The load's API cost in words (app/load/apiCost.ts): counted figures as counted, seats marked as
 * estimated, and the priority level by name when read, by UID and as a guess when not.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { apiCostLine, apiCostTooltip } from '../../src/app/load/apiCost';
import { factsFrom, guessedFacts } from '../../src/core/loader/apf';
import type { ApiCost } from '../../src/core/loader/loadCost';
import { statusBarText } from '../../src/app/statusText';

const base: ApiCost = {
  requests: 1262,
  bytes: 50_438_144,
  throttled: 0,
  retryAfterSeconds: 0,
  seatsPeak: 24,
  seatSeconds: 310.2,
  listSeats: 8,
  lanesLowest: 16,
  halvings: 0,
};

describe('API cost in words', () => {
  it('a guessed level: UIDs, why it was not read, and the estimate it was taken for', () => {
    const c: ApiCost = { ...base, flowControl: guessedFacts({ flowSchemaUID: 'fs-1', priorityLevelUID: 'pl-1' }, '403 Forbidden') };
    assert.equal(
      apiCostLine(c),
      'API cost: 1,262 requests, 48.1 MiB, no 429; seats held (estimated): peak 24, 310.2 seat-seconds; ' +
        'priority level uid pl-1 (flow schema uid fs-1; not readable: 403 Forbidden), taken as global-default: ~49 of 600 seats, up to 8 per list (estimated)',
    );
  });

  it('a level read by name; 429s with their Retry-After and the halvings', () => {
    const levels = [
      {
        metadata: { name: 'global-default', uid: 'pl' },
        spec: { type: 'Limited', limited: { nominalConcurrencyShares: 20, limitResponse: { queuing: { handSize: 6 } } } },
      },
      { metadata: { name: 'workload-low', uid: 'wl' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 225 } } },
    ];
    const c: ApiCost = {
      ...base,
      throttled: 3,
      retryAfterSeconds: 3,
      halvings: 1,
      lanesLowest: 8,
      flowControl: factsFrom({ flowSchemaUID: 'fs', priorityLevelUID: 'pl' }, levels, [{ metadata: { name: 'global-default', uid: 'fs' } }]),
    };
    const tip = apiCostTooltip(c);
    assert.match(tip, /^Last load, API cost:\n {2}1,262 requests, 48\.1 MiB, 3 × 429 \(Retry-After 3 s in all\), lanes halved 1× to 8\n/);
    assert.match(tip, /priority level global-default \(flow schema global-default\), ~49 of 600 seats, up to 8 per list \(estimated\)$/);
  });

  it('no level reported, and the status bar tooltip carries the cost', () => {
    assert.match(apiCostLine(base), /priority level: none reported/);
    const { tooltip } = statusBarText({ context: 'c', demo: false, objects: 1, sync: 'off', apiCost: apiCostTooltip(base) });
    assert.match(tooltip, /Last load, API cost:\n {2}1,262 requests/);
  });
});
