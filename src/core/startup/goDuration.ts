/**
 * Go's time.Duration as its String() writes it ("1m28.512s", "700ms", "2h0m0s", "1.5µs"), which is
 * how the kubelet's messages carry durations ("Successfully pulled image ... in 1m28s ...").
 * Same grammar as Go's time.ParseDuration: an optional sign, then one or more decimal numbers each
 * with a unit (ns, us, µs, μs, ms, s, m, h).
 */
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** Milliseconds of a Go duration string; undefined when it is not one. */
export function parseGoDuration(text: string): number | undefined {
  let s = text.trim();
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return undefined;
  let ms = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const m = PART.exec(s);
    if (!m) return undefined;
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  // Go's resolution is the nanosecond: no more digits than that (float sums add some).
  return (sign * Math.round(ms * 1e6)) / 1e6;
}
