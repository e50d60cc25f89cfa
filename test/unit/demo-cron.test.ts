/** The cron parser of the demo's cronjob controller: the standard 5 fields, macros, and errors. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CronError, parseCron } from '../../src/demo/controllers/cron';

const at = (s: string) => Date.parse(s);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe('parseCron', () => {
  it('finds the next matching minute, strictly after the given time', () => {
    assert.equal(iso(parseCron('* * * * *').next(at('2026-12-01T10:00:30Z'))), '2026-12-01T10:01:00.000Z');
    assert.equal(iso(parseCron('* * * * *').next(at('2026-12-01T10:01:00Z'))), '2026-12-01T10:02:00.000Z');
    assert.equal(iso(parseCron('*/15 * * * *').next(at('2026-12-01T10:14:00Z'))), '2026-12-01T10:15:00.000Z');
    assert.equal(iso(parseCron('5 4 * * *').next(at('2026-12-01T04:05:00Z'))), '2026-12-02T04:05:00.000Z');
    assert.equal(iso(parseCron('0 9-17/4 * * mon-fri').next(at('2026-12-04T17:00:00Z'))), '2026-12-07T09:00:00.000Z');
    assert.equal(iso(parseCron('30 2 1 jan,jul *').next(at('2026-12-01T00:00:00Z'))), '2027-01-01T02:30:00.000Z');
  });

  it('matches either restricted day field, as cron does, and 7 as Sunday', () => {
    // The 13th, or any Friday: the first after Dec 1 2026 (a Tuesday) is Friday Dec 4.
    assert.equal(iso(parseCron('0 0 13 * 5').next(at('2026-12-01T00:00:00Z'))), '2026-12-04T00:00:00.000Z');
    assert.equal(iso(parseCron('0 0 * * 7').next(at('2026-12-01T00:00:00Z'))), '2026-12-06T00:00:00.000Z');
  });

  it('finds the last matching minute at or before the given time', () => {
    assert.equal(iso(parseCron('* * * * *').prev(at('2026-12-01T10:00:30Z'))), '2026-12-01T10:00:00.000Z');
    assert.equal(iso(parseCron('*/15 * * * *').prev(at('2026-12-01T10:14:00Z'))), '2026-12-01T10:00:00.000Z');
    assert.equal(iso(parseCron('5 4 * * *').prev(at('2026-12-01T04:04:59Z'))), '2026-11-30T04:05:00.000Z');
    assert.equal(iso(parseCron('0 9-17/4 * * mon-fri').prev(at('2026-12-07T08:00:00Z'))), '2026-12-04T17:00:00.000Z');
    assert.equal(iso(parseCron('30 2 1 jan,jul *').prev(at('2026-12-01T00:00:00Z'))), '2026-07-01T02:30:00.000Z');
    assert.equal(iso(parseCron('@monthly').prev(at('2026-03-01T00:00:00Z'))), '2026-03-01T00:00:00.000Z');
    assert.equal(parseCron('0 0 31 2 *').prev(at('2026-12-01T00:00:00Z')), undefined);
  });

  it('knows the macros', () => {
    assert.equal(iso(parseCron('@hourly').next(at('2026-12-01T10:00:00Z'))), '2026-12-01T11:00:00.000Z');
    assert.equal(iso(parseCron('@daily').next(at('2026-12-01T10:00:00Z'))), '2026-12-02T00:00:00.000Z');
    assert.equal(iso(parseCron('@weekly').next(at('2026-12-01T10:00:00Z'))), '2026-12-06T00:00:00.000Z');
    assert.equal(iso(parseCron('@yearly').next(at('2026-12-01T10:00:00Z'))), '2027-01-01T00:00:00.000Z');
  });

  it('answers undefined for a date that never comes, and rejects bad schedules by field', () => {
    assert.equal(parseCron('0 0 31 2 *').next(at('2026-12-01T00:00:00Z')), undefined);
    assert.throws(
      () => parseCron('* * * *'),
      (e: unknown) => e instanceof CronError && /exactly 5 fields/.test(e.message),
    );
    assert.throws(() => parseCron('60 * * * *'), /minute: 60 is outside 0-59/);
    assert.throws(() => parseCron('* * * foo *'), /month: "foo" is not a number/);
    assert.throws(() => parseCron('*/0 * * * *'), /minute: step "0"/);
    assert.throws(() => parseCron('5-1 * * * *'), /runs backwards/);
  });
});
