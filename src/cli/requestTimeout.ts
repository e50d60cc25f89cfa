/**
 * kubectl's --request-timeout, read as client-go's clientcmd.ParseTimeout reads it: a whole number
 * of seconds ("0" = no deadline), or a Go duration ("30s", "1m", "1m30s", "500ms", "1.5h"). Returns
 * milliseconds; a value that is neither, or negative, is refused with kubectl's explanation.
 */
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

export const REQUEST_TIMEOUT_HELP = 'a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h); 0 = none';

export function parseRequestTimeout(value: string): number {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  let ms = 0;
  PART.lastIndex = 0;
  let at = 0;
  for (let m = PART.exec(v); m; m = PART.exec(v)) {
    ms += Number(m[1]) * UNIT_MS[m[2]];
    at = PART.lastIndex;
  }
  if (at === 0 || at !== v.length || !Number.isFinite(ms)) throw new Error(`--request-timeout: invalid value "${value}": must be ${REQUEST_TIMEOUT_HELP}`);
  return Math.ceil(ms);
}
