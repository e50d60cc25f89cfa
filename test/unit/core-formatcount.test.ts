import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatCount } from '../../src/core/formatCount';

describe('formatCount: integers as toLocaleString("en") writes them, without Intl', () => {
  it('is the same text as toLocaleString("en") for every safe integer', () => {
    fc.assert(
      fc.property(
        fc.maxSafeInteger().map((n) => n),
        (n) => assert.equal(formatCount(n), n.toLocaleString('en')),
      ),
      { numRuns: 5000 },
    );
    // every length of digits, both signs, and the group boundaries
    for (let d = 1; d <= 16; d++) {
      for (const n of [10 ** (d - 1), 10 ** d - 1, -(10 ** (d - 1)), -(10 ** d - 1)]) {
        if (Number.isSafeInteger(n)) assert.equal(formatCount(n), n.toLocaleString('en'), String(n));
      }
    }
    for (const n of [0, -0, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) assert.equal(formatCount(n), n.toLocaleString('en'), String(n));
  });

  it('hands anything else to toLocaleString', () => {
    for (const n of [0.5, -1234.5678, Number.NaN, Infinity, -Infinity, 2 ** 60]) assert.equal(formatCount(n), n.toLocaleString('en'), String(n));
  });
});
