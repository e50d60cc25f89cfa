/**
 * A uid as four 32-bit words: what kube-apiserver gives every object (a lowercase RFC 4122 UUID,
 * 8-4-4-4-12 hex digits) held as its 128 bits, so a store of 100,000 rows or nodes keeps words in
 * one typed array instead of a 36-character string each for the collector to walk.
 *
 * Guarantee: uidWords(u, w, at) is true exactly for a lowercase UUID, and then uidOfWords(w, at)
 * === u; any other uid (a test's 'u1', an upper-case UUID) is false and writes nothing, so the
 * caller keeps that one as a string.
 */
const DASH = 45;
/** Lowercase hex digits' values by char code; -1 for any other char. */
const HEX = new Int8Array(128).fill(-1);
for (let d = 0; d < 16; d++) HEX['0123456789abcdef'.charCodeAt(d)] = d;

/** A lowercase UUID into words at..at+3 of `w`; false (nothing written) for any other uid. */
export function uidWords(uid: string, w: Uint32Array, at: number): boolean {
  if (typeof uid !== 'string' || uid.length !== 36) return false;
  if (uid.charCodeAt(8) !== DASH || uid.charCodeAt(13) !== DASH || uid.charCodeAt(18) !== DASH || uid.charCodeAt(23) !== DASH) return false;
  const w0 = hexWord(uid, 0, 8, 0);
  const w1 = hexWord(uid, 14, 18, hexWord(uid, 9, 13, 0));
  const w2 = hexWord(uid, 24, 28, hexWord(uid, 19, 23, 0));
  const w3 = hexWord(uid, 28, 36, 0);
  if (w0 < 0 || w1 < 0 || w2 < 0 || w3 < 0) return false;
  w[at] = w0;
  w[at + 1] = w1;
  w[at + 2] = w2;
  w[at + 3] = w3;
  return true;
}

/** The uid whose words uidWords wrote at `at`: one string made from its 36 char codes (a query makes thousands). */
export function uidOfWords(w: Uint32Array, at: number): string {
  const c = CODES;
  let k = 0;
  for (let i = 0; i < 4; i++) {
    const x = w[at + i]!;
    for (let shift = 28; shift >= 0; shift -= 4) {
      if (k === 8 || k === 13 || k === 18 || k === 23) c[k++] = DASH;
      c[k++] = DIGITS[(x >>> shift) & 15]!;
    }
  }
  return String.fromCharCode.apply(null, c as unknown as number[]);
}

const CODES = new Array<number>(36).fill(0);
const DIGITS = Array.from('0123456789abcdef', (d) => d.charCodeAt(0));

/**
 * `acc` (a negative one passed on) followed by the hex digits of s[from, to) as an unsigned word,
 * or -1 when one of them is not a lowercase hex digit.
 */
function hexWord(s: string, from: number, to: number, acc: number): number {
  if (acc < 0) return -1;
  let w = acc;
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k);
    const d = c < 128 ? HEX[c]! : -1;
    if (d < 0) return -1;
    w = w * 16 + d;
  }
  return w;
}
