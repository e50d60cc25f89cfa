/**
 * A parser for the standard 5-field cron schedule CronJobs use (robfig/cron's standard parser, as
 * the cronjob controller): minute hour day-of-month month day-of-week, each `*`, a number, a range
 * `a-b`, a step `*\/n` or `a-b/n`, or a comma list of these; month and weekday names (jan, mon);
 * `?` as `*`; the macros @yearly @annually @monthly @weekly @daily @midnight @hourly. As cron,
 * when both day fields are restricted a day matching either one matches. Times are UTC.
 *
 * Guarantee: parseCron throws a CronError naming the bad field for any other input; next() always
 * terminates (it searches at most 5 years ahead and answers undefined past that).
 */
export class CronError extends Error {}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

interface Field {
  values: Set<number>;
  star: boolean;
}

export interface CronSchedule {
  /** The first matching minute strictly after ms (UTC), or undefined within 5 years. */
  next(ms: number): number | undefined;
  /** The last matching minute at or before ms (UTC), or undefined within 5 years. */
  prev(ms: number): number | undefined;
}

function parseField(src: string, name: string, min: number, max: number, names?: string[]): Field {
  const values = new Set<number>();
  const num = (s: string) => {
    const i = names?.indexOf(s.toLowerCase()) ?? -1;
    if (i >= 0) return i + (names === MONTHS ? 1 : 0);
    if (!/^\d+$/.test(s)) throw new CronError(`${name}: "${s}" is not a number`);
    const n = Number(s);
    if (n < min || n > max) throw new CronError(`${name}: ${n} is outside ${min}-${max}`);
    return n;
  };
  for (const part of src.split(',')) {
    const [range, stepStr, more] = part.split('/');
    if (more !== undefined || range === undefined || range === '') throw new CronError(`${name}: "${part}" is not a valid expression`);
    const step = stepStr === undefined ? 1 : Number(stepStr);
    if (!Number.isInteger(step) || step < 1) throw new CronError(`${name}: step "${stepStr}" must be a positive number`);
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') [lo, hi] = [min, max];
    else if (range.includes('-')) {
      const [a, b] = range.split('-') as [string, string];
      [lo, hi] = [num(a), num(b)];
      if (lo > hi) throw new CronError(`${name}: range "${range}" runs backwards`);
    } else {
      lo = num(range);
      hi = stepStr === undefined ? lo : max;
    }
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return { values, star: src === '*' || src === '?' };
}

export function parseCron(schedule: string): CronSchedule {
  const src = MACROS[schedule.trim().toLowerCase()] ?? schedule.trim();
  const f = src.split(/\s+/);
  if (f.length !== 5) throw new CronError(`expected exactly 5 fields, found ${f.length}: "${schedule}"`);
  const minute = parseField(f[0]!, 'minute', 0, 59);
  const hour = parseField(f[1]!, 'hour', 0, 23);
  const dom = parseField(f[2]!, 'day of month', 1, 31);
  const month = parseField(f[3]!, 'month', 1, 12, MONTHS);
  const dowRaw = parseField(f[4]!.replace(/\b7\b/g, '0'), 'day of week', 0, 6, DAYS);
  const dayMatches = (d: Date) => {
    const a = dom.values.has(d.getUTCDate());
    const b = dowRaw.values.has(d.getUTCDay());
    if (dom.star || dowRaw.star) return a && b;
    return a || b;
  };
  return {
    next(ms) {
      const d = new Date(Math.floor(ms / 60_000) * 60_000 + 60_000);
      const limit = ms + 5 * 366 * 86_400_000;
      while (d.getTime() <= limit) {
        if (!month.values.has(d.getUTCMonth() + 1)) {
          d.setUTCMonth(d.getUTCMonth() + 1, 1);
          d.setUTCHours(0, 0, 0, 0);
          continue;
        }
        if (!dayMatches(d)) {
          d.setUTCDate(d.getUTCDate() + 1);
          d.setUTCHours(0, 0, 0, 0);
          continue;
        }
        if (!hour.values.has(d.getUTCHours())) {
          d.setUTCHours(d.getUTCHours() + 1, 0, 0, 0);
          continue;
        }
        if (!minute.values.has(d.getUTCMinutes())) {
          d.setUTCMinutes(d.getUTCMinutes() + 1, 0, 0);
          continue;
        }
        return d.getTime();
      }
      return undefined;
    },
    prev(ms) {
      const d = new Date(Math.floor(ms / 60_000) * 60_000);
      const limit = ms - 5 * 366 * 86_400_000;
      while (d.getTime() >= limit) {
        if (!month.values.has(d.getUTCMonth() + 1)) {
          d.setUTCDate(0); // the last day of the month before
          d.setUTCHours(23, 59, 0, 0);
          continue;
        }
        if (!dayMatches(d)) {
          d.setUTCDate(d.getUTCDate() - 1);
          d.setUTCHours(23, 59, 0, 0);
          continue;
        }
        if (!hour.values.has(d.getUTCHours())) {
          d.setUTCHours(d.getUTCHours() - 1, 59, 0, 0);
          continue;
        }
        if (!minute.values.has(d.getUTCMinutes())) {
          d.setUTCMinutes(d.getUTCMinutes() - 1, 0, 0);
          continue;
        }
        return d.getTime();
      }
      return undefined;
    },
  };
}
