/**
 * An integer as English writes it, thousands separated ("12,345"), without Intl.
 *
 * Why: the first `toLocaleString('en')` of a process sets up ICU's number formatting, 18-27 ms on
 * this machine, and in the extension host that first call came from the log line of a load's first
 * finished list, on the path to the tree's first rows. Guarantee: for every safe integer the text is
 * the same as `n.toLocaleString('en')`; anything else (fractions, NaN, Infinity, beyond 2^53) is
 * handed to toLocaleString as before (and -0, which it writes "-0").
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en');
  const digits = String(Math.abs(n));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3);
  return n < 0 ? '-' + out : out;
}
